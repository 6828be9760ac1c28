// An experiment read back, and examples made from runs, through the official Python client
// unchanged (the JS client has neither: its experiment reads are /api/v2 Stainless resources).
// get_experiment_results (test/e2e/python/experiment_results.py) after evaluate(): the dataset's
// examples, each with the experiment's runs of it and their feedback_stats, the project's stats
// beside them. create_example_from_run, create_examples with source_run_ids and create_example
// with use_source_run_io (test/e2e/python/examples_from_runs.py).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { createWorkspaces, tracingUrl, type Workspace } from '../support/tracingClient.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript, type ScriptOutput } from '../support/pythonScript.ts';

let ws: Workspace;
let pyenv: PythonEnv;
beforeAll(async () => {
  [pyenv, [ws]] = await Promise.all([ensurePythonEnv(), createWorkspaces(1) as Promise<[Workspace]>]);
}, 20 * 60_000);

const env = () => ({ LANGSMITH_ENDPOINT: `${tracingUrl()}/api/v1`, LANGSMITH_API_KEY: ws.apiKey });
/** Every request the client made got a 2xx, and it logged no complaint. */
const clean = (run: ScriptOutput<unknown>) => {
  expect(
    run.result.requests.filter((q) => q.status >= 300),
    run.stderr,
  ).toEqual([]);
  expect(run.result.log, run.stderr).toEqual([]);
};

interface PyResults {
  dataset_id: string;
  experiment_id: string;
  examples: Array<{
    type: string;
    id: string;
    dataset_id: string;
    inputs: Record<string, unknown>;
    outputs: Record<string, unknown>;
    runs: Array<{
      type: string;
      reference_example_id: string;
      session_id: string;
      outputs: Record<string, unknown>;
      exact_match: number;
    }>;
  }>;
  run_count: number;
  feedback_keys: string[];
  exact_match_avg: number;
  pass_rate: number;
  limited: string[];
}

describe('langsmith (PyPI) get_experiment_results()', () => {
  test('after evaluate(): each example with its two runs and their feedback_stats, the stats of the experiment', async () => {
    const run = await runPythonScript<PyResults>(
      pyenv,
      'experiment_results.py',
      [`py-${randomUUID().slice(0, 8)}`],
      env(),
      240_000,
    );
    clean(run);
    const r = run.result;
    expect(r.examples.map((e) => e.inputs)).toEqual([{ question: '2+2?' }, { question: '3+3?' }]);
    expect(r.examples.map((e) => e.outputs)).toEqual([{ answer: '4' }, { answer: '6' }]);
    for (const example of r.examples) {
      expect(example).toMatchObject({ type: 'ExampleWithRuns', dataset_id: r.dataset_id });
      expect(example.runs).toHaveLength(2); // two repetitions
      for (const x of example.runs)
        expect(x).toMatchObject({
          type: 'Run',
          reference_example_id: example.id,
          session_id: r.experiment_id,
          outputs: { answer: '4' },
        });
    }
    expect(r.examples[0]!.runs.map((x) => x.exact_match)).toEqual([1, 1]);
    expect(r.examples[1]!.runs.map((x) => x.exact_match)).toEqual([0, 0]);
    expect(r.run_count).toBe(4);
    // The runs' feedback and the summary evaluator's, on the project.
    expect(r.feedback_keys).toEqual(['exact_match', 'pass_rate']);
    expect(r.exact_match_avg).toBe(0.5);
    expect(r.pass_rate).toBe(0.5);
    expect(r.limited).toEqual([r.examples[0]!.id]);
    expect(run.result.requests.filter((q) => q.path.endsWith(`/datasets/${r.dataset_id}/runs`)).length).toBeGreaterThan(
      0,
    );
  }, 300_000);
});

interface Brief {
  dataset_id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  source_run_id: string | null;
}
interface PyFromRuns {
  run_ids: Record<'kv' | 'llm' | 'chat', string>;
  datasets: Record<'kv' | 'llm' | 'chat', string>;
  from_kv: Brief;
  from_llm: Brief;
  from_chat: Brief;
  with_source: Brief;
  from_io: Brief;
  kv_count: number;
}

describe('langsmith (PyPI) examples from runs', () => {
  test('create_example_from_run into kv, llm and chat datasets; source_run_ids; use_source_run_io', async () => {
    const run = await runPythonScript<PyFromRuns>(
      pyenv,
      'examples_from_runs.py',
      [`py-${randomUUID().slice(0, 8)}`],
      env(),
    );
    clean(run);
    const r = run.result;
    expect(r.from_kv).toEqual({
      dataset_id: r.datasets.kv,
      inputs: { question: '2+2?' },
      outputs: { answer: '4' },
      source_run_id: null, // the client does not send it
    });
    expect(r.from_llm).toMatchObject({
      dataset_id: r.datasets.llm,
      inputs: { input: 'Say hi' },
      outputs: { output: 'hi' },
    });
    expect(r.from_chat).toMatchObject({
      dataset_id: r.datasets.chat,
      inputs: { input: [{ type: 'human', data: { content: 'Say hi' } }] },
      outputs: { output: { type: 'ai', data: { content: 'hi' } } },
    });
    expect(r.with_source).toEqual({
      dataset_id: r.datasets.kv,
      inputs: { question: '2+2?' },
      outputs: { answer: '4' },
      source_run_id: r.run_ids.kv,
    });
    expect(r.from_io).toEqual(r.with_source);
    expect(r.kv_count).toBe(3);
  }, 180_000);
});
