// Workspaces on the agent server: two workspaces, each with threads, runs and an A2A task. Every
// route that names a thread or a run is asked, by each workspace, for the other's ids, and must
// answer 404 (an empty result for searches, a JSON-RPC "task not found" for A2A) while the owner
// gets its data; writes that name the other's ids leave its data alone, and those that create a
// thread of an id the other has (thread ids are per workspace) make one of the asker's own, as
// for any id (threadIdsPerWorkspace.test.ts goes further). Both stores (memory and
// PostgreSQL) are checked. The routes come from the OpenAPI document of the running server: a
// route no case here covers fails the first test, so a new route cannot slip through untested.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentServer, startAgentServerOn, type AgentServerOnStore } from '../../../support/agentServer.ts';
import { createWorkspaces, type Workspace } from '../../../support/tracingClient.ts';
import { DOCS_OPERATIONS } from '../../../support/docsOperations.ts';

type Res = { status: number; body: any };

interface Fixture {
  label: string;
  ws: Workspace;
  tag: string;
  /** A thread with one finished run (`run`) of the `agent` assistant. */
  thread: string;
  run: string;
  checkpoint: string;
  /** A finished run only the run-delete case deletes. */
  deletableRun: string;
  /** A thread only the thread-delete case deletes. */
  deletableThread: string;
  /** A thread (with one run) whose id the other workspace creates a thread of its own with. */
  twin: string;
  /** A thread with a run that waits (after_seconds) until the cancel case cancels it. */
  busyThread: string;
  pendingRun: string;
  /** An A2A conversation: its context (thread) and task (run). */
  task: { contextId: string; id: string };
}

let server: AgentServer;
let a: Fixture;
let b: Fixture;

async function send(f: Fixture, method: string, path: string, json?: unknown): Promise<Res> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-api-key': f.ws.apiKey, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* SSE or empty */
  }
  return { status: res.status, body };
}

const human = (content: string) => ({ messages: [{ type: 'human', content }] });
const twinText = (f: Fixture) => `the twin of ${f.label}`;
const rpc = (f: Fixture, method: string, params: unknown) =>
  send(f, 'POST', '/a2a/agent', { jsonrpc: '2.0', id: 1, method, params });
