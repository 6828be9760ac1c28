// The projects API (/sessions) against the shared stack: create, read, list with filters and
// paging, update, delete; names unique per workspace (409, upsert); workspaces isolated (404);
// ids per workspace (another workspace may hold the same id, neither learns of the other's);
// deleted projects gone for reads and ingestion, their names free again; read-your-writes
// across API replicas.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { inject } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { api, createWorkspaces, waitForRun, type Workspace } from '../../../support/tracingClient.ts';
import { makeTrace } from '../../../support/runFactory.ts';
import { freePort, startService, waitFor, type ServiceProcess } from '../../../support/serviceProcess.ts';

let ws: Workspace;
let other: Workspace;
beforeAll(async () => {
  [ws, other] = (await createWorkspaces(2)) as [Workspace, Workspace];
});

const unique = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;
const create = (body: Record<string, unknown>, apiKey = ws.apiKey, query = '') =>
  api(`/sessions${query}`, { method: 'POST', apiKey, json: body });
const read = (id: string, apiKey = ws.apiKey) => api(`/sessions/${id}`, { apiKey });
const list = (query: string, apiKey = ws.apiKey) => api(`/sessions?${query}`, { apiKey });
const names = (res: { body: Array<{ name: string }> }) => res.body.map((p) => p.name);
const postRun = (apiKey: string, session: { session_id?: string; session_name?: string }) =>
  api('/runs', {
    method: 'POST',
    apiKey,
    json: { id: uuidv7(), name: 'r', run_type: 'chain', inputs: {}, start_time: new Date().toISOString(), ...session },
  });

describe('create, read, update, delete', () => {
  test('a project round-trips through every route, at / and /api/v1', async () => {
    const name = unique('crud');
    const created = await create({ name, description: 'first', extra: { metadata: { team: 'a' } } });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenant_id: ws.id,
      name,
      description: 'first',
      extra: { metadata: { team: 'a' } },
      start_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      end_time: null,
      reference_dataset_id: null,
    });
    // A project read alone carries its run_count (none yet) even without include_stats.
    expect((await read(id)).body).toEqual({ ...created.body, run_count: 0 });
    expect((await api(`/api/v1/sessions/${id}`, { apiKey: ws.apiKey })).body).toEqual({
      ...created.body,
      run_count: 0,
    });

    // PATCH as the JS client sends it: null for what it does not change.
    const end = '2030-01-02T03:04:05.123456Z';
    const patched = await api(`/sessions/${id}`, {
      method: 'PATCH',
      apiKey: ws.apiKey,
      json: { name: null, description: 'second', extra: null, end_time: end },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id,
      name,
      description: 'second',
      extra: { metadata: { team: 'a' } },
      end_time: end,
    });
    const renamed = await api(`/api/v1/sessions/${id}`, {
      method: 'PATCH',
      apiKey: ws.apiKey,
      json: { name: `${name}-renamed`, extra: { metadata: { team: 'b' } } },
    });
    expect(renamed.body).toMatchObject({
      name: `${name}-renamed`,
      description: 'second',
      extra: { metadata: { team: 'b' } },
      end_time: end,
    });
    expect((await list(`name=${name}`)).body).toEqual([]);
    expect((await list(`name=${name}-renamed`)).body.map((p: { id: string }) => p.id)).toEqual([id]);

    expect((await api(`/sessions/${id}`, { method: 'DELETE', apiKey: ws.apiKey })).status).toBe(202);
    expect((await read(id)).status).toBe(404);
    expect((await list(`name=${name}-renamed`)).body).toEqual([]);
    expect((await list(`id=${id}`)).body).toEqual([]);
    expect((await api(`/sessions/${id}`, { method: 'DELETE', apiKey: ws.apiKey })).status).toBe(404);
    expect(
      (await api(`/sessions/${id}`, { method: 'PATCH', apiKey: ws.apiKey, json: { description: 'x' } })).status,
    ).toBe(404);
  });

  test('the Python client picks its own id; start_time, end_time and reference_dataset_id are kept', async () => {
    const id = randomUUID();
    const dataset = randomUUID();
    const res = await create({
      id,
      name: unique('py'),
      description: null,
      extra: null,
      reference_dataset_id: dataset,
      start_time: '2024-05-06T07:08:09.000001+00:00',
      end_time: 1715000000000,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      reference_dataset_id: dataset,
      extra: null,
      start_time: '2024-05-06T07:08:09.000001Z',
      end_time: '2024-05-06T12:53:20.000000Z',
    });
    // An id that is taken is a conflict, even under another name.
    expect((await create({ id, name: unique('py') })).status).toBe(409);
  });

  test('a duplicate name is a 409 that says what to do; with upsert the existing project is updated and returned', async () => {
    const name = unique('dup');
    const first = await create({ name, description: 'one', extra: { metadata: { v: 1 } } });
    const again = await create({ name, description: 'two' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('CONFLICT');
    expect(again.body.detail).toContain(`"${name}" already exists`);
    expect(again.body.detail).toContain('upsert=true');
    // Python sends upsert=True, with its own (new) id, which an upsert does not use.
    const upserted = await create(
      { id: randomUUID(), name, description: 'three', extra: null },
      ws.apiKey,
      '?upsert=True',
    );
    expect(upserted.status).toBe(200);
    expect(upserted.body).toMatchObject({
      id: first.body.id,
      name,
      description: 'three',
      extra: { metadata: { v: 1 } },
    });
    const upsertedAgain = await create({ name, extra: { metadata: { v: 2 } } }, ws.apiKey, '?upsert=true');
    expect(upsertedAgain.body).toMatchObject({
      id: first.body.id,
      description: 'three',
      extra: { metadata: { v: 2 } },
    });
    // A rename onto a taken name is a conflict too.
    const second = await create({ name: unique('dup') });
    expect(
      (await api(`/sessions/${second.body.id}`, { method: 'PATCH', apiKey: ws.apiKey, json: { name } })).status,
    ).toBe(409);
  });

  test("another workspace's project is a 404 for every route, and names are per workspace", async () => {
    const name = unique('mine');
    const mine = (await create({ name })).body;
    expect((await read(mine.id, other.apiKey)).status).toBe(404);
    expect(
      (await api(`/sessions/${mine.id}`, { method: 'PATCH', apiKey: other.apiKey, json: { description: 'theirs' } }))
        .status,
    ).toBe(404);
    expect((await api(`/sessions/${mine.id}`, { method: 'DELETE', apiKey: other.apiKey })).status).toBe(404);
    expect((await list(`id=${mine.id}`, other.apiKey)).body).toEqual([]);
    expect((await list(`name=${name}`, other.apiKey)).body).toEqual([]);
    expect((await postRun(other.apiKey, { session_id: mine.id })).status).toBe(404);
    const theirs = await create({ name }, other.apiKey);
    expect(theirs.status).toBe(200);
    expect(theirs.body.id).not.toBe(mine.id);
    expect(theirs.body.tenant_id).toBe(other.id);
    expect((await read(mine.id)).body).toMatchObject({ name, description: null });
  });
});

