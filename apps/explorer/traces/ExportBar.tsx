// Export of the traces table as a download: the checked rows, or every trace the view matches
// (its range, filter and order), paged through POST /api/v2/traces/query a hundred at a time
// with the root runs' inputs, outputs, error and metadata, up to EXPORT_CAP traces.
import { useState } from 'react';
import type { ApiError, Credentials } from '../core/api.ts';
import { EXPORT_SELECTS, exportText, type ExportFormat } from './exportRows.ts';
import { queryTraces, type TraceRow, type TracesQuery } from './tracesApi.ts';
import { saveFile } from '../core/saveFile.ts';

export const EXPORT_CAP = 10_000;

type Progress =
  | { state: 'idle' }
  | { state: 'running'; rows: number }
  | { state: 'done'; rows: number; capped: boolean }
  | { state: 'error'; message: string };

/** Every trace of `query`, page after page, at most EXPORT_CAP. */
async function collect(
  credentials: Credentials,
  query: TracesQuery,
  onRows: (n: number) => void,
): Promise<{ rows: TraceRow[]; capped: boolean }> {
  const rows: TraceRow[] = [];
  let cursor: string | null = null;
  do {
    const page: { rows: TraceRow[]; next: string | null } = await queryTraces(credentials, {
      ...query,
      selects: EXPORT_SELECTS,
      page_size: 100,
      ...(cursor ? { cursor } : {}),
    });
    rows.push(...page.rows);
    onRows(rows.length);
    cursor = page.next;
  } while (cursor && rows.length < EXPORT_CAP);
  return { rows: rows.slice(0, EXPORT_CAP), capped: cursor !== null || rows.length > EXPORT_CAP };
}

function download(text: string, mime: string, fileName: string): void {
  saveFile(new Blob([text], { type: mime }), fileName);
}

export function ExportBar(props: {
  credentials: Credentials;
  request: TracesQuery;
  selected: string[];
  projectId: string;
  onClearSelection: () => void;
}) {
  const { credentials, request, selected, projectId, onClearSelection } = props;
  const [format, setFormat] = useState<ExportFormat>('jsonl');
  const [progress, setProgress] = useState<Progress>({ state: 'idle' });

  const run = async (which: 'selected' | 'all') => {
    const { cursor: _page, page_size: _size, ...view } = request;
    // The checked rows by id, wherever they are (another page, another range); else the whole view.
    const query: TracesQuery =
      which === 'selected'
        ? {
            project_id: projectId,
            min_start_time: new Date(0).toISOString(),
            trace_ids: selected,
            sort_by: view.sort_by,
            sort_order: view.sort_order,
          }
        : view;
    setProgress({ state: 'running', rows: 0 });
    try {
      const { rows, capped } = await collect(credentials, query, (n) => setProgress({ state: 'running', rows: n }));
      const { text, mime } = exportText(rows, format);
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      download(text, mime, `traces-${which}-${stamp}.${format}`);
      setProgress({ state: 'done', rows: rows.length, capped });
    } catch (err) {
      setProgress({ state: 'error', message: (err as ApiError).message });
    }
  };

  const busy = progress.state === 'running';
  return (
    <div className="export-bar" data-testid="export-bar">
      <label>
        Export as{' '}
        <select data-testid="export-format" value={format} onChange={(e) => setFormat(e.target.value as ExportFormat)}>
          <option value="jsonl">JSONL</option>
          <option value="csv">CSV</option>
        </select>
      </label>
      <button
        type="button"
        className="ghost"
        data-testid="export-selected"
        disabled={busy || selected.length === 0}
        onClick={() => void run('selected')}
      >
        Selected ({selected.length})
      </button>
      {selected.length > 0 && (
        <button type="button" className="link-button" data-testid="clear-selection" onClick={onClearSelection}>
          clear
        </button>
      )}
      <button
        type="button"
        className="ghost"
        data-testid="export-all"
        disabled={busy}
        onClick={() => void run('all')}
        title={`Every trace matching this view, at most ${EXPORT_CAP.toLocaleString('en-US')}`}
      >
        All matching (up to {EXPORT_CAP.toLocaleString('en-US')})
      </button>
      <span className="export-progress" data-testid="export-progress" role="status">
        {progress.state === 'running' && `Exporting… ${progress.rows.toLocaleString('en-US')} traces read`}
        {progress.state === 'done' &&
          `Exported ${progress.rows.toLocaleString('en-US')} traces${progress.capped ? ` (stopped at the cap of ${EXPORT_CAP.toLocaleString('en-US')})` : ''}`}
        {progress.state === 'error' && <span className="error">Export failed: {progress.message}</span>}
      </span>
    </div>
  );
}
