// Examples and dataset versions through the official clients, unchanged: the `langsmith` npm
// client (createExample, createExamples with splits, metadata and attachments, readExample,
// listExamples by dataset, ids, splits, metadata and asOf, updateExample(s), deleteExample(s),
// readDatasetVersion, updateDatasetTag, diffDatasetVersions, listDatasetSplits,
// updateDatasetSplits) and the Python client (test/e2e/python/examples.py), which validates every
// answer against its own Example model.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { Client } from 'langsmith';
import { createWorkspaces, tracingUrl, type Workspace } from '../support/tracingClient.ts';
import { collect } from '../support/asyncItems.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';

let pyenv: PythonEnv;
let jsWorkspace: Workspace;
let otherWorkspace: Workspace;
let pyWorkspace: Workspace;
beforeAll(async () => {
  [pyenv, [jsWorkspace, otherWorkspace, pyWorkspace]] = await Promise.all([
    ensurePythonEnv(),
    createWorkspaces(3) as Promise<[Workspace, Workspace, Workspace]>,
  ]);
}, 20 * 60_000);

const clientOf = (ws: Workspace, apiUrl = `${tracingUrl()}/api/v1`) => new Client({ apiUrl, apiKey: ws.apiKey });
const sorted = (ids: string[]) => [...ids].sort();

