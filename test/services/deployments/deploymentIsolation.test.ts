// Code deployed by a workspace reaches only that workspace. On the shared stack (many workspaces,
// so local sources are refused), workspace A (the default one) deploys the greeter and workspace
// B deploys a prober (fixtures/prober), both uploaded as the CLIs do. Then:
// - the gateway answers a key of the other workspace exactly as it answers an unknown deployment;
//   the deployed server, called directly, refuses it too;
// - B's prober, with everything in its environment, cannot list A's projects, reach the broker
//   (directly or through its egress proxy), read the platform's data directory, see other
//   deployments' directories or the platform's processes; its environment holds no platform
//   variable, and its key is its own, not the bootstrap key;
// - B's runs are traced into B's project, named after the deployment;
// - B's key rotates on a redeploy (the old one revoked after the drain) and is revoked with the
//   deployment; B cannot deploy from a path on the host.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { controlPlaneCall, startControlPlane, type ControlPlaneStack } from '../../support/controlPlane.ts';
import { startTracingStack, stackCall, type TracingStack } from '../../support/tracingStack.ts';
import { createWorkspace, type Workspace } from '../../support/tenancyForStack.ts';
import { repoRoot, waitFor } from '../../support/serviceProcess.ts';
import { makeSourceTarball, uploadLikeTheCli } from '../../support/sourceTarball.ts';
import { createLogger } from '../../../platform/logger.ts';
import { DeploymentState } from '../../../services/deployments/deploymentState.ts';
import { DEFAULT_WORKSPACE_ID } from '../../../services/tenancy/index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'deployment-isolation-'));
const deploymentsDir = join(scratch, 'deployments');
let cp: ControlPlaneStack;
let stack: TracingStack;
let a: Workspace;
let b: Workspace;
let greeter: Deployed;
let prober: Deployed;

interface Deployed {
  id: string;
  name: string;
  url: string;
  revisionId: string;
}

const call = (apiKey: string, method: string, path: string, json?: unknown) =>
  controlPlaneCall(cp.urls[0]!, apiKey, method, path, json);
/** The stack's tracing API, with a key. */
const api = (path: string, { apiKey }: { apiKey: string }) => stackCall({ url: stack.url, apiKey }, 'GET', path);

async function revisionEnds(apiKey: string, deploymentId: string, revisionId: string): Promise<string> {
  return waitFor(
    `revision ${revisionId} to end`,
    async () => {
      const { body } = await call(apiKey, 'GET', `/v2/deployments/${deploymentId}/revisions/${revisionId}`);
      return ['DEPLOYED', 'BUILD_FAILED', 'DEPLOY_FAILED'].includes(body.status)
        ? `${body.status as string} ${body.status_message ?? ''}`.trim()
        : null;
    },
    300_000,
    250,
  );
}

