// The head of every view of one dataset: the crumbs back to the datasets, the dataset's name,
// type and size, and its tabs (examples, compare versions, experiments), the current one marked.
import type { ReactNode } from 'react';
import { count } from '../core/format.ts';
import { datasetTabRoute, linkProps, type DatasetTab } from '../core/route.ts';
import type { Load } from '../core/useLoad.ts';
import type { Dataset } from './datasetsApi.ts';

const TABS: { tab: DatasetTab; label: string }[] = [
  { tab: 'examples', label: 'Examples' },
  { tab: 'diff', label: 'Compare versions' },
  { tab: 'experiments', label: 'Experiments' },
];

export const TYPE_LABELS: Record<Dataset['data_type'], string> = { kv: 'Key-value', llm: 'LLM', chat: 'Chat' };

export function DatasetHeader({
  dataset,
  datasetId,
  tab,
  trail,
}: {
  dataset: Load<Dataset>;
  datasetId: string;
  tab: DatasetTab;
  trail?: ReactNode;
}) {
  const d = dataset.state === 'done' ? dataset.value : null;
  return (
    <header className="project-head">
      <nav className="crumbs">
        <a {...linkProps({ page: 'datasets', search: '' })}>Datasets</a> /{' '}
        {trail ? (
          <a data-testid="dataset-title" {...linkProps(datasetTabRoute(datasetId, tab))}>
            {d?.name ?? '…'}
          </a>
        ) : (
          <span data-testid="dataset-title">{d?.name ?? '…'}</span>
        )}
        {trail && <> / {trail}</>}
      </nav>
      {d && (
        <p className="dataset-facts muted" data-testid="dataset-facts">
          {TYPE_LABELS[d.data_type]} · {count(d.example_count)} examples · {count(d.session_count)} experiments
          {d.description && <> · {d.description}</>}
        </p>
      )}
      <nav className="tabs" aria-label="Dataset views">
        {TABS.map((t) => (
          <a
            key={t.tab}
            data-testid={`tab-${t.tab}`}
            className={t.tab === tab ? 'tab current' : 'tab'}
            aria-current={t.tab === tab ? 'page' : undefined}
            {...linkProps(datasetTabRoute(datasetId, t.tab))}
          >
            {t.label}
          </a>
        ))}
      </nav>
    </header>
  );
}
