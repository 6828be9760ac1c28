// The workspace's exports with their status and progress (one GET /bulk-exports: each export carries
// the sums of its runs), read again while one is under way; "New export" opens the form.
import { useState } from 'react';
import type { Credentials } from '../core/api.ts';
import { when } from '../core/format.ts';
import { EmptyCard, ListState, ListTable } from '../core/ListState.tsx';
import { linkProps, navigate } from '../core/route.ts';
import { usePolledLoad } from '../core/usePolledLoad.ts';
import { CancelButton } from './CancelButton.tsx';
import { ExportProgress } from './ExportProgress.tsx';
import { listExports, type Destination, type ProjectName } from './exportsApi.ts';
import { ExportStatusBadge } from './ExportStatusBadge.tsx';
import { POLL_MS, scheduleText, windowText, type Names } from './exportText.ts';
import { NewExportForm } from './NewExportForm.tsx';

const COLUMNS = ['Status', 'Project', 'Destination', 'Time window', 'Schedule', 'Progress', 'Created', ''];
const UNDER_WAY = new Set(['Created', 'Running', 'IntervalScheduled']);

export function ExportsSection({
  credentials,
  names,
  destinations,
  projects,
}: {
  credentials: Credentials;
  names: Names;
  destinations: Destination[];
  projects: ProjectName[];
}) {
  const exports = usePolledLoad(() => listExports(credentials), [credentials.apiKey, credentials.workspaceId], {
    everyMs: POLL_MS,
    keepPolling: (list) => list.some((e) => UNDER_WAY.has(e.status)),
  });
  const [creating, setCreating] = useState(false);
  const noDestination = destinations.length === 0;
  return (
    <>
      <div className="page-head">
        <h2>Bulk exports</h2>
        <button
          type="button"
          className="primary"
          data-testid="new-export"
          onClick={() => setCreating(!creating)}
          disabled={noDestination}
          title={noDestination ? 'Create a destination first' : undefined}
        >
          New export
        </button>
      </div>
      {creating && (
        <NewExportForm
          credentials={credentials}
          destinations={destinations}
          projects={projects}
          onDone={(created) => {
            setCreating(false);
            exports.refresh();
            if (created) navigate({ page: 'exports', exportId: created.id });
          }}
        />
      )}
      <ListState
        load={exports}
        what="exports"
        onRetry={exports.refresh}
        empty={
          <EmptyCard testId="exports-empty" title="No exports yet">
            <p>
              An export writes a project's runs for a time range, once or every few hours, as Parquet files into a
              bucket of yours.{' '}
              {noDestination
                ? 'Create a destination below (a bucket and a key that may write to it), then a new export.'
                : 'Press "New export" to create one.'}
            </p>
          </EmptyCard>
        }
      >
        {(list) => (
          <ListTable testId="exports-table" columns={COLUMNS}>
            <tbody>
              {list.map((e) => (
                <tr key={e.id} data-testid="export-row" data-export-id={e.id}>
                  <td>
                    <a {...linkProps({ page: 'exports', exportId: e.id })} data-testid="export-link">
                      <ExportStatusBadge status={e.status} />
                    </a>
                  </td>
                  <td>{names.project(e.session_id)}</td>
                  <td>{names.destination(e.bulk_export_destination_id)}</td>
                  <td className="wrap">{windowText(e)}</td>
                  <td data-testid="export-schedule">{scheduleText(e)}</td>
                  <td data-testid="export-progress" className="progress-cell">
                    <ExportProgress e={e} />
                  </td>
                  <td className="wrap">{when(e.created_at)}</td>
                  <td>
                    <CancelButton credentials={credentials} e={e} onCancelled={exports.refresh} />
                  </td>
                </tr>
              ))}
            </tbody>
          </ListTable>
        )}
      </ListState>
    </>
  );
}
