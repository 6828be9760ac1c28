// A JSON value in a table cell: one line of compact JSON, cut at the cell's width, that opens into
// the indented, coloured JSON (the run view's PrettyJson) and closes again.
import { useState } from 'react';
import { PrettyJson } from '../trace/Payload.tsx';
import '../trace/trace.css';

/** Compact JSON longer than this is cut (the cell shows less anyway). */
const MAX_COMPACT = 400;

export function JsonCell({ value, testId }: { value: unknown; testId?: string }) {
  const [open, setOpen] = useState(false);
  const empty = value == null || (typeof value === 'object' && Object.keys(value).length === 0);
  if (empty)
    return (
      <span className="muted" data-testid={testId}>
        —
      </span>
    );
  const compact = JSON.stringify(value) ?? String(value);
  return (
    <div className={open ? 'json-cell open' : 'json-cell'} data-testid={testId}>
      <button
        type="button"
        className="json-toggle"
        aria-expanded={open}
        title={open ? 'Collapse' : 'Expand'}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="json-caret" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        {open ? (
          <span className="muted">JSON</span>
        ) : (
          <code className="json-compact">
            {compact.length > MAX_COMPACT ? `${compact.slice(0, MAX_COMPACT)}…` : compact}
          </code>
        )}
      </button>
      {open && <PrettyJson value={value} />}
    </div>
  );
}
