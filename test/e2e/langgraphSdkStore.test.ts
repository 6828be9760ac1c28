// The store of the agent server with the official clients, unchanged: every StoreClient method of
// the JS SDK (2.x, and the 1.x copy @langchain/react brings) and of the Python SDK, on a server
// keeping its store in memory and on one keeping it in PostgreSQL; TTLs that expire; 422s naming
// the field; two workspaces that never see each other's items; and the example assistant `memory`,
// which recalls on one thread what it was told on another. A server whose langgraph.json names a
// store index and TTLs ranks searches by similarity and sweeps expired rows.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@langchain/langgraph-sdk';
import { Client as ClientV1 } from '../../node_modules/@langchain/react/node_modules/@langchain/langgraph-sdk/dist/index.js';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';
import {
  startAgentServer,
  startAgentServerOn,
  writeAgentConfig,
  type AgentServer,
  type AgentServerOnStore,
} from '../support/agentServer.ts';
import { scratchPostgres, type ScratchPostgres } from '../support/scratchPostgres.ts';
import { createWorkspaces, type Workspace } from '../support/tracingClient.ts';
import { repoRoot } from '../support/serviceProcess.ts';

const human = (content: string) => ({ messages: [{ type: 'human', content }] });
const lastText = (values: any) => values.messages.at(-1).content;

type StoreClient = Client['store'];
const SDKS = {
  '2.x': (url: string, apiKey: string) => new Client({ apiUrl: url, apiKey }).store,
  '1.x': (url: string, apiKey: string) => new ClientV1({ apiUrl: url, apiKey }).store as unknown as StoreClient,
};

let pyenv: PythonEnv;
let current: AgentServerOnStore | undefined;
beforeAll(async () => {
  pyenv = await ensurePythonEnv();
}, 20 * 60_000);
afterAll(() => current?.stop());

