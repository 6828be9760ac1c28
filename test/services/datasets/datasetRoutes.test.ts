// The datasets API against the shared stack: create, read, list with filters and paging, update,
// delete; names unique per workspace (409); workspaces isolated (404); bad input a 422 naming
// the field, with nothing appended; experiments counted from the projects that name a dataset.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { api, createWorkspaces, type Workspace } from '../../support/tracingClient.ts';

let ws: Workspace;
let other: Workspace;
beforeAll(async () => {
  [ws, other] = (await createWorkspaces(2)) as [Workspace, Workspace];
});

const unique = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;
const create = (body: Record<string, unknown>, apiKey = ws.apiKey) =>
  api('/datasets', { method: 'POST', apiKey, json: body });
const read = (id: string, apiKey = ws.apiKey) => api(`/datasets/${id}?limit=1`, { apiKey });
const list = (query: string, apiKey = ws.apiKey) => api(`/datasets?${query}`, { apiKey });
const names = (res: { body: Array<{ name: string }> }) => res.body.map((d) => d.name);
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

describe('create, read, update, delete', () => {
  test('a dataset round-trips through every route, at / and /api/v1', async () => {
    const name = unique('crud');
    const inputs = { type: 'object', required: ['question'], properties: { question: { type: 'string' } } };
    const created = await create({
      name,
      description: 'first',
      data_type: 'chat',
      extra: { metadata: { team: 'a' }, source: 'sdk' },
      inputs_schema_definition: inputs,
      transformations: [{ path: ['inputs'], transformation_type: 'convert_to_openai_message' }],
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenant_id: ws.id,
      name,
      description: 'first',
      data_type: 'chat',
      inputs_schema_definition: inputs,
      outputs_schema_definition: null,
      transformations: [{ path: ['inputs'], transformation_type: 'convert_to_openai_message' }],
      metadata: { team: 'a' },
      extra: { metadata: { team: 'a' }, source: 'sdk' },
      created_at: iso,
      modified_at: iso,
      example_count: 0,
      session_count: 0,
      last_session_start_time: null,
    });
    expect((await read(id)).body).toEqual(created.body);
    expect((await api(`/api/v1/datasets/${id}`, { apiKey: ws.apiKey })).body).toEqual(created.body);
    expect((await list(`name=${name}&limit=1`)).body).toEqual([created.body]);

    const patched = await api(`/datasets/${id}`, {
      method: 'PATCH',
      apiKey: ws.apiKey,
      json: { name: `${name}-renamed`, description: null, metadata: { team: 'b' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id,
      name: `${name}-renamed`,
      description: 'first',
      metadata: { team: 'b' },
      extra: { metadata: { team: 'b' }, source: 'sdk' },
      inputs_schema_definition: inputs,
    });
    expect(patched.body.modified_at >= created.body.modified_at).toBe(true);
    expect((await list(`name=${name}`)).body).toEqual([]);

    const deleted = await api(`/datasets/${id}`, { method: 'DELETE', apiKey: ws.apiKey });
    expect(deleted.status).toBe(204);
    const gone = await read(id);
    expect(gone.status).toBe(404);
    // The clients look for this text.
    expect(JSON.stringify(gone.body).toLowerCase()).toContain('not found');
    expect((await api(`/datasets/${id}`, { method: 'DELETE', apiKey: ws.apiKey })).status).toBe(404);
    expect((await api(`/datasets/${id}`, { method: 'PATCH', apiKey: ws.apiKey, json: { name: 'x' } })).status).toBe(
      404,
    );
    // The name is free again, for a dataset with a new id.
    const again = await create({ name: `${name}-renamed` });
    expect(again.status).toBe(200);
    expect(again.body.id).not.toBe(id);
  });

  test('a name a live dataset holds is a 409, at creation and at rename; a caller-chosen id is kept once', async () => {
    const name = unique('dup');
    const first = await create({ name });
    expect((await create({ name, description: 'again' })).status).toBe(409);
    const second = await create({ name: `${name}-2` });
    const rename = await api(`/datasets/${second.body.id}`, { method: 'PATCH', apiKey: ws.apiKey, json: { name } });
    expect(rename.status).toBe(409);
    expect(rename.body.message ?? rename.body.detail).toContain(first.body.id);

    const id = randomUUID();
    const chosen = await create({ name: unique('chosen'), id });
    expect(chosen.body.id).toBe(id);
    expect((await create({ name: unique('chosen'), id })).status).toBe(409);
  });

  test('racing creations of one name: exactly one wins, the others are 409s', async () => {
    const name = unique('race');
    const answers = await Promise.all(Array.from({ length: 6 }, () => create({ name })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect((await list(`name=${name}`)).body).toHaveLength(1);
  });
});

describe('bad input', () => {
  test.each([
    ['no name', {}, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['an unknown data type', { name: 'x', data_type: 'table' }, 'data_type'],
    [
      'an inputs schema that is no JSON Schema',
      { name: 'x', inputs_schema_definition: { type: 'nope' } },
      'inputs_schema_definition',
    ],
    [
      'an outputs schema that is no JSON Schema',
      { name: 'x', outputs_schema_definition: { required: 'a' } },
      'outputs_schema_definition',
    ],
    [
      'an unknown transformation',
      { name: 'x', transformations: [{ path: ['a'], transformation_type: 'shout' }] },
      'transformation_type',
    ],
    ['an id that is no UUID', { name: 'x', id: 'abc' }, 'id'],
    ['an extra over 256 KiB', { name: 'x', extra: { big: 'x'.repeat(300_000) } }, 'extra'],
  ] as Array<[string, Record<string, unknown>, string]>)(
    '%s is a 422 naming the field, and nothing is created',
    async (_label, body, field) => {
      const name = unique('bad');
      // A unique name in place of 'x', so the list below finds what a wrong answer would have made.
      const res = await create(body.name === 'x' ? { ...body, name } : body);
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body)).toContain(field);
      expect((await list(`name=${name}`)).body).toEqual([]);
    },
  );

  test('an update with a bad schema is a 422 and changes nothing', async () => {
    const d = await create({ name: unique('bad-update'), description: 'kept' });
    const res = await api(`/datasets/${d.body.id}`, {
      method: 'PATCH',
      apiKey: ws.apiKey,
      json: { description: 'lost', inputs_schema_definition: { properties: 3 } },
    });
    expect(res.status).toBe(422);
    expect((await read(d.body.id)).body.description).toBe('kept');
  });

  test('query parameters of the wrong form are 422s; a metadata filter that is no JSON a 400', async () => {
    expect((await list('id=nope')).status).toBe(422);
    expect((await list('limit=0')).status).toBe(422);
    expect((await list('limit=101')).status).toBe(422);
    expect((await list('data_type=table')).status).toBe(422);
    expect((await list('metadata={nope')).status).toBe(400);
    // JSON's whitespace is space, tab, CR and LF: a form feed before the brace is no JSON object (422, not 400).
    expect((await list('metadata=%0C%7B%7D')).status).toBe(422);
    expect((await api('/sessions?metadata=%0B%7B%7D', { apiKey: ws.apiKey })).status).toBe(422);
    expect((await list(`metadata=${encodeURIComponent(' \t\r\n{}')}`)).status).toBe(200);
    expect((await read('not-a-uuid')).status).toBe(422);
  });
});

describe('lists', () => {
  test('filters by id, type, exact name, part of the name and metadata; newest first; offset and limit', async () => {
    const tag = unique('list');
    const made: Array<{ id: string; name: string }> = [];
    for (const [i, dataType] of (['kv', 'llm', 'chat', 'kv'] as const).entries()) {
      const res = await create({
        name: `${tag}-${i}`,
        data_type: dataType,
        extra: { metadata: { i, even: i % 2 === 0, tag } },
      });
      made.push(res.body);
    }
    const byTag = `name_contains=${tag.toUpperCase()}`;
    expect(names(await list(byTag))).toEqual(made.map((d) => d.name).reverse());
    expect(names(await list(`${byTag}&data_type=kv`))).toEqual([`${tag}-3`, `${tag}-0`]);
    expect(names(await list(`${byTag}&data_type=llm&data_type=chat`))).toEqual([`${tag}-2`, `${tag}-1`]);
    expect(names(await list(`id=${made[1]!.id}&id=${made[2]!.id}`))).toEqual([`${tag}-2`, `${tag}-1`]);
    expect(names(await list(`name=${tag}-1`))).toEqual([`${tag}-1`]);
    const even = encodeURIComponent(JSON.stringify({ even: true, tag }));
    expect(names(await list(`metadata=${even}`))).toEqual([`${tag}-2`, `${tag}-0`]);
    expect(names(await list(`${byTag}&offset=1&limit=2`))).toEqual([`${tag}-2`, `${tag}-1`]);
    expect(names(await list(`${byTag}&offset=4`))).toEqual([]);
  });
});

describe('workspaces', () => {
  test("another workspace's dataset is a 404 for every route, and out of its lists; names are per workspace", async () => {
    const name = unique('iso');
    const mine = await create({ name });
    const id = mine.body.id as string;
    expect((await read(id, other.apiKey)).status).toBe(404);
    expect((await list(`id=${id}`, other.apiKey)).body).toEqual([]);
    expect((await list(`name=${name}`, other.apiKey)).body).toEqual([]);
    const patch = await api(`/datasets/${id}`, { method: 'PATCH', apiKey: other.apiKey, json: { description: 'x' } });
    expect(patch.status).toBe(404);
    expect((await api(`/datasets/${id}`, { method: 'DELETE', apiKey: other.apiKey })).status).toBe(404);
    expect((await read(id)).status).toBe(200);
    // The same name in the other workspace is another dataset.
    const theirs = await create({ name }, other.apiKey);
    expect(theirs.status).toBe(200);
    expect(theirs.body.id).not.toBe(id);
    expect((await api('/datasets', { apiKey: 'not-a-key' })).status).toBe(401);
  });
});

describe('experiments', () => {
  test("a dataset counts the projects run against it, and the newest one's start", async () => {
    const d = await create({ name: unique('exp') });
    const start = (s: string) => ({ name: unique('experiment'), reference_dataset_id: d.body.id, start_time: s });
    expect(
      (await api('/sessions', { method: 'POST', apiKey: ws.apiKey, json: start('2030-01-01T00:00:00Z') })).status,
    ).toBe(200);
    await api('/sessions', { method: 'POST', apiKey: ws.apiKey, json: start('2030-02-01T00:00:00Z') });
    await api('/sessions', { method: 'POST', apiKey: ws.apiKey, json: { name: unique('plain') } });
    const res = await read(d.body.id);
    expect(res.body).toMatchObject({ session_count: 2, last_session_start_time: '2030-02-01T00:00:00.000000Z' });
  });
});
