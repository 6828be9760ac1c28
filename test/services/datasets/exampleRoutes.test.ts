// The examples API against the shared stack, as no client library calls it: Python's JSON routes
// (POST /examples, /examples/bulk, PATCH /examples/{id}, /examples/bulk), versions read by time
// and tag, hard deletion, CSV upload, and every refusal: a clear 4xx naming what is wrong, with
// nothing written (a bulk write with one bad example writes none of them). A shape the route's
// schema refuses is a 422; what a schema cannot say (the dataset's own schemas, a multipart part)
// is a 400.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../support/tracingClient.ts';

let ws: Workspace;
beforeAll(async () => {
  [ws] = (await createWorkspaces(1)) as [Workspace];
});

const call = (method: string, path: string, json?: unknown) =>
  api(path, { method, apiKey: ws.apiKey, ...(json === undefined ? {} : { json }) });

async function dataset(extra: Record<string, unknown> = {}): Promise<string> {
  const res = await call('POST', '/datasets', { name: `examples-${randomUUID().slice(0, 8)}`, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id;
}

const listIds = async (query: string) => {
  const res = await call('GET', `/examples?${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as Array<{ id: string }>).map((e) => e.id).sort();
};

describe('JSON routes (Python without the multipart routes)', () => {
  test('create one and many, change one and many, read back; each write a version', async () => {
    const d = await dataset();
    const one = await call('POST', '/examples', {
      dataset_id: d,
      inputs: { q: 1 },
      outputs: { a: 1 },
      metadata: { tag: 'x', dataset_split: ['dev'] },
      created_at: '2026-01-02T03:04:05.123456+00:00',
    });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body).toMatchObject({
      dataset_id: d,
      inputs: { q: 1 },
      outputs: { a: 1 },
      metadata: { tag: 'x', dataset_split: ['dev'] },
      created_at: '2026-01-02T03:04:05.123456Z',
      source_run_id: null,
      attachment_urls: null,
    });
    const many = await call('POST', '/examples/bulk', [
      { dataset_id: d, inputs: { q: 2 }, split: 'train' },
      { dataset_id: d, inputs: { q: 3 } },
    ]);
    expect(many.status, JSON.stringify(many.body)).toBe(200);
    expect(many.body.map((e: { metadata: unknown }) => e.metadata)).toEqual([
      { dataset_split: ['train'] },
      { dataset_split: ['base'] },
    ]);
    expect(many.body[0].modified_at).toBe(many.body[1].modified_at);

    const patched = await call('PATCH', `/examples/${one.body.id}`, { outputs: { a: 10 }, split: ['dev', 'test'] });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ example_ids: [one.body.id], count: 1 });
    const bulk = await call('PATCH', '/examples/bulk', [
      { id: many.body[0].id, inputs: { q: 20 } },
      { id: many.body[1].id, metadata: { note: 'n' } },
    ]);
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
    const now = (await call('GET', `/examples?dataset=${d}`)).body as Array<Record<string, unknown>>;
    expect(now.map((e) => [e.inputs, e.outputs, e.metadata])).toEqual([
      [{ q: 1 }, { a: 10 }, { tag: 'x', dataset_split: ['dev', 'test'] }],
      [{ q: 20 }, null, { dataset_split: ['train'] }],
      [{ q: 3 }, null, { note: 'n', dataset_split: ['base'] }],
    ]);
    // Four writes, four versions, newest first; the first holds only the first example, as it was.
    const versions = (await call('GET', `/datasets/${d}/versions`)).body as Array<{ as_of: string }>;
    expect(versions).toHaveLength(4);
    const first = await call('GET', `/examples?dataset=${d}&as_of=${encodeURIComponent(versions[3]!.as_of)}`);
    expect(first.body.map((e: { outputs: unknown }) => e.outputs)).toEqual([{ a: 1 }]);
    expect((await call('GET', `/datasets/${d}/splits`)).body).toEqual(['base', 'dev', 'test', 'train']);
    expect((await call('GET', `/datasets/${d}`)).body.example_count).toBe(3);
  });

  test('a hard deletion takes an example out of every version; a soft one only from then on', async () => {
    const d = await dataset();
    const made = await call('POST', '/examples/bulk', [
      { dataset_id: d, inputs: { n: 1 } },
      { dataset_id: d, inputs: { n: 2 } },
    ]);
    const [soft, hard] = made.body.map((e: { id: string }) => e.id) as [string, string];
    const v1 = made.body[0].modified_at as string;
    expect((await call('DELETE', `/examples?example_ids=${soft}`)).status).toBe(200);
    const purged = await call('POST', '/v1/platform/datasets/examples/delete', {
      example_ids: [hard],
      hard_delete: true,
    });
    expect(purged.status, JSON.stringify(purged.body)).toBe(200);
    expect(await listIds(`dataset=${d}`)).toEqual([]);
    expect(await listIds(`dataset=${d}&as_of=${encodeURIComponent(v1)}`)).toEqual([soft]);
    expect((await call('GET', `/examples/${hard}?as_of=${encodeURIComponent(v1)}`)).status).toBe(404);
    // A soft-deleted example can still be purged.
    expect(
      (await call('POST', '/v1/platform/datasets/examples/delete', { example_ids: [soft], hard_delete: true })).status,
    ).toBe(200);
    expect(await listIds(`dataset=${d}&as_of=${encodeURIComponent(v1)}`)).toEqual([]);
  });

  test('a CSV file becomes a dataset of examples', async () => {
    const name = `csv-${randomUUID().slice(0, 8)}`;
    const form = new FormData();
    form.append('file', new Blob(['q,a,other\n"1, quoted",one,x\n2,two,y\n'], { type: 'text/csv' }), `${name}.csv`);
    form.append('input_keys', 'q');
    form.append('output_keys', 'a');
    const res = await fetch(`${tracingUrl()}/datasets/upload`, {
      method: 'POST',
      headers: { 'x-api-key': ws.apiKey },
      body: form,
    });
    const body = (await res.json()) as { id: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ name, example_count: 2, data_type: 'kv' });
    const examples = (await call('GET', `/examples?dataset=${body.id}`)).body as Array<Record<string, unknown>>;
    expect(examples.map((e) => [e.inputs, e.outputs])).toEqual([
      [{ q: '1, quoted' }, { a: 'one' }],
      [{ q: '2' }, { a: 'two' }],
    ]);
  });
});

describe('a dataset as files', () => {
  test('JSON Lines, CSV (quoted where CSV must), OpenAI fine-tuning lines, at a version', async () => {
    const d = await dataset({ data_type: 'chat' });
    const first = await call('POST', '/examples/bulk', [
      {
        dataset_id: d,
        inputs: {
          messages: [
            { role: 'system', content: 'be brief' },
            { role: 'user', content: 'hi, "you"' },
          ],
        },
        outputs: { output: { role: 'assistant', content: 'hello,\nthere' } },
        split: 'train',
      },
    ]);
    await call('POST', '/examples', {
      dataset_id: d,
      inputs: { messages: [{ type: 'human', data: { content: 'bye' } }] },
      outputs: { output: { type: 'ai', data: { content: 'see you' } } },
    });
    const text = async (path: string) => {
      const res = await fetch(`${tracingUrl()}${path}`, { headers: { 'x-api-key': ws.apiKey } });
      expect(res.status, path).toBe(200);
      return { type: res.headers.get('content-type'), body: await res.text() };
    };
    const jsonl = await text(`/datasets/${d}/jsonl`);
    expect(jsonl.type).toMatch(/^application\/jsonl/);
    const lines = jsonl.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.metadata.dataset_split)).toEqual([['train'], ['base']]);
    const csv = await text(`/datasets/${d}/csv`);
    expect(csv.type).toMatch(/^text\/csv/);
    const [header, row] = csv.body.split('\n');
    expect(header).toBe('id,inputs.messages,outputs.output,splits,metadata');
    expect(row).toContain('"[{""role"":""system""');
    const ft = await text(`/datasets/${d}/openai_ft`);
    expect(
      ft.body
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      {
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi, "you"' },
          { role: 'assistant', content: 'hello,\nthere' },
        ],
      },
      {
        messages: [
          { role: 'user', content: 'bye' },
          { role: 'assistant', content: 'see you' },
        ],
      },
    ]);
    // As of the first write, one example.
    const then = await text(`/datasets/${d}/jsonl?as_of=${encodeURIComponent(first.body[0].modified_at)}`);
    expect(then.body.trim().split('\n')).toHaveLength(1);
  });
});

describe('refusals: a 4xx naming what is wrong, and nothing written', () => {
  test('inputs or outputs against the dataset’s schemas: 400, and none of a bulk write is kept', async () => {
    const d = await dataset({
      inputs_schema_definition: { type: 'object', required: ['q'], properties: { q: { type: 'string' } } },
      outputs_schema_definition: { type: 'object', properties: { a: { type: 'number' } } },
    });
    const bad = await call('POST', '/examples/bulk', [
      { dataset_id: d, inputs: { q: 'fine' } },
      { dataset_id: d, inputs: { q: 7 } },
    ]);
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toMatch(/inputs does not match the dataset's schema: must be string at \/q/);
    const badOutputs = await call('POST', '/examples', { dataset_id: d, inputs: { q: 'x' }, outputs: { a: 'nan' } });
    expect(badOutputs.status).toBe(400);
    expect(badOutputs.body.detail).toMatch(/outputs does not match/);
    expect(await listIds(`dataset=${d}`)).toEqual([]);
    const good = await call('POST', '/examples', { dataset_id: d, inputs: { q: 'x' }, outputs: { a: 1 } });
    expect(good.status).toBe(200);
    const patch = await call('PATCH', `/examples/${good.body.id}`, { inputs: { other: 1 } });
    expect(patch.status).toBe(400);
    expect(patch.body.detail).toMatch(/must have required property 'q'/);
  });

  test('ids: taken is 409, twice in one request 400, unknown 404 ("… not found")', async () => {
    const d = await dataset();
    const id = randomUUID();
    expect((await call('POST', '/examples', { id, dataset_id: d, inputs: {} })).status).toBe(200);
    const taken = await call('POST', '/examples', { id, dataset_id: d, inputs: {} });
    expect(taken.status).toBe(409);
    expect(taken.body.detail).toContain(`example ${id} already exists`);
    const twice = await call('POST', '/examples/bulk', [
      { id: randomUUID(), dataset_id: d, inputs: {} },
      { id, dataset_id: d, inputs: {} },
      { id, dataset_id: d, inputs: {} },
    ]);
    expect(twice.status).toBe(400);
    const unknown = randomUUID();
    for (const [method, path, json] of [
      ['GET', `/examples/${unknown}`, undefined],
      ['PATCH', `/examples/${unknown}`, { inputs: { x: 1 } }],
      ['DELETE', `/examples/${unknown}`, undefined],
      ['POST', '/examples', { dataset_id: randomUUID(), inputs: {} }],
      ['GET', `/examples?dataset=${randomUUID()}`, undefined],
      ['GET', `/examples?dataset=${d}&as_of=no-such-tag`, undefined],
      ['GET', `/datasets/${d}/version?tag=no-such-tag`, undefined],
    ] as const) {
      const res = await call(method, path, json);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.detail, `${method} ${path}`).toMatch(/not found/);
    }
    expect(await listIds(`dataset=${d}`)).toEqual([id]);
  });

  test('bad shapes: 400 or 422 naming the field', async () => {
    const d = await dataset();
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ['POST', '/examples', { dataset_id: d }, 400, /inputs are required/],
      ['POST', '/examples', { dataset_id: d, inputs: [] }, 422, /inputs/],
      ['POST', '/examples', { dataset_id: d, inputs: {}, split: [''] }, 422, /split/],
      ['POST', '/examples', { dataset_id: d, inputs: {}, created_at: 'yesterday' }, 422, /created_at/],
      ['POST', '/examples', { dataset_id: d, inputs: {}, use_source_run_io: true }, 400, /source_run_id/],
      ['GET', '/examples', undefined, 400, /name the dataset/],
      ['GET', `/examples?dataset=${d}&filter=eq(x,1)`, undefined, 400, /filter is not supported/],
      ['GET', `/datasets/${d}/version`, undefined, 400, /exactly one of as_of and tag/],
      ['PUT', `/datasets/${d}/tags`, { as_of: new Date().toISOString(), tag: 'latest' }, 400, /cannot be a tag/],
    ];
    for (const [method, path, json, status, message] of cases) {
      const res = await call(method, path, json);
      expect(res.status, `${method} ${path} ${JSON.stringify(json)}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.detail, `${method} ${path}`).toMatch(message);
    }
    expect(await listIds(`dataset=${d}`)).toEqual([]);
  });

  test('multipart: a part without its example’s id, bad JSON, a non-UUID id: 400, nothing written', async () => {
    const d = await dataset();
    const send = async (parts: Array<[string, string]>) => {
      const form = new FormData();
      for (const [name, text] of parts) form.append(name, new Blob([text], { type: 'application/json' }));
      const res = await fetch(`${tracingUrl()}/v1/platform/datasets/${d}/examples`, {
        method: 'POST',
        headers: { 'x-api-key': ws.apiKey },
        body: form,
      });
      return { status: res.status, body: (await res.json()) as { detail: string } };
    };
    const id = randomUUID();
    const good: Array<[string, string]> = [
      [id, '{}'],
      [`${id}.inputs`, '{"q":1}'],
    ];
    const cases: Array<[Array<[string, string]>, RegExp]> = [
      [[...good, [`${randomUUID()}.inputs`, '{not json']], /part .*\.inputs/],
      [[...good, ['not-a-uuid.inputs', '{}']], /example id is not a UUID/],
      [[...good, [`${id}.unknown`, '{}']], /unknown part name/],
      [[[randomUUID(), '{}']], /inputs are required/],
    ];
    for (const [parts, message] of cases) {
      const res = await send(parts);
      expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.detail).toMatch(message);
    }
    expect(await listIds(`dataset=${d}`)).toEqual([]);
    expect((await send(good)).status).toBe(200);
    expect(await listIds(`dataset=${d}`)).toEqual([id]);
  });

  test('CSV upload: a column that is not in the file, a file that is not CSV: 400, no dataset', async () => {
    const name = `csv-bad-${randomUUID().slice(0, 8)}`;
    for (const [csv, keys, message] of [
      ['q,a\n1,2\n', ['missing'], /no column "missing"/],
      ['q,a\n"unterminated,2\n', ['q'], /not a CSV/],
    ] as const) {
      const form = new FormData();
      form.append('file', new Blob([csv], { type: 'text/csv' }), 'x.csv');
      for (const k of keys) form.append('input_keys', k);
      form.append('name', name);
      const res = await fetch(`${tracingUrl()}/datasets/upload`, {
        method: 'POST',
        headers: { 'x-api-key': ws.apiKey },
        body: form,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toMatch(message);
    }
    expect((await call('GET', `/datasets?name=${name}`)).body).toEqual([]);
  });
});
