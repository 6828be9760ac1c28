// Bulk exports: the workspace's exports (ExportsSection; its form open on a dataset's version when
// the URL names one) and its destinations (DestinationsSection), or one export (ExportDetail) when
// the URL names it. The page reads the
// destinations and the project names once, for the sections' forms and for the names in the lists.
import type { Credentials } from '../core/api.ts';
import { useLoad } from '../core/useLoad.ts';
import { usePolledLoad } from '../core/usePolledLoad.ts';
import { DestinationsSection } from './DestinationsSection.tsx';
import { ExportDetail } from './ExportDetail.tsx';
import { ExportsSection } from './ExportsSection.tsx';
import { listDestinations, listProjectNames } from './exportsApi.ts';
import { POLL_MS, type Names } from './exportText.ts';
import type { DatasetPreset } from './NewExportForm.tsx';
import './exports.css';

export function ExportsPage({
  credentials,
  exportId,
  preset = null,
}: {
  credentials: Credentials;
  exportId: string | null;
  /** A dataset's version to open the new-export form on. */
  preset?: DatasetPreset | null;
}) {
  const workspace = [credentials.apiKey, credentials.workspaceId];
  const destinations = usePolledLoad(() => listDestinations(credentials), workspace, {
    everyMs: POLL_MS,
    keepPolling: () => false,
  });
  const projects = useLoad(() => listProjectNames(credentials), workspace);
  const destinationList = destinations.state === 'done' ? destinations.value : [];
  const projectList = projects.state === 'done' ? projects.value : [];
  const names: Omit<Names, 'dataset'> = {
    destination: (id) => destinationList.find((d) => d.id === id)?.display_name ?? id,
    project: (id) => (id === null ? '' : (projectList.find((p) => p.id === id)?.name ?? id)),
  };
  if (exportId) return <ExportDetail credentials={credentials} exportId={exportId} names={names} />;
  return (
    <section className="exports-page">
      <ExportsSection
        key={preset ? `${preset.datasetId}@${preset.asOf}` : ''}
        credentials={credentials}
        names={names}
        destinations={destinationList}
        projects={projectList}
        preset={preset}
      />
      <DestinationsSection credentials={credentials} load={destinations} />
    </section>
  );
}
