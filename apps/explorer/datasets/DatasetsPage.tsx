// Datasets: every dataset of the workspace with its type, how many examples it holds and how many
// experiments ran against it, searched by name in the URL (by the API: name_contains); created
// (empty, or uploaded from a CSV file), edited and deleted (after a confirmation naming it); each
// opens its own page. A hundred at a time, "Show more" reading the next hundred.
import { useState } from 'react';
import type { Credentials } from '../core/api.ts';
import { ago, count } from '../core/format.ts';
import { EmptyCard, ListState, ListTable, type Column, ShowMore } from '../core/ListState.tsx';
import { datasetTabRoute, linkProps, navigate } from '../core/route.ts';
import { usePagedLoad, useSettledSearch } from '../core/usePagedLoad.ts';
import { DatasetDialog, type DatasetDialogState } from './DatasetDialogs.tsx';
import { TYPE_LABELS } from './DatasetHeader.tsx';
import { DATASETS_PAGE, listDatasets } from './datasetsApi.ts';
import { UploadCsvDialog } from './UploadCsvDialog.tsx';
import './datasets.css';

const COLUMNS: Column[] = [
  'Name',
  'Type',
  { label: 'Examples', num: true },
  { label: 'Experiments', num: true, title: 'Projects run against the dataset' },
  'Last experiment',
  'Modified',
  { label: '', ariaLabel: 'Actions' },
];

export function DatasetsPage({ credentials, search }: { credentials: Credentials; search: string }) {
  const [version, setVersion] = useState(0);
  const [dialog, setDialog] = useState<DatasetDialogState | null>(null);
  const [uploading, setUploading] = useState(false);
  const query = useSettledSearch(search);
  const load = usePagedLoad(
    async (offset) => ({ items: await listDatasets(credentials, offset, query) }),
    DATASETS_PAGE,
    [credentials.apiKey, credentials.workspaceId, query, version],
  );
  const changed = () => {
    setDialog(null);
    setVersion((v) => v + 1);
  };

  return (
    <section>
      <div className="page-head">
        <h2>Datasets</h2>
        <div className="page-actions">
          <input
            className="search"
            data-testid="dataset-search"
            type="search"
            placeholder="Search datasets by name"
            value={search}
            onChange={(e) => navigate({ page: 'datasets', search: e.target.value }, { replace: true })}
          />
          <button type="button" className="ghost" data-testid="dataset-upload" onClick={() => setUploading(true)}>
            Upload CSV
          </button>
          <button
            type="button"
            className="primary"
            data-testid="dataset-new"
            onClick={() => setDialog({ kind: 'create' })}
          >
            New dataset
          </button>
        </div>
      </div>
      <ListState
        load={load}
        what="datasets"
        onRetry={load.refresh}
        isEmpty={(v) => v.items.length === 0}
        empty={
          query ? (
            <p className="muted" data-testid="datasets-no-match">
              No dataset name contains “{query}”.
            </p>
          ) : (
            <EmptyState />
          )
        }
      >
        {({ items: datasets, more }) => (
          <>
            <ListTable testId="datasets-table" columns={COLUMNS}>
              <tbody>
                {datasets.map((d) => (
                  <tr key={d.id} data-testid="dataset-row" data-dataset-id={d.id}>
                    <td>
                      <a data-testid="dataset-name" {...linkProps(datasetTabRoute(d.id, 'examples'))}>
                        {d.name}
                      </a>
                      {d.description && <div className="muted dataset-description">{d.description}</div>}
                    </td>
                    <td data-testid="dataset-type">{TYPE_LABELS[d.data_type]}</td>
                    <td className="num" data-testid="dataset-examples">
                      {count(d.example_count)}
                    </td>
                    <td className="num" data-testid="dataset-experiments">
                      <a {...linkProps(datasetTabRoute(d.id, 'experiments'))}>{count(d.session_count)}</a>
                    </td>
                    <td title={d.last_session_start_time ?? ''}>{ago(d.last_session_start_time)}</td>
                    <td title={d.modified_at}>{ago(d.modified_at)}</td>
                    <td className="row-actions">
                      <button
                        type="button"
                        className="link-button"
                        data-testid="dataset-edit"
                        onClick={() => setDialog({ kind: 'edit', dataset: d })}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        className="link-button danger-link"
                        data-testid="dataset-delete"
                        onClick={() => setDialog({ kind: 'delete', dataset: d })}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </ListTable>
            {more && <ShowMore testId="datasets-more" what="datasets" onMore={load.showMore} />}
          </>
        )}
      </ListState>
      {uploading && (
        <UploadCsvDialog
          credentials={credentials}
          onCancel={() => setUploading(false)}
          onDone={(d) => navigate(datasetTabRoute(d.id, 'examples'))}
        />
      )}
      {dialog && (
        <DatasetDialog credentials={credentials} dialog={dialog} onDone={changed} onCancel={() => setDialog(null)} />
      )}
    </section>
  );
}

function EmptyState() {
  const origin = location.origin;
  return (
    <EmptyCard testId="datasets-empty" title="No datasets yet">
      <p>
        A dataset holds the examples your experiments run against. Create one here with New dataset, or from the{' '}
        <code>langsmith</code> client:
      </p>
      <pre>{`import { Client } from "langsmith";
const client = new Client({ apiUrl: "${origin}", apiKey: "<your API key>" });
await client.createDataset("my-dataset", { description: "questions and answers" });`}</pre>
    </EmptyCard>
  );
}
