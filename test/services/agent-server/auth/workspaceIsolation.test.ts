// Workspaces on the agent server: two workspaces, each with threads, runs, an A2A task and store
// items. Every route that names a thread, a run or a store item is asked, by each workspace, for
// the other's, and must answer 404 (an empty result for searches, `null` for a store item, a
// JSON-RPC "task not found" for A2A) while the owner gets its data; writes that name the other's
// leave its data alone, and those that create a thread of an id the other has (thread ids are
// per workspace), or put an item of a namespace and key the other has, make one of the asker's
// own, as for any id (threadIdsPerWorkspace.test.ts goes further). Both stores (memory and
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
  /** A thread only the thread-delete case deletes, and one only the prune case prunes. */
  deletableThread: string;
  prunableThread: string;
  /** A thread (with one run) whose id the other workspace creates a thread of its own with. */
  twin: string;
  /** A thread with a run that waits (after_seconds) until the cancel case cancels it. */
  busyThread: string;
  pendingRun: string;
  /** Another waiting run of busyThread, for the bulk cancel case. */
  bulkPendingRun: string;
  /** A stateless run that waits (after_seconds): its stream stays open. */
  statelessRun: string;
  /** An A2A conversation: its context (thread) and task (run). */
  task: { contextId: string; id: string };
  /** An assistant of the workspace's own (on the `agent` graph), one only the delete case deletes, and one whose id the other creates an assistant of its own with. */
  assistant: string;
  deletableAssistant: string;
  twinAssistant: string;
  /** A cron on `thread`, and one only the cron-delete case deletes. */
  cron: string;
  deletableCron: string;
  /** Store items, each `k`: in `["iso", "shared"]` (the other workspace has one there too), `["iso", "only", label]`, `["iso", "put", label]` (the other puts one of its own there) and `["iso", "deletable", label]`. */
  storeValue: Record<string, unknown>;
  /** A thread with one finished run started by the agent streaming protocol (run.start). */
  protocolThread: string;
}

let server: AgentServer;
let a: Fixture;
let b: Fixture;

/** A protocol subscription's replay of a run that has ended: read up to the run's end (the stream then waits for the next run). */
async function replayed(res: Response): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) {
    text += decoder.decode(chunk, { stream: true });
    if (/"namespace":\[\],"timestamp":\d+,"data":\{"event":"(completed|failed|interrupted)"/.test(text)) break;
  }
  return text;
}

