// An export's progress (the sums of its runs): runs done of planned with a bar, rows and files
// written, failed runs, and the last error (while retrying, or the one it failed with).
import { count } from '../core/format.ts';
import { FINAL_STATUSES, type BulkExport } from './exportsApi.ts';

export function ExportProgress({ e }: { e: BulkExport }) {
  const p = e.progress;
  const runs =
    p.runs_planned === null
      ? `${count(p.runs_completed)} runs done`
      : `${count(p.runs_completed)}/${count(p.runs_planned)} runs`;
  const ratio = p.runs_planned ? p.runs_completed / p.runs_planned : null;
  return (
    <>
      {ratio !== null && (
        <span className="bar" aria-hidden="true">
          <span style={{ width: `${Math.round(ratio * 100)}%` }} />
        </span>
      )}
      <span>
        {runs} · {count(p.rows_written)} rows · {count(p.files_written)} {p.files_written === 1 ? 'file' : 'files'}
        {p.runs_failed > 0 && <span className="bad"> · {p.runs_failed} failed</span>}
      </span>
      {p.last_error && !FINAL_STATUSES.has(e.status) && (
        <span className="last-error" title={p.last_error}>
          retrying after: {p.last_error}
        </span>
      )}
      {p.last_error && (e.status === 'Failed' || e.status === 'TimedOut') && (
        <span className="last-error" title={p.last_error}>
          {p.last_error}
        </span>
      )}
    </>
  );
}
