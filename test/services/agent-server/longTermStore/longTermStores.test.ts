// The long-term store's two backends (memory, PostgreSQL) behave alike: items by namespace and
// key in a workspace (another workspace's are absent to every operation), prefix search with the
// filter language and stable pages, namespaces by prefix, suffix (with `*`) and depth, and TTLs
// on a clock the test moves: expired items are never returned, reads restart a TTL when asked
// (or by the config's refresh_on_read), a sweep deletes what expired. Two PostgreSQL stores on
// one database (replicas) see the same items.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { isUnstorableText } from '../../../../platform/postgres.ts';
import { postgresPool } from '../../../../services/agent-server/checkpointer.ts';
import type { StoreSettings } from '../../../../services/agent-server/longTermStore/baseLongTermStore.ts';
import { MemoryLongTermStore } from '../../../../services/agent-server/longTermStore/memoryLongTermStore.ts';
import { PostgresLongTermStore } from '../../../../services/agent-server/longTermStore/postgresLongTermStore.ts';
import type { LongTermStore, StoreItem } from '../../../../services/agent-server/longTermStore/store.ts';
import { scratchPostgres, type ScratchPostgres } from '../../../support/scratchPostgres.ts';

const quiet = { warn: () => {} };
const MINUTE = 60_000;

/** The test's clock: every store made here reads it. */
const clock = { now: Date.parse('2031-05-01T12:00:00Z') };
const advance = (ms: number) => {
  clock.now += ms;
};

const settings = (ttl: Partial<StoreSettings['ttl']> = {}): StoreSettings => ({
  ttl: { refreshOnRead: true, defaultTtlMinutes: null, sweepIntervalMinutes: 5, ...ttl },
  now: () => clock.now,
});

let db: ScratchPostgres;
const pools: pg.Pool[] = [];
const makers: Record<string, (s?: StoreSettings) => Promise<LongTermStore>> = {
  memory: async (s = settings()) => new MemoryLongTermStore(s),
  postgres: async (s = settings()) => {
    const pool = postgresPool(db.url, quiet);
    pools.push(pool);
    return PostgresLongTermStore.open(pool, s);
  },
};
beforeAll(async () => {
  db = await scratchPostgres('agent_longterm');
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  await db?.drop();
});

const keys = (items: StoreItem[]) => items.map((i) => `${i.namespace.join('/')}:${i.key}`);
const page = { limit: 100, offset: 0 };

