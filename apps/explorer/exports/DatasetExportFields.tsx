// The new-export form's fields for a dataset's version: the dataset (searched by name) and the
// version — Latest, or one of its versions newest first with their tags.
import type { Credentials } from '../core/api.ts';
import { LoadError } from '../core/ListState.tsx';
import { useLoad } from '../core/useLoad.ts';
import { DatasetPicker, type DatasetChoice } from '../datasets/DatasetPicker.tsx';
import { listVersions } from '../datasets/examplesApi.ts';
import { LATEST, VersionOptions, versionOption } from '../datasets/VersionSelect.tsx';
import { Field } from './Field.tsx';

export function DatasetExportFields({
  credentials,
  choice,
  asOf,
  onAsOf,
}: {
  credentials: Credentials;
  choice: DatasetChoice;
  /** A time or tag; null for the latest. */
  asOf: string | null;
  onAsOf: (asOf: string | null) => void;
}) {
  const datasetId = choice.target?.id ?? null;
  const versions = useLoad(
    () => (datasetId ? listVersions(credentials, datasetId) : Promise.resolve([])),
    [credentials.apiKey, credentials.workspaceId, datasetId],
  );
  const versionList = versions.state === 'done' ? versions.value : [];
  const selected = versionOption(versionList, asOf);
  return (
    <>
      <div className="field dataset-field" data-testid="export-dataset-field">
        <DatasetPicker choice={choice} />
      </div>
      <div className="version-fields">
        <Field label="Version">
          <select
            data-testid="export-as-of"
            value={selected}
            disabled={!datasetId}
            onChange={(e) => onAsOf(e.target.value === LATEST ? null : e.target.value)}
          >
            <VersionOptions versions={versionList} selected={selected} />
          </select>
        </Field>
        {versions.state === 'error' && <LoadError error={versions.error} onRetry={versions.refresh} />}
        <p className="muted">
          The version is pinned when the export is created (Latest: the newest then); each example is written as it was
          at that version.
        </p>
      </div>
    </>
  );
}
