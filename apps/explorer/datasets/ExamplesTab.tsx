// A dataset's examples at a version: the version (latest, or one of its versions newest first
// with their tags) and the split in the URL, fifty examples a page (the API's offset and limit),
// each example's inputs, reference outputs and metadata as compact JSON that opens, its splits as
// chips; "Tag this version" (PUT /datasets/{id}/tags) and "Export as Parquet" (the exports page's
// form, on this version).
import { useState } from 'react';
import type { Credentials } from '../core/api.ts';
import { ago, count } from '../core/format.ts';
import { EmptyCard, ListState, ListTable, LoadError, type Column } from '../core/ListState.tsx';
import { linkProps, navigate, type Route } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import type { Dataset } from './datasetsApi.ts';
import { EXAMPLES_PAGE, listExamples, listSplits, listVersions, type Example } from './examplesApi.ts';
import { JsonCell } from './JsonCell.tsx';
import { TagVersionDialog } from './TagVersionDialog.tsx';
import { findVersion, VersionSelect, versionTime } from './VersionSelect.tsx';

type ExamplesRoute = Extract<Route, { page: 'dataset' }>;

const COLUMNS: Column[] = [
  'Example',
  'Inputs',
  'Reference outputs',
  'Metadata',
  'Splits',
  { label: 'Changed', title: 'The version the example is at: when it was last written' },
];

