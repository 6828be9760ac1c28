// The evaluation example (examples/evaluation/main.ts) run as a user runs it, against the shared
// stack: it traces an application, builds a dataset from the traced runs, runs two experiments
// with two evaluators and compares them; what it made is then read back through the API.
import { spawn } from 'node:child_process';
import { beforeAll, expect, test } from 'vitest';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../support/tracingClient.ts';
import { repoRoot } from '../support/serviceProcess.ts';

let ws: Workspace;
beforeAll(async () => {
  [ws] = (await createWorkspaces(1)) as [Workspace];
});

test('the evaluation example: a dataset from traced runs, two experiments, a comparison', {
  timeout: 180_000,
}, async () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(LANGSMITH|LANGCHAIN)_/.test(k)));
  const child = spawn(process.execPath, ['examples/evaluation/main.ts'], {
    cwd: repoRoot,
    env: { ...env, LANGSMITH_ENDPOINT: tracingUrl(), LANGSMITH_API_KEY: ws.apiKey },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  expect(code, output).toBe(0);

  const datasetId = /\/ui\/datasets\/([0-9a-f-]{36}) \(Experiments\)/.exec(output)?.[1];
  expect(datasetId, output).toBeDefined();
  const get = async (path: string) => {
    const res = await api(path, { apiKey: ws.apiKey });
    expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  const examples = (await get(`/examples?dataset=${datasetId}`)) as Array<{ source_run_id: string | null }>;
  expect(examples).toHaveLength(4);
  expect(examples.every((e) => e.source_run_id !== null)).toBe(true);
  const experiments = (await get(`/sessions?reference_dataset=${datasetId}`)) as Array<{ name: string }>;
  expect(experiments.map((p) => p.name.replace(/-[0-9a-f]{8}$/, '')).sort()).toEqual(['capitals-v1', 'capitals-v2']);
  const comparisons = (await get(`/datasets/${datasetId}/comparative`)) as unknown[];
  expect(comparisons).toHaveLength(1);
  expect(output).toMatch(/\/compare\?experiments=[0-9a-f-]{36},[0-9a-f-]{36}/);
});
