// The evaluation loop through the official clients, unchanged: the LangSmith docs' quick start
// (`evaluate(target, { data: datasetName, evaluators, experimentPrefix })`) adapted only in its
// endpoint and key, in JS here and in Python (test/e2e/python/evaluate.py). The experiment is a
// project naming the dataset, its runs name their examples, evaluator results are feedback on
// those runs, summary evaluators land on the project, and the dataset lists the experiment.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { Client } from 'langsmith';
import { evaluate, evaluateComparative, type EvaluationResult } from 'langsmith/evaluation';
import type { Example, Run } from 'langsmith/schemas';
import { createWorkspaces, tracingUrl, type Workspace } from '../support/tracingClient.ts';
import { collect } from '../support/asyncItems.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';

/** Runs and feedback reach their read models a moment after the client has sent them. */
const eventually = <T>(check: () => Promise<T>) => vi.waitFor(check, { timeout: 30_000, interval: 250 });

/** The project a feedback item is on (the client's Feedback type leaves it out). */
const sessionOf = (f: object) => (f as { session_id?: string }).session_id;

let ws: Workspace;
let pyWorkspace: Workspace;
let pyenv: PythonEnv;
beforeAll(async () => {
  [pyenv, [ws, pyWorkspace]] = await Promise.all([
    ensurePythonEnv(),
    createWorkspaces(2) as Promise<[Workspace, Workspace]>,
  ]);
}, 20 * 60_000);

describe('langsmith (npm) evaluate()', () => {
  test("the docs' quick start: a dataset, a target, two evaluators, a summary evaluator, repetitions", async () => {
    const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: ws.apiKey });
    const datasetName = `js-eval-${randomUUID().slice(0, 8)}`;
    const dataset = await client.createDataset(datasetName, { description: 'A sample dataset in LangSmith.' });
    await client.createExamples({
      inputs: [
        { question: 'Which country is Mount Kilimanjaro located in?' },
        { question: 'What is Earth’s lowest point?' },
      ],
      outputs: [
        { answer: 'Mount Kilimanjaro is located in Tanzania.' },
        { answer: 'Earth’s lowest point is The Dead Sea.' },
      ],
      datasetId: dataset.id,
    });

    // The target: an "application" that answers from a lookup (the docs call an LLM here).
    const target = async (inputs: Record<string, unknown>) => ({
      answer: String(inputs.question).includes('Kilimanjaro')
        ? 'Mount Kilimanjaro is located in Tanzania.'
        : 'The Dead Sea.',
    });
    const exactMatch = async ({
      outputs,
      referenceOutputs,
    }: {
      outputs?: Record<string, unknown>;
      referenceOutputs?: Record<string, unknown>;
    }): Promise<EvaluationResult> => ({
      key: 'exact_match',
      score: outputs?.answer === referenceOutputs?.answer,
    });
    const concise = ({ run }: { run: Run; example?: Example }) => ({
      key: 'concise',
      score: String(run.outputs?.answer ?? '').length < 40 ? 1 : 0,
    });
    const passRate = ({
      outputs,
      referenceOutputs,
    }: {
      outputs: Array<Record<string, unknown>>;
      referenceOutputs: Array<Record<string, unknown>>;
    }) => ({
      key: 'pass_rate',
      score: outputs.filter((o, i) => o.answer === referenceOutputs[i]?.answer).length / outputs.length,
    });

    const results = await evaluate(target, {
      data: datasetName,
      evaluators: [exactMatch, concise],
      summaryEvaluators: [passRate as never],
      experimentPrefix: 'first-eval-in-langsmith',
      numRepetitions: 2,
      maxConcurrency: 2,
      client,
    });
    const experimentName = results.experimentName;
    expect(experimentName).toMatch(/^first-eval-in-langsmith/);
    expect(results.results).toHaveLength(4);

    const experiment = await eventually(async () => {
      const p = await client.readProject({ projectName: experimentName, includeStats: true });
      expect(p.run_count).toBe(4);
      return p;
    });
    expect(experiment.reference_dataset_id).toBe(dataset.id);
    expect((experiment.extra?.metadata as Record<string, unknown>)?.dataset_version).toBeTruthy();

    const runs = await collect(client.listRuns({ projectName: experimentName, isRoot: true }));
    expect(runs).toHaveLength(4);
    const exampleIds = new Set((await collect(client.listExamples({ datasetId: dataset.id }))).map((e) => e.id));
    for (const run of runs) expect(exampleIds.has(run.reference_example_id!)).toBe(true);

    const feedback = await eventually(async () => {
      const f = await collect(client.listFeedback({ runIds: runs.map((r) => r.id) }));
      expect(f).toHaveLength(8);
      return f;
    });
    expect(new Set(feedback.map((f) => f.key))).toEqual(new Set(['exact_match', 'concise']));
    const exact = feedback.filter((f) => f.key === 'exact_match').map((f) => f.score);
    expect(exact.filter((s) => s === 1)).toHaveLength(2);
    expect(feedback.every((f) => f.feedback_source?.type === 'model')).toBe(true);

    // The summary evaluator's result is feedback on the experiment itself.
    const summary = await eventually(async () => {
      const f = await collect(client.listFeedback({ feedbackKeys: ['pass_rate'] }));
      expect(f.filter((x) => sessionOf(x) === experiment.id)).toHaveLength(1);
      return f.find((x) => sessionOf(x) === experiment.id)!;
    });
    expect(summary.score).toBe(0.5);

    // The dataset lists its experiment.
    const experiments = await collect(client.listProjects({ referenceDatasetId: dataset.id }));
    expect(experiments.map((p) => p.id)).toEqual([experiment.id]);
    expect((await client.readDataset({ datasetId: dataset.id })).session_count).toBe(1);

    // A second experiment with a worse target, and the two compared pairwise.
    const second = await evaluate(async () => ({ answer: 'I do not know.' }), {
      data: datasetName,
      evaluators: [exactMatch],
      experimentPrefix: 'second-eval',
      client,
    });
    await eventually(async () => {
      expect((await client.readProject({ projectName: second.experimentName, includeStats: true })).run_count).toBe(2);
    });
    const preferKnowing = ({ runs }: { runs: Run[] }) => ({
      key: 'preferred',
      scores: Object.fromEntries(runs.map((x) => [x.id, x.outputs?.answer === 'I do not know.' ? 0 : 1])),
    });
    const compared = await evaluateComparative([results, second], {
      evaluators: [preferKnowing],
      client,
    });
    expect(compared.comparativeExperiment.reference_dataset_id).toBe(dataset.id);
    expect(compared.results).toHaveLength(2);
    const pairwise = await eventually(async () => {
      const f = (await collect(client.listFeedback({ feedbackKeys: ['preferred'] }))).filter(
        (x) =>
          (x as { comparative_experiment_id?: string }).comparative_experiment_id === compared.comparativeExperiment.id,
      );
      // two examples, each with the run of each experiment scored (the first experiment ran twice per example)
      expect(f.length).toBeGreaterThanOrEqual(4);
      return f;
    });
    const firstRuns = new Set(runs.map((x) => x.id));
    expect(pairwise.filter((f) => f.score === 1).every((f) => firstRuns.has(f.run_id!))).toBe(true);
  });
});

