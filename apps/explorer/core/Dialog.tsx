// A modal dialog of the explorer's pages (projects, datasets): a titled card over the page, with
// Cancel and the dialog's own action; Escape or a click outside cancels.
import { useEffect, type ReactNode } from 'react';
import { ApiError } from './api.ts';

/** What a dialog shows of a failed call: the API's error, or the thrown value in words. */
export const asApiError = (err: unknown): ApiError =>
  err instanceof ApiError ? err : new ApiError(0, 'ERROR', String(err));

export function Buttons({ onCancel, children }: { onCancel: () => void; children: ReactNode }) {
  return (
    <div className="dialog-buttons">
      <button type="button" className="ghost" data-testid="dialog-cancel" onClick={onCancel}>
        Cancel
      </button>
      {children}
    </div>
  );
}

/** A modal over the page: Escape or a click outside cancels. */
export function Dialog({ title, onCancel, children }: { title: string; onCancel: () => void; children: ReactNode }) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onCancel();
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [onCancel]);
  return (
    <div className="dialog-backdrop" onMouseDown={onCancel}>
      <div
        className="dialog card"
        role="dialog"
        aria-modal="true"
        aria-label={title}
        data-testid="dialog"
        onMouseDown={(e) => e.stopPropagation()}
      >
        <h3>{title}</h3>
        {children}
      </div>
    </div>
  );
}