describe.each(['memory', 'postgres'] as const)('%s store', (storeKind) => {
  let server: AgentServer;
  let a: Workspace;
  let b: Workspace;
  beforeAll(async () => {
    await current?.stop();
    current = await startAgentServerOn(storeKind, 'sdk-store');
    server = current.server;
    [a, b] = (await createWorkspaces(2)) as [Workspace, Workspace];
  }, 120_000);

  const raw = (method: string, path: string, json?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { 'x-api-key': a.apiKey, 'content-type': 'application/json' },
      body: json === undefined ? undefined : JSON.stringify(json),
    }).then(async (res) => ({ status: res.status, body: (await res.json().catch(() => null)) as any }));

  it('says it serves the store (/info flags.store)', async () => {
    const info = (await (await fetch(`${server.url}/info`)).json()) as { flags: Record<string, boolean> };
    expect(info.flags.store).toBe(true);
  });

  it.each(Object.keys(SDKS) as (keyof typeof SDKS)[])(
    'JS SDK %s: every store method, in the caller’s workspace only',
    async (sdk) => {
      const store = SDKS[sdk](server.url, a.apiKey);
      const other = SDKS[sdk](server.url, b.apiKey);
      const ns = ['js', `v${sdk[0]}`, randomUUID()];
      await store.putItem([...ns, 'docs'], 'a', { title: 'tea', n: 1 });
      await store.putItem([...ns, 'docs'], 'b', { title: 'coffee', n: 2 }, { ttl: 60 });
      await store.putItem([...ns, 'docs', 'deep'], 'c', { title: 'cat', n: 3 }, { index: false });

      const item = await store.getItem([...ns, 'docs'], 'a');
      expect(item).toMatchObject({ namespace: [...ns, 'docs'], key: 'a', value: { title: 'tea', n: 1 } });
      expect(Date.parse(item!.createdAt)).not.toBeNaN();
      expect(item!.updatedAt).toBe(item!.createdAt);
      expect((await store.getItem([...ns, 'docs'], 'b', { refreshTtl: true }))?.value).toEqual({
        title: 'coffee',
        n: 2,
      });
      expect(await store.getItem([...ns, 'docs'], 'nope')).toBeNull();

      // a put of an existing key replaces its value, keeps its creation time
      await store.putItem([...ns, 'docs'], 'a', { title: 'green tea', n: 1 });
      const replaced = await store.getItem([...ns, 'docs'], 'a');
      expect(replaced?.value.title).toBe('green tea');
      expect(replaced?.createdAt).toBe(item!.createdAt);

      const filtered = await store.searchItems(ns, { filter: { n: { $gte: 2 } } });
      expect(filtered.items.map((i) => i.key).sort()).toEqual(['b', 'c']);
      const all = await store.searchItems(ns, { query: 'tea', limit: 10, refreshTtl: false });
      expect(all.items.map((i) => i.key).sort()).toEqual(['a', 'b', 'c']);
      expect(all.items.every((i) => !('score' in i))).toBe(true); // no index: the query is ignored
      expect((await store.searchItems(ns, { limit: 2, offset: 2 })).items).toHaveLength(1);
      expect((await store.searchItems([...ns, 'docs', 'deep'])).items.map((i) => i.key)).toEqual(['c']);

      expect((await store.listNamespaces({ prefix: ns })).namespaces).toEqual([
        [...ns, 'docs'],
        [...ns, 'docs', 'deep'],
      ]);
      expect((await store.listNamespaces({ prefix: ns, maxDepth: 4 })).namespaces).toEqual([[...ns, 'docs']]);
      expect(
        (await store.listNamespaces({ prefix: ['js', `v${sdk[0]}`, '*'], suffix: ['deep'] })).namespaces,
      ).toContainEqual([...ns, 'docs', 'deep']);
      expect((await store.listNamespaces({ prefix: ns, limit: 1, offset: 1 })).namespaces).toEqual([
        [...ns, 'docs', 'deep'],
      ]);

      // another workspace: nothing of it, and its delete deletes nothing
      expect(await other.getItem([...ns, 'docs'], 'a')).toBeNull();
      expect((await other.searchItems(ns)).items).toEqual([]);
      expect((await other.listNamespaces({ prefix: ns })).namespaces).toEqual([]);
      await other.deleteItem([...ns, 'docs'], 'a');
      expect(await store.getItem([...ns, 'docs'], 'a')).not.toBeNull();

      await store.deleteItem([...ns, 'docs'], 'a');
      expect(await store.getItem([...ns, 'docs'], 'a')).toBeNull();
      // the SDK itself refuses a label with "."; the server would too (below)
      await expect(store.putItem(['bad.label'], 'k', {})).rejects.toThrow(/cannot contain periods/);
    },
  );

  it('expires an item after its TTL (minutes): never returned again', async () => {
    const store = SDKS['2.x'](server.url, a.apiKey);
    const ns = ['ttl', randomUUID()];
    await store.putItem(ns, 'brief', { v: 1 }, { ttl: 0.005 }); // 0.3 s
    await store.putItem(ns, 'kept', { v: 2 });
    await expect.poll(() => store.getItem(ns, 'brief', { refreshTtl: false }), { timeout: 30_000 }).toBeNull();
    expect((await store.searchItems(ns)).items.map((i) => i.key)).toEqual(['kept']);
  });

  it('answers what it refuses with a 422 naming the field (400 for the filter’s grammar)', async () => {
    const cases: [Promise<{ status: number; body: any }>, number, RegExp][] = [
      [raw('PUT', '/store/items', { namespace: ['a.b'], key: 'k', value: {} }), 422, /body\/namespace\/0 must match/],
      [raw('PUT', '/store/items', { namespace: ['a', ''], key: 'k', value: {} }), 422, /body\/namespace\/1/],
      [raw('PUT', '/store/items', { namespace: [], key: 'k', value: {} }), 422, /body\/namespace must NOT have fewer/],
      [raw('PUT', '/store/items', { namespace: ['a'], key: 'k', value: {}, ttl: -1 }), 422, /body\/ttl must be >= 0/],
      [raw('PUT', '/store/items', { namespace: ['a'], key: 'k', value: {}, ttl: 'soon' }), 422, /body\/ttl must be/],
      [raw('PUT', '/store/items', { namespace: ['a'], key: 'k', value: [1] }), 422, /body\/value must be object/],
      [raw('PUT', '/store/items', { namespace: ['a'], value: {} }), 422, /must have required property 'key'/],
      [raw('GET', '/store/items?namespace=a..b&key=k'), 422, /querystring\/namespace\/0 must match/],
      [raw('GET', '/store/items?namespace=a'), 422, /must have required property 'key'/],
      [raw('DELETE', '/store/items'), 422, /must have required property 'namespace'/],
      [raw('POST', '/store/items/search', { limit: 0 }), 422, /body\/limit must be >= 1/],
      [raw('POST', '/store/namespaces', { max_depth: 0 }), 422, /body\/max_depth must be >= 1/],
      [raw('POST', '/store/items/search', { filter: { n: { $near: 1 } } }), 400, /filter.n.\$near: unknown operator/],
    ];
    for (const [response, status, detail] of cases) {
      const res = await response;
      expect(res.status, `${detail}: ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.detail).toMatch(detail);
    }
    // a NUL character in a value: kept in memory; PostgreSQL holds none, and says so
    const nul = await raw('PUT', '/store/items', { namespace: ['nul'], key: 'k', value: { text: 'a\u0000b' } });
    if (storeKind === 'memory') expect(nul.status).toBe(204);
    else expect(nul).toMatchObject({ status: 422, body: { detail: expect.stringMatching(/cannot be stored/) } });
  });

  it('the example `memory` assistant recalls on one thread what it was told on another, in its workspace only', async () => {
    const alice = new Client({ apiUrl: server.url, apiKey: a.apiKey });
    const mallory = new Client({ apiUrl: server.url, apiKey: b.apiKey });
    const config = { configurable: { user_id: `user-${randomUUID()}` } };
    const [first, second] = [await alice.threads.create(), await alice.threads.create()];
    const told = await alice.runs.wait(first.thread_id, 'memory', { input: human('remember that I like tea'), config });
    expect(lastText(told)).toBe('Noted: I like tea.');
    await alice.runs.wait(first.thread_id, 'memory', { input: human('Remember that my cat is Tom.'), config });
    const recalled = await alice.runs.wait(second.thread_id, 'memory', { input: human('what do you know?'), config });
    expect(lastText(recalled)).toBe('I remember that I like tea; my cat is Tom.');
    const stranger = await mallory.runs.wait(null, 'memory', { input: human('what do you know?'), config });
    expect(lastText(stranger)).toBe('I remember nothing about you yet. Tell me "remember that …".');
    const items = await alice.store.searchItems(['memories', config.configurable.user_id]);
    expect(items.items.map((i) => i.value.text).sort()).toEqual(['I like tea', 'my cat is Tom']);
  });

  it('Python SDK: every store method, and the memory assistant across threads', async () => {
    const tag = randomUUID().slice(0, 8);
    const { result } = await runPythonScript<any>(pyenv, 'langgraph_sdk_store.py', [server.url, b.apiKey, tag], {
      LANGGRAPH_API_KEY: a.apiKey,
    });
    const ns = ['py', tag];
    expect(result.item).toEqual({ namespace: [...ns, 'docs'], key: 'a', value: { title: 'tea', n: 1 } });
    expect(result.item_times).toEqual(['str', 'str']);
    expect(result.refreshed).toEqual({ title: 'coffee', n: 2 });
    expect(result.missing).toBeNull();
    expect(result.filtered).toEqual(['b', 'c']);
    expect(result.all_keys.sort()).toEqual(['a', 'b', 'c']);
    expect(result.scores).toEqual([false, false, false]);
    expect(result.page).toHaveLength(1);
    expect(result.namespaces).toEqual([
      [...ns, 'docs'],
      [...ns, 'docs', 'deep'],
    ]);
    expect(result.namespaces_depth).toEqual([[...ns, 'docs']]);
    expect(result.namespaces_suffix).toContainEqual([...ns, 'docs', 'deep']);
    expect(result.namespaces_paged).toEqual([[...ns, 'docs', 'deep']]);
    expect(result.other_get).toBeNull();
    expect(result.other_search).toEqual([]);
    expect(result.other_namespaces).toEqual([]);
    expect(result.after_other_delete).toEqual({ title: 'tea', n: 1 });
    expect(result.after_delete).toBeNull();
    expect(result.dot_refused).toBe(true);
    expect(result.told).toBe('Noted: I like python.');
    expect(result.recalled).toBe('I remember that I like python.');
    expect(result.stranger).toBe('I remember nothing about you yet. Tell me "remember that …".');
    expect(result.memories).toEqual([{ text: 'I like python' }]);
  });
});

describe('a langgraph.json that names a store index and TTLs (PostgreSQL)', () => {
  let db: ScratchPostgres;
  let server: AgentServer;
  beforeAll(async () => {
    db = await scratchPostgres('agent_store_index_e2e');
    const embed = join(repoRoot, 'test/services/agent-server/fixtures/wordEmbeddings.ts');
    const configFile = writeAgentConfig({
      graphs: { memory: join(repoRoot, 'examples/agent-server/memoryGraph.ts:graph') },
      store: {
        index: { embed: `${embed}:embeddings`, dims: 8, fields: ['text'] },
        ttl: { refresh_on_read: true, sweep_interval_minutes: 0.01 },
      },
    });
    server = await startAgentServer('sdk-store-index', { configFile, env: db.agentServerEnv });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
  });

  it('ranks a search by similarity to its query, each result with its score', async () => {
    const store = new Client({ apiUrl: server.url, apiKey: server.apiKey }).store;
    const ns = ['notes', randomUUID()];
    await store.putItem(ns, 'tea', { text: 'green tea' });
    await store.putItem(ns, 'car', { text: 'a fast red car' });
    await store.putItem(ns, 'secret', { text: 'tea tea tea' }, { index: false });
    const ranked = (await store.searchItems(ns, { query: 'some green tea' })).items;
    expect(ranked.map((i) => i.key)).toEqual(['tea', 'car', 'secret']);
    expect(ranked[0]!.score).toBeGreaterThan(0.8);
    expect(ranked[1]!.score).toBe(0);
    expect(ranked[2]!.score).toBeNull();
  });

  it('sweeps expired items from the database at store.ttl.sweep_interval_minutes', async () => {
    const store = new Client({ apiUrl: server.url, apiKey: server.apiKey }).store;
    const ns = ['sweep', randomUUID()];
    await store.putItem(ns, 'brief', { text: 'tea' }, { ttl: 0.001 });
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const count = async () =>
        (await client.query('SELECT count(*)::int AS n FROM agent_store_items WHERE namespace = $1', [ns])).rows[0].n;
      await expect.poll(count, { timeout: 30_000 }).toBe(0);
    } finally {
      await client.end();
    }
  });
});

describe('an auth module’s store handler (LangGraph’s per-user store isolation)', () => {
  let server: AgentServer;
  beforeAll(async () => {
    const auth = join(repoRoot, 'test/services/agent-server/fixtures/storeAuth.ts');
    const configFile = writeAgentConfig({
      graphs: { memory: join(repoRoot, 'examples/agent-server/memoryGraph.ts:graph') },
      auth: { path: `${auth}:auth` },
    });
    server = await startAgentServer('sdk-store-auth', { configFile });
  }, 120_000);
  afterAll(() => server?.stop());

  const as = (user: string) =>
    new Client({ apiUrl: server.url, defaultHeaders: { authorization: `Bearer ${user}` } }).store;

  it('acts on the namespace as the handler rewrote it, and refuses what it refuses', async () => {
    const [alice, bob, dave] = [as('alice'), as('bob'), as('dave')];
    await alice.putItem(['memories'], 'food', { likes: 'tea' });
    await bob.putItem(['memories'], 'food', { likes: 'coffee' });
    expect((await alice.getItem(['memories'], 'food'))?.value).toEqual({ likes: 'tea' });
    expect((await bob.getItem(['memories'], 'food'))?.value).toEqual({ likes: 'coffee' });
    expect((await alice.searchItems(['memories'])).items.map((i) => i.namespace)).toEqual([['alice', 'memories']]);
    expect((await bob.listNamespaces()).namespaces).toEqual([['bob', 'memories']]);
    await bob.deleteItem(['memories'], 'food');
    expect((await alice.getItem(['memories'], 'food'))?.value).toEqual({ likes: 'tea' });
    expect(await dave.getItem(['memories'], 'food')).toBeNull();
    await expect(dave.putItem(['memories'], 'food', {})).rejects.toThrow(/403|may not write/);
  });
});
