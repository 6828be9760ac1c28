// The projects fold, fed events directly (no broker traffic): what every replica and projector
// derives from the same sequence of events.
import { afterEach, describe, expect, test } from 'vitest';
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../../platform/config.ts';
import { createLogger } from '../../../platform/logger.ts';
import {
  projectCreatedEvent,
  projectIdForName,
  ProjectRegistry,
  type NewProject,
} from '../../../projections/projects/projectRegistry.ts';
import { matchesFilter } from '../../../services/tracing/projects/projectFilter.ts';
import type { DecodedEvent } from '../../../schemas/registry.ts';
import type { EventToAppend } from '../../../platform/kafka/eventLog.ts';

const registries: ProjectRegistry[] = [];
afterEach(async () => {
  await Promise.all(registries.splice(0).map((r) => r.close()));
});

function registry(onDeleted?: (tenantId: string, projectId: string) => void): ProjectRegistry {
  const r = new ProjectRegistry(loadConfig({ KAFKA_TOPIC_PREFIX: 'unit.' }), createLogger('test', 'silent'), {
    onDeleted,
  });
  registries.push(r);
  return r;
}

const tenant = randomUUID();
const decoded = (e: EventToAppend): DecodedEvent => ({ name: e.name, version: 1, payload: e.payload }) as DecodedEvent;
const created = (id: string, p: NewProject, tenantId = tenant) => decoded(projectCreatedEvent(tenantId, id, p));
const updated = (
  id: string,
  p: { name?: string; description?: string; extra?: object; end_time?: number },
): DecodedEvent =>
  ({
    name: 'ProjectUpdated',
    version: 1,
    payload: {
      tenant_id: tenant,
      project_id: id,
      name: p.name ?? null,
      description: p.description ?? null,
      extra: p.extra ? JSON.stringify(p.extra) : null,
      end_time: p.end_time ?? null,
      updated_at: 1,
    },
  }) as DecodedEvent;
const deleted = (id: string, tenantId = tenant): DecodedEvent =>
  ({
    name: 'ProjectDeleted',
    version: 1,
    payload: { tenant_id: tenantId, project_id: id, deleted_at: 1 },
  }) as DecodedEvent;

