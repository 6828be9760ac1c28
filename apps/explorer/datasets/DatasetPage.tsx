// One dataset: its head (name, type, size, tabs) read once, and the tab the URL names: its
// examples at a version, what changed between two versions, or its experiments.
import type { Credentials } from '../core/api.ts';
import type { DatasetTab, Route } from '../core/route.ts';
import { LoadState } from '../core/ListState.tsx';
import { useLoad } from '../core/useLoad.ts';
import { DatasetHeader } from './DatasetHeader.tsx';
import { getDataset } from './datasetsApi.ts';
import { ExamplesTab } from './ExamplesTab.tsx';
import { ExperimentsTab } from './ExperimentsTab.tsx';
import { VersionsTab } from './VersionsTab.tsx';
import './datasets.css';

export type DatasetRoute = Extract<Route, { page: 'dataset' | 'datasetDiff' | 'datasetExperiments' }>;

const TAB_OF: Record<DatasetRoute['page'], DatasetTab> = {
  dataset: 'examples',
  datasetDiff: 'diff',
  datasetExperiments: 'experiments',
};

export function DatasetPage({ credentials, route }: { credentials: Credentials; route: DatasetRoute }) {
  const { datasetId } = route;
  const dataset = useLoad(
    () => getDataset(credentials, datasetId),
    [credentials.apiKey, credentials.workspaceId, datasetId],
  );
  return (
    <section>
      <DatasetHeader dataset={dataset} datasetId={datasetId} tab={TAB_OF[route.page]} />
      <LoadState load={dataset} what="the dataset" onRetry={dataset.refresh}>
        {(d) =>
          route.page === 'dataset' ? (
            <ExamplesTab credentials={credentials} dataset={d} route={route} />
          ) : route.page === 'datasetDiff' ? (
            <VersionsTab credentials={credentials} datasetId={d.id} route={route} />
          ) : (
            <ExperimentsTab credentials={credentials} datasetId={d.id} />
          )
        }
      </LoadState>
    </section>
  );
}
