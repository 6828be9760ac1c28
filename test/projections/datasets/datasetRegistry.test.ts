// The datasets fold, fed events directly (no broker traffic): what every replica derives from
// the same sequence of events.
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, test } from 'vitest';
import { loadConfig } from '../../../platform/config.ts';
import type { EventToAppend } from '../../../platform/kafka/eventLog.ts';
import { createLogger } from '../../../platform/logger.ts';
import {
  type DatasetChanges,
  DatasetRegistry,
  datasetCreatedEvent,
  datasetDeletedEvent,
  datasetUpdatedEvent,
  type NewDataset,
} from '../../../projections/datasets/datasetRegistry.ts';
import type { DecodedEvent } from '../../../schemas/registry.ts';

const registries: DatasetRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.close()));
});
function registry(): DatasetRegistry {
  const r = new DatasetRegistry(loadConfig({ KAFKA_TOPIC_PREFIX: 'unit.' }), createLogger('test', 'silent'));
  registries.push(r);
  return r;
}

const tenant = randomUUID();
const decoded = (e: EventToAppend): DecodedEvent => ({ name: e.name, version: 1, payload: e.payload }) as DecodedEvent;
const created = (id: string, d: Partial<NewDataset> & { name: string }, tenantId = tenant) =>
  decoded(datasetCreatedEvent(tenantId, id, { dataType: 'kv', ...d }));
const updated = (id: string, c: DatasetChanges) => decoded(datasetUpdatedEvent(tenant, id, c));
const deleted = (id: string) => decoded(datasetDeletedEvent(tenant, id));

describe('the datasets fold', () => {
  test('a creation holds its fields as sent; JSON fields come back as values', () => {
    const r = registry();
    const id = randomUUID();
    r.apply(
      created(id, {
        name: 'qa',
        dataType: 'chat',
        description: 'questions',
        extra: { metadata: { team: 'a' } },
        inputsSchema: { type: 'object' },
        transformations: [{ path: ['outputs'], transformation_type: 'remove_system_messages' }],
      }),
    );
    expect(r.get(tenant, id)).toMatchObject({
      id,
      tenantId: tenant,
      name: 'qa',
      dataType: 'chat',
      description: 'questions',
      extra: { metadata: { team: 'a' } },
      inputsSchema: { type: 'object' },
      outputsSchema: null,
      transformations: [{ path: ['outputs'], transformation_type: 'remove_system_messages' }],
    });
    expect(r.byName(tenant, 'qa')?.id).toBe(id);
    expect(r.get(randomUUID(), id)).toBeUndefined();
  });

  test('a name belongs to the first live dataset created with it; a later creation of it is ignored', () => {
    const r = registry();
    const [first, second] = [randomUUID(), randomUUID()];
    r.apply(created(first, { name: 'same' }));
    r.apply(created(second, { name: 'same' }));
    expect(r.get(tenant, second)).toBeUndefined();
    expect(r.byName(tenant, 'same')?.id).toBe(first);
    // Another workspace's name is its own.
    const elsewhere = randomUUID();
    r.apply(created(randomUUID(), { name: 'same' }, elsewhere));
    expect(r.byName(elsewhere, 'same')).toBeDefined();
    expect(r.byName(tenant, 'same')?.id).toBe(first);
  });

  test('a second creation of an id changes nothing; a deleted id stays deleted and frees its name', () => {
    const r = registry();
    const id = randomUUID();
    r.apply(created(id, { name: 'one', description: 'a' }));
    r.apply(created(id, { name: 'two', description: 'b' }));
    expect(r.get(tenant, id)).toMatchObject({ name: 'one', description: 'a' });
    expect(r.byName(tenant, 'two')).toBeUndefined();
    r.apply(deleted(id));
    expect(r.get(tenant, id)).toBeUndefined();
    expect(r.isTaken(tenant, id)).toBe(true);
    r.apply(created(id, { name: 'three' }));
    r.apply(updated(id, { description: 'c' }));
    expect(r.get(tenant, id)).toBeUndefined();
    const next = randomUUID();
    r.apply(created(next, { name: 'one' }));
    expect(r.byName(tenant, 'one')?.id).toBe(next);
  });

  test('an update changes what it names and keeps the rest; a rename to a held name is ignored as a whole', () => {
    const r = registry();
    const [a, b] = [randomUUID(), randomUUID()];
    r.apply(created(a, { name: 'a', description: 'first', extra: { metadata: { k: 1 } } }));
    r.apply(created(b, { name: 'b' }));
    const before = r.get(tenant, a)!;
    r.apply(updated(a, { description: 'second', outputsSchema: { type: 'object' } }));
    expect(r.get(tenant, a)).toMatchObject({
      name: 'a',
      description: 'second',
      extra: { metadata: { k: 1 } },
      outputsSchema: { type: 'object' },
    });
    expect(r.get(tenant, a)!.modifiedAt).toBeGreaterThanOrEqual(before.modifiedAt);
    r.apply(updated(a, { name: 'b', description: 'third' }));
    expect(r.get(tenant, a)).toMatchObject({ name: 'a', description: 'second' });
    r.apply(updated(a, { name: 'c' }));
    expect(r.byName(tenant, 'c')?.id).toBe(a);
    expect(r.byName(tenant, 'a')).toBeUndefined();
  });

  test('the list is newest first', async () => {
    const r = registry();
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const [i, id] of ids.entries()) {
      r.apply(created(id, { name: `n${i}` }));
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    expect(r.list(tenant).map((d) => d.id)).toEqual([...ids].reverse());
  });
});
