// Semantic search where the config file names `store.index`: values are embedded on put (the
// index's fields, the put's own `index` paths, or nothing with `index: false`), a search `query`
// ranks the matching items by cosine similarity and each result carries its score (null for an
// item with no embedding, ranked last); without an index, `query` is ignored and there is no
// score, as LangGraph does. The embedding is a deterministic word count (fixtures/wordEmbeddings.ts),
// loaded as the config file names it: a function of texts, or an embeddings object.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { postgresPool } from '../../../../services/agent-server/checkpointer.ts';
import type { StoreSettings } from '../../../../services/agent-server/longTermStore/baseLongTermStore.ts';
import { MemoryLongTermStore } from '../../../../services/agent-server/longTermStore/memoryLongTermStore.ts';
import { PostgresLongTermStore } from '../../../../services/agent-server/longTermStore/postgresLongTermStore.ts';
import type { LongTermStore } from '../../../../services/agent-server/longTermStore/store.ts';
import {
  cosine,
  fieldTexts,
  loadStoreIndex,
  textsAtPath,
} from '../../../../services/agent-server/longTermStore/storeIndex.ts';
import { scratchPostgres, type ScratchPostgres } from '../../../support/scratchPostgres.ts';
import { DIMS, vectorOf } from '../fixtures/wordEmbeddings.ts';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'wordEmbeddings.ts');
const ttl = { refreshOnRead: true, defaultTtlMinutes: null, sweepIntervalMinutes: 5 };
const page = { limit: 10, offset: 0 };
/** One time for every write: equal scores are ordered by namespace, then key. */
const now = () => Date.parse('2031-01-01T00:00:00Z');

