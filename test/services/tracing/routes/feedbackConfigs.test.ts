// Feedback configs against the shared stack: create (the same config again answered with the one
// there; a different one a 400, a second enforced one a 409), list by key, part of the key and
// enforcement, one a key or all; changes (a new config, the direction, categories added and
// removed, by key or by id); deletion by key or by id; bad input a 422 naming what is wrong;
// workspaces isolated.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { api, createWorkspaces, type Workspace } from '../../../support/tracingClient.ts';

let ws: Workspace;
let other: Workspace;
beforeAll(async () => {
  [ws, other] = (await createWorkspaces(2)) as [Workspace, Workspace];
});

const unique = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;
const create = (body: Record<string, unknown>, apiKey = ws.apiKey) =>
  api('/feedback-configs', { method: 'POST', apiKey, json: body });
const patch = (body: Record<string, unknown>, apiKey = ws.apiKey) =>
  api('/feedback-configs', { method: 'PATCH', apiKey, json: body });
const list = (query: string, apiKey = ws.apiKey) => api(`/feedback-configs?${query}`, { apiKey });
const remove = (query: string, apiKey = ws.apiKey) => api(`/feedback-configs?${query}`, { method: 'DELETE', apiKey });
const score = { type: 'continuous', min: 0, max: 1 };
const tags = {
  type: 'categorical',
  categories: [
    { value: 0, label: 'bad' },
    { value: 1, label: 'good' },
  ],
};

describe('create and read', () => {
  test('a config as the clients read it; the same again is the same config; a different one a 400', async () => {
    const key = unique('correctness');
    const created = await create({ feedback_key: key, feedback_config: score, is_enforced: false });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      feedback_key: key,
      feedback_config: score,
      tenant_id: ws.id,
      modified_at: expect.stringMatching(/Z$/),
      is_lower_score_better: false,
      is_enforced: false,
      is_first: true,
      is_deleted: false,
    });
    const again = await create({ feedback_key: key, feedback_config: score, is_lower_score_better: true });
    expect(again.body).toMatchObject({ id: created.body.id, is_lower_score_better: true });
    const different = await create({ feedback_key: key, feedback_config: tags });
    expect(different.status).toBe(400);
    expect(JSON.stringify(different.body)).toContain('Feedback config already exists');
    expect((await list(`key=${key}`)).body).toEqual([{ ...again.body }]);
    expect((await api(`/api/v1/feedback-configs?key=${key}`, { apiKey: ws.apiKey })).body).toHaveLength(1);
  });

  test('beside an enforced config others are kept; a second enforced one is a 409; changes go to the enforced one', async () => {
    const key = unique('tone');
    const enforced = await create({ feedback_key: key, feedback_config: score, is_enforced: true });
    const beside = await create({ feedback_key: key, feedback_config: tags });
    expect(beside.status).toBe(200);
    expect(beside.body).toMatchObject({ is_enforced: false, is_first: false });
    expect((await create({ feedback_key: key, feedback_config: tags, is_enforced: true })).status).toBe(409);
    expect((await list(`key=${key}`)).body.map((c: { id: string }) => c.id)).toEqual([enforced.body.id]);
    expect((await list(`key=${key}&include_all_configs=true`)).body.map((c: { id: string }) => c.id)).toEqual([
      enforced.body.id,
      beside.body.id,
    ]);
    expect(
      (await list(`key=${key}&include_all_configs=True&is_enforced=False`)).body.map((c: { id: string }) => c.id),
    ).toEqual([beside.body.id]);
    const changed = await patch({ feedback_key: key, feedback_config: { type: 'continuous', min: 1, max: 5 } });
    expect(changed.body).toMatchObject({
      id: enforced.body.id,
      feedback_config: { type: 'continuous', min: 1, max: 5 },
    });
    const byId = await patch({ feedback_key: key, id: beside.body.id, add_categories: [{ value: 2, label: 'great' }] });
    expect(byId.body.feedback_config.categories).toEqual([...tags.categories, { value: 2, label: 'great' }]);
  });

  test('lists by part of the key, in key order, with offset and limit', async () => {
    const prefix = unique('list');
    for (const k of ['c', 'a', 'b']) await create({ feedback_key: `${prefix}-${k}`, feedback_config: score });
    const keys = (res: { body: Array<{ feedback_key: string }> }) => res.body.map((c) => c.feedback_key);
    expect(keys(await list(`name_contains=${prefix.toUpperCase()}`))).toEqual(
      ['a', 'b', 'c'].map((k) => `${prefix}-${k}`),
    );
    expect(keys(await list(`name_contains=${prefix}&offset=1&limit=1`))).toEqual([`${prefix}-b`]);
    expect(keys(await list(`key=${prefix}-a&key=${prefix}-c`))).toEqual([`${prefix}-a`, `${prefix}-c`]);
  });
});