/** `open`: a stream that stays open (a thread's, a pending run's): a 200 is answered as soon as its headers come. */
async function send(f: Fixture, method: string, path: string, json?: unknown, open = false): Promise<Res> {
  const stop = new AbortController();
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { 'x-api-key': f.ws.apiKey, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
    signal: stop.signal,
  });
  if (open && res.status === 200) {
    stop.abort();
    return { status: res.status, body: res.headers.get('content-type') };
  }
  const protocolStream = path.endsWith('/stream/events') && res.status === 200;
  const text = protocolStream ? await replayed(res) : await res.text();
  stop.abort();
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
  f.prunableThread = await newThread();
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
  const newAssistant = async (name: string) =>
    (
      await expectStatus(
        send(f, 'POST', '/assistants', { graph_id: 'agent', name, metadata: { tag: f.tag } }),
        200,
        'create an assistant',
      )
    ).body.assistant_id as string;
  f.assistant = await newAssistant(`assistant of ${label}`);
  f.deletableAssistant = await newAssistant(`deletable of ${label}`);
  f.twinAssistant = await newAssistant(`twin of ${label}`);
  f.storeValue = { owner: label, tag: f.tag };
  for (const namespace of [
    ['iso', 'shared'],
    ['iso', 'only', label],
    ['iso', 'put', label],
    ['iso', 'deletable', label],
  ])
    await expectStatus(
      send(f, 'PUT', '/store/items', { namespace, key: 'k', value: f.storeValue }),
      204,
      'a store item',
    );
  f.protocolThread = randomUUID();
  const started = await expectStatus(
    send(f, 'POST', `/threads/${f.protocolThread}/commands`, {
      id: 1,
      method: 'run.start',
      params: { assistant_id: 'agent', input: human(`protocol from ${label}`) },
    }),
    200,
    'a protocol run',
  );
  await expectStatus(
    send(f, 'GET', `/threads/${f.protocolThread}/runs/${started.body.result.run_id}/join`),
    200,
    'the protocol run, joined',
  );
  f.bulkPendingRun = (
    await expectStatus(
      send(f, 'POST', `/threads/${f.busyThread}/runs`, {
        assistant_id: 'agent',
        input: human('later too'),
        after_seconds: 600,
        multitask_strategy: 'enqueue',
      }),
      200,
      'another pending run',
    )
  ).body.run_id;
  f.statelessRun = (
    await expectStatus(
      send(f, 'POST', '/runs', { assistant_id: 'agent', input: human('stateless, later'), after_seconds: 600 }),
      200,
      'a pending stateless run',
    )
  ).body.run_id;
  const task = (await rpc(f, 'message/send', a2aMessage(`a2a from ${label}`))).body.result;
  expect(task?.status?.state, 'the A2A task').toBe('completed');
  f.task = { contextId: task.contextId, id: task.id };
  const newCron = async () =>
    (
      await expectStatus(
        send(f, 'POST', `/threads/${f.thread}/runs/crons`, {
          assistant_id: 'agent',
          schedule: '0 0 1 1 *',
          metadata: { tag: f.tag },
        }),
        200,
        'a cron',
      )
    ).body.cron_id as string;
  f.cron = await newCron();
  f.deletableCron = await newCron();
  return f;
}