describe('project ids chosen by clients are per workspace', () => {
  // As names are: another workspace may hold the same id, and neither learns of the other's nor is
  // kept from using it (the Python client picks its own ids, so two workspaces may pick one).
  test("another workspace's id is neither revealed nor taken: each workspace has its own project under it", async () => {
    const id = randomUUID();
    const mine = await create({ id, name: unique('id-mine'), description: 'mine' });
    expect(mine.status).toBe(200);
    const theirs = await create({ id, name: unique('id-theirs'), description: 'theirs' }, other.apiKey);
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(200);
    expect(theirs.body).toMatchObject({ id, tenant_id: other.id, description: 'theirs' });
    expect((await read(id)).body).toMatchObject({ id, tenant_id: ws.id, description: 'mine' });
    expect((await read(id, other.apiKey)).body).toMatchObject({ id, tenant_id: other.id, description: 'theirs' });
    // Runs land in each workspace's own project.
    const [run, theirRun] = [uuidv7(), uuidv7()];
    expect(
      (
        await api('/runs', {
          method: 'POST',
          apiKey: ws.apiKey,
          json: {
            id: run,
            name: 'r',
            run_type: 'chain',
            inputs: {},
            start_time: new Date().toISOString(),
            session_id: id,
          },
        })
      ).status,
    ).toBe(202);
    expect(
      (
        await api('/runs', {
          method: 'POST',
          apiKey: other.apiKey,
          json: {
            id: theirRun,
            name: 'r',
            run_type: 'chain',
            inputs: {},
            start_time: new Date().toISOString(),
            session_id: id,
          },
        })
      ).status,
    ).toBe(202);
    await waitForRun(ws.apiKey, run);
    await waitForRun(other.apiKey, theirRun);
    const query = (apiKey: string) => api('/runs/query', { method: 'POST', apiKey, json: { session: [id] } });
    expect((await query(ws.apiKey)).body.runs.map((r: { id: string }) => r.id)).toEqual([run]);
    expect((await query(other.apiKey)).body.runs.map((r: { id: string }) => r.id)).toEqual([theirRun]);
    // Deleting theirs leaves mine.
    expect((await api(`/sessions/${id}`, { method: 'DELETE', apiKey: other.apiKey })).status).toBeLessThan(300);
    await waitFor('their project to be gone', async () => (await read(id, other.apiKey)).status === 404, 60_000, 200);
    expect((await read(id)).status).toBe(200);
    expect((await query(ws.apiKey)).body.runs.map((r: { id: string }) => r.id)).toEqual([run]);
  });
});