describe.each(['memory', 'postgres'])('%s store', (name) => {
  let store: LongTermStore;
  beforeAll(async () => {
    store = await makers[name]!();
  });

  it('puts, gets, replaces (keeping created_at) and deletes items', async () => {
    const ws = randomUUID();
    expect(await store.get(ws, ['prefs', 'u1'], 'theme')).toBeNull();
    await store.put(ws, ['prefs', 'u1'], 'theme', { color: 'dark', sizes: [1, 2], nested: { a: null } });
    const first = await store.get(ws, ['prefs', 'u1'], 'theme');
    expect(first).toEqual({
      namespace: ['prefs', 'u1'],
      key: 'theme',
      value: { color: 'dark', sizes: [1, 2], nested: { a: null } },
      createdAt: new Date(clock.now),
      updatedAt: new Date(clock.now),
    });
    advance(1000);
    await store.put(ws, ['prefs', 'u1'], 'theme', { color: 'light' });
    const second = await store.get(ws, ['prefs', 'u1'], 'theme');
    expect(second?.value).toEqual({ color: 'light' });
    expect(second?.createdAt).toEqual(first?.createdAt);
    expect(second?.updatedAt.getTime()).toBe(clock.now);
    // the same key in another namespace, and a namespace that only looks alike, are other items
    expect(await store.get(ws, ['prefs'], 'theme')).toBeNull();
    expect(await store.get(ws, ['prefs', 'u1', 'x'], 'theme')).toBeNull();
    await store.delete(ws, ['prefs', 'u1'], 'theme');
    await store.delete(ws, ['prefs', 'u1'], 'never there');
    expect(await store.get(ws, ['prefs', 'u1'], 'theme')).toBeNull();
  });

  it('refuses a value PostgreSQL cannot hold (U+0000) as the platform recognises it (a 422 over HTTP)', async () => {
    const put = store.put(randomUUID(), ['nul'], 'k', { text: 'a\u0000b' }).then(
      () => 'stored',
      (err) => (isUnstorableText(err) ? 'unstorable' : String(err)),
    );
    expect(await put).toBe(name === 'memory' ? 'stored' : 'unstorable');
  });

  it('keeps each workspace’s items to itself', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await store.put(a, ['memories', 'u1'], 'k', { who: 'a' });
    await store.put(b, ['memories', 'u1'], 'k', { who: 'b' });
    await store.put(a, ['only', 'a'], 'k', { who: 'a' });
    expect((await store.get(a, ['memories', 'u1'], 'k'))?.value).toEqual({ who: 'a' });
    expect((await store.get(b, ['memories', 'u1'], 'k'))?.value).toEqual({ who: 'b' });
    expect(await store.get(b, ['only', 'a'], 'k')).toBeNull();
    expect(keys(await store.search(b, [], page))).toEqual(['memories/u1:k']);
    expect(await store.listNamespaces(b, page)).toEqual([['memories', 'u1']]);
    await store.delete(b, ['only', 'a'], 'k'); // b deletes nothing of a's
    expect(await store.get(a, ['only', 'a'], 'k')).not.toBeNull();
    expect(await store.search(randomUUID(), [], page)).toEqual([]);
  });

  it('searches a namespace prefix, newest first, in stable pages', async () => {
    const ws = randomUUID();
    const put = async (ns: string[], key: string) => {
      await store.put(ws, ns, key, { key });
      advance(1);
    };
    await put(['docs', 'u1'], 'a');
    await put(['docs', 'u1', 'reports'], 'b');
    await put(['docs', 'u2'], 'c');
    await put(['docsx'], 'd');
    await put(['other'], 'e');
    expect(keys(await store.search(ws, ['docs'], page))).toEqual(['docs/u2:c', 'docs/u1/reports:b', 'docs/u1:a']);
    expect(keys(await store.search(ws, ['docs', 'u1'], page))).toEqual(['docs/u1/reports:b', 'docs/u1:a']);
    expect(keys(await store.search(ws, ['docs', 'u1', 'reports', 'deeper'], page))).toEqual([]);
    expect(await store.search(ws, [], page)).toHaveLength(5);
    const pages = [0, 2, 4].map((offset) => store.search(ws, [], { limit: 2, offset }));
    expect((await Promise.all(pages)).map(keys)).toEqual([
      ['other:e', 'docsx:d'],
      ['docs/u2:c', 'docs/u1/reports:b'],
      ['docs/u1:a'],
    ]);
    // the same time: namespace, then key, decide
    for (const key of ['z', 'y']) await store.put(ws, ['tie'], key, {});
    await store.put(ws, ['tia'], 'x', {});
    expect(keys(await store.search(ws, ['tie'], page))).toEqual(['tie:y', 'tie:z']);
    expect(keys((await store.search(ws, [], page)).slice(0, 3))).toEqual(['tia:x', 'tie:y', 'tie:z']);
  });

  it('filters on top-level fields: equality and $eq $ne $gt $gte $lt $lte $in $nin', async () => {
    const ws = randomUUID();
    const rows: Record<string, Record<string, unknown>> = {
      one: { n: 1, color: 'red', tags: ['x', 'y'], meta: { a: 1, b: 2 } },
      two: { n: 2, color: 'blue', tags: ['y'] },
      three: { n: 3, color: 'red', flag: true },
      four: { n: '4', color: 'green', meta: { b: 2, a: 1 } },
      none: { color: null },
    };
    for (const [key, value] of Object.entries(rows)) await store.put(ws, ['f'], key, value);
    const found = async (filter: Record<string, unknown>) =>
      (await store.search(ws, ['f'], { ...page, filter })).map((i) => i.key).sort();
    expect(await found({ color: 'red' })).toEqual(['one', 'three']);
    expect(await found({ color: { $eq: 'red' }, n: { $gt: 1 } })).toEqual(['three']);
    expect(await found({ color: null })).toEqual(['none']);
    expect(await found({ meta: { b: 2, a: 1 } })).toEqual(['four', 'one']);
    expect(await found({ tags: ['y'] })).toEqual(['two']);
    expect(await found({ flag: true })).toEqual(['three']);
    // $ne and $nin: a value without the field passes
    expect(await found({ color: { $ne: 'red' } })).toEqual(['four', 'none', 'two']);
    expect(await found({ flag: { $ne: true } })).toEqual(['four', 'none', 'one', 'two']);
    expect(await found({ color: { $in: ['blue', 'green'] } })).toEqual(['four', 'two']);
    expect(await found({ color: { $nin: ['red', 'green'] } })).toEqual(['none', 'two']);
    // numbers with numbers ("4" is a string), strings with strings
    expect(await found({ n: { $gte: 2 } })).toEqual(['three', 'two']);
    expect(await found({ n: { $gt: 1, $lt: 3 } })).toEqual(['two']);
    expect(await found({ n: { $lte: 1 } })).toEqual(['one']);
    expect(await found({ n: { $gte: '3' } })).toEqual(['four']);
    expect(await found({ color: { $lt: 'c' } })).toEqual(['two']);
    expect(await found({ color: { $gt: 'green' } })).toEqual(['one', 'three']);
    expect(await found({ missing: 1 })).toEqual([]);
    // the filter's grammar: 400 INVALID_FILTER naming the field and operator
    const refused = async (filter: Record<string, unknown>) =>
      store.search(ws, ['f'], { ...page, filter }).then(
        () => 'accepted',
        (err) => `${err.statusCode} ${err.code}: ${err.message}`,
      );
    expect(await refused({ n: { $regex: 'x' } })).toMatch(/^400 INVALID_FILTER: filter.n.\$regex: unknown operator/);
    expect(await refused({ n: { $gt: { a: 1 } } })).toMatch(
      /^400 INVALID_FILTER: filter.n.\$gt must be a number or a string/,
    );
    expect(await refused({ n: { $in: 3 } })).toMatch(/^400 INVALID_FILTER: filter.n.\$in must be an array/);
  });

  it('lists namespaces by prefix, suffix (* for any label) and depth, sorted, in pages', async () => {
    const ws = randomUUID();
    for (const ns of [
      ['a', 'b', 'c'],
      ['a', 'b', 'd'],
      ['a', 'e'],
      ['b', 'b', 'c'],
      ['b'],
      ['a', 'b', 'c'], // a second item in a namespace lists it once
    ])
      await store.put(ws, ns, randomUUID(), {});
    const list = (options: Partial<Parameters<LongTermStore['listNamespaces']>[1]> = {}) =>
      store.listNamespaces(ws, { ...page, ...options });
    expect(await list()).toEqual([['a', 'b', 'c'], ['a', 'b', 'd'], ['a', 'e'], ['b'], ['b', 'b', 'c']]);
    expect(await list({ prefix: ['a', 'b'] })).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'd'],
    ]);
    expect(await list({ prefix: ['*', 'b'] })).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'd'],
      ['b', 'b', 'c'],
    ]);
    expect(await list({ suffix: ['c'] })).toEqual([
      ['a', 'b', 'c'],
      ['b', 'b', 'c'],
    ]);
    expect(await list({ suffix: ['b', '*'] })).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'd'],
      ['b', 'b', 'c'],
    ]);
    expect(await list({ prefix: ['a'], suffix: ['c'] })).toEqual([['a', 'b', 'c']]);
    expect(await list({ maxDepth: 1 })).toEqual([['a'], ['b']]);
    expect(await list({ maxDepth: 2, prefix: ['a'] })).toEqual([
      ['a', 'b'],
      ['a', 'e'],
    ]);
    expect(await list({ limit: 2, offset: 1 })).toEqual([
      ['a', 'b', 'd'],
      ['a', 'e'],
    ]);
    expect(await list({ prefix: ['z'] })).toEqual([]);
  });

  it('expires items after their TTL, and restarts it on reads that ask (the default: refresh_on_read)', async () => {
    const ws = randomUUID();
    await store.put(ws, ['t'], 'short', { v: 1 }, { ttl: 1 });
    await store.put(ws, ['t'], 'forever', { v: 2 });
    advance(0.5 * MINUTE);
    expect(await store.get(ws, ['t'], 'short')).not.toBeNull(); // refreshed: 1 more minute from here
    advance(0.75 * MINUTE);
    expect(await store.get(ws, ['t'], 'short', false)).not.toBeNull(); // 1.25 min after the put: alive thanks to the refresh
    advance(0.5 * MINUTE); // 1.25 min after the refresh
    expect(await store.get(ws, ['t'], 'short')).toBeNull();
    expect(keys(await store.search(ws, ['t'], page))).toEqual(['t:forever']);
    expect(await store.listNamespaces(ws, page)).toEqual([['t']]);

    // search refreshes the items it returns, and only those
    await store.put(ws, ['s'], 'a', {}, { ttl: 1 });
    await store.put(ws, ['s', 'x'], 'b', {}, { ttl: 1 });
    advance(0.9 * MINUTE);
    expect(keys(await store.search(ws, ['s', 'x'], page))).toEqual(['s/x:b']);
    await store.search(ws, ['s'], { ...page, refreshTtl: false });
    advance(0.2 * MINUTE);
    expect(keys(await store.search(ws, ['s'], page))).toEqual(['s/x:b']);
    expect(await store.listNamespaces(ws, { ...page, prefix: ['s'] })).toEqual([['s', 'x']]);
  });

  it('writes an expired item again as a new one', async () => {
    const ws = randomUUID();
    await store.put(ws, ['r'], 'k', { v: 1 }, { ttl: 1 });
    const born = clock.now;
    advance(2 * MINUTE);
    await store.put(ws, ['r'], 'k', { v: 2 });
    const again = await store.get(ws, ['r'], 'k');
    expect(again?.createdAt.getTime()).toBe(clock.now);
    expect(again?.createdAt.getTime()).not.toBe(born);
    advance(10_000 * MINUTE); // the new put named no TTL: it stays
    expect((await store.get(ws, ['r'], 'k'))?.value).toEqual({ v: 2 });
  });

  it('takes the config’s default TTL where a put names none, and reads refresh only when asked with refresh_on_read off', async () => {
    const configured = await makers[name]!(settings({ defaultTtlMinutes: 2, refreshOnRead: false }));
    const ws = randomUUID();
    await configured.put(ws, ['d'], 'default', {});
    await configured.put(ws, ['d'], 'none', {}, { ttl: null });
    await configured.put(ws, ['d'], 'asked', {});
    advance(1.5 * MINUTE);
    expect(await configured.get(ws, ['d'], 'default')).not.toBeNull(); // no refresh: refresh_on_read is off
    expect(await configured.get(ws, ['d'], 'asked', true)).not.toBeNull(); // refreshed: asked
    advance(1 * MINUTE);
    expect(await configured.get(ws, ['d'], 'default')).toBeNull();
    expect(await configured.get(ws, ['d'], 'asked')).not.toBeNull();
    expect(await configured.get(ws, ['d'], 'none')).not.toBeNull();
  });

  it('sweeps expired items of every workspace, and only those', async () => {
    const [a, b] = [randomUUID(), randomUUID()];
    await store.put(a, ['w'], 'gone', {}, { ttl: 1 });
    await store.put(b, ['w'], 'gone', {}, { ttl: 1 });
    await store.put(a, ['w'], 'kept', {}, { ttl: 5 });
    advance(2 * MINUTE);
    expect(await store.sweep()).toBeGreaterThanOrEqual(2);
    expect(await store.sweep()).toBe(0);
    expect(keys(await store.search(a, [], page))).toEqual(['w:kept']);
    if (name === 'postgres') {
      const pool = postgresPool(db.url, quiet);
      pools.push(pool);
      const { rows } = await pool.query(
        'SELECT count(*)::int AS n FROM agent_store_items WHERE workspace_id = ANY($1)',
        [[a, b]],
      );
      expect(rows[0].n).toBe(1);
    }
  });
});

describe('two PostgreSQL stores on one database (replicas)', () => {
  it('see each other’s writes, deletes and expiries', async () => {
    const [one, two] = await Promise.all([makers.postgres!(), makers.postgres!()]);
    const ws = randomUUID();
    await one.put(ws, ['shared'], 'k', { from: 'one' }, { ttl: 1 });
    expect((await two.get(ws, ['shared'], 'k'))?.value).toEqual({ from: 'one' });
    await two.put(ws, ['shared'], 'k2', { from: 'two' });
    expect(keys(await one.search(ws, ['shared'], page)).sort()).toEqual(['shared:k', 'shared:k2']);
    await one.delete(ws, ['shared'], 'k2');
    expect(await two.get(ws, ['shared'], 'k2')).toBeNull();
    advance(2 * MINUTE);
    await Promise.all([one.sweep(), two.sweep()]); // both at once: harmless
    expect(await one.get(ws, ['shared'], 'k')).toBeNull();
  });
});
