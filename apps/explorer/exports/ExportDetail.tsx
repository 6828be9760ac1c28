// One export: what it writes (a project's runs over a window, a dataset's version), its facts and
// progress, cancel, and its runs with their errors; both read again while anything is under way.
import type { Credentials } from '../core/api.ts';
import { when } from '../core/format.ts';
import { ListState, LoadState } from '../core/ListState.tsx';
import { linkProps } from '../core/route.ts';
import { usePolledLoad } from '../core/usePolledLoad.ts';
import { CancelButton } from './CancelButton.tsx';
import { ExportProgress } from './ExportProgress.tsx';
import { ExportRunsTable } from './ExportRunsTable.tsx';
import { ExportedVersion, ExportSource } from './ExportSource.tsx';
import { FINAL_STATUSES, getExport, listExportRuns, type BulkExport } from './exportsApi.ts';
import { ExportStatusBadge } from './ExportStatusBadge.tsx';
import { POLL_MS, scheduleText, windowText, type Names } from './exportText.ts';
import { useDatasetNames } from './useDatasetNames.ts';

const running = (e: BulkExport) => !FINAL_STATUSES.has(e.status);

export function ExportDetail({
  credentials,
  exportId,
  names,
}: {
  credentials: Credentials;
  exportId: string;
  names: Omit<Names, 'dataset'>;
}) {
  const inputs = [credentials.apiKey, credentials.workspaceId, exportId];
  const e = usePolledLoad(() => getExport(credentials, exportId), inputs, { everyMs: POLL_MS, keepPolling: running });
  const runs = usePolledLoad(() => listExportRuns(credentials, exportId), inputs, {
    everyMs: POLL_MS,
    keepPolling: (list) => e.state !== 'done' || running(e.value) || list.some((r) => !FINAL_STATUSES.has(r.status)),
  });
  const datasetName = useDatasetNames(credentials, e.state === 'done' ? [e.value] : []);
  const allNames: Names = { ...names, dataset: datasetName };
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
              <h2>
                <ExportSource e={value} names={allNames} />
              </h2>
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
              {value.resource === 'examples' ? (
                <>
                  <dt>Exported</dt>
                  <dd>the dataset's examples</dd>
                  <dt>Version</dt>
                  <dd>
                    <ExportedVersion credentials={credentials} e={value} bare />
                  </dd>
                </>
              ) : (
                <>
                  <dt>Exported</dt>
                  <dd>the project's runs</dd>
                  <dt>Time window</dt>
                  <dd>{windowText(value)}</dd>
                </>
              )}
              <dt>Schedule</dt>
              <dd data-testid="export-schedule">{scheduleText(value)}</dd>
              <dt>Format</dt>
              <dd>
                {value.format} ({value.format_version}), {value.compression}
              </dd>
              {value.resource === 'runs' && (
                <>
                  <dt>Filter</dt>
                  <dd>{value.filter ? <code>{value.filter}</code> : 'every run'}</dd>
                </>
              )}
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
            {e.state === 'done' && e.value.resource === 'examples'
              ? 'No run yet: an export of a dataset’s version has one, created with the export.'
              : 'No runs yet: a window’s run is created once the window has ended (plus a few minutes for late traces), one run per UTC day.'}
          </p>
        }
      >
        {(list) => <ExportRunsTable runs={list} ofVersion={e.state === 'done' && e.value.resource === 'examples'} />}
      </ListState>
    </section>
  );
}
