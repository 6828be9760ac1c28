// The explorer's deployments page (apps/explorer/deployments/) in a real browser. A control plane
// of the test's own (the local deployer) and a tracing stack of its own on the same topics (one key
// for both, as `npm start` runs them) whose CONTROL_PLANE_PUBLIC_URL names it: the page's calls go
// through the tracing API's forward (/ui/control-plane/…). Two deployments made through the
// control plane's API: the deployable example from a git repository (DEPLOYED in a few seconds,
// READY, its URL answering) and an image this machine cannot run (DEPLOY_FAILED at once, saying
// why). The page lists both with status, revision status and URL, opens the failed one's
// revisions, deletes it (soft, then force) after a confirmation; then the control plane stops and
// the page says it is not running and how to start it. Screenshots in test-output/explorer/deployments/.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { controlPlaneCall, startControlPlane, type ControlPlaneStack } from '../../support/controlPlane.ts';
import { deployableAgentRepo } from '../../support/deployableAgent.ts';
import { startExplorerBrowser, type ExplorerBrowser, type ExplorerPage } from '../../support/explorer.ts';
import { waitFor } from '../../support/serviceProcess.ts';
import { startTracingStack, type TracingStack } from '../../support/tracingStack.ts';

const scratch = mkdtempSync(join(tmpdir(), 'explorer-deployments-'));
let noBrowser: string | null = null;
let explorer: ExplorerBrowser | undefined;
let cp: ControlPlaneStack;
let stack: TracingStack;
let cpUrl: string;
const deployed = { id: '', name: `greeter-ui-${Date.now()}`, url: '' };
const failed = { id: '', name: `image-ui-${Date.now()}` };

const call = (method: string, path: string, json?: unknown) => controlPlaneCall(cpUrl, cp.apiKey, method, path, json);

