// A labelled field of the exports page's forms (wide: the whole row of the grid).
import type { ReactNode } from 'react';

export function Field({ label, children, wide }: { label: string; children: ReactNode; wide?: boolean }) {
  return (
    <label className={wide ? 'field wide' : 'field'}>
      <span>{label}</span>
      {children}
    </label>
  );
}