const a2aMessage = (text: string, contextId?: string) => ({
  message: {
    kind: 'message',
    role: 'user',
    messageId: randomUUID(),
    parts: [{ kind: 'text', text }],
    ...(contextId ? { contextId } : {}),
  },
});
const show = (what: string, res: Res) => `${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;

async function expectStatus(res: Promise<Res> | Res, status: number, what: string): Promise<Res> {
  const r = await res;
  expect(r.status, show(what, r)).toBe(status);
  return r;
}

async function buildFixture(ws: Workspace, label: string): Promise<Fixture> {
  const f = { label, ws, tag: `iso-${label}-${randomUUID().slice(0, 8)}` } as Fixture;
  const newThread = async () =>
    (await expectStatus(send(f, 'POST', '/threads', { metadata: { tag: f.tag } }), 200, 'create a thread')).body
      .thread_id as string;
  f.thread = await newThread();
  const wait = await fetch(`${server.url}/threads/${f.thread}/runs/wait`, {
    method: 'POST',
    headers: { 'x-api-key': ws.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ assistant_id: 'agent', input: human(`hello from ${label}`) }),
  });
  expect(wait.status).toBe(200);
  f.run = wait.headers.get('content-location')!.split('/').at(-1)!;
  f.checkpoint = (await send(f, 'GET', `/threads/${f.thread}/state`)).body.checkpoint.checkpoint_id;
  const deletable = await expectStatus(
    send(f, 'POST', `/threads/${f.thread}/runs`, {
      assistant_id: 'agent',
      input: human('to delete'),
      multitask_strategy: 'enqueue',
    }),
    200,
    'a run',
  );
  f.deletableRun = deletable.body.run_id;
  await expectStatus(send(f, 'GET', `/threads/${f.thread}/runs/${f.deletableRun}/join`), 200, 'join');
  f.deletableThread = await newThread();
  f.twin = await newThread();
  await expectStatus(
    send(f, 'POST', `/threads/${f.twin}/runs/wait`, { assistant_id: 'agent', input: human(twinText(f)) }),
    200,
    'a run on the twin',
  );
  f.busyThread = await newThread();
  f.pendingRun = (
    await expectStatus(
      send(f, 'POST', `/threads/${f.busyThread}/runs`, {
        assistant_id: 'agent',
        input: human('later'),
        after_seconds: 600,
      }),
      200,
      'a pending run',
    )
  ).body.run_id;
  const task = (await rpc(f, 'message/send', a2aMessage(`a2a from ${label}`))).body.result;
  expect(task?.status?.state, 'the A2A task').toBe('completed');
  f.task = { contextId: task.contextId, id: task.id };
  return f;
}

interface Probe {
  label: string;
  /** What `other` asks about `owner`'s ids (owner === other: the owner's own request). */
  request(owner: Fixture, asker: Fixture): { method: string; path: string; json?: unknown };
  /** What the other workspace gets; default: 404. */
  other?(res: Res, owner: Fixture, what: string): Promise<void> | void;
  /** What the owner gets. */
  owner(res: Res, owner: Fixture, what: string): Promise<void> | void;
}

const notFound = (res: Res, _owner: Fixture, what: string) => {
  expect(res.status, show(what, res)).toBe(404);
  expect(res.body.error, show(what, res)).toBe('NOT_FOUND');
};
const ok =
  (status = 200, check?: (body: any, owner: Fixture) => void) =>
  (res: Res, owner: Fixture, what: string) => {
    expect(res.status, show(what, res)).toBe(status);
    check?.(res.body, owner);
  };
/** A probe of a read route: the owner's request answers 200. */
const read = (
  label: string,
  path: (f: Fixture) => string,
  check?: (body: any, owner: Fixture) => void,
  method = 'GET',
  json?: unknown,
): Probe => ({
  label,
  request: (owner) => ({ method, path: path(owner), json }),
  owner: ok(200, check),
});
/** The owner's threads are as they were (after another workspace's write). */
async function unchanged(owner: Fixture): Promise<void> {
  for (const id of [owner.thread, owner.twin]) {
    const thread = await send(owner, 'GET', `/threads/${id}`);
    expect(thread.body.metadata, show('the owner’s thread', thread)).toEqual(
      expect.objectContaining({ tag: owner.tag }),
    );
    expect(thread.body.metadata.hacked).toBeUndefined();
    const state = await send(owner, 'GET', `/threads/${id}/state`);
    expect(
      state.body.values.messages.some((m: any) => /intruder/.test(m.content)),
      'no message of the other workspace in the owner’s state',
    ).toBe(false);
  }
}
/** A thread of the asker's own, made with the id of the owner's twin: nothing of the owner's in the answer, nothing changed in the owner's. */
const ownTwin = async (res: Res, owner: Fixture, what: string) => {
  expect(res.status, show(what, res)).toBe(200);
  expect(JSON.stringify(res.body), show(what, res)).not.toContain(twinText(owner));
  await unchanged(owner);
};
const runOn = (path: (thread: string) => string, label: string): Probe[] => {
  const json = (owner: Fixture, asker: Fixture, extra = {}) => ({
    assistant_id: 'agent',
    input: human(owner === asker ? 'owner turn' : 'intruder'),
    multitask_strategy: 'enqueue',
    ...extra,
  });
  return [
    {
      label,
      request: (owner, asker) => ({ method: 'POST', path: path(owner.thread), json: json(owner, asker) }),
      other: async (res, owner, what) => {
        notFound(res, owner, what);
        await unchanged(owner);
      },
      owner: ok(200),
    },
    {
      label: `${label}, if_not_exists create on an id the other has: a thread of the asker's own`,
      request: (owner, asker) => ({
        method: 'POST',
        path: path(owner.twin),
        json: json(owner, asker, { if_not_exists: 'create' }),
      }),
      other: ownTwin,
      owner: ok(200),
    },
  ];
};

