// The command the deployment worker reports through (recordRevisionStatus), on the shared Kafka:
// DEPLOYED switches the deployment to the revision (active_revision_id, its server URL, READY); a
// report about a revision that has ended (a failure, SKIPPED) or is unknown appends nothing.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startControlPlane, type ControlPlaneStack } from '../../support/controlPlane.ts';
import { createLogger } from '../../../platform/logger.ts';
import { EventLog } from '../../../platform/kafka/eventLog.ts';
import { DeploymentCommands } from '../../../services/deployments/deploymentCommands.ts';
import { DeploymentState } from '../../../services/deployments/deploymentState.ts';

const TENANT = '00000000-0000-4000-8000-000000000001';
let cp: ControlPlaneStack;
let log: EventLog;
let state: DeploymentState;
let commands: DeploymentCommands;

beforeAll(async () => {
  // The stack provisions the topics; this replica deploys nothing, so the test's reports are the only ones.
  cp = await startControlPlane('deployment-commands', 1, { CONTROL_PLANE_DEPLOYER: 'none' });
  log = new EventLog(cp.config, 'test-commands');
  state = new DeploymentState(cp.config, createLogger('test-commands', 'warn'));
  await state.start();
  commands = new DeploymentCommands(state, log, null);
}, 180_000);

afterAll(async () => {
  await state?.close();
  await log?.close();
  await cp?.stop();
});

const newDeployment = (name: string) =>
  commands.create(TENANT, {
    name,
    source: 'github',
    sourceConfig: { repo_url: 'file:///nowhere' },
    sourceRevisionConfig: { repo_ref: 'main' },
    secrets: [],
  });

test('DEPLOYED makes the revision active, records its server URL (where the gateway forwards) and makes the deployment READY', async () => {
  const d = await newDeployment(`deployed-${Date.now()}`);
  const revisionId = d.revisions[0]!.id;
  expect(await commands.recordRevisionStatus(TENANT, d.id, revisionId, { status: 'BUILDING' })).toBe(true);
  expect(state.deployment(TENANT, d.id)).toMatchObject({ status: 'AWAITING_DATABASE', activeRevisionId: null });
  expect(
    await commands.recordRevisionStatus(TENANT, d.id, revisionId, { status: 'DEPLOYED', url: 'http://127.0.0.1:1' }),
  ).toBe(true);
  const after = state.deployment(TENANT, d.id)!;
  expect(after).toMatchObject({
    status: 'READY',
    activeRevisionId: revisionId,
    sourceConfig: { repo_url: 'file:///nowhere' },
  });
  expect(after.revisions[0]).toMatchObject({ status: 'DEPLOYED', detail: null, serverUrl: 'http://127.0.0.1:1' });
  // The deployment's own URL is the gateway's, never the revision's port.
  expect(after.sourceConfig.custom_url).toBeUndefined();
});

test('a report about a revision that ended, or that does not exist, appends nothing', async () => {
  const d = await newDeployment(`failed-${Date.now()}`);
  const revisionId = d.revisions[0]!.id;
  expect(
    await commands.recordRevisionStatus(TENANT, d.id, revisionId, { status: 'BUILD_FAILED', detail: 'no such ref' }),
  ).toBe(true);
  expect(
    await commands.recordRevisionStatus(TENANT, d.id, revisionId, { status: 'DEPLOYED', url: 'http://127.0.0.1:1' }),
  ).toBe(false);
  expect(
    await commands.recordRevisionStatus(TENANT, d.id, '00000000-0000-4000-8000-0000000000ff', { status: 'BUILDING' }),
  ).toBe(false);
  expect(
    await commands.recordRevisionStatus(TENANT, '00000000-0000-4000-8000-0000000000ff', revisionId, {
      status: 'BUILDING',
    }),
  ).toBe(false);
  const after = state.deployment(TENANT, d.id)!;
  expect(after).toMatchObject({ status: 'AWAITING_DATABASE', activeRevisionId: null });
  expect(after.revisions[0]).toMatchObject({ status: 'BUILD_FAILED', detail: 'no such ref' });
});
