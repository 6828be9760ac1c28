// What an export writes, as the list and the detail show it: a project (its runs), or a dataset
// linked to its page at the version exported (its examples); and, for a dataset, that version:
// its time and the tags naming it.
import type { Credentials } from '../core/api.ts';
import { linkProps } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import { versionTime } from '../datasets/VersionSelect.tsx';
import { getDatasetVersion, type BulkExport } from './exportsApi.ts';
import type { Names } from './exportText.ts';

export function ExportSource({ e, names }: { e: BulkExport; names: Names }) {
  if (e.resource === 'examples' && e.dataset_id)
    return (
      <a
        data-testid="export-dataset"
        title="The dataset at the version exported"
        {...linkProps({ page: 'dataset', datasetId: e.dataset_id, asOf: e.as_of, split: null, offset: 0 })}
      >
        {names.dataset(e.dataset_id)}
      </a>
    );
  return <span data-testid="export-project">{names.project(e.session_id)}</span>;
}

/** The version an examples export read (pinned when it was created), with its tags once read; `bare`: without "version". */
export function ExportedVersion({ credentials, e, bare }: { credentials: Credentials; e: BulkExport; bare?: boolean }) {
  const { dataset_id: datasetId, as_of: asOf } = e;
  const version = useLoad(
    () => (datasetId && asOf ? getDatasetVersion(credentials, datasetId, asOf) : Promise.resolve(null)),
    [credentials.apiKey, credentials.workspaceId, datasetId, asOf],
  );
  // A version with no write at or before it (an empty dataset) has no tags: the time alone.
  const tags = version.state === 'done' && version.value?.as_of === asOf ? version.value.tags : [];
  return (
    <span data-testid="export-version">
      {bare ? '' : 'version '}
      {asOf ? versionTime(asOf) : 'latest'}
      {tags.map((t) => (
        <span key={t} className="tag version-tag" data-testid="export-version-tag">
          {t}
        </span>
      ))}
    </span>
  );
}