describe('GET /sessions', () => {
  test('filters by name, name_contains, id, reference dataset and metadata, newest first, in pages', async () => {
    const prefix = unique('flt');
    const dataset = randomUUID();
    const made: Array<{ id: string; name: string }> = [];
    const specs = [
      { name: `${prefix}-a`, extra: { metadata: { env: 'prod', tier: 1 } } },
      { name: `${prefix}-b`, extra: { metadata: { env: 'dev' } } },
      { name: `${prefix}-c`, reference_dataset_id: dataset },
      { name: `${prefix}-D`, extra: { metadata: { env: 'prod', tier: 2 } } },
      { name: `${prefix}-e` },
    ];
    for (const [i, spec] of specs.entries())
      made.push((await create({ ...spec, start_time: Date.UTC(2031, 0, 1, 0, i) })).body);
    const newestFirst = [...made].reverse().map((p) => p.name);

    expect(names(await list(`name_contains=${prefix.toUpperCase()}`))).toEqual(newestFirst);
    expect(names(await list(`name=${prefix}-b`))).toEqual([`${prefix}-b`]);
    expect(names(await list(`name=${prefix}-d`))).toEqual([]);
    expect(names(await list(`name_contains=${prefix}&id=${made[0]!.id}&id=${made[4]!.id}`))).toEqual([
      `${prefix}-e`,
      `${prefix}-a`,
    ]);
    expect(names(await list(`name_contains=${prefix}&reference_free=false`))).toEqual([`${prefix}-c`]);
    expect(names(await list(`name_contains=${prefix}&reference_free=True`))).toEqual(
      newestFirst.filter((n) => !n.endsWith('-c')),
    );
    expect(names(await list(`reference_dataset=${dataset}`))).toEqual([`${prefix}-c`]);
    expect(
      names(await list(`name_contains=${prefix}&metadata=${encodeURIComponent(JSON.stringify({ env: 'prod' }))}`)),
    ).toEqual([`${prefix}-D`, `${prefix}-a`]);
    expect(
      names(
        await list(`name_contains=${prefix}&metadata=${encodeURIComponent(JSON.stringify({ env: 'prod', tier: 2 }))}`),
      ),
    ).toEqual([`${prefix}-D`]);

    // Pages as the clients walk them: offset += page length until a short page.
    const pages: string[][] = [];
    for (let offset = 0; ; offset += 2) {
      const page = names(await list(`name_contains=${prefix}&limit=2&offset=${offset}`));
      pages.push(page);
      if (page.length < 2) break;
    }
    expect(pages).toEqual([newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);
    // The JS client's tenant lookup: the first project of the workspace.
    expect((await list('limit=1')).body[0].tenant_id).toBe(ws.id);
  });

  test.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['offset=-1', 'offset'],
    ['id=not-a-uuid', 'id'],
    ['reference_dataset=x', 'reference_dataset'],
    ['reference_free=maybe', 'reference_free'],
    ['include_stats=often', 'include_stats'],
    ['metadata=%5B1%5D', 'metadata'],
    ['name=a&name=b', 'name'],
  ])('?%s is a 422 naming %s', async (query, field) => {
    const res = await list(query);
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain(field);
  });

  test('metadata that is not JSON is a 400 (INVALID_JSON) naming it', async () => {
    const res = await list('metadata=%7Bnot-json');
    expect([res.status, res.body.error]).toEqual([400, 'INVALID_JSON']);
    expect(res.body.detail).toContain('metadata');
  });
});