interface PyEvaluate {
  dataset_id: string;
  experiment_name: string;
  experiment_id: string;
  reference_dataset_id: string;
  dataset_version: string | null;
  rows: number;
  scores: Array<boolean | number | null>;
  again_rows: number;
  again_keys: string[];
  async_experiment: string;
  async_rows: number;
  comparative_id: string;
  comparative_dataset_id: string;
  comparative_experiments: string[];
  async_experiment_id: string;
}

describe('langsmith (PyPI) evaluate()', () => {
  test("the docs' quick start, an existing experiment evaluated again, aevaluate(), evaluate_comparative()", async () => {
    const prefix = `py-${randomUUID().slice(0, 8)}`;
    const env = { LANGSMITH_ENDPOINT: `${tracingUrl()}/api/v1`, LANGSMITH_API_KEY: pyWorkspace.apiKey };
    const run = await runPythonScript<PyEvaluate>(pyenv, 'evaluate.py', [prefix], env, 240_000);
    const r = run.result;
    expect(
      r.requests.filter((q) => q.status >= 300),
      run.stderr,
    ).toEqual([]);
    expect(r.log, run.stderr).toEqual([]);
    expect(r.reference_dataset_id).toBe(r.dataset_id);
    expect(r.dataset_version).toBeTruthy();
    expect(r.rows).toBe(4);
    expect(r.scores.filter((s) => s === true || s === 1)).toHaveLength(2);
    expect(r.again_rows).toBe(4);
    expect(r.again_keys).toEqual(['concise']);
    expect(r.async_rows).toBe(2);

    const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: pyWorkspace.apiKey });
    const runs = await eventually(async () => {
      const found = await collect(client.listRuns({ projectName: r.experiment_name, isRoot: true }));
      expect(found).toHaveLength(4);
      return found;
    });
    const examples = new Set((await collect(client.listExamples({ datasetId: r.dataset_id }))).map((e) => e.id));
    for (const x of runs) expect(examples.has(x.reference_example_id!)).toBe(true);
    const feedback = await eventually(async () => {
      const f = await collect(client.listFeedback({ runIds: runs.map((x) => x.id) }));
      // exact_match and concise on each of the 4 runs, and the comparison's pairwise score
      expect(f).toHaveLength(12);
      return f;
    });
    expect(feedback.filter((f) => f.key === 'exact_match')).toHaveLength(4);
    expect(feedback.filter((f) => f.key === 'concise')).toHaveLength(4);
    expect(feedback.filter((f) => f.key === 'shorter')).toHaveLength(4);
    const summary = await eventually(async () => {
      const f = (await collect(client.listFeedback({ feedbackKeys: ['pass_rate'] }))).filter(
        (x) => sessionOf(x) === r.experiment_id,
      );
      expect(f).toHaveLength(1);
      return f[0]!;
    });
    expect(summary.score).toBe(0.5);
    const experiments = await collect(client.listProjects({ referenceDatasetId: r.dataset_id }));
    expect(experiments.map((p) => p.name).sort()).toEqual([r.async_experiment, r.experiment_name].sort());

    // evaluate_comparative(): a comparative experiment of the dataset, its pairwise scores feedback
    // naming it: per example, the first experiment's two runs and the async one's, one preferred.
    expect(r.comparative_dataset_id).toBe(r.dataset_id);
    expect(r.comparative_experiments).toEqual([r.experiment_id, r.async_experiment_id].sort());
    const pairwise = await eventually(async () => {
      const f = (await collect(client.listFeedback({ feedbackKeys: ['shorter'] }))).filter(
        (x) => (x as { comparative_experiment_id?: string }).comparative_experiment_id === r.comparative_id,
      );
      expect(f).toHaveLength(6);
      return f;
    });
    expect(pairwise.filter((f) => f.score === 1)).toHaveLength(2);
  });
});
