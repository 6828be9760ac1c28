// One export: its facts and progress, cancel, and its runs with their errors; both read again while
// anything is under way.
import type { Credentials } from '../core/api.ts';
import { when } from '../core/format.ts';
import { ListState, LoadState } from '../core/ListState.tsx';
import { linkProps } from '../core/route.ts';
import { usePolledLoad } from '../core/usePolledLoad.ts';
import { CancelButton } from './CancelButton.tsx';
import { ExportProgress } from './ExportProgress.tsx';
import { ExportRunsTable } from './ExportRunsTable.tsx';
import { FINAL_STATUSES, getExport, listExportRuns, type BulkExport } from './exportsApi.ts';
import { ExportStatusBadge } from './ExportStatusBadge.tsx';
import { POLL_MS, scheduleText, windowText, type Names } from './exportText.ts';

const running = (e: BulkExport) => !FINAL_STATUSES.has(e.status);

export function ExportDetail({
  credentials,
  exportId,
  names,
}: {
  credentials: Credentials;
  exportId: string;
  names: Names;
}) {
  const inputs = [credentials.apiKey, credentials.workspaceId, exportId];
  const e = usePolledLoad(() => getExport(credentials, exportId), inputs, { everyMs: POLL_MS, keepPolling: running });
  const runs = usePolledLoad(() => listExportRuns(credentials, exportId), inputs, {
    everyMs: POLL_MS,
    keepPolling: (list) => e.state !== 'done' || running(e.value) || list.some((r) => !FINAL_STATUSES.has(r.status)),
  });
  return (
    <section className="exports-page">
      <nav className="crumbs">
        <a {...linkProps({ page: 'exports' })}>Bulk exports</a> / <span>Export {exportId.slice(0, 8)}</span>
      </nav>
      <LoadState load={e} what="the export" onRetry={e.refresh}>
        {(value) => (
          <div className="card export-detail" data-testid="export-detail">
            <header>
              <ExportStatusBadge status={value.status} />
              <h2>{names.project(value.session_id)}</h2>
              <span className="spacer" />
              <CancelButton
                credentials={credentials}
                e={value}
                onCancelled={() => {
                  e.refresh();
                  runs.refresh();
                }}
              />
            </header>
            <dl className="facts">
              <dt>Destination</dt>
              <dd>{names.destination(value.bulk_export_destination_id)}</dd>
              <dt>Time window</dt>
              <dd>{windowText(value)}</dd>
              <dt>Schedule</dt>
              <dd data-testid="export-schedule">{scheduleText(value)}</dd>
              <dt>Format</dt>
              <dd>
                {value.format} ({value.format_version}), {value.compression}
              </dd>
              <dt>Filter</dt>
              <dd>{value.filter ? <code>{value.filter}</code> : 'every run'}</dd>
              <dt>Progress</dt>
              <dd data-testid="export-progress" className="progress-cell">
                <ExportProgress e={value} />
              </dd>
              <dt>Created</dt>
              <dd>{when(value.created_at)}</dd>
              <dt>Finished</dt>
              <dd>{when(value.finished_at)}</dd>
            </dl>
          </div>
        )}
      </LoadState>
      <h3 className="section-title">Runs</h3>
      <ListState
        load={runs}
        what="runs"
        onRetry={runs.refresh}
        empty={
          <p className="muted" data-testid="runs-empty">
            No runs yet: a window's run is created once the window has ended (plus a few minutes for late traces), one
            run per UTC day.
          </p>
        }
      >
        {(list) => <ExportRunsTable runs={list} />}
      </ListState>
    </section>
  );
}