describe('project registry fold', () => {
  test('generation 0 keeps the id of earlier releases; a deleted name moves to the next generation', () => {
    const r = registry();
    const gen0 = projectIdForName(tenant, 'chat');
    expect(r.idForName(tenant, 'chat')).toBe(gen0);
    r.apply(created(gen0, { name: 'chat' }));
    r.apply(deleted(gen0));
    const gen1 = r.idForName(tenant, 'chat');
    expect(gen1).toBe(projectIdForName(tenant, 'chat', 1));
    expect(gen1).not.toBe(gen0);
    r.apply(created(gen1, { name: 'chat' }));
    r.apply(deleted(gen1));
    expect(r.idForName(tenant, 'chat')).toBe(projectIdForName(tenant, 'chat', 2));
    // Generations cannot collide with another name's ids.
    expect(projectIdForName(tenant, 'chat', 1)).not.toBe(projectIdForName(tenant, 'chat:1'));
  });

  test('a name whose derived id was renamed away gets the next generation', () => {
    const r = registry();
    const gen0 = projectIdForName(tenant, 'a');
    r.apply(created(gen0, { name: 'a' }));
    r.apply(updated(gen0, { name: 'b' }));
    expect(r.byName(tenant, 'a')).toBeUndefined();
    expect(r.byName(tenant, 'b')?.id).toBe(gen0);
    expect(r.idForName(tenant, 'a')).toBe(projectIdForName(tenant, 'a', 1));
  });

  test('a repeated creation of a live id only fills what is empty; a deleted id stays deleted', () => {
    const r = registry();
    const id = randomUUID();
    r.apply(created(id, { name: 'p' })); // ingestion's creation: no description
    r.apply(
      created(id, { name: 'p', description: 'from POST', extra: { metadata: { a: 1 } }, referenceDatasetId: 'ds' }),
    );
    r.apply(created(id, { name: 'p', description: 'later' }));
    expect(r.get(tenant, id)).toMatchObject({
      name: 'p',
      description: 'from POST',
      extra: { metadata: { a: 1 } },
      referenceDatasetId: 'ds',
    });
    r.apply(deleted(id));
    r.apply(created(id, { name: 'p' }));
    r.apply(updated(id, { description: 'x' }));
    expect(r.get(tenant, id)).toBeUndefined();
    expect(r.isDeleted(tenant, id)).toBe(true);
    expect(r.byName(tenant, 'p')).toBeUndefined();
  });

  test('updates change only what they carry; a rename onto a held name is ignored as a whole', () => {
    const r = registry();
    const [a, b] = [randomUUID(), randomUUID()];
    r.apply(created(a, { name: 'a', description: 'd', extra: { k: 1 }, startTime: 5 }));
    r.apply(created(b, { name: 'b' }));
    r.apply(updated(a, { extra: { k: 2 }, end_time: 9 }));
    expect(r.get(tenant, a)).toMatchObject({ name: 'a', description: 'd', extra: { k: 2 }, startTime: 5, endTime: 9 });
    r.apply(updated(a, { name: 'b', description: 'changed' }));
    expect(r.get(tenant, a)).toMatchObject({ name: 'a', description: 'd' });
    expect(r.byName(tenant, 'b')?.id).toBe(b);
  });

  test('the first live project holds a name; when it goes, the next one with that name does', () => {
    const r = registry();
    const [first, second] = [randomUUID(), randomUUID()];
    r.apply(created(first, { name: 'dup' }));
    r.apply(created(second, { name: 'dup' })); // a race between replicas: both exist, one holds the name
    expect(r.byName(tenant, 'dup')?.id).toBe(first);
    r.apply(deleted(first));
    expect(r.byName(tenant, 'dup')?.id).toBe(second);
  });

  test('workspaces are separate; deletions are reported once, with deletedProjects() and isDeleted()', () => {
    const calls: string[] = [];
    const r = registry((t, p) => calls.push(`${t}/${p}`));
    const other = randomUUID();
    const id = randomUUID();
    r.apply(created(id, { name: 'same' }));
    r.apply(created(id, { name: 'same' }, other));
    expect(r.get(other, id)).toBeDefined();
    r.apply(deleted(id));
    r.apply(deleted(id));
    expect(r.get(tenant, id)).toBeUndefined();
    expect(r.get(other, id)).toBeDefined();
    expect(r.isDeleted(tenant, id)).toBe(true);
    expect(r.isDeleted(other, id)).toBe(false);
    expect(calls).toEqual([`${tenant}/${id}`]);
    expect(r.deletedProjects()).toEqual([{ tenantId: tenant, projectId: id }]);
  });

  test('list is newest first; resolve routes a name to its live project and refuses a deleted id', async () => {
    const r = registry();
    const old = projectIdForName(tenant, 'default');
    r.apply(created(old, { name: 'default', startTime: 1 }));
    r.apply(created(randomUUID(), { name: 'newer', startTime: 2 }));
    expect(r.list(tenant).map((p) => p.name)).toEqual(['newer', 'default']);
    const pending = new Map<string, EventToAppend>();
    expect(await r.resolve(tenant, null, null, pending)).toBe(old);
    expect(await r.resolve(tenant, old, null, pending)).toBe(old);
    expect(pending.size).toBe(0);
    r.apply(deleted(old));
    expect(r.list(tenant).map((p) => p.name)).toEqual(['newer']);
    expect(r.idForName(tenant, 'default')).toBe(projectIdForName(tenant, 'default', 1));
  });
});

describe('project filter', () => {
  const project = {
    id: 'i',
    tenantId: 't',
    name: 'Chat Bot',
    description: null,
    extra: { metadata: { env: 'prod', n: { a: [1] } } },
    referenceDatasetId: null,
    startTime: 1,
    endTime: null,
    createdAt: 1,
  };
  test.each([
    [{ name: 'Chat Bot' }, true],
    [{ name: 'chat bot' }, false],
    [{ nameContains: 'T b' }, true],
    [{ ids: ['x', 'i'] }, true],
    [{ ids: ['x'] }, false],
    [{ referenceFree: true }, true],
    [{ referenceFree: false }, false],
    [{ referenceDatasets: ['d'] }, false],
    [{ metadata: { env: 'prod' } }, true],
    [{ metadata: { n: { a: [1] } } }, true],
    [{ metadata: { env: 'dev' } }, false],
    [{ metadata: { missing: null } }, false],
  ])('%j → %s', (filter, expected) => {
    expect(matchesFilter(project, filter)).toBe(expected);
  });
});