const CASES: Record<string, Probe[]> = {
  'POST /threads': [
    {
      label:
        'a thread id of the other workspace, with if_exists do_nothing: a thread of the asker’s own, not the other’s',
      request: (owner, asker) => ({
        method: 'POST',
        path: '/threads',
        json: { thread_id: owner.twin, if_exists: 'do_nothing', metadata: owner === asker ? {} : { hacked: true } },
      }),
      other: async (res, owner, what) => {
        await ownTwin(res, owner, what);
        expect(res.body.thread_id).toBe(owner.twin);
        expect(res.body.metadata.tag, show(what, res)).toBeUndefined();
      },
      owner: ok(200, (body, owner) =>
        expect(body).toMatchObject({ thread_id: owner.twin, metadata: { tag: owner.tag } }),
      ),
    },
  ],
  'POST /threads/search': [
    {
      label: 'by ids and by metadata',
      request: (owner) => ({ method: 'POST', path: '/threads/search', json: { ids: [owner.thread], limit: 100 } }),
      other: (res, _owner, what) => expect(res.body, show(what, res)).toEqual([]),
      owner: ok(200, (body, owner) => expect(body.map((t: any) => t.thread_id)).toEqual([owner.thread])),
    },
    {
      label: 'everything: only the own threads',
      request: () => ({ method: 'POST', path: '/threads/search', json: { limit: 1000 } }),
      other: (res, owner, what) =>
        expect(
          res.body.map((t: any) => t.thread_id),
          show(what, res),
        ).not.toContain(owner.thread),
      owner: ok(200, (body, owner) => expect(body.map((t: any) => t.thread_id)).toContain(owner.thread)),
    },
  ],
  'POST /threads/count': [
    {
      label: 'by the other’s metadata',
      request: (owner) => ({ method: 'POST', path: '/threads/count', json: { metadata: { tag: owner.tag } } }),
      other: (res, _owner, what) => expect(res.body, show(what, res)).toBe(0),
      owner: ok(200, (body) => expect(body).toBeGreaterThanOrEqual(2)),
    },
  ],
  'GET /threads/{thread_id}': [
    read(
      'the thread',
      (f) => `/threads/${f.thread}`,
      (body, f) => expect(body.thread_id).toBe(f.thread),
    ),
  ],
  'PATCH /threads/{thread_id}': [
    {
      label: 'metadata',
      request: (owner, asker) => ({
        method: 'PATCH',
        path: `/threads/${owner.thread}`,
        json: { metadata: owner === asker ? { patched: true } : { hacked: true } },
      }),
      other: async (res, owner, what) => {
        notFound(res, owner, what);
        await unchanged(owner);
      },
      owner: ok(200, (body) => expect(body.metadata.patched).toBe(true)),
    },
  ],
  'DELETE /threads/{thread_id}': [
    {
      label: 'the thread',
      request: (owner) => ({ method: 'DELETE', path: `/threads/${owner.deletableThread}` }),
      other: async (res, owner, what) => {
        notFound(res, owner, what);
        await expectStatus(
          send(owner, 'GET', `/threads/${owner.deletableThread}`),
          200,
          'the owner’s thread is still there',
        );
      },
      owner: ok(204),
    },
  ],
  'GET /threads/{thread_id}/state': [
    read(
      'state',
      (f) => `/threads/${f.thread}/state`,
      (body) => expect(body.values.messages.length).toBeGreaterThan(1),
    ),
  ],
  'POST /threads/{thread_id}/state': [
    {
      label: 'a state update',
      request: (owner, asker) => ({
        method: 'POST',
        path: `/threads/${owner.thread}/state`,
        json: { values: human(owner === asker ? 'owner update' : 'intruder'), as_node: 'agent' },
      }),
      other: async (res, owner, what) => {
        notFound(res, owner, what);
        await unchanged(owner);
      },
      owner: ok(200),
    },
  ],
  'GET /threads/{thread_id}/state/{checkpoint_id}': [
    read('state at a checkpoint', (f) => `/threads/${f.thread}/state/${f.checkpoint}`),
  ],
  'POST /threads/{thread_id}/state/checkpoint': [
    {
      label: 'state at a checkpoint',
      request: (f) => ({
        method: 'POST',
        path: `/threads/${f.thread}/state/checkpoint`,
        json: { checkpoint: { checkpoint_id: f.checkpoint } },
      }),
      owner: ok(200),
    },
  ],
  'POST /threads/{thread_id}/history': [
    read(
      'history',
      (f) => `/threads/${f.thread}/history`,
      (body) => expect(body.length).toBeGreaterThan(0),
      'POST',
      { limit: 5 },
    ),
  ],
  'GET /threads/{thread_id}/history': [
    read(
      'history',
      (f) => `/threads/${f.thread}/history?limit=5`,
      (body) => expect(body.length).toBeGreaterThan(0),
    ),
  ],
  'POST /threads/{thread_id}/runs': runOn((thread) => `/threads/${thread}/runs`, 'a background run'),
  'POST /threads/{thread_id}/runs/stream': runOn((thread) => `/threads/${thread}/runs/stream`, 'a streamed run'),
  'POST /threads/{thread_id}/runs/wait': runOn((thread) => `/threads/${thread}/runs/wait`, 'a waited run'),
  'GET /threads/{thread_id}/runs': [
    read(
      'the runs',
      (f) => `/threads/${f.thread}/runs`,
      (body, f) => expect(body.map((r: any) => r.run_id)).toContain(f.run),
    ),
  ],
  'GET /threads/{thread_id}/runs/{run_id}': [
    read(
      'a run',
      (f) => `/threads/${f.thread}/runs/${f.run}`,
      (body, f) => expect(body.run_id).toBe(f.run),
    ),
    {
      label: 'a run of the other’s, named on the asker’s own thread',
      request: (owner, asker) => ({ method: 'GET', path: `/threads/${asker.thread}/runs/${owner.run}` }),
      owner: ok(200),
    },
  ],
  'DELETE /threads/{thread_id}/runs/{run_id}': [
    {
      label: 'a finished run',
      request: (owner) => ({ method: 'DELETE', path: `/threads/${owner.thread}/runs/${owner.deletableRun}` }),
      other: async (res, owner, what) => {
        notFound(res, owner, what);
        await expectStatus(
          send(owner, 'GET', `/threads/${owner.thread}/runs/${owner.deletableRun}`),
          200,
          'the owner’s run is still there',
        );
      },
      owner: ok(204),
    },
  ],
  'GET /threads/{thread_id}/runs/{run_id}/join': [
    read(
      'join',
      (f) => `/threads/${f.thread}/runs/${f.run}/join`,
      (body) => expect(body.messages).toBeDefined(),
    ),
  ],
  'GET /threads/{thread_id}/runs/{run_id}/stream': [
    read('join the stream', (f) => `/threads/${f.thread}/runs/${f.run}/stream`),
  ],
  'POST /threads/{thread_id}/runs/{run_id}/cancel': [
    {
      label: 'a pending run',
      request: (owner) => ({
        method: 'POST',
        path: `/threads/${owner.busyThread}/runs/${owner.pendingRun}/cancel?wait=true`,
      }),
      other: async (res, owner, what) => {
        notFound(res, owner, what);
        expect(
          (await send(owner, 'GET', `/threads/${owner.busyThread}/runs/${owner.pendingRun}`)).body.status,
          'still pending',
        ).toBe('pending');
      },
      owner: ok(202),
    },
  ],
  'POST /a2a/{assistant_id}': [
    {
      label: 'tasks/get by task id, and with the contextId',
      request: (owner) => ({
        method: 'POST',
        path: '/a2a/agent',
        json: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tasks/get',
          params: { id: owner.task.id, contextId: owner.task.contextId },
        },
      }),
      other: (res, _owner, what) => expect(res.body.error?.code, show(what, res)).toBe(-32001),
      owner: ok(200, (body) => expect(body.result.status.state).toBe('completed')),
    },
    {
      label: 'tasks/get by the bare run id',
      request: (owner) => ({
        method: 'POST',
        path: '/a2a/agent',
        json: { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: owner.task.id.split(':')[1] } },
      }),
      other: (res, _owner, what) => expect(res.body.error?.code, show(what, res)).toBe(-32001),
      owner: ok(200, (body, owner) => expect(body.result?.id).toBe(owner.task.id)),
    },
    {
      label: 'tasks/cancel',
      request: (owner) => ({
        method: 'POST',
        path: '/a2a/agent',
        json: { jsonrpc: '2.0', id: 1, method: 'tasks/cancel', params: { id: owner.task.id } },
      }),
      other: (res, _owner, what) => expect(res.body.error?.code, show(what, res)).toBe(-32001),
      owner: ok(200, (body) => expect(body.result.status.state).toBe('completed')),
    },
    {
      label: 'message/send with the contextId of the other’s conversation: a conversation of the asker’s own',
      request: (owner, asker) => ({
        method: 'POST',
        path: '/a2a/agent',
        json: {
          jsonrpc: '2.0',
          id: 1,
          method: 'message/send',
          params: a2aMessage(
            owner === asker ? 'owner again' : 'intruder',
            owner === asker ? owner.task.contextId : owner.twin,
          ),
        },
      }),
      other: async (res, owner, what) => {
        expect(res.body.result?.status?.state, show(what, res)).toBe('completed');
        await ownTwin(res, owner, what);
        const state = await send(owner, 'GET', `/threads/${owner.task.contextId}/state`);
        expect(JSON.stringify(state.body.values)).not.toContain('intruder');
      },
      owner: ok(200, (body) => expect(body.result.contextId).toBeDefined()),
    },
  ],
};

