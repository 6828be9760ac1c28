// The fold of the deployments topic: events applied directly, in topic order. These rules are what
// decide racing commands (deploymentCommands.ts reads back whether its event took effect).
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../platform/config.ts';
import { createLogger } from '../../../platform/logger.ts';
import { DeploymentState } from '../../../services/deployments/deploymentState.ts';
import type { DecodedEvent } from '../../../schemas/registry.ts';
import type { EventPayloads } from '../../../schemas/events.generated.ts';

const config = loadConfig({});
const states: DeploymentState[] = [];
afterAll(async () => Promise.all(states.map((s) => s.close())));

const T = '00000000-0000-4000-8000-000000000001';

function fold(...events: DecodedEvent[]): DeploymentState {
  const state = new DeploymentState(config, createLogger('test', 'silent'));
  states.push(state);
  for (const e of events) state.apply(e);
  return state;
}

const ev = <N extends keyof EventPayloads>(name: N, payload: Partial<EventPayloads[N]>): DecodedEvent =>
  ({ name, version: 1, payload: { tenant_id: T, deployment_id: 'd1', ...payload } }) as unknown as DecodedEvent;

const created = (deployment_id = 'd1', name = 'agent') =>
  ev('DeploymentCreated', {
    deployment_id,
    name,
    source: 'external_docker',
    source_config: '{"build_on_push":false}',
    created_at: 1,
  });
const revision = (revision_id: string, at = 2) =>
  ev('RevisionCreated', {
    revision_id,
    source: 'external_docker',
    source_revision_config: '{"image_uri":"x"}',
    secrets: '',
    secret_names: [],
    created_at: at,
  });
const softDeleted = (at = 5) => ev('DeploymentSoftDeleted', { delete_tracing_project: false, deleted_at: at });
const removed = (removal_id: string) => ev('DeploymentRemoved', { removal_id, removed_at: 9 });

describe('DeploymentState', () => {
  it('a new deployment awaits its database; its revisions are newest first, CREATING until moved on', () => {
    const s = fold(
      created(),
      revision('r1'),
      revision('r2', 3),
      ev('RevisionStatusChanged', { revision_id: 'r2', status: 'QUEUED', detail: null, changed_at: 4 }),
    );
    const d = s.deployment(T, 'd1')!;
    expect(d.status).toBe('AWAITING_DATABASE');
    expect(d.revisions.map((r) => [r.id, r.status])).toEqual([
      ['r2', 'QUEUED'],
      ['r1', 'CREATING'],
    ]);
    expect(d.activeRevisionId).toBeNull();
  });

  it('DEPLOYED makes a revision the active one', () => {
    const s = fold(
      created(),
      revision('r1'),
      ev('RevisionStatusChanged', { revision_id: 'r1', status: 'DEPLOYED', detail: null, changed_at: 4 }),
    );
    expect(s.deployment(T, 'd1')!.activeRevisionId).toBe('r1');
  });

  it('a second deployment with a live name is ignored (the first create wins)', () => {
    const s = fold(created('d1', 'agent'), created('d2', 'agent'), revision('r1'));
    expect(s.deployments(T).map((d) => d.id)).toEqual(['d1']);
  });

  it('revisions and updates that land after a soft delete are ignored', () => {
    const s = fold(
      created(),
      revision('r1'),
      softDeleted(),
      revision('r2', 6),
      ev('DeploymentUpdated', { source_config_changes: '{"build_on_push":true}', updated_at: 7 }),
    );
    const d = s.deployment(T, 'd1')!;
    expect(d.status).toBe('AWAITING_DELETE');
    expect(d.revisions.map((r) => r.id)).toEqual(['r1']);
    expect(d.sourceConfig).toEqual({ build_on_push: false });
  });

  it('source_config updates merge into the deployment', () => {
    const s = fold(
      created(),
      ev('DeploymentUpdated', { source_config_changes: '{"custom_url":"http://127.0.0.1:1"}', updated_at: 3 }),
    );
    expect(s.deployment(T, 'd1')!.sourceConfig).toEqual({ build_on_push: false, custom_url: 'http://127.0.0.1:1' });
  });

  it('a removal applies only to an AWAITING_DELETE deployment, and the first of two wins', () => {
    const early = fold(created(), removed('x'));
    expect(early.deployment(T, 'd1')).toBeDefined();
    expect(early.removedBy(T, 'd1')).toBeUndefined();
    const s = fold(created(), softDeleted(), removed('a'), removed('b'));
    expect(s.deployment(T, 'd1')).toBeUndefined();
    expect(s.removedBy(T, 'd1')).toBe('a');
  });

  it('the tracing project’s deletion is recorded only for a deployment soft-deleted with delete_tracing_project', () => {
    const projectDeleted = ev('DeploymentTracingProjectDeleted', { project_id: 'p1', deleted_at: 6 });
    expect(fold(created(), revision('r1'), projectDeleted).deployment(T, 'd1')!.tracingProjectDeleted).toBe(false);
    expect(fold(created(), softDeleted(), projectDeleted).deployment(T, 'd1')!.tracingProjectDeleted).toBe(false);
    const asked = fold(created(), ev('DeploymentSoftDeleted', { delete_tracing_project: true, deleted_at: 5 }));
    expect(asked.deployment(T, 'd1')).toMatchObject({ deleteTracingProject: true, tracingProjectDeleted: false });
    asked.apply(projectDeleted);
    expect(asked.deployment(T, 'd1')!.tracingProjectDeleted).toBe(true);
  });

  it('the runtime status cannot undo a soft delete', () => {
    const s = fold(created(), softDeleted(), ev('DeploymentStatusChanged', { status: 'READY', changed_at: 6 }));
    expect(s.deployment(T, 'd1')!.status).toBe('AWAITING_DELETE');
  });
});
