// An export's runs (one per window and UTC day): status, range, attempt, what each wrote, and the
// error of every failed attempt.
import { count, dash, when } from '../core/format.ts';
import { ListTable, type Column } from '../core/ListState.tsx';
import type { ExportRun } from './exportsApi.ts';
import { ExportStatusBadge } from './ExportStatusBadge.tsx';

const COLUMNS: Column[] = [
  'Status',
  'Range',
  { label: 'Attempt', num: true },
  { label: 'Rows', num: true },
  { label: 'Files', num: true },
  { label: 'Bytes', num: true },
  'Finished',
  'Errors',
];

export function ExportRunsTable({ runs }: { runs: ExportRun[] }) {
  return (
    <ListTable testId="runs-table" columns={COLUMNS}>
      <tbody>
        {runs.map((r) => (
          <tr key={r.id} data-testid="run-row">
            <td>
              <ExportStatusBadge status={r.status} />
            </td>
            <td title={r.metadata.result.export_path}>
              {when(r.start_time)} → {when(r.end_time)}
            </td>
            <td className="num">{r.retry_number + 1}</td>
            <td className="num" data-testid="run-rows">
              {count(r.metadata.result.rows_written)}
            </td>
            <td className="num">{count(r.metadata.result.exported_files.length)}</td>
            <td className="num">{count(r.metadata.result.bytes_written)}</td>
            <td>{when(r.finished_at)}</td>
            <td className="run-errors">
              {Object.keys(r.errors).length === 0
                ? dash
                : Object.entries(r.errors).map(([attempt, text]) => (
                    <div key={attempt} className="bad" data-testid="run-error">
                      {attempt.replace('retry_', 'attempt ')}: {text}
                    </div>
                  ))}
            </td>
          </tr>
        ))}
      </tbody>
    </ListTable>
  );
}