interface Probe {
  label: string;
  /** What `other` asks about `owner`'s ids (owner === other: the owner's own request). */
  request(owner: Fixture, asker: Fixture): { method: string; path: string; json?: unknown; open?: boolean };
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

/** The owner's store items are as it put them (after another workspace's write or delete). */
async function storeUnchanged(owner: Fixture): Promise<void> {
  for (const ns of ['iso.shared', `iso.only.${owner.label}`, `iso.put.${owner.label}`]) {
    const item = await send(owner, 'GET', `/store/items?namespace=${ns}&key=k`);
    expect(item.body?.value, show('the owner’s store item', item)).toEqual(owner.storeValue);
  }
}

const STORE_CASES: Record<string, Probe[]> = {
  'PUT /store/items': [
    {
      label: 'the namespace and key of an item the other has: an item of the asker’s own',
      request: (owner, asker) => ({
        method: 'PUT',
        path: '/store/items',
        json: {
          namespace: ['iso', 'put', owner.label],
          key: 'k',
          value: owner === asker ? owner.storeValue : { hacked: true },
        },
      }),
      other: async (res, owner, what) => {
        expect(res.status, show(what, res)).toBe(204);
        await storeUnchanged(owner);
      },
      owner: ok(204),
    },
  ],
  'GET /store/items': [
    {
      label: 'an item only the owner has: none (null) for the other',
      request: (owner) => ({ method: 'GET', path: `/store/items?namespace=iso.only.${owner.label}&key=k` }),
      other: (res, _owner, what) => {
        expect(res.status, show(what, res)).toBe(200);
        expect(res.body, show(what, res)).toBeNull();
      },
      owner: ok(200, (body, owner) => expect(body.value).toEqual(owner.storeValue)),
    },
    {
      label: 'an item both have: each its own',
      request: () => ({ method: 'GET', path: '/store/items?namespace=iso.shared&key=k' }),
      other: (res, owner, what) => expect(res.body?.value, show(what, res)).not.toEqual(owner.storeValue),
      owner: ok(200, (body, owner) => expect(body.value).toEqual(owner.storeValue)),
    },
  ],
  'DELETE /store/items': [
    {
      label: 'an item only the owner has',
      request: (owner) => ({
        method: 'DELETE',
        path: '/store/items',
        json: { namespace: ['iso', 'deletable', owner.label], key: 'k' },
      }),
      other: async (res, owner, what) => {
        expect(res.status, show(what, res)).toBe(204);
        const item = await send(owner, 'GET', `/store/items?namespace=iso.deletable.${owner.label}&key=k`);
        expect(item.body?.value, show('the owner’s item is still there', item)).toEqual(owner.storeValue);
      },
      owner: ok(204),
    },
  ],
  'POST /store/items/search': [
    {
      label: 'the owner’s namespace, and everything',
      request: (owner) => ({
        method: 'POST',
        path: '/store/items/search',
        json: { namespace_prefix: ['iso', 'only', owner.label], filter: { tag: owner.tag } },
      }),
      other: (res, _owner, what) => expect(res.body.items, show(what, res)).toEqual([]),
      owner: ok(200, (body, owner) => expect(body.items.map((i: any) => i.value)).toEqual([owner.storeValue])),
    },
    {
      label: 'every item: only the own',
      request: () => ({ method: 'POST', path: '/store/items/search', json: { namespace_prefix: [], limit: 1000 } }),
      other: (res, owner, what) => expect(JSON.stringify(res.body.items), show(what, res)).not.toContain(owner.tag),
      owner: ok(200, (body, owner) => expect(JSON.stringify(body.items)).toContain(owner.tag)),
    },
  ],
  'POST /store/namespaces': [
    {
      label: 'the owner’s namespaces',
      request: (owner) => ({
        method: 'POST',
        path: '/store/namespaces',
        json: { prefix: ['iso', 'only', owner.label] },
      }),
      other: (res, _owner, what) => expect(res.body.namespaces, show(what, res)).toEqual([]),
      owner: ok(200, (body, owner) => expect(body.namespaces).toEqual([['iso', 'only', owner.label]])),
    },
  ],
};

const assistantReads = (route: string, label: string, path = route): Record<string, Probe[]> => ({
  [`GET /assistants/{assistant_id}${route}`]: [
    {
      label,
      request: (owner) => ({ method: 'GET', path: `/assistants/${owner.assistant}${path}` }),
      owner: ok(200),
    },
  ],
});

const ASSISTANT_CASES: Record<string, Probe[]> = {
  'POST /assistants': [
    {
      label: 'an assistant id of the other workspace, with if_exists do_nothing: an assistant of the asker’s own',
      request: (owner, asker) => ({
        method: 'POST',
        path: '/assistants',
        json: {
          assistant_id: owner.twinAssistant,
          graph_id: 'counter',
          if_exists: 'do_nothing',
          name: owner === asker ? 'renamed?' : `made by ${asker.label}`,
        },
      }),
      other: (res, owner, what) => {
        expect(res.status, show(what, res)).toBe(200);
        expect(res.body, show(what, res)).toMatchObject({ assistant_id: owner.twinAssistant, graph_id: 'counter' });
        expect(res.body.metadata.tag, show(what, res)).toBeUndefined();
      },
      owner: ok(200, (body, owner) =>
        expect(body).toMatchObject({ name: `twin of ${owner.label}`, metadata: { tag: owner.tag } }),
      ),
    },
  ],
  'POST /assistants/search': [
    {
      label: 'by the other’s metadata',
      request: (owner) => ({ method: 'POST', path: '/assistants/search', json: { metadata: { tag: owner.tag } } }),
      other: (res, _owner, what) => expect(res.body, show(what, res)).toEqual([]),
      owner: ok(200, (body) => expect(body.length).toBeGreaterThanOrEqual(2)),
    },
  ],
  'POST /assistants/count': [
    {
      label: 'by the other’s metadata',
      request: (owner) => ({ method: 'POST', path: '/assistants/count', json: { metadata: { tag: owner.tag } } }),
      other: (res, _owner, what) => expect(res.body, show(what, res)).toBe(0),
      owner: ok(200, (body) => expect(body).toBeGreaterThanOrEqual(2)),
    },
  ],
  ...assistantReads('', 'the assistant'),
  ...assistantReads('/graph', 'its graph'),
  ...assistantReads('/schemas', 'its schemas'),
  ...assistantReads('/subgraphs', 'its subgraphs'),
  ...assistantReads('/subgraphs/{namespace}', 'its subgraphs under a namespace', '/subgraphs/agent'),
  'PATCH /assistants/{assistant_id}': [
    {
      label: 'a new version',
      request: (owner, asker) => ({
        method: 'PATCH',
        path: `/assistants/${owner.assistant}`,
        json: { metadata: { patched_by: asker.label } },
      }),
      other: async (res, owner, what) => {
        notFound(res, owner, what);
        const mine = await send(owner, 'GET', `/assistants/${owner.assistant}`);
        expect(mine.body.metadata.patched_by, 'unchanged').not.toBe(owner === a ? b.label : a.label);
      },
      owner: ok(200, (body, owner) => expect(body.metadata.patched_by).toBe(owner.label)),
    },
  ],
  'DELETE /assistants/{assistant_id}': [
    {
      label: 'the assistant',
      request: (owner) => ({ method: 'DELETE', path: `/assistants/${owner.deletableAssistant}` }),
      owner: ok(204),
    },
  ],
  'POST /assistants/{assistant_id}/versions': [
    {
      label: 'its versions',
      request: (owner) => ({ method: 'POST', path: `/assistants/${owner.assistant}/versions`, json: {} }),
      owner: ok(200, (body) => expect(body.length).toBeGreaterThanOrEqual(1)),
    },
  ],
  'POST /assistants/{assistant_id}/latest': [
    {
      label: 'pin version 1',
      request: (owner) => ({ method: 'POST', path: `/assistants/${owner.assistant}/latest`, json: { version: 1 } }),
      owner: ok(200, (body) => expect(body.version).toBe(1)),
    },
  ],
};

const THREAD_MAINTENANCE_CASES: Record<string, Probe[]> = {
  'POST /threads/{thread_id}/copy': [
    {
      label: 'a copy',
      request: (owner) => ({ method: 'POST', path: `/threads/${owner.thread}/copy` }),
      owner: ok(200, (body, owner) => expect(body.metadata.tag).toBe(owner.tag)),
    },
  ],
  'POST /threads/prune': [
    {
      label: 'delete',
      request: (owner) => ({ method: 'POST', path: '/threads/prune', json: { thread_ids: [owner.prunableThread] } }),
      other: async (res, owner, what) => {
        expect(res.body, show(what, res)).toEqual({ pruned_count: 0 });
        expect((await send(owner, 'GET', `/threads/${owner.prunableThread}`)).status, 'still there').toBe(200);
      },
      owner: ok(200, (body) => expect(body).toEqual({ pruned_count: 1 })),
    },
  ],
  'PATCH /threads/{thread_id}/state': [
    {
      label: 'checkpoint metadata',
      request: (owner, asker) => ({
        method: 'PATCH',
        path: `/threads/${owner.thread}/state`,
        json: { metadata: { patched_by: asker.label } },
      }),
      other: async (res, owner, what) => {
        notFound(res, owner, what);
        const state = await send(owner, 'GET', `/threads/${owner.thread}/state`);
        expect(state.body.metadata.patched_by, 'unchanged').not.toBe(owner === a ? b.label : a.label);
      },
      owner: ok(204),
    },
  ],
};

const CASES: Record<string, Probe[]> = {
  ...THREAD_MAINTENANCE_CASES,
  ...ASSISTANT_CASES,
  ...STORE_CASES,
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
  'POST /threads/{thread_id}/runs/crons': [
    {
      label: 'a cron on the thread',
      request: (owner, asker) => ({
        method: 'POST',
        path: `/threads/${owner.thread}/runs/crons`,
        json: { assistant_id: 'agent', schedule: '0 0 1 1 *', metadata: owner === asker ? {} : { hacked: true } },
      }),
      other: async (res, owner, what) => {
        notFound(res, owner, what);
        const crons = await send(owner, 'POST', '/runs/crons/search', { thread_id: owner.thread, limit: 100 });
        expect(crons.body.some((c: any) => c.metadata.hacked)).toBe(false);
      },
      owner: ok(200, (body, owner) => expect(body.thread_id).toBe(owner.thread)),
    },
  ],
  'PATCH /runs/crons/{cron_id}': [
    {
      label: 'metadata and schedule',
      request: (owner, asker) => ({
        method: 'PATCH',
        path: `/runs/crons/${owner.cron}`,
        json: owner === asker ? { metadata: { patched: true } } : { metadata: { hacked: true }, enabled: false },
      }),
      other: async (res, owner, what) => {
        notFound(res, owner, what);
        const mine = (
          await send(owner, 'POST', '/runs/crons/search', { metadata: { tag: owner.tag }, limit: 100 })
        ).body.find((c: any) => c.cron_id === owner.cron);
        expect(mine).toMatchObject({ enabled: true });
        expect(mine.metadata.hacked).toBeUndefined();
      },
      owner: ok(200, (body) => expect(body.metadata.patched).toBe(true)),
    },
  ],
  'DELETE /runs/crons/{cron_id}': [
    {
      label: 'the cron',
      request: (owner) => ({ method: 'DELETE', path: `/runs/crons/${owner.deletableCron}` }),
      other: async (res, owner, what) => {
        notFound(res, owner, what);
        const crons = (await send(owner, 'POST', '/runs/crons/search', { metadata: { tag: owner.tag }, limit: 100 }))
          .body;
        expect(crons.map((c: any) => c.cron_id)).toContain(owner.deletableCron);
      },
      owner: ok(204),
    },
  ],
  'POST /runs/crons/search': [
    {
      label: 'by thread and by metadata',
      request: (owner) => ({
        method: 'POST',
        path: '/runs/crons/search',
        json: { thread_id: owner.thread, metadata: { tag: owner.tag }, limit: 100 },
      }),
      other: (res, _owner, what) => expect(res.body, show(what, res)).toEqual([]),
      owner: ok(200, (body, owner) => expect(body.map((c: any) => c.cron_id)).toContain(owner.cron)),
    },
    {
      label: 'everything: only the own crons',
      request: () => ({ method: 'POST', path: '/runs/crons/search', json: { limit: 1000 } }),
      other: (res, owner, what) =>
        expect(
          res.body.map((c: any) => c.cron_id),
          show(what, res),
        ).not.toContain(owner.cron),
      owner: ok(200, (body, owner) => expect(body.map((c: any) => c.cron_id)).toContain(owner.cron)),
    },
  ],
  'POST /runs/crons/count': [
    {
      label: 'by the other’s thread',
      request: (owner) => ({ method: 'POST', path: '/runs/crons/count', json: { thread_id: owner.thread } }),
      other: (res, _owner, what) => expect(res.body, show(what, res)).toBe(0),
      owner: ok(200, (body) => expect(body).toBeGreaterThanOrEqual(1)),
    },
  ],
  'POST /threads/{thread_id}/commands': [
    {
      label: 'state.get',
      request: (owner) => ({
        method: 'POST',
        path: `/threads/${owner.thread}/commands`,
        json: { id: 1, method: 'state.get', params: {} },
      }),
      owner: ok(200, (body) => expect(body.result.values.messages.length).toBeGreaterThan(1)),
    },
    {
      label: 'state.listCheckpoints',
      request: (owner) => ({
        method: 'POST',
        path: `/threads/${owner.thread}/commands`,
        json: { id: 1, method: 'state.listCheckpoints', params: {} },
      }),
      owner: ok(200, (body) => expect(body.result.checkpoints.length).toBeGreaterThan(0)),
    },
    {
      label: 'input.respond (nothing waits on the owner’s thread either)',
      request: (owner) => ({
        method: 'POST',
        path: `/threads/${owner.thread}/commands`,
        json: { id: 1, method: 'input.respond', params: { interrupt_id: 'i', response: 'yes' } },
      }),
      owner: ok(404, (body) => expect(body).toMatchObject({ type: 'error', error: 'no_such_run' })),
    },
    {
      label: 'state.fork from the owner’s checkpoint',
      request: (owner) => ({
        method: 'POST',
        path: `/threads/${owner.busyThread}/commands`,
        json: { id: 1, method: 'state.fork', params: { checkpoint_id: owner.checkpoint } },
      }),
      other: async (res, owner, what) => {
        notFound(res, owner, what);
        await unchanged(owner);
      },
      // (the busy thread has no checkpoint of that id)
      owner: ok(404, (body) => expect(body).toMatchObject({ type: 'error', error: 'no_such_checkpoint' })),
    },
    {
      label: "run.start on an id the other has: a thread of the asker's own",
      request: (owner, asker) => ({
        method: 'POST',
        path: `/threads/${owner.twin}/commands`,
        json: {
          id: 1,
          method: 'run.start',
          params: {
            assistant_id: 'agent',
            input: human(owner === asker ? 'owner turn' : 'intruder'),
            multitaskStrategy: 'enqueue',
          },
        },
      }),
      other: ownTwin,
      owner: ok(200),
    },
  ],
  'POST /threads/{thread_id}/stream/events': [
    {
      label: 'the events of the thread’s last run',
      request: (owner) => ({
        method: 'POST',
        path: `/threads/${owner.protocolThread}/stream/events`,
        json: { channels: ['lifecycle', 'values'] },
      }),
      owner: ok(200, (body, owner) => expect(body).toContain(`protocol from ${owner.label}`)),
    },
  ],
  'GET /threads/{thread_id}/stream': [
    {
      label: 'the thread’s stream (stays open: its headers)',
      request: (f) => ({ method: 'GET', path: `/threads/${f.busyThread}/stream`, open: true }),
      owner: ok(200, (body) => expect(body).toMatch(/text\/event-stream/)),
    },
  ],
  'GET /runs/{run_id}/stream': [
    {
      label: 'a pending stateless run’s stream (stays open: its headers)',
      request: (f) => ({ method: 'GET', path: `/runs/${f.statelessRun}/stream`, open: true }),
      owner: ok(200, (body) => expect(body).toMatch(/text\/event-stream/)),
    },
  ],
  'POST /runs/cancel': [
    {
      label: 'by run ids of the other’s thread',
      request: (owner) => ({
        method: 'POST',
        path: '/runs/cancel',
        json: { thread_id: owner.busyThread, run_ids: [owner.bulkPendingRun] },
      }),
      other: async (res, owner, what) => {
        notFound(res, owner, what);
        expect(
          (await send(owner, 'GET', `/threads/${owner.busyThread}/runs/${owner.bulkPendingRun}`)).body.status,
          'still pending',
        ).toBe('pending');
      },
      owner: ok(204),
    },
    {
      label: 'by status, on the other’s thread',
      request: (owner) => ({
        method: 'POST',
        path: '/runs/cancel',
        json: { thread_id: owner.busyThread, status: 'all' },
      }),
      owner: ok(204),
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
  'POST /ui/{assistant_id}', // not served: a 404 saying so
  'GET /.well-known/agent-card.json',
  'GET /a2a/{assistant_id}',
  'GET /a2a/{assistant_id}/.well-known/agent-card.json',
  'GET /a2a/{assistant_id}/.well-known/agent.json',
];
/** Stateless runs name no thread: what they make (a temporary thread) is the caller's own; so is a cron without a thread. MCP tools run statelessly too. */
const NAME_NO_IDS = [
  'POST /runs',
  'POST /runs/stream',
  'POST /runs/wait',
  'POST /runs/batch',
  'POST /runs/crons',
  'POST /mcp',
];

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
      await (probe.other ?? notFound)(
        await send(other, asOther.method, asOther.path, asOther.json, asOther.open),
        owner,
        otherWhat,
      );
      const asOwner = probe.request(owner, owner);
      await probe.owner(
        await send(owner, asOwner.method, asOwner.path, asOwner.json, asOwner.open),
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
