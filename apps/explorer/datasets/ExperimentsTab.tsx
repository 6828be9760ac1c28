// A dataset's experiments (the projects naming it: GET /sessions?reference_dataset=), newest
// first, with their runs, error rate, latency and the mean of each feedback key (a column a key,
// from feedback_stats); two or more checked open the comparison (the first checked is its
// baseline). Under them, the dataset's saved comparisons (GET /datasets/{id}/comparative).
import { useState } from 'react';
import type { Credentials } from '../core/api.ts';
import { ago, count, percent, seconds } from '../core/format.ts';
import { EmptyCard, ListState, ListTable, type Column } from '../core/ListState.tsx';
import { linkProps, navigate, projectTabRoute } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import { feedbackKeys, score } from './compare.ts';
import { listComparisons, listExperiments, type Experiment } from './experimentsApi.ts';

export function ExperimentsTab({ credentials, datasetId }: { credentials: Credentials; datasetId: string }) {
  const who = [credentials.apiKey, credentials.workspaceId, datasetId];
  const experiments = useLoad(() => listExperiments(credentials, datasetId), who);
  const comparisons = useLoad(() => listComparisons(credentials, datasetId), who);
  // In the order checked: the first is the comparison's baseline.
  const [selected, setSelected] = useState<string[]>([]);
  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  const compare = () => navigate({ page: 'datasetCompare', datasetId, experimentIds: selected });

  return (
    <>
      <div className="dataset-toolbar">
        <p className="muted">
          {selected.length < 2
            ? 'Check two or more experiments to compare them, example by example; the first checked is the baseline.'
            : `${selected.length} experiments checked; the baseline is the first checked.`}
        </p>
        <button
          type="button"
          className="primary"
          data-testid="compare-experiments"
          disabled={selected.length < 2}
          onClick={compare}
        >
          Compare{selected.length >= 2 ? ` ${selected.length}` : ''}
        </button>
      </div>
      <ListState
        load={experiments}
        what="experiments"
        onRetry={experiments.refresh}
        empty={<NoExperiments datasetId={datasetId} />}
      >
        {(list) => <ExperimentsTable experiments={list} selected={selected} onToggle={toggle} />}
      </ListState>
      <h3 className="section-title">Saved comparisons</h3>
      <ListState
        load={comparisons}
        what="comparisons"
        onRetry={comparisons.refresh}
        empty={
          <p className="muted" data-testid="comparisons-empty">
            None yet: a comparison is saved from its page (Save comparison), or by the clients' evaluateComparative.
          </p>
        }
      >
        {(list) => (
          <ListTable
            testId="comparisons-table"
            columns={['Comparison', 'Experiments', 'Saved']}
            className="table comparisons-table"
          >
            <tbody>
              {list.map((c) => (
                <tr key={c.id} data-testid="comparison-row">
                  <td>
                    <a
                      {...linkProps({
                        page: 'datasetCompare',
                        datasetId,
                        experimentIds: c.experiments_info.map((e) => e.id),
                      })}
                    >
                      {c.name}
                    </a>
                  </td>
                  <td className="muted">{c.experiments_info.map((e) => e.name ?? e.id).join(', ')}</td>
                  <td title={c.created_at}>{ago(c.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </ListTable>
        )}
      </ListState>
    </>
  );
}

function ExperimentsTable({
  experiments,
  selected,
  onToggle,
}: {
  experiments: Experiment[];
  selected: string[];
  onToggle: (id: string) => void;
}) {
  const keys = feedbackKeys(experiments.map((e) => e.feedback_stats));
  const columns: Column[] = [
    { label: '', ariaLabel: 'Compare' },
    'Experiment',
    'Started',
    { label: 'Runs', num: true, title: 'Root runs: one per example and repetition' },
    { label: 'Error rate', num: true },
    { label: 'Latency p50', num: true },
    { label: 'Latency p99', num: true },
    ...keys.map((k) => ({
      label: k,
      num: true,
      className: 'feedback-key',
      title: `The mean score of “${k}” over the experiment's feedback`,
    })),
  ];
  return (
    <div className="table-scroll">
      <ListTable testId="experiments-table" columns={columns} className="table experiments-table">
        <tbody>
          {experiments.map((e) => {
            const order = selected.indexOf(e.id);
            return (
              <tr
                key={e.id}
                data-testid="experiment-row"
                data-experiment-id={e.id}
                className={order >= 0 ? 'selected' : undefined}
              >
                <td className="select-cell">
                  <input
                    type="checkbox"
                    data-testid="experiment-check"
                    aria-label={`Compare ${e.name}`}
                    checked={order >= 0}
                    onChange={() => onToggle(e.id)}
                  />
                </td>
                <td>
                  <a data-testid="experiment-name" {...linkProps(projectTabRoute(e.id, 'traces'))}>
                    {e.name}
                  </a>
                  {order === 0 && selected.length > 1 && <span className="tag baseline-tag">baseline</span>}
                </td>
                <td title={e.start_time}>{ago(e.start_time)}</td>
                <td className="num" data-testid="experiment-runs">
                  {count(e.run_count)}
                </td>
                <td className={(e.error_rate ?? 0) > 0 ? 'num bad' : 'num'} data-testid="experiment-error-rate">
                  {percent(e.error_rate)}
                </td>
                <td className="num">{seconds(e.latency_p50)}</td>
                <td className="num">{seconds(e.latency_p99)}</td>
                {keys.map((k) => {
                  const stat = e.feedback_stats?.[k];
                  return (
                    <td
                      key={k}
                      className="num"
                      data-testid="experiment-score"
                      data-key={k}
                      title={stat ? `${count(stat.n)} feedback` : 'no feedback under this key'}
                    >
                      {score(stat?.avg)}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </ListTable>
    </div>
  );
}

function NoExperiments({ datasetId }: { datasetId: string }) {
  const origin = location.origin;
  return (
    <EmptyCard testId="experiments-empty" title="No experiments yet">
      <p>
        An experiment runs a target over the dataset's examples and scores each run. Run one with the{' '}
        <code>langsmith</code> client's <code>evaluate()</code>:
      </p>
      <pre>{`import { Client } from "langsmith";
import { evaluate } from "langsmith/evaluation";
const client = new Client({ apiUrl: "${origin}", apiKey: "<your API key>" });
const dataset = await client.readDataset({ datasetId: "${datasetId}" });
await evaluate(async (inputs) => ({ answer: "…" }), {
  client,
  data: dataset.name,
  evaluators: [({ outputs, referenceOutputs }) => ({ key: "correct", score: outputs.answer === referenceOutputs.answer })],
});`}</pre>
    </EmptyCard>
  );
}