describe("GET /sessions/resolutions (the clients' sessions.resolve)", () => {
  const resolve = (query: string, apiKey = ws.apiKey, prefix = '') =>
    api(`${prefix}/sessions/resolutions?${query}`, { apiKey });

  test('an experiment resolves to its project, at / and /api/v1; kind in any case', async () => {
    const experiment = (await create({ name: unique('experiment'), reference_dataset_id: randomUUID() })).body;
    for (const prefix of ['', '/api/v1']) {
      const res = await resolve(`kind=EXPERIMENT&id=${experiment.id}`, ws.apiKey, prefix);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ session_id: experiment.id });
    }
    expect((await resolve(`kind=experiment&id=${experiment.id}`)).body).toEqual({ session_id: experiment.id });
    // Another workspace's experiment, a project that is no experiment, an unknown id: 404.
    expect((await resolve(`kind=EXPERIMENT&id=${experiment.id}`, other.apiKey)).status).toBe(404);
    const plain = (await create({ name: unique('plain') })).body;
    expect((await resolve(`kind=EXPERIMENT&id=${plain.id}`)).status).toBe(404);
    expect((await resolve(`kind=EXPERIMENT&id=${randomUUID()}`)).status).toBe(404);
  });

  test('agent and evaluator addresses are well-formed 404s here; a malformed part is a 422 naming it, parts of another kind name no project', async () => {
    expect((await resolve('kind=AGENT&id=support-agent&environment=production')).status).toBe(404);
    expect((await resolve('kind=EVALUATOR')).status).toBe(404);
    for (const [query, status, message] of [
      ['', 422, /kind/],
      ['kind=ROBOT', 422, /kind must match pattern/],
      ['kind=AGENT&id=Support_Agent&environment=PRODUCTION', 422, /id must match pattern/],
      ['kind=AGENT&id=support-agent&environment=moon', 422, /environment must match pattern/],
      ['kind=AGENT&environment=PRODUCTION', 404, /an AGENT address has an id/],
      ['kind=AGENT&id=support-agent', 404, /an AGENT address has an environment/],
      ['kind=EXPERIMENT&id=nope', 404, /has the experiment's UUID as its id/],
      [`kind=EXPERIMENT&id=${randomUUID()}&environment=LOCAL`, 404, /environment is not part of an EXPERIMENT address/],
      ['kind=EVALUATOR&id=x', 404, /id is not part of an EVALUATOR address/],
    ] as const) {
      const res = await resolve(query);
      expect(res.status, query).toBe(status);
      expect(res.body.detail, query).toMatch(message);
    }
  });
});

describe('bad input', () => {
  test.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 5 }, 'name'],
    [{ name: 'x', extra: 'text' }, 'extra'],
    [{ name: 'x', description: 7 }, 'description'],
    [{ name: 'x', id: 'nope' }, 'id'],
    [{ name: 'x', reference_dataset_id: 'nope' }, 'reference_dataset_id'],
    [{ name: 'x', start_time: 'yesterday' }, 'start_time'],
    [{ name: 'x', end_time: true }, 'end_time'],
    [{ name: 'n'.repeat(1001) }, 'name'],
    [{ name: 'x', extra: { big: 'y'.repeat(300 * 1024) } }, 'extra'],
  ])('POST /sessions %# is a 422 naming %s', async (body, field) => {
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body.detail).toContain(field);
  });

  test('bad ids, bodies and flags elsewhere are 422s naming the field', async () => {
    const id = (await create({ name: unique('bad') })).body.id;
    const cases: Array<[Promise<{ status: number; body: any }>, string]> = [
      [read('not-a-uuid'), 'session_id'],
      [api(`/sessions/${id}?include_stats=often`, { apiKey: ws.apiKey }), 'include_stats'],
      [api(`/sessions/${id}`, { method: 'PATCH', apiKey: ws.apiKey, json: { name: '' } }), 'name'],
      [api(`/sessions/${id}`, { method: 'PATCH', apiKey: ws.apiKey, json: { extra: [1] } }), 'extra'],
      [api(`/sessions/${id}`, { method: 'PATCH', apiKey: ws.apiKey, json: { end_time: 'later' } }), 'end_time'],
      [api('/sessions/xyz', { method: 'DELETE', apiKey: ws.apiKey }), 'session_id'],
      [create({ name: unique('bad') }, ws.apiKey, '?upsert=perhaps'), 'upsert'],
    ];
    for (const [pending, field] of cases) {
      const res = await pending;
      expect(res.status, field).toBe(422);
      expect(res.body.detail).toContain(field);
    }
    expect((await read(randomUUID())).status).toBe(404);
  });
});