let db: ScratchPostgres;
let pool: pg.Pool;
beforeAll(async () => {
  db = await scratchPostgres('agent_store_index');
  pool = postgresPool(db.url, { warn: () => {} });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

async function settings(exportName: string, fields = ['text']): Promise<StoreSettings> {
  return { ttl, now, index: await loadStoreIndex({ embed: { file: FIXTURE, exportName }, dims: DIMS, fields }) };
}

describe.each(['memory', 'postgres'])('%s store with an index', (name) => {
  const open = async (s: StoreSettings): Promise<LongTermStore> =>
    name === 'memory' ? new MemoryLongTermStore(s) : PostgresLongTermStore.open(pool, s);

  it('ranks by similarity to the query, with scores; unembedded items last, with a null score', async () => {
    const store = await open(await settings('embed'));
    const ws = randomUUID();
    await store.put(ws, ['notes'], 'tea', { text: 'green tea', kind: 'drink' });
    await store.put(ws, ['notes'], 'coffee', { text: 'coffee coffee tea', kind: 'drink' });
    await store.put(ws, ['notes'], 'car', { text: 'a fast red car', kind: 'thing' });
    await store.put(ws, ['notes'], 'hidden', { text: 'tea tea tea' }, { index: false });
    await store.put(ws, ['notes', 'deeper'], 'title', { title: 'cat', text: 'car' }, { index: ['title'] });
    await store.put(ws, ['elsewhere'], 'tea', { text: 'tea' });

    const ranked = await store.search(ws, ['notes'], { ...page, query: 'green tea please' });
    expect(ranked.map((i) => i.key)).toEqual(['tea', 'coffee', 'car', 'title', 'hidden']);
    const q = vectorOf('green tea please');
    expect(ranked[0]!.score).toBeCloseTo(cosine(q, vectorOf('green tea')), 10);
    expect(ranked[1]!.score).toBeCloseTo(cosine(q, vectorOf('coffee coffee tea')), 10);
    expect(ranked[2]!.score).toBe(0);
    expect(ranked.at(-1)!.score).toBeNull();
    // the put's own paths were embedded (the title "cat"), not the index's field
    expect((await store.search(ws, ['notes'], { ...page, query: 'cat' }))[0]!.key).toBe('title');
    // with a filter and pages
    const drinks = await store.search(ws, ['notes'], { limit: 1, offset: 1, query: 'tea', filter: { kind: 'drink' } });
    expect(drinks.map((i) => i.key)).toEqual(['coffee']);
    // a replaced value is embedded again
    await store.put(ws, ['notes'], 'car', { text: 'tea for the car' });
    expect((await store.search(ws, ['notes'], { ...page, query: 'car' }))[0]!.key).toBe('car');
    // no query: no score
    const plain = await store.search(ws, ['notes'], page);
    expect(plain.map((i) => i.key)).toEqual(['car', 'coffee', 'hidden', 'tea', 'title']);
    expect(plain.every((i) => i.score === undefined)).toBe(true);
  });

  it('embeds every text of a path with [*], and the whole value for "$"', async () => {
    const store = await open(await settings('embeddings', ['$']));
    const ws = randomUUID();
    await store.put(ws, ['d'], 'whole', { a: 'dog', b: { c: 'dog' } });
    await store.put(ws, ['d'], 'parts', { items: ['car', 'cat dog'] }, { index: ['items[*]'] });
    const ranked = await store.search(ws, ['d'], { ...page, query: 'cat' });
    expect(ranked.map((i) => i.key)).toEqual(['parts', 'whole']);
    expect(ranked[0]!.score).toBeCloseTo(cosine(vectorOf('cat'), vectorOf('cat dog')), 10);
  });

  it('ignores the query without an index, as LangGraph does: no ranking, no score', async () => {
    const store = await open({ ttl, now });
    const ws = randomUUID();
    await store.put(ws, ['n'], 'a', { text: 'tea' });
    const found = await store.search(ws, ['n'], { ...page, query: 'tea' });
    expect(found.map((i) => i.key)).toEqual(['a']);
    expect(found[0]!.score).toBeUndefined();
  });
});

describe('the index of the config file', () => {
  it('refuses at start an export that is not embeddings, a provider it does not serve, and vectors of other dims', async () => {
    await expect(
      loadStoreIndex({ embed: { file: FIXTURE, exportName: 'DIMS' }, dims: DIMS, fields: ['$'] }),
    ).rejects.toThrow(
      /export "DIMS" of .*wordEmbeddings.ts is neither an embeddings object .* nor a function of texts/,
    );
    await expect(
      loadStoreIndex({ embed: { provider: 'cohere', model: 'embed-english-v3.0' }, dims: 1024, fields: ['$'] }),
    ).rejects.toThrow(/the providers served are "openai:<model>"/);
    const wrong = await loadStoreIndex({ embed: { file: FIXTURE, exportName: 'embed' }, dims: 3, fields: ['$'] });
    await expect(wrong!.embedQuery('tea')).rejects.toThrow(/a vector of 8; store.index.dims says 3/);
  });

  it('reads texts at JSON paths as LangGraph does', () => {
    const value = { title: 'T', n: 3, tags: ['x', 'y'], deep: { list: [{ t: 'a' }, { t: 'b' }] }, none: null };
    expect(textsAtPath(value, 'title')).toEqual(['T']);
    expect(textsAtPath(value, 'n')).toEqual(['3']);
    expect(textsAtPath(value, 'tags[*]')).toEqual(['x', 'y']);
    expect(textsAtPath(value, 'tags[-1]')).toEqual(['y']);
    expect(textsAtPath(value, 'deep.list[*].t')).toEqual(['a', 'b']);
    expect(textsAtPath(value, 'deep.list[0]')).toEqual(['{"t":"a"}']);
    expect(textsAtPath(value, 'missing.x')).toEqual([]);
    expect(textsAtPath(value, 'none')).toEqual([]);
    expect(textsAtPath(value, '$')).toEqual([JSON.stringify(value)]);
    expect(fieldTexts(value, ['title', 'tags[*]'])).toEqual([
      { field: 'title', text: 'T' },
      { field: 'tags[*].0', text: 'x' },
      { field: 'tags[*].1', text: 'y' },
    ]);
  });
});