/** Creates an internal_source deployment of `dir` as the CLIs do (upload-url, PUT, PATCH) and waits for it to serve. */
async function deploy(apiKey: string, name: string, dir: string): Promise<Deployed> {
  const created = await call(apiKey, 'POST', '/v2/deployments', {
    name,
    source: 'internal_source',
    source_config: {},
    source_revision_config: {},
    secrets: [],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  const upload = await call(apiKey, 'POST', `/v2/deployments/${id}/upload-url`);
  expect(upload.status).toBe(200);
  const archive = join(scratch, `${name}.tar.gz`);
  makeSourceTarball(dir, archive);
  expect(await uploadLikeTheCli(upload.body.upload_url, archive)).toBe(200);
  const patched = await call(apiKey, 'PATCH', `/v2/deployments/${id}`, {
    revision_source: 'internal_source',
    source_revision_config: { source_tarball_path: upload.body.object_path, langgraph_config_path: 'langgraph.json' },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  const revisionId = patched.body.latest_revision_id as string;
  expect(await revisionEnds(apiKey, id, revisionId)).toBe('DEPLOYED');
  return { id, name, url: patched.body.source_config.custom_url as string, revisionId };
}

const post = (url: string, apiKey: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Runs the prober once through the gateway with B's key; its report. */
async function probe(): Promise<Record<string, any>> {
  const res = await post(`${prober.url}/runs/wait`, b.apiKey, {
    assistant_id: 'prober',
    input: {
      targets: {
        otherWorkspaceId: a.id,
        brokers: stack.env.KAFKA_BROKERS!.split(',')[0],
        platformRoot: repoRoot,
        deploymentsDir: resolve(deploymentsDir),
        platformPid: cp.replicas[0]!.child.pid,
      },
    },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { report: Record<string, any> }).report;
}

beforeAll(async () => {
  // A tracing stack of its own, whose topics the control plane shares (deployments' keys are its
  // tenancy's, which its tracing API takes), and no other deployer: two deployers on one topic
  // would both run every deployment.
  stack = await startTracingStack('deployment_isolation');
  a = { id: DEFAULT_WORKSPACE_ID, apiKey: stack.apiKey };
  b = await createWorkspace(stack, 'b');
  cp = await startControlPlane('deployment-isolation', 1, {
    ...stack.env,
    DEPLOYMENTS_DIR: deploymentsDir,
    LANGSMITH_ENDPOINT: stack.url,
  });
  [greeter, prober] = await Promise.all([
    deploy(a.apiKey, `greeter-${Date.now()}`, join(repoRoot, 'examples/deployable-agent')),
    deploy(b.apiKey, `prober-${Date.now()}`, join(import.meta.dirname, 'fixtures/prober')),
  ]);
}, 600_000);

afterAll(async () => {
  await cp?.stop();
  await stack?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('the gateway', () => {
  test("answers a key of another workspace as it answers an unknown deployment; each workspace's own key passes", async () => {
    const unknownId = randomUUID();
    const unknown = await post(`${cp.urls[0]}/d/${unknownId}/assistants/search`, b.apiKey, {});
    const unknownBody = (await unknown.json()) as { detail: string };
    for (const [deployment, apiKey] of [
      [greeter, b.apiKey],
      [prober, a.apiKey],
      [greeter, 'lsk_not-a-key-of-anyone-000000000000'],
    ] as const) {
      const res = await post(`${deployment.url}/assistants/search`, apiKey, {});
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        ...unknownBody,
        detail: unknownBody.detail.replace(unknownId, deployment.id),
      });
      // Every route of it, the public ones too.
      expect((await fetch(`${deployment.url}/info`, { headers: { 'x-api-key': apiKey } })).status).toBe(404);
    }
    expect(unknown.status).toBe(404);
    expect((await post(`${greeter.url}/assistants/search`, a.apiKey, {})).status).toBe(200);
    expect((await post(`${prober.url}/assistants/search`, b.apiKey, {})).status).toBe(200);
  });

  test('the deployed server itself, reached on its own port, refuses a key of another workspace', async () => {
    const fold = new DeploymentState(cp.config, createLogger('test-fold', 'warn'));
    await fold.start();
    const serverUrl = fold.deployment(a.id, greeter.id)!.revisions.find((r) => r.id === greeter.revisionId)!.serverUrl!;
    await fold.close();
    const res = await post(`${serverUrl}/assistants/search`, b.apiKey, {});
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: 'WORKSPACE_FORBIDDEN' });
    expect((await post(`${serverUrl}/assistants/search`, a.apiKey, {})).status).toBe(200);
  });
});

describe("B's deployed code", () => {
  let report: Record<string, any>;
  beforeAll(async () => {
    report = await probe();
  }, 120_000);

  test('holds no platform variable, and a key of its own', () => {
    expect(report.platformVariables).toEqual([]);
    expect(report.ownKey).toMatch(/^lsk_/);
    expect(report.ownKey).not.toBe(a.apiKey);
    expect(report.ownProjectWorkspaces.every((w: string) => w === b.id)).toBe(true);
  });

  test("cannot list the other workspace's projects with anything in its environment", () => {
    expect(Object.keys(report.otherWorkspace)).toContain('LANGSMITH_API_KEY');
    for (const [name, status] of Object.entries(report.otherWorkspace)) expect([401, 403], name).toContain(status);
  });

  test('cannot reach the broker, directly or through its egress proxy', () => {
    const entries = Object.entries(report.broker as Record<string, string>);
    expect(entries.length).toBeGreaterThanOrEqual(3);
    for (const [how, outcome] of entries) {
      expect(outcome, how).not.toBe('connected');
      if (how.startsWith('http ')) expect(outcome, how).toBe('403');
      if (how.startsWith('fetch ')) expect(outcome, how).toMatch(/^failed: /);
    }
  });

  test("cannot read the platform's data directory, other deployments' directories or the platform's processes", () => {
    expect(report.dataDirectory).toBe('ENOENT');
    expect(report.devKeyFile).toBe('ENOENT');
    expect(report.deployments).toEqual([prober.id]);
    expect(report.platformProcess).toBe('ENOENT');
    if (process.getuid?.() === 0) expect(report.uid).toBeGreaterThanOrEqual(2_000_000);
  });

  test("its runs are traced into B's project named after the deployment, not A's", async () => {
    const project = await waitFor(
      'the prober’s project in B',
      async () => {
        const res = await api(`/sessions?name=${encodeURIComponent(prober.name)}`, { apiKey: b.apiKey });
        return res.body.length === 1 ? res.body[0] : null;
      },
      120_000,
      500,
    );
    expect(project.tenant_id).toBe(b.id);
    expect((await api(`/sessions?name=${encodeURIComponent(prober.name)}`, { apiKey: a.apiKey })).body).toEqual([]);
  });

  test('its key rotates on a redeploy, the old one revoked, and goes with the deployment', async () => {
    const before = report.ownKey as string;
    expect((await api('/sessions', { apiKey: before })).status).toBe(200);
    const redeployed = await call(
      b.apiKey,
      'POST',
      `/v2/deployments/${prober.id}/revisions/${prober.revisionId}/redeploy`,
    );
    expect(redeployed.status, JSON.stringify(redeployed.body)).toBe(200);
    expect(await revisionEnds(b.apiKey, prober.id, redeployed.body.latest_revision_id)).toBe('DEPLOYED');
    const after = (await probe()).ownKey as string;
    expect(after).not.toBe(before);
    await waitFor(
      'the old key to be revoked',
      async () => (await api('/sessions', { apiKey: before })).status === 401,
      60_000,
      250,
    );
    expect((await api('/sessions', { apiKey: after })).status).toBe(200);

    expect((await call(b.apiKey, 'DELETE', `/v2/deployments/${prober.id}`)).status).toBe(204);
    await waitFor(
      'the key to be revoked with the deployment',
      async () => (await api('/sessions', { apiKey: after })).status === 401,
      60_000,
      250,
    );
  }, 600_000);

  test('cannot deploy from a path on the host: this control plane serves several workspaces', async () => {
    for (const repoUrl of [
      `file://${repoRoot}`,
      repoRoot,
      'http://127.0.0.1:9/repo.git',
      'ext::sh -c touch% /tmp/pwned',
    ]) {
      const res = await call(b.apiKey, 'POST', '/v2/deployments', {
        name: `local-${randomUUID().slice(0, 8)}`,
        source: 'github',
        source_config: { repo_url: repoUrl, deployment_type: 'dev' },
        source_revision_config: { repo_ref: 'main', langgraph_config_path: 'langgraph.json' },
        secrets: [],
      });
      expect(res.status, repoUrl).toBe(400);
      expect(res.body.detail, repoUrl).toContain('repo_url');
    }
  });
});
