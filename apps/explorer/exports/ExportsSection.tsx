// The workspace's exports (a project's runs, a dataset's version) with their status and progress
// (one GET /bulk-exports: each export carries the sums of its runs), read again while one is under
// way; "New export" opens the form, as does a dataset preset in the URL.
import { useState } from 'react';
import type { Credentials } from '../core/api.ts';
import { when } from '../core/format.ts';
import { EmptyCard, ListState, ListTable } from '../core/ListState.tsx';
import { linkProps, navigate } from '../core/route.ts';
import { usePolledLoad } from '../core/usePolledLoad.ts';
import { CancelButton } from './CancelButton.tsx';
import { ExportProgress } from './ExportProgress.tsx';
import { ExportedVersion, ExportSource } from './ExportSource.tsx';
import { listExports, type Destination, type ProjectName } from './exportsApi.ts';
import { ExportStatusBadge } from './ExportStatusBadge.tsx';
import { POLL_MS, scheduleText, windowText, type Names } from './exportText.ts';
import { NewExportForm, type DatasetPreset } from './NewExportForm.tsx';
import { useDatasetNames } from './useDatasetNames.ts';

const COLUMNS = ['Status', 'Exported', 'Destination', 'Time window or version', 'Schedule', 'Progress', 'Created', ''];
const UNDER_WAY = new Set(['Created', 'Running', 'IntervalScheduled']);

export function ExportsSection({
  credentials,
  names,
  destinations,
  projects,
  preset = null,
}: {
  credentials: Credentials;
  names: Omit<Names, 'dataset'>;
  destinations: Destination[];
  projects: ProjectName[];
  /** A dataset's version to open the form on (from the dataset page). */
  preset?: DatasetPreset | null;
}) {
  const exports = usePolledLoad(() => listExports(credentials), [credentials.apiKey, credentials.workspaceId], {
    everyMs: POLL_MS,
    keepPolling: (list) => list.some((e) => UNDER_WAY.has(e.status)),
  });
  const datasetName = useDatasetNames(credentials, exports.state === 'done' ? exports.value : []);
  const allNames: Names = { ...names, dataset: datasetName };
  const [creating, setCreating] = useState(preset !== null);
  const noDestination = destinations.length === 0;
  return (
    <>
      <div className="page-head">
        <h2>Bulk exports</h2>
        <button
          type="button"
          className="primary"
          data-testid="new-export"
          onClick={() => {
            if (creating && preset) navigate({ page: 'exports' }, { replace: true });
            setCreating(!creating);
          }}
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
          preset={preset}
          onDone={(created) => {
            setCreating(false);
            exports.refresh();
            // The preset's URL is left behind: back from the export is the list, not the form again.
            if (preset) navigate({ page: 'exports' }, { replace: true });
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
              An export writes a project's runs for a time range, once or every few hours, or a dataset's examples at a
              version, as Parquet files into a bucket of yours.{' '}
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
                  <td className="wrap" data-testid="export-source">
                    <ExportSource e={e} names={allNames} />
                    <div className="muted source-kind">{e.resource === 'examples' ? 'examples' : 'runs'}</div>
                  </td>
                  <td>{names.destination(e.bulk_export_destination_id)}</td>
                  <td className="wrap">
                    {e.resource === 'examples' ? <ExportedVersion credentials={credentials} e={e} /> : windowText(e)}
                  </td>
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