describe('changes', () => {
  test('categories added and removed, values and labels distinct, two at least; only on categorical configs (400s: what the config is decides them)', async () => {
    const key = unique('label');
    await create({ feedback_key: key, feedback_config: tags });
    const added = await patch({ feedback_key: key, add_categories: [{ value: 2, label: 'great' }] });
    expect(added.body.feedback_config.categories).toHaveLength(3);
    const removed = await patch({ feedback_key: key, remove_categories: [0] });
    expect(removed.body.feedback_config.categories).toEqual([
      { value: 1, label: 'good' },
      { value: 2, label: 'great' },
    ]);
    const clash = await patch({ feedback_key: key, add_categories: [{ value: 9, label: 'good' }] });
    expect(clash.status).toBe(400);
    expect(clash.body.detail).toContain('the category label "good" is given twice');
    const tooFew = await patch({ feedback_key: key, remove_categories: [1] });
    expect(tooFew.status).toBe(400);
    expect(JSON.stringify(tooFew.body)).toContain('at least two');
    const other = unique('score');
    await create({ feedback_key: other, feedback_config: score });
    expect((await patch({ feedback_key: other, add_categories: [{ value: 1 }] })).status).toBe(400);
    expect((await list(`key=${key}`)).body[0].feedback_config.categories).toHaveLength(2);
  });

  test("a change of an unknown key or id is a 404; of a key by another key's id too", async () => {
    expect((await patch({ feedback_key: unique('none'), is_lower_score_better: true })).status).toBe(404);
    const a = await create({ feedback_key: unique('a'), feedback_config: score });
    expect((await patch({ feedback_key: unique('b'), id: a.body.id, is_lower_score_better: true })).status).toBe(404);
  });
});

describe('deletion', () => {
  test('by key deletes every config of the key; by id one; deleted configs listed only with include_all_configs', async () => {
    const key = unique('gone');
    const enforced = await create({ feedback_key: key, feedback_config: score, is_enforced: true });
    const beside = await create({ feedback_key: key, feedback_config: tags });
    expect((await remove(`id=${beside.body.id}`)).status).toBe(204);
    expect(
      (await list(`key=${key}&include_all_configs=true`)).body.map((c: { is_deleted: boolean }) => c.is_deleted),
    ).toEqual([false, true]);
    expect((await remove(`feedback_key=${key}`)).status).toBe(204);
    expect((await list(`key=${key}`)).body).toEqual([]);
    expect((await remove(`feedback_key=${key}`)).status).toBe(404);
    expect((await remove(`id=${enforced.body.id}`)).status).toBe(404);
    // The key takes a new config.
    expect((await create({ feedback_key: key, feedback_config: tags })).status).toBe(200);
  });
});

describe('bad input and workspaces', () => {
  test.each([
    ['no key', { feedback_config: score }, 422, 'feedback_key'],
    ['an unknown type', { feedback_key: 'k', feedback_config: { type: 'stars' } }, 422, 'type'],
    [
      'categories on a score',
      { feedback_key: 'k', feedback_config: { ...score, categories: tags.categories } },
      422,
      'categories',
    ],
    ['a range on free text', { feedback_key: 'k', feedback_config: { type: 'freeform', max: 3 } }, 422, 'max'],
    [
      'one category',
      { feedback_key: 'k', feedback_config: { type: 'categorical', categories: [{ value: 1 }] } },
      422,
      'categories must NOT have fewer than 2 items',
    ],
    [
      'an unknown field',
      { feedback_key: 'k', feedback_config: { type: 'freeform', colour: 'red' } },
      422,
      'additional properties',
    ],
    // The fields have their form; what they say together is refused (400).
    [
      'a range upside down',
      { feedback_key: 'k', feedback_config: { type: 'continuous', min: 5, max: 1 } },
      400,
      'min (5) must be below max (1)',
    ],
    [
      'a value twice',
      { feedback_key: 'k', feedback_config: { type: 'categorical', categories: [{ value: 1 }, { value: 1 }] } },
      400,
      'the category value 1 is given twice',
    ],
  ] as Array<[string, Record<string, unknown>, number, string]>)(
    '%s is refused naming it, and nothing is created',
    async (_label, body, status, named) => {
      const key = unique('bad');
      const res = await create(body.feedback_key ? { ...body, feedback_key: key } : body);
      expect(res.status).toBe(status);
      expect(res.body.detail).toContain(named);
      expect((await list(`key=${key}&include_all_configs=true`)).body).toEqual([]);
    },
  );

  test('a DELETE names a key, an id, or both (the id of that key); neither is a 400', async () => {
    expect((await remove('')).status).toBe(400);
    const key = unique('both');
    const made = await create({ feedback_key: key, feedback_config: score });
    expect((await remove(`feedback_key=${unique('other')}&id=${made.body.id}`)).status).toBe(404);
    expect((await list(`key=${key}`)).body).toHaveLength(1);
    expect((await remove(`feedback_key=${key}&id=${made.body.id}`)).status).toBe(204);
    expect((await list(`key=${key}`)).body).toEqual([]);
  });

  test("another workspace's configs are not seen, changed or deleted; keys are per workspace", async () => {
    const key = unique('mine');
    const mine = await create({ feedback_key: key, feedback_config: score });
    expect((await list(`key=${key}`, other.apiKey)).body).toEqual([]);
    expect((await patch({ feedback_key: key, is_lower_score_better: true }, other.apiKey)).status).toBe(404);
    expect((await remove(`id=${mine.body.id}`, other.apiKey)).status).toBe(404);
    expect((await create({ feedback_key: key, feedback_config: tags }, other.apiKey)).status).toBe(200);
    expect((await list(`key=${key}`)).body[0]).toMatchObject({ id: mine.body.id, feedback_config: score });
  });
});