/** Routes the cases above do not cover, and why. */
const NO_TENANT_DATA = [
  ...DOCS_OPERATIONS,
  'GET /ok',
  'GET /ready',
  'GET /metrics',
  'GET /info',
  // Assistants are the config file's graphs, the same for every workspace.
  'POST /assistants/search',
  'POST /assistants/count',
  'GET /assistants/{assistant_id}',
  'GET /assistants/{assistant_id}/graph',
  'GET /assistants/{assistant_id}/schemas',
  'GET /.well-known/agent-card.json',
  'GET /a2a/{assistant_id}',
  'GET /a2a/{assistant_id}/.well-known/agent-card.json',
  'GET /a2a/{assistant_id}/.well-known/agent.json',
];
/** Stateless runs name no thread: what they make (a temporary thread) is the caller's own. */
const NAME_NO_IDS = ['POST /runs', 'POST /runs/stream', 'POST /runs/wait', 'POST /runs/batch'];

async function documentedRoutes(): Promise<string[]> {
  const doc = (await (await fetch(`${server.url}/docs/json`)).json()) as any;
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
    Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
  );
}

let current: AgentServerOnStore | undefined;
afterAll(() => current?.stop());

describe.each(['memory', 'postgres'] as const)('%s store', (store) => {
  beforeAll(async () => {
    await current?.stop();
    current = await startAgentServerOn(store, 'isolation');
    server = current.server;
    const [wsA, wsB] = (await createWorkspaces(2)) as [Workspace, Workspace];
    [a, b] = await Promise.all([buildFixture(wsA, 'A'), buildFixture(wsB, 'B')]);
  }, 120_000);

  it('each route of the OpenAPI document has isolation cases here (or holds no workspace data, or names no ids)', async () => {
    const routes = await documentedRoutes();
    const known = new Set([...NO_TENANT_DATA, ...NAME_NO_IDS, ...Object.keys(CASES)]);
    expect(
      routes.filter((r) => !known.has(r)),
      'routes without isolation cases: add them to CASES',
    ).toEqual([]);
    expect(
      [...known].filter((r) => !routes.includes(r)),
      'cases for routes the server does not have',
    ).toEqual([]);
  });

  const probes = Object.entries(CASES).flatMap(([route, list]) => list.map((probe) => ({ route, probe })));
  it.each(probes)('$route: $probe.label', async ({ probe }) => {
    for (const [owner, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const asOther = probe.request(owner, other);
      const otherWhat = `${owner.label}'s ids asked by ${other.label}: ${asOther.method} ${asOther.path}`;
      await (probe.other ?? notFound)(await send(other, asOther.method, asOther.path, asOther.json), owner, otherWhat);
      const asOwner = probe.request(owner, owner);
      await probe.owner(
        await send(owner, asOwner.method, asOwner.path, asOwner.json),
        owner,
        `${owner.label}'s own: ${asOwner.method} ${asOwner.path}`,
      );
    }
  });

  it('a stateless run of one workspace leaves nothing the other can see', async () => {
    const kept = await send(a, 'POST', '/runs/wait', {
      assistant_id: 'agent',
      input: human('stateless'),
      on_completion: 'keep',
      metadata: { tag: a.tag },
    });
    expect(kept.status).toBe(200);
    expect((await send(b, 'POST', '/threads/count', { metadata: { tag: a.tag } })).body).toBe(0);
    expect((await send(a, 'POST', '/threads/count', { metadata: { tag: a.tag } })).body).toBeGreaterThanOrEqual(1);
  });
});
