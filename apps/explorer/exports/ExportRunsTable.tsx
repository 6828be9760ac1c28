// An export's runs (one per window and UTC day; one for a dataset's version): status, range or
// version, attempt, what each wrote, and the error of every failed attempt.
import { count, dash, when } from '../core/format.ts';
import { ListTable, type Column } from '../core/ListState.tsx';
import type { ExportRun } from './exportsApi.ts';
import { versionTime } from '../datasets/VersionSelect.tsx';
import { ExportStatusBadge } from './ExportStatusBadge.tsx';

const columns = (ofVersion: boolean): Column[] => [
  'Status',
  ofVersion ? 'Version' : 'Range',
  { label: 'Attempt', num: true },
  { label: 'Rows', num: true },
  { label: 'Files', num: true },
  { label: 'Bytes', num: true },
  'Finished',
  'Errors',
];

/** `ofVersion`: the runs of an examples export, whose range is the one version it reads. */
export function ExportRunsTable({ runs, ofVersion = false }: { runs: ExportRun[]; ofVersion?: boolean }) {
  return (
    <ListTable testId="runs-table" columns={columns(ofVersion)}>
      <tbody>
        {runs.map((r) => (
          <tr key={r.id} data-testid="run-row">
            <td>
              <ExportStatusBadge status={r.status} />
            </td>
            <td title={r.metadata.result.export_path}>
              {ofVersion ? versionTime(r.start_time) : `${when(r.start_time)} → ${when(r.end_time)}`}
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
