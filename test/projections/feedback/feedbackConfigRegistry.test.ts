// The feedback configs fold, fed events directly (no broker traffic): what every replica derives
// from the same sequence of events.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, test } from 'vitest';
import { loadConfig } from '../../../platform/config.ts';
import type { EventToAppend } from '../../../platform/kafka/eventLog.ts';
import { createLogger } from '../../../platform/logger.ts';
import {
  type FeedbackConfigBody,
  FeedbackConfigRegistry,
  feedbackConfigCreatedEvent,
  feedbackConfigDeletedEvent,
  feedbackConfigUpdatedEvent,
} from '../../../projections/feedback/feedbackConfigRegistry.ts';
import type { DecodedEvent } from '../../../schemas/registry.ts';

const registries: FeedbackConfigRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.close()));
});
function registry(): FeedbackConfigRegistry {
  const r = new FeedbackConfigRegistry(loadConfig({ KAFKA_TOPIC_PREFIX: 'unit.' }), createLogger('test', 'silent'));
  registries.push(r);
  return r;
}

const tenant = randomUUID();
const decoded = (e: EventToAppend): DecodedEvent => ({ name: e.name, version: 1, payload: e.payload }) as DecodedEvent;
const score: FeedbackConfigBody = { type: 'continuous', min: 0, max: 1 };
const tags: FeedbackConfigBody = {
  type: 'categorical',
  categories: [
    { value: 0, label: 'bad' },
    { value: 1, label: 'good' },
  ],
};
const create = (
  r: FeedbackConfigRegistry,
  key: string,
  config: FeedbackConfigBody,
  isEnforced = false,
  lower: boolean | null = null,
) => {
  const id = randomUUID();
  r.apply(decoded(feedbackConfigCreatedEvent(tenant, id, { key, config, isEnforced, isLowerScoreBetter: lower })));
  return id;
};

describe('the feedback configs fold', () => {
  test('a key has one config: a second one is ignored, identical or not', () => {
    const r = registry();
    const first = create(r, 'correctness', score);
    create(r, 'correctness', score);
    create(r, 'correctness', tags);
    expect(r.live(tenant, 'correctness').map((e) => e.id)).toEqual([first]);
    expect(r.principal(tenant, 'correctness')).toMatchObject({ id: first, config: score, isEnforced: false });
    expect(r.isFirst(r.get(tenant, first)!)).toBe(true);
    expect(r.live(randomUUID(), 'correctness')).toEqual([]);
  });

  test('with an enforced config a key keeps others beside it; a second enforced one is ignored', () => {
    const r = registry();
    const plain = create(r, 'tone', tags);
    const enforced = create(r, 'tone', score, true);
    const beside = create(r, 'tone', { type: 'freeform' });
    create(r, 'tone', { type: 'continuous', min: 1, max: 5 }, true);
    expect(r.live(tenant, 'tone').map((e) => e.id)).toEqual([plain, enforced, beside]);
    // A change without an id goes to the enforced config.
    expect(r.principal(tenant, 'tone')?.id).toBe(enforced);
    expect(r.isFirst(r.get(tenant, plain)!)).toBe(true);
    expect(r.isFirst(r.get(tenant, enforced)!)).toBe(false);
  });

  test('an update replaces the config and sets the direction of the key; a deleted config stays, as deleted', () => {
    const r = registry();
    const id = create(r, 'helpful', score, false, true);
    expect(r.lowerIsBetter(tenant, 'helpful')).toBe(true);
    expect(r.lowerIsBetter(tenant, 'other')).toBe(false);
    const entry = r.get(tenant, id)!;
    r.apply(decoded(feedbackConfigUpdatedEvent(entry, { config: tags, isLowerScoreBetter: false })));
    expect(r.get(tenant, id)).toMatchObject({ config: tags });
    expect(r.lowerIsBetter(tenant, 'helpful')).toBe(false);
    r.apply(decoded(feedbackConfigUpdatedEvent(entry, { config: null, isLowerScoreBetter: null })));
    expect(r.get(tenant, id)?.config).toEqual(tags);

    r.apply(decoded(feedbackConfigDeletedEvent(r.get(tenant, id)!)));
    expect(r.get(tenant, id)?.deleted).toBe(true);
    expect(r.live(tenant, 'helpful')).toEqual([]);
    expect(r.list(tenant, false)).toEqual([]);
    expect(r.list(tenant, true).map((e) => e.id)).toEqual([id]);
    // Ignored once deleted; the key takes a new config.
    r.apply(decoded(feedbackConfigUpdatedEvent(entry, { config: score, isLowerScoreBetter: null })));
    expect(r.get(tenant, id)?.config).toEqual(tags);
    const next = create(r, 'helpful', score);
    expect(r.principal(tenant, 'helpful')?.id).toBe(next);
  });

  test('the list is by key, one a key unless all are asked for', () => {
    const r = registry();
    const b = create(r, 'b', score);
    const a = create(r, 'a', tags);
    const enforced = create(r, 'a', score, true);
    expect(r.list(tenant, false).map((e) => e.id)).toEqual([enforced, b]);
    expect(r.list(tenant, true).map((e) => e.id)).toEqual([a, enforced, b]);
  });
});