async function create(body: Record<string, unknown>): Promise<{ id: string; latest_revision_id: string }> {
  const res = await call('POST', '/v2/deployments', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const revisionEnded = (id: string, revisionId: string) =>
  waitFor(
    `revision ${revisionId} to end`,
    async () => {
      const s = (await call('GET', `/v2/deployments/${id}/revisions/${revisionId}`)).body.status as string;
      return ['DEPLOYED', 'BUILD_FAILED', 'DEPLOY_FAILED', 'CREATE_FAILED'].includes(s) ? s : null;
    },
    240_000,
    250,
  );

beforeAll(async () => {
  const started = await startExplorerBrowser('deployments');
  if (typeof started === 'string') {
    noBrowser = started;
    return;
  }
  explorer = started;
  const repo = deployableAgentRepo(join(scratch, 'repo'));
  cp = await startControlPlane('explorer-deployments', 1, { DEPLOYMENTS_DIR: join(scratch, 'deployments') });
  cpUrl = cp.urls[0]!;
  // The control plane's topics (so its key) and URL: what `npm start` gives the tracing API.
  stack = await startTracingStack('explorer_deployments', {
    KAFKA_TOPIC_PREFIX: cp.env.KAFKA_TOPIC_PREFIX!,
    BOOTSTRAP_API_KEY: cp.apiKey,
    CONTROL_PLANE_PUBLIC_URL: cpUrl,
  });

  const greeter = await create({
    name: deployed.name,
    source: 'github',
    source_config: { repo_url: repo.url, deployment_type: 'dev', build_on_push: false },
    source_revision_config: { repo_ref: 'refs/tags/v1', langgraph_config_path: 'langgraph.json' },
    secrets: [{ name: 'GREETING_SECRET', value: 'open-sesame' }],
  });
  const image = await create({
    name: failed.name,
    source: 'external_docker',
    source_config: {},
    source_revision_config: { image_uri: 'x/agent:1' },
    secrets: [],
  });
  expect(await revisionEnded(greeter.id, greeter.latest_revision_id)).toBe('DEPLOYED');
  expect(await revisionEnded(image.id, image.latest_revision_id)).toBe('DEPLOY_FAILED');
  deployed.id = greeter.id;
  deployed.url = (await call('GET', `/v2/deployments/${greeter.id}`)).body.source_config.custom_url;
  failed.id = image.id;
}, 10 * 60_000);

afterAll(async () => {
  await explorer?.close();
  await cp?.stop();
  await stack?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const rowOf = (p: ExplorerPage, id: string) =>
  p.page.locator(`[data-testid="deployment-row"][data-deployment-id="${id}"]`);

describe('the deployments page', () => {
  test('lists deployments with status, revision status and URL; a deployment’s revisions; delete after a confirmation', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const p = await explorer!.open(cp.apiKey, '/ui/deployments', { baseUrl: stack.url });
    const { page, shot } = p;

    // 1. Both deployments: the deployed one READY, its revision DEPLOYED, its URL; the other's rollout failed.
    await page.getByTestId('deployments-table').waitFor();
    expect(await page.getByTestId('deployment-row').count()).toBe(2);
    const ok = rowOf(p, deployed.id);
    expect(await ok.getByTestId('deployment-name').textContent()).toContain(deployed.name);
    expect(await ok.getByTestId('deployment-status').textContent()).toBe('READY');
    expect(await ok.getByTestId('revision-status').textContent()).toBe('DEPLOYED');
    expect(await ok.getByTestId('deployment-url').getAttribute('href')).toBe(deployed.url);
    expect(deployed.url).toBe(`${cpUrl}/d/${deployed.id}`);
    // The link leads to the deployed agent server.
    expect((await fetch(`${deployed.url}/ok`, { headers: { 'x-api-key': cp.apiKey } })).status).toBe(200);
    const bad = rowOf(p, failed.id);
    expect(await bad.getByTestId('revision-status').textContent()).toBe('DEPLOY_FAILED');
    await shot('01-list');

    // 2. The failed one's revisions, with what its status means.
    await bad.getByTestId('deployment-name').click();
    const revision = page.getByTestId('revision-row');
    await revision.waitFor();
    expect(await revision.count()).toBe(1);
    expect(await revision.getByTestId('revision-row-status').textContent()).toBe('DEPLOY_FAILED');
    expect((await revision.getByTestId('revision-message').textContent())!.length).toBeGreaterThan(10);
    await shot('02-revisions');

    // 3. Delete it: nothing happens before the confirmation; then AWAITING_DELETE, then force removes it.
    await bad.getByTestId('delete-deployment').click();
    await bad.getByTestId('delete-confirmation').waitFor();
    await shot('03-delete-confirmation');
    expect((await call('GET', `/v2/deployments/${failed.id}`)).body.status).not.toBe('AWAITING_DELETE');
    await bad.getByTestId('confirm-delete').click();
    await bad.locator('[data-testid="deployment-status"]', { hasText: 'AWAITING_DELETE' }).waitFor();
    expect((await call('GET', `/v2/deployments/${failed.id}`)).body.status).toBe('AWAITING_DELETE');
    expect(await bad.getByTestId('delete-deployment').textContent()).toBe('Force delete');
    await bad.getByTestId('delete-deployment').click();
    await bad.getByTestId('confirm-delete').click();
    await bad.waitFor({ state: 'detached' });
    expect((await call('GET', `/v2/deployments/${failed.id}`)).status).toBe(404);
    expect(await page.getByTestId('deployment-row').count()).toBe(1);
    await shot('04-deleted');
    expect(p.problems).toEqual([]);
  }, 120_000);

  test('with the control plane not running, the page says so and how to start it', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    await cp.stop();
    const p = await explorer!.open(cp.apiKey, '/ui/deployments', { baseUrl: stack.url });
    const down = p.page.getByTestId('control-plane-down');
    await down.waitFor();
    const text = (await down.textContent())!;
    expect(text).toContain('The control plane is not running');
    expect(text).toContain('npm start');
    expect(text).toContain(`not running at ${cpUrl}`);
    await p.shot('05-not-running');
    expect(p.problems).toEqual([]);
  }, 60_000);
});