describe('deleted projects', () => {
  test('ingestion into a deleted project is refused; its name makes a fresh project', async () => {
    const name = unique('gone');
    // Created by ingestion, as tracing does on first use of a name.
    const first = await postRun(ws.apiKey, { session_name: name });
    expect(first.status).toBe(202);
    const [project] = (await list(`name=${name}`)).body;
    expect(project).toBeDefined();
    expect((await api(`/sessions/${project.id}`, { method: 'DELETE', apiKey: ws.apiKey })).status).toBe(202);

    expect((await postRun(ws.apiKey, { session_id: project.id })).status).toBe(404);
    const batch = await api('/runs/batch', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { post: makeTrace(0).map((r) => ({ ...r, session_id: project.id })) },
    });
    expect(batch.status).toBe(404);

    const runId = uuidv7();
    const again = await api('/runs', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { id: runId, name: 'r', run_type: 'chain', inputs: {}, session_name: name },
    });
    expect(again.status).toBe(202);
    const [fresh] = (await list(`name=${name}`)).body;
    expect(fresh.id).not.toBe(project.id);
    expect((await waitForRun(ws.apiKey, runId)).session_id).toBe(fresh.id);

    // The same through POST /sessions: a deleted project's name is free.
    expect((await api(`/sessions/${fresh.id}`, { method: 'DELETE', apiKey: ws.apiKey })).status).toBe(202);
    const third = await create({ name });
    expect(third.status).toBe(200);
    expect([project.id, fresh.id]).not.toContain(third.body.id);
  });
});

describe('read-your-writes across API replicas', () => {
  let replica: ServiceProcess;
  let replicaUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    replicaUrl = `http://127.0.0.1:${port}`;
    replica = startService(
      'services/processes/tracingApiMain.ts',
      { ...inject('tracingEnv'), TRACING_PORT: String(port) },
      'sessions-replica-b',
    );
    await waitFor('replica B', async () => (await fetch(`${replicaUrl}/ready`)).ok, 60_000, 200);
  });
  afterAll(async () => {
    await replica?.stop();
  });

  const onB = async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await fetch(replicaUrl + path, {
      method: init.method ?? 'GET',
      headers: { 'x-api-key': ws.apiKey, ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };

  test('what one replica wrote, the other reads at once', async () => {
    const name = unique('rep');
    const created = await onB('/sessions', { method: 'POST', json: { name, description: 'on B' } });
    expect(created.status).toBe(200);
    const id = created.body.id;
    expect((await read(id)).body).toMatchObject({ id, description: 'on B' });
    expect(names(await list(`name=${name}`))).toEqual([name]);
    // A run can name it on A right away.
    expect((await postRun(ws.apiKey, { session_id: id })).status).toBe(202);

    expect(
      (await api(`/sessions/${id}`, { method: 'PATCH', apiKey: ws.apiKey, json: { description: 'on A' } })).status,
    ).toBe(200);
    expect((await onB(`/sessions/${id}`)).body).toMatchObject({ description: 'on A' });
    expect((await onB(`/sessions?name=${name}`)).body).toMatchObject([{ description: 'on A' }]);

    // A duplicate through the other replica is still a 409.
    expect((await create({ name })).status).toBe(409);

    expect((await onB(`/sessions/${id}`, { method: 'DELETE' })).status).toBe(202);
    expect((await read(id)).status).toBe(404);
    expect((await postRun(ws.apiKey, { session_id: id })).status).toBe(404);
  });
});

describe('what generic HTTP clients send', () => {
  const jsonType = { 'content-type': 'application/json' };
  test('a body-less DELETE or POST naming Content-Type: application/json has no body; a body that requires no field may be left out', async () => {
    const { id } = (await create({ name: unique('generic') })).body;
    expect((await api(`/sessions/${id}`, { method: 'DELETE', apiKey: ws.apiKey, headers: jsonType })).status).toBe(202);
    const runs = await api('/runs/query', { method: 'POST', apiKey: ws.apiKey, headers: jsonType });
    expect([runs.status, Array.isArray(runs.body.runs)]).toEqual([200, true]);
  });
});
