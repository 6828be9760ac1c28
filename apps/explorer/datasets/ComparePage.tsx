// Experiments of a dataset side by side (/ui/datasets/<id>/compare?experiments=a,b): a row per
// example the experiments ran on (its inputs and reference outputs), a column per experiment (the
// run's output, error, latency and feedback scores), the first experiment the baseline. A score
// worse than the baseline's on the same example, in its key's direction (is_lower_score_better),
// is marked a regression, a better one an improvement. The top row holds each experiment's means
// per key (its feedback_stats), its runs, error rate and latency.
import { useState, type ReactNode } from 'react';
import type { Credentials } from '../core/api.ts';
import { asApiError } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { count, percent, seconds } from '../core/format.ts';
import { EmptyCard, LoadState } from '../core/ListState.tsx';
import { linkProps, navigate, type Route } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import {
  cellsByExample,
  exampleOrder,
  feedbackKeys,
  score,
  tally,
  verdict,
  type Cell,
  type Verdict,
} from './compare.ts';
import { DatasetHeader } from './DatasetHeader.tsx';
import { getDataset } from './datasetsApi.ts';
import { examplesById, type Example } from './examplesApi.ts';
import {
  experimentRuns,
  lowerIsBetter,
  MAX_EXPERIMENT_RUNS,
  readExperiments,
  saveComparison,
  type Experiment,
} from './experimentsApi.ts';
import { JsonCell } from './JsonCell.tsx';
import './datasets.css';

type CompareRoute = Extract<Route, { page: 'datasetCompare' }>;

interface Comparison {
  experiments: Experiment[];
  cells: Array<Map<string, Cell>>;
  /** Examples the experiments ran on, in the dataset's order. */
  exampleIds: string[];
  examples: Map<string, Example>;
  keys: string[];
  lower: Set<string>;
  /** Experiments whose runs were cut at MAX_EXPERIMENT_RUNS. */
  cut: string[];
}

async function readComparison(c: Credentials, ids: string[]): Promise<Comparison> {
  const experiments = await readExperiments(c, ids);
  const runs = await Promise.all(experiments.map((e) => experimentRuns(c, e.id)));
  const cells = runs.map(cellsByExample);
  const ran = exampleOrder(cells);
  // The examples as the baseline read them (evaluate() records the version), else the latest;
  // those not in that version are read at the latest.
  const version = experiments[0]?.extra?.metadata?.dataset_version;
  const examples = new Map<string, Example>();
  for (const e of await examplesById(c, ran, typeof version === 'string' ? version : null)) examples.set(e.id, e);
  const missing = ran.filter((id) => !examples.has(id));
  if (missing.length > 0 && typeof version === 'string')
    for (const e of await examplesById(c, missing, null)) examples.set(e.id, e);
  const created = (id: string) => examples.get(id)?.created_at ?? '\uffff';
  const exampleIds = [...ran].sort((a, b) => created(a).localeCompare(created(b)));
  const keys = feedbackKeys([...experiments.map((e) => e.feedback_stats), ...runs.flat().map((r) => r.feedback_stats)]);
  return {
    experiments,
    cells,
    exampleIds,
    examples,
    keys,
    lower: await lowerIsBetter(c, keys),
    cut: experiments.filter((_, i) => runs[i]!.length >= MAX_EXPERIMENT_RUNS).map((e) => e.name),
  };
}

export function ComparePage({ credentials, route }: { credentials: Credentials; route: CompareRoute }) {
  const { datasetId, experimentIds } = route;
  const who = [credentials.apiKey, credentials.workspaceId];
  const dataset = useLoad(() => getDataset(credentials, datasetId), [...who, datasetId]);
  const enough = experimentIds.length >= 2;
  const comparison = useLoad(
    () => (enough ? readComparison(credentials, experimentIds) : Promise.resolve(null)),
    [...who, experimentIds.join(',')],
  );
  return (
    <section>
      <DatasetHeader
        dataset={dataset}
        datasetId={datasetId}
        tab="experiments"
        trail={<span data-testid="compare-title">Comparison</span>}
      />
      <LoadState load={comparison} what="the experiments' runs" onRetry={comparison.refresh}>
        {(c) =>
          c && c.experiments.length >= 2 ? (
            <CompareView credentials={credentials} datasetId={datasetId} comparison={c} />
          ) : (
            <EmptyCard testId="compare-empty" title="Choose experiments to compare">
              <p>
                Check two or more experiments on the dataset's{' '}
                <a {...linkProps({ page: 'datasetExperiments', datasetId })}>Experiments</a> tab, then Compare.
                {c && ' Fewer than two of the experiments named in the address exist.'}
              </p>
            </EmptyCard>
          )
        }
      </LoadState>
    </section>
  );
}

