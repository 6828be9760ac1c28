// Datasets through the official clients, unchanged: the `langsmith` npm client (createDataset,
// readDataset by id and by name, listDatasets with filters, hasDataset, updateDataset,
// deleteDataset) and the Python client (test/e2e/python/datasets.py), which validates every
// answer against its own Dataset model.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { Client } from 'langsmith';
import { createWorkspaces, tracingUrl, type Workspace } from '../support/tracingClient.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';
import { collect } from '../support/asyncItems.ts';

let pyenv: PythonEnv;
let jsWorkspace: Workspace;
let pyWorkspace: Workspace;
beforeAll(async () => {
  [pyenv, [jsWorkspace, pyWorkspace]] = await Promise.all([
    ensurePythonEnv(),
    createWorkspaces(2) as Promise<[Workspace, Workspace]>,
  ]);
}, 20 * 60_000);

describe('langsmith (npm) datasets', () => {
  test('create, read by id and name, list with filters, update, delete', async () => {
    const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: jsWorkspace.apiKey });
    const prefix = `js-${randomUUID().slice(0, 8)}`;
    const inputsSchema = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
    const kv = await client.createDataset(`${prefix}-kv`, {
      description: 'from js',
      metadata: { suite: 'js' },
      inputsSchema,
    });
    expect(kv).toMatchObject({
      name: `${prefix}-kv`,
      description: 'from js',
      data_type: 'kv',
      inputs_schema_definition: inputsSchema,
      example_count: 0,
      tenant_id: jsWorkspace.id,
    });
    const chat = await client.createDataset(`${prefix}-chat`, { dataType: 'chat' });
    await expect(client.createDataset(`${prefix}-kv`)).rejects.toThrow(/409/);

    expect(await client.readDataset({ datasetId: kv.id })).toEqual(kv);
    expect((await client.readDataset({ datasetName: `${prefix}-chat` })).id).toBe(chat.id);
    await expect(client.readDataset({ datasetName: `${prefix}-missing` })).rejects.toThrow();
    expect(await client.hasDataset({ datasetName: `${prefix}-kv` })).toBe(true);
    expect(await client.hasDataset({ datasetId: randomUUID() })).toBe(false);

    const names = async (options: Parameters<Client['listDatasets']>[0]) =>
      (await collect(client.listDatasets(options))).map((d) => d.name);
    expect(await names({ datasetNameContains: prefix })).toEqual([`${prefix}-chat`, `${prefix}-kv`]);
    expect(await names({ datasetIds: [kv.id] })).toEqual([`${prefix}-kv`]);
    expect(await names({ datasetName: `${prefix}-chat` })).toEqual([`${prefix}-chat`]);
    expect(await names({ metadata: { suite: 'js' } })).toEqual([`${prefix}-kv`]);

    const updated = await client.updateDataset({ datasetId: kv.id, name: `${prefix}-renamed`, description: 'new' });
    expect(updated).toMatchObject({ id: kv.id, name: `${prefix}-renamed`, description: 'new' });

    await client.deleteDataset({ datasetName: `${prefix}-renamed` });
    expect(await client.hasDataset({ datasetId: kv.id })).toBe(false);
    expect(await names({ datasetNameContains: prefix })).toEqual([`${prefix}-chat`]);
  });
});

interface PyDataset {
  type: string;
  id: string;
  name: string;
  data_type: string;
  [key: string]: unknown;
}
interface PyResult {
  kv: PyDataset;
  chat: PyDataset;
  duplicate: string;
  by_id: PyDataset;
  by_name: PyDataset;
  listed: string[];
  listed_by_ids: string[];
  listed_by_type: string[];
  listed_by_metadata: string[];
  has_before: boolean;
  missing: string;
  has_after: boolean;
  read_deleted: string;
  finetuning: unknown[];
}

describe('langsmith (PyPI) datasets', () => {
  test('create, read by id and name, list with filters, has, delete, a chat dataset for fine-tuning: every answer a valid Dataset', async () => {
    const prefix = `py-${randomUUID().slice(0, 8)}`;
    const env = { LANGSMITH_ENDPOINT: `${tracingUrl()}/api/v1`, LANGSMITH_API_KEY: pyWorkspace.apiKey };
    const run = await runPythonScript<PyResult>(pyenv, 'datasets.py', [prefix], env);
    const r = run.result;
    // The two refusals the script asks for, and no other.
    const refused = r.requests
      .filter((q) => q.status >= 300)
      .map((q) => `${q.method} ${q.path.replace(/[0-9a-f-]{36}$/, ':id')} ${q.status}`);
    expect(refused).toEqual(['POST /api/v1/datasets 409', 'GET /api/v1/datasets/:id 404']);
    expect(r.log, run.stderr).toEqual([]);
    expect(r.kv).toMatchObject({
      type: 'Dataset',
      name: `${prefix}-kv`,
      description: 'from python',
      data_type: 'kv',
      inputs_schema: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
      outputs_schema: null,
      example_count: 0,
      session_count: 0,
    });
    expect((r.kv.metadata as Record<string, unknown>).suite).toBe('py');
    expect(r.chat).toMatchObject({ name: `${prefix}-chat`, data_type: 'chat' });
    expect(r.duplicate).toBe('LangSmithConflictError');
    expect(r.by_id).toEqual(r.kv);
    expect(r.by_name).toEqual(r.chat);
    expect(r.listed).toEqual([`${prefix}-chat`, `${prefix}-kv`]);
    expect(r.listed_by_ids).toEqual([`${prefix}-kv`]);
    expect(r.listed_by_type).toEqual([`${prefix}-chat`]);
    expect(r.listed_by_metadata).toEqual([`${prefix}-kv`]);
    expect(r.has_before).toBe(true);
    expect(r.finetuning).toEqual([
      {
        messages: [
          { role: 'user', content: 'What is 2+2?' },
          { role: 'assistant', content: '4' },
        ],
      },
    ]);
    expect(r.missing).toBe('LangSmithNotFoundError');
    expect(r.has_after).toBe(false);
    expect(r.read_deleted).toBe('LangSmithNotFoundError');
  });
});