export function ExamplesTab({
  credentials,
  dataset,
  route,
}: {
  credentials: Credentials;
  dataset: Dataset;
  route: ExamplesRoute;
}) {
  const { asOf, split, offset } = route;
  const [versionsRead, setVersionsRead] = useState(0);
  const [tagging, setTagging] = useState(false);
  const who = [credentials.apiKey, credentials.workspaceId, dataset.id];
  const versions = useLoad(() => listVersions(credentials, dataset.id), [...who, versionsRead]);
  const splits = useLoad(() => listSplits(credentials, dataset.id, asOf), [...who, asOf]);
  const page = useLoad(
    () => listExamples(credentials, dataset.id, { asOf, split, offset }),
    [...who, asOf, split, offset],
  );
  const go = (change: Partial<ExamplesRoute>) => navigate({ ...route, offset: 0, ...change });

  const versionList = versions.state === 'done' ? versions.value : [];
  const atLatest = !asOf || asOf === 'latest';
  const current = atLatest ? versionList[0] : findVersion(versionList, asOf);
  // The dataset's count is of its newest version: a page of another version or split has no total.
  const total = atLatest && !split ? dataset.example_count : null;

  return (
    <>
      <div className="dataset-toolbar">
        <VersionSelect
          versions={versionList}
          value={asOf}
          onChange={(v) => go({ asOf: v })}
          testId="version-select"
          label="Version"
        />
        <label className="field-inline">
          <span className="muted">Split</span>
          <select
            className="range-select"
            data-testid="split-select"
            value={split ?? ''}
            onChange={(e) => go({ split: e.target.value || null })}
          >
            <option value="">All splits</option>
            {split && !(splits.state === 'done' && splits.value.includes(split)) && (
              <option value={split}>{split}</option>
            )}
            {splits.state === 'done' &&
              splits.value.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
          </select>
        </label>
        <span className="version-tags" data-testid="version-tags">
          {current?.tags.map((t) => (
            <span key={t} className="tag">
              {t}
            </span>
          ))}
        </span>
        <button
          type="button"
          className="ghost"
          data-testid="tag-version"
          disabled={!current}
          title={current ? `Tag the version of ${versionTime(current.as_of)}` : 'The dataset has no version yet'}
          onClick={() => setTagging(true)}
        >
          Tag this version
        </button>
        <a
          className="ghost button-link"
          data-testid="export-parquet"
          title="Write the examples of this version as Parquet to a bucket (Bulk exports)"
          {...linkProps({ page: 'exports', exportDataset: { datasetId: dataset.id, asOf } })}
        >
          Export as Parquet
        </a>
      </div>
      {versions.state === 'error' && <LoadError error={versions.error} onRetry={versions.refresh} />}
      <ListState
        load={page}
        what="examples"
        onRetry={page.refresh}
        isEmpty={(v) => v.examples.length === 0}
        empty={<NoExamples dataset={dataset} split={split} atLatest={atLatest} offset={offset} />}
      >
        {({ examples, more }) => (
          <>
            <ListTable testId="examples-table" columns={COLUMNS} className="table examples-table">
              <tbody>
                {examples.map((e) => (
                  <ExampleRow key={e.id} example={e} />
                ))}
              </tbody>
            </ListTable>
            <div className="pager">
              <span className="muted pager-note" data-testid="examples-range">
                Examples {count(offset + 1)}–{count(offset + examples.length)}
                {total != null && ` of ${count(total)}`}
              </span>
              <button
                type="button"
                className="ghost"
                data-testid="examples-previous"
                disabled={offset === 0}
                onClick={() => go({ offset: Math.max(0, offset - EXAMPLES_PAGE) })}
              >
                ← Previous
              </button>
              <button
                type="button"
                className="ghost"
                data-testid="examples-next"
                disabled={!more}
                onClick={() => go({ offset: offset + EXAMPLES_PAGE })}
              >
                Next →
              </button>
            </div>
          </>
        )}
      </ListState>
      {tagging && current && (
        <TagVersionDialog
          credentials={credentials}
          datasetId={dataset.id}
          version={current}
          onCancel={() => setTagging(false)}
          onDone={() => {
            setTagging(false);
            setVersionsRead((n) => n + 1);
          }}
        />
      )}
    </>
  );
}

function ExampleRow({ example: e }: { example: Example }) {
  const { dataset_split: splits = [], ...metadata } = e.metadata;
  return (
    <tr data-testid="example-row" data-example-id={e.id}>
      <td className="example-id">
        <code title={e.id}>{e.id.slice(0, 8)}</code>
        <div className="muted" title={e.created_at}>
          created {ago(e.created_at)}
        </div>
      </td>
      <td className="json-column">
        <JsonCell value={e.inputs} testId="example-inputs" />
      </td>
      <td className="json-column">
        <JsonCell value={e.outputs} testId="example-outputs" />
      </td>
      <td className="json-column">
        <JsonCell value={metadata} testId="example-metadata" />
      </td>
      <td data-testid="example-splits">
        {splits.map((s) => (
          <span key={s} className="tag" data-testid="split-chip">
            {s}
          </span>
        ))}
      </td>
      <td title={e.modified_at}>{ago(e.modified_at)}</td>
    </tr>
  );
}

function NoExamples({
  dataset,
  split,
  atLatest,
  offset,
}: {
  dataset: Dataset;
  split: string | null;
  atLatest: boolean;
  offset: number;
}) {
  if (offset > 0)
    return (
      <p className="muted" data-testid="examples-empty">
        No examples past the {count(offset)}th.
      </p>
    );
  if (split || !atLatest)
    return (
      <p className="muted" data-testid="examples-empty">
        {['No examples', split && `in the split “${split}”`, !atLatest && 'at this version'].filter(Boolean).join(' ')}.
      </p>
    );
  const origin = location.origin;
  return (
    <EmptyCard testId="examples-empty" title="No examples yet">
      <p>
        Add examples from the langsmith client, or make a dataset from a CSV file with Upload CSV on the datasets page:
      </p>
      <pre>{`import { Client } from "langsmith";
const client = new Client({ apiUrl: "${origin}", apiKey: "<your API key>" });
await client.createExamples({
  datasetId: "${dataset.id}",
  inputs: [{ question: "What is 2 + 2?" }],
  outputs: [{ answer: "4" }],
});`}</pre>
    </EmptyCard>
  );
}