function CompareView({
  credentials,
  datasetId,
  comparison: c,
}: {
  credentials: Credentials;
  datasetId: string;
  comparison: Comparison;
}) {
  const [onlyRegressions, setOnlyRegressions] = useState(false);
  const [saved, setSaved] = useState<{ name: string } | { error: ReturnType<typeof asApiError> } | null>(null);
  const baseline = c.experiments[0]!;
  const baseCells = c.cells[0]!;
  const verdictOf = (i: number, example: string, key: string): Verdict | null =>
    i === 0
      ? null
      : verdict(c.cells[i]!.get(example)?.scores[key], baseCells.get(example)?.scores[key], c.lower.has(key));
  const regressed = (example: string) =>
    c.experiments.some((_, i) => c.keys.some((k) => verdictOf(i, example, k) === 'regression'));
  const rows = onlyRegressions ? c.exampleIds.filter(regressed) : c.exampleIds;
  const makeBaseline = (id: string) =>
    navigate({
      page: 'datasetCompare',
      datasetId,
      experimentIds: [id, ...c.experiments.map((e) => e.id).filter((x) => x !== id)],
    });
  const save = () =>
    saveComparison(
      credentials,
      datasetId,
      c.experiments.map((e) => e.id),
    ).then(
      (made) => setSaved({ name: made.name }),
      (err: unknown) => setSaved({ error: asApiError(err) }),
    );
  const lowerKeys = c.keys.filter((k) => c.lower.has(k));

  return (
    <>
      <div className="dataset-toolbar">
        <p className="muted compare-note">
          Baseline: <strong data-testid="compare-baseline">{baseline.name}</strong>. A score worse than the baseline's
          on the same example is marked <span className="score regression">worse</span>, a better one{' '}
          <span className="score improvement">better</span>
          {lowerKeys.length > 0 && <> (lower is better for {lowerKeys.join(', ')})</>}.
        </p>
        <label className="field-inline">
          <input
            type="checkbox"
            data-testid="only-regressions"
            checked={onlyRegressions}
            onChange={(e) => setOnlyRegressions(e.target.checked)}
          />
          Only examples with a regression
        </label>
        {saved && 'name' in saved ? (
          <span className="muted" data-testid="comparison-saved">
            Saved as “{saved.name}”
          </span>
        ) : (
          <button type="button" className="ghost" data-testid="save-comparison" onClick={() => void save()}>
            Save comparison
          </button>
        )}
      </div>
      {saved && 'error' in saved && <ErrorBox error={saved.error} />}
      {c.cut.length > 0 && (
        <p className="muted">
          Only the first {count(MAX_EXPERIMENT_RUNS)} runs of {c.cut.join(', ')} are compared.
        </p>
      )}
      <div className="table-scroll">
        <table className="table compare-table" data-testid="compare-table">
          <thead>
            <tr>
              <th className="compare-example-head">Example</th>
              {c.experiments.map((e, i) => {
                const t = i === 0 ? null : tally(c.cells[i]!, baseCells, c.keys, c.lower);
                return (
                  <th key={e.id} data-testid="compare-experiment" data-experiment-id={e.id}>
                    <div className="compare-head">
                      <a {...linkProps({ page: 'traces', projectId: e.id, filter: '', cursor: null })}>{e.name}</a>
                      {i === 0 ? (
                        <span className="tag baseline-tag">baseline</span>
                      ) : (
                        <button
                          type="button"
                          className="link-button"
                          data-testid="make-baseline"
                          onClick={() => makeBaseline(e.id)}
                        >
                          Make baseline
                        </button>
                      )}
                    </div>
                    {t && (
                      <div className="compare-tally" data-testid="compare-tally">
                        <span className={t.regressions ? 'score regression' : 'muted'}>
                          {count(t.regressions)} worse
                        </span>{' '}
                        <span className={t.improvements ? 'score improvement' : 'muted'}>
                          {count(t.improvements)} better
                        </span>
                      </div>
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            <tr className="compare-summary" data-testid="compare-summary">
              <td>
                <strong>Mean</strong>
                <div className="muted">over each experiment's feedback</div>
              </td>
              {c.experiments.map((e, i) => (
                <td key={e.id} data-testid="summary-cell" data-experiment-id={e.id}>
                  <div className="scores">
                    {c.keys.map((k) => {
                      const mean = e.feedback_stats?.[k]?.avg;
                      const v = i === 0 ? null : verdict(mean, baseline.feedback_stats?.[k]?.avg, c.lower.has(k));
                      return <Score key={k} name={k} value={mean} verdict={v} testId="summary-score" />;
                    })}
                  </div>
                  <div className="muted compare-facts">
                    {count(e.run_count)} runs · {percent(e.error_rate)} errors · p50 {seconds(e.latency_p50)}
                  </div>
                </td>
              ))}
            </tr>
            {rows.map((id) => (
              <tr key={id} data-testid="compare-row" data-example-id={id}>
                <td className="compare-example">
                  <ExampleCell id={id} example={c.examples.get(id)} />
                </td>
                {c.experiments.map((e, i) => {
                  const cell = c.cells[i]!.get(id);
                  return (
                    <td key={e.id} data-testid="compare-cell" data-experiment-id={e.id}>
                      {cell ? (
                        <RunCell cell={cell}>
                          {c.keys.map((k) =>
                            cell.scores[k] === undefined ? null : (
                              <Score
                                key={k}
                                name={k}
                                value={cell.scores[k]}
                                verdict={verdictOf(i, id, k)}
                                testId="score"
                              />
                            ),
                          )}
                        </RunCell>
                      ) : (
                        <span className="muted">no run</span>
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 && (
        <p className="muted" data-testid="compare-no-rows">
          {onlyRegressions ? 'No example scores worse than the baseline.' : 'The experiments have no runs of examples.'}
        </p>
      )}
    </>
  );
}

function Score({
  name,
  value,
  verdict: v,
  testId,
}: {
  name: string;
  value: number | null | undefined;
  verdict: Verdict | null;
  testId: string;
}) {
  const title =
    v === 'regression' ? 'worse than the baseline' : v === 'improvement' ? 'better than the baseline' : undefined;
  return (
    <span
      className={`score${v === 'regression' || v === 'improvement' ? ` ${v}` : ''}`}
      data-testid={testId}
      data-key={name}
      data-verdict={v ?? ''}
      title={title}
    >
      <span className="score-key">{name}</span> <span className="score-value">{score(value)}</span>
    </span>
  );
}

function ExampleCell({ id, example }: { id: string; example: Example | undefined }) {
  if (!example)
    return (
      <>
        <code title={id}>{id.slice(0, 8)}</code>
        <div className="muted">not in the dataset now</div>
      </>
    );
  return (
    <>
      <div className="cell-label muted">inputs</div>
      <JsonCell value={example.inputs} testId="compare-inputs" />
      <div className="cell-label muted">reference</div>
      <JsonCell value={example.outputs} testId="compare-reference" />
    </>
  );
}

function RunCell({ cell, children }: { cell: Cell; children: ReactNode }) {
  const run = cell.runs[0]!;
  return (
    <>
      {run.error ? (
        <div className="error-text compare-error" title={run.error}>
          {run.error.split('\n')[0]}
        </div>
      ) : (
        <JsonCell value={run.outputs} testId="compare-output" />
      )}
      <div className="scores">{children}</div>
      <div className="muted compare-facts">
        {seconds(run.latency)}
        {cell.runs.length > 1 && ` · ${cell.runs.length} runs (scores are their mean)`} ·{' '}
        <a {...linkProps({ page: 'trace', projectId: run.session_id, traceId: run.trace_id, runId: run.id })}>trace</a>
      </div>
    </>
  );
}