describe('langsmith (npm) examples', () => {
  test('create (one, many, with splits, metadata and attachments), read, list, update, delete', async () => {
    const client = clientOf(jsWorkspace);
    const dataset = await client.createDataset(`js-examples-${randomUUID().slice(0, 8)}`);

    const first = await client.createExample(
      { question: 'What is 2+2?' },
      { answer: '4' },
      { datasetId: dataset.id, metadata: { level: 'easy' }, split: 'train' },
    );
    expect(first).toMatchObject({
      dataset_id: dataset.id,
      inputs: { question: 'What is 2+2?' },
      outputs: { answer: '4' },
      metadata: { level: 'easy', dataset_split: ['train'] },
    });
    expect(first.modified_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const many = await client.createExamples({
      datasetId: dataset.id,
      exampleIds: ids,
      inputs: [{ question: 'a' }, { question: 'b' }, { question: 'c' }],
      outputs: [{ answer: 'A' }, { answer: 'B' }, { answer: 'C' }],
      metadata: [{ level: 'hard' }, { level: 'easy' }, { level: 'hard' }],
      splits: [['test'], 'train', ['test', 'train']],
    });
    expect(sorted(many.map((e) => e.id))).toEqual(sorted(ids));

    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const [withFile] = await client.createExamples([
      {
        dataset_id: dataset.id,
        inputs: { question: 'what is in the picture?' },
        outputs: { answer: 'bytes' },
        attachments: { picture: ['image/png', png] },
      },
    ]);
    const read = await client.readExample(withFile!.id);
    expect(read.attachments?.picture?.mime_type).toBe('image/png');
    // The presigned URL needs no credentials.
    const downloaded = await fetch(read.attachments!.picture!.presigned_url);
    expect(new Uint8Array(await downloaded.arrayBuffer())).toEqual(png);

    const all = await collect(client.listExamples({ datasetId: dataset.id }));
    expect(all).toHaveLength(5);
    expect((await client.readDataset({ datasetId: dataset.id })).example_count).toBe(5);
    const byName = await collect(client.listExamples({ datasetName: dataset.name, splits: ['test'] }));
    expect(sorted(byName.map((e) => e.id))).toEqual(sorted([ids[0]!, ids[2]!]));
    const hard = await collect(client.listExamples({ datasetId: dataset.id, metadata: { level: 'hard' } }));
    expect(sorted(hard.map((e) => e.id))).toEqual(sorted([ids[0]!, ids[2]!]));
    const two = await collect(client.listExamples({ datasetId: dataset.id, exampleIds: [ids[1]!, first.id] }));
    expect(sorted(two.map((e) => e.id))).toEqual(sorted([ids[1]!, first.id]));
    const paged = await collect(client.listExamples({ datasetId: dataset.id, limit: 2 }));
    expect(paged).toHaveLength(2);
    expect(sorted(await client.listDatasetSplits({ datasetId: dataset.id }))).toEqual(['base', 'test', 'train']);

    await client.updateExample(first.id, { inputs: { question: 'What is 3+3?' }, outputs: { answer: '6' } });
    expect(await client.readExample(first.id)).toMatchObject({
      inputs: { question: 'What is 3+3?' },
      outputs: { answer: '6' },
      metadata: { level: 'easy', dataset_split: ['train'] },
    });
    await client.updateExamples([
      { id: ids[0]!, dataset_id: dataset.id, metadata: { level: 'medium' } },
      { id: ids[1]!, dataset_id: dataset.id, split: ['validation'] },
    ]);
    const [zero, one] = await Promise.all([client.readExample(ids[0]!), client.readExample(ids[1]!)]);
    expect(zero.metadata).toEqual({ level: 'medium', dataset_split: ['test'] });
    expect(one.metadata).toEqual({ level: 'easy', dataset_split: ['validation'] });

    await client.updateDatasetSplits({ datasetId: dataset.id, splitName: 'golden', exampleIds: [ids[0]!, ids[1]!] });
    expect((await client.readExample(ids[1]!)).metadata?.dataset_split).toEqual(['validation', 'golden']);
    await client.updateDatasetSplits({
      datasetId: dataset.id,
      splitName: 'golden',
      exampleIds: [ids[1]!],
      remove: true,
    });
    expect((await client.readExample(ids[1]!)).metadata?.dataset_split).toEqual(['validation']);

    await client.deleteExample(ids[2]!);
    await client.deleteExamples([ids[1]!]);
    const left = await collect(client.listExamples({ datasetId: dataset.id }));
    expect(sorted(left.map((e) => e.id))).toEqual(sorted([first.id, ids[0]!, withFile!.id]));
    await expect(client.readExample(ids[2]!)).rejects.toThrow(/not found/);
  });

  test('versions: every write is one, asOf reads the dataset as it was, tags and diffs name versions', async () => {
    const client = clientOf(jsWorkspace);
    const dataset = await client.createDataset(`js-versions-${randomUUID().slice(0, 8)}`);
    const [a, b] = await client.createExamples({
      datasetId: dataset.id,
      inputs: [{ n: 1 }, { n: 2 }],
      outputs: [{ m: 1 }, { m: 2 }],
    });
    const v1 = (await client.readDatasetVersion({ datasetId: dataset.id, asOf: new Date() })).as_of;
    await client.updateDatasetTag({ datasetId: dataset.id, asOf: v1, tag: 'v1' });
    expect(await client.readDatasetVersion({ datasetId: dataset.id, tag: 'v1' })).toEqual({ as_of: v1, tags: ['v1'] });

    await client.updateExample(a!.id, { outputs: { m: 10 } });
    const [c] = await client.createExamples({ datasetId: dataset.id, inputs: [{ n: 3 }], outputs: [{ m: 3 }] });
    await client.deleteExample(b!.id);

    const now = await collect(client.listExamples({ datasetId: dataset.id }));
    expect(Object.fromEntries(now.map((e) => [e.inputs.n, e.outputs?.m]))).toEqual({ 1: 10, 3: 3 });
    const then = await collect(client.listExamples({ datasetId: dataset.id, asOf: v1 }));
    expect(Object.fromEntries(then.map((e) => [e.inputs.n, e.outputs?.m]))).toEqual({ 1: 1, 2: 2 });
    const byTag = await collect(client.listExamples({ datasetId: dataset.id, asOf: 'v1' }));
    expect(byTag.map((e) => e.id).sort()).toEqual(then.map((e) => e.id).sort());
    expect((await client.readExample(a!.id)).outputs).toEqual({ m: 10 });

    const diff = await client.diffDatasetVersions({ datasetId: dataset.id, fromVersion: 'v1', toVersion: 'latest' });
    expect(diff).toEqual({ examples_modified: [a!.id], examples_added: [c!.id], examples_removed: [b!.id] });

    // The tag moves when another version is tagged.
    const latest = (await client.readDatasetVersion({ datasetId: dataset.id, asOf: new Date() })).as_of;
    await client.updateDatasetTag({ datasetId: dataset.id, asOf: latest, tag: 'v1' });
    expect((await client.readDatasetVersion({ datasetId: dataset.id, tag: 'v1' })).as_of).toBe(latest);
  });

  test('a chat dataset in OpenAI’s fine-tuning format', async () => {
    const client = clientOf(jsWorkspace);
    const dataset = await client.createDataset(`js-chat-${randomUUID().slice(0, 8)}`, { dataType: 'chat' });
    await client.createChatExample(
      [{ role: 'user', content: 'What is 2+2?' }],
      { role: 'assistant', content: '4' },
      { datasetId: dataset.id },
    );
    expect(await client.readDatasetOpenaiFinetuning({ datasetId: dataset.id })).toEqual([
      {
        messages: [
          { role: 'user', content: 'What is 2+2?' },
          { role: 'assistant', content: '4' },
        ],
      },
    ]);
  });

  test("another workspace's examples and datasets are not found", async () => {
    const mine = clientOf(jsWorkspace);
    const theirs = clientOf(otherWorkspace);
    const dataset = await mine.createDataset(`js-private-${randomUUID().slice(0, 8)}`);
    const example = await mine.createExample({ secret: 1 }, { out: 1 }, { datasetId: dataset.id });
    await expect(theirs.readExample(example.id)).rejects.toThrow(/not found/);
    await expect(collect(theirs.listExamples({ datasetId: dataset.id }))).rejects.toThrow(/not found/);
    await expect(theirs.createExample({ x: 1 }, { y: 1 }, { datasetId: dataset.id })).rejects.toThrow(/not found/);
    await expect(theirs.updateExample({ id: example.id, dataset_id: dataset.id, inputs: { x: 2 } })).rejects.toThrow(
      /not found/,
    );
    await expect(theirs.deleteExample(example.id)).rejects.toThrow(/not found/);
    expect((await mine.readExample(example.id)).inputs).toEqual({ secret: 1 });
  });

  test('the clients’ other API URL (without /api/v1) reaches the same examples', async () => {
    const client = clientOf(jsWorkspace, tracingUrl());
    const dataset = await client.createDataset(`js-root-${randomUUID().slice(0, 8)}`);
    const example = await client.createExample({ q: 1 }, { a: 1 }, { datasetId: dataset.id });
    expect((await clientOf(jsWorkspace).readExample(example.id)).inputs).toEqual({ q: 1 });
  });
});

interface PyExample {
  type: string;
  id: string;
  dataset_id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  metadata: Record<string, unknown>;
  modified_at: string;
  attachments: string[];
}
interface PyResult {
  dataset_id: string;
  one: PyExample;
  created: { example_ids: string[]; count: number; as_of: string };
  made: string[];
  with_file: PyExample;
  attachment_type: string;
  attachment_bytes: string;
  listed: string[];
  listed_types: string[];
  listed_by_name: string[];
  listed_by_metadata: string[];
  listed_by_ids: string[];
  listed_paged: number;
  splits: string[];
  first_version: string;
  updated: PyExample[];
  one_then: PyExample;
  after_delete: string[];
  at_tag: string[];
  versions: Array<{ as_of: string; tags: string[] }>;
  tagged: { as_of: string; tags: string[] };
  diff: { added: string[]; removed: string[]; modified: string[] };
  uploaded: { name: string; example_count: number };
  uploaded_examples: Array<[Record<string, unknown>, Record<string, unknown>]>;
  missing: string;
}

describe('langsmith (PyPI) examples', () => {
  test('every example and version method, each answer a valid model', async () => {
    const prefix = `py-${randomUUID().slice(0, 8)}`;
    const env = { LANGSMITH_ENDPOINT: `${tracingUrl()}/api/v1`, LANGSMITH_API_KEY: pyWorkspace.apiKey };
    const run = await runPythonScript<PyResult>(pyenv, 'examples.py', [prefix], env);
    const r = run.result;
    const refused = r.requests.filter((q) => q.status >= 300).map((q) => `${q.method} ${q.path} ${q.status}`);
    // The one refusal the script asks for (reading a deleted example), and no other.
    expect(refused).toEqual([`GET /api/v1/examples/${r.made[1]} 404`]);
    expect(r.log, run.stderr).toEqual([]);
    // Python writes through the multipart routes, as /info offers them.
    expect(r.requests.some((q) => q.path === `/api/v1/platform/datasets/${r.dataset_id}/examples`)).toBe(true);

    const [a, b, c] = r.made as [string, string, string];
    expect(r.one).toMatchObject({
      type: 'Example',
      dataset_id: r.dataset_id,
      inputs: { question: '2+2?' },
      outputs: { answer: '4' },
      metadata: { level: 'easy', dataset_split: ['train'] },
    });
    expect(r.created).toMatchObject({ count: 3 });
    expect([...r.created.example_ids].sort()).toEqual([...r.made].sort());
    expect(r.with_file.attachments).toEqual(['notes']);
    expect(r.attachment_type).toBe('text/plain');
    expect(r.attachment_bytes).toBe('hello attachment');
    const sorted = (ids: string[]) => [...ids].sort();
    expect(r.listed).toEqual(sorted([r.one.id, a, b, c]));
    expect(r.listed_types).toEqual(['Example']);
    expect(r.listed_by_name).toEqual(sorted([a, b]));
    expect(r.listed_by_metadata).toEqual([a]);
    expect(r.listed_by_ids).toEqual(sorted([a, r.one.id]));
    expect(r.listed_paged).toBe(2);
    expect(r.splits).toEqual(['base', 'test', 'train']);

    const [one, first, second] = r.updated as [PyExample, PyExample, PyExample];
    expect(one).toMatchObject({ inputs: { question: '3+3?' }, outputs: { answer: '6' } });
    expect(first.metadata).toEqual({ level: 'medium', dataset_split: ['test', 'golden'] });
    expect(second.metadata).toEqual({ dataset_split: ['validation'] });
    // As of the first version, the example is as it was created.
    expect(r.one_then).toMatchObject({ inputs: { question: '2+2?' }, outputs: { answer: '4' } });

    expect(r.after_delete).toEqual([r.one.id]);
    // The tagged version still holds what was deleted since, except the hard-deleted example.
    expect(r.at_tag).toEqual(sorted([r.one.id, a, b]));
    expect(r.tagged).toEqual({ as_of: r.first_version, tags: ['prod'] });
    expect(r.versions.find((v) => v.tags.includes('prod'))?.as_of).toBe(r.first_version);
    expect(r.versions.length).toBeGreaterThanOrEqual(5);
    expect(r.diff).toEqual({ added: [], removed: sorted([a, b]), modified: [r.one.id] });
    expect(r.uploaded).toEqual({ name: `${prefix}-csv`, example_count: 2 });
    expect(r.uploaded_examples).toEqual([
      [{ question: 'What is 1+1?' }, { answer: '2' }],
      [{ question: 'What is 2*3?' }, { answer: '6' }],
    ]);
    expect(r.missing).toBe('LangSmithNotFoundError');
  });
});
