// The client flow end to end through the control plane's API, with real processes: a `github`
// deployment of the deployable example from a git repository (file:// URL) with a secret is built
// and served by the control plane's deployment worker; the official LangGraph SDK runs its graph
// at the deployment's custom_url; a PATCH to a new tag rolls out new code and stops the old
// server; a bad ref ends BUILD_FAILED (with its reason in the topic) while the previous revision
// keeps serving; a control plane killed with SIGKILL takes its servers with it, and its next start
// re-adopts the active revision; DELETE stops the servers, force DELETE removes the record.
// Then, with a control plane that deploys nothing (CONTROL_PLANE_DEPLOYER=none) beside one that
// does: revisions queued meanwhile are taken newest first (older ones SKIPPED), a soft delete
// ends a build under way, and a server that keeps dying is given up and its deployment UNKNOWN.
// Last, the upload flow of the official CLIs (internal_source): create, upload-url, PUT the
// tarball, PATCH; a tarball never uploaded ends BUILD_FAILED saying so; a redeploy rolls back to
// an older revision's code and secrets; a Docker source ends DEPLOY_FAILED saying why.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { controlPlaneCall, startControlPlane, type ControlPlaneStack } from '../../support/controlPlane.ts';
import {
  freePort,
  isRunning,
  repoRoot,
  startService,
  waitFor,
  type ServiceProcess,
} from '../../support/serviceProcess.ts';
import { deployableAgentRepo, serverPids, type ExampleRepo } from '../../support/deployableAgent.ts';
import { createLogger } from '../../../platform/logger.ts';
import { MAX_QUICK_EXITS } from '../../../platform/restartPolicy.ts';
import { DeploymentState } from '../../../services/deployments/deploymentState.ts';
import { newUploadObjectPath } from '../../../services/deployments/sourceUploads.ts';
import { makeSourceTarball, uploadLikeTheCli } from '../../support/sourceTarball.ts';

const scratch = mkdtempSync(join(tmpdir(), 'deployment-worker-test-'));
const repo = join(scratch, 'repo');
let cp: ControlPlaneStack;
/** The control plane's URL: the stack's replica, or the one started again after a SIGKILL. */
let url: string;
let restarted: ServiceProcess | undefined;
let apiOnly: ControlPlaneStack | undefined;
let deployerReplica: ServiceProcess | undefined;
let uploads: ControlPlaneStack | undefined;

/** The API key of the control plane `url` is of. */
let apiKey: string;
const call = (method: string, path: string, json?: unknown) => controlPlaneCall(url, apiKey, method, path, json);
const git = (...args: string[]) => example.git(...args);
let example: ExampleRepo;

async function revisionEnds(deploymentId: string, revisionId: string): Promise<string> {
  return waitFor(
    `revision ${revisionId} to end`,
    async () => {
      const { body } = await call('GET', `/v2/deployments/${deploymentId}/revisions/${revisionId}`);
      return ['DEPLOYED', 'BUILD_FAILED', 'DEPLOY_FAILED', 'SKIPPED'].includes(body.status)
        ? (body.status as string)
        : null;
    },
    240_000,
    250,
  );
}

async function greet(deploymentUrl: string, text: string): Promise<string> {
  const client = new Client({ apiUrl: deploymentUrl, apiKey });
  const values = (await client.runs.wait(null, 'greeter', {
    input: { messages: [{ role: 'human', content: text }] },
  })) as { messages: { content: string }[] };
  return values.messages.at(-1)!.content;
}

beforeAll(async () => {
  example = deployableAgentRepo(repo);
  // Topics of its own, one workspace (so file:// sources are taken), no tracing: that its servers
  // trace into their deployment's workspace is deploymentIsolation.test.ts's, on a tracing stack.
  cp = await startControlPlane('deployment-worker', 1, { DEPLOYMENTS_DIR: join(scratch, 'deployments') });
  url = cp.urls[0]!;
  apiKey = cp.apiKey;
}, 180_000);

afterAll(async () => {
  await restarted?.stop();
  await deployerReplica?.stop();
  await cp?.stop();
  await apiOnly?.stop();
  await uploads?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

test('deploy, serve with the secret, roll out a new tag, keep serving through a bad ref, re-adopt after a SIGKILL, delete', async () => {
  const name = `greeter-${Date.now()}`;
  const created = await call('POST', '/v2/deployments', {
    name,
    source: 'github',
    source_config: { repo_url: pathToFileURL(repo).href, deployment_type: 'dev', build_on_push: false },
    source_revision_config: { repo_ref: 'refs/tags/v1', langgraph_config_path: 'langgraph.json' },
    secrets: [{ name: 'GREETING_SECRET', value: 'open-sesame' }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  const first = created.body.latest_revision_id as string;

  // The deployment's URL is the control plane's gateway, from the start; until a revision serves, a 503 says why.
  const deploymentUrl = created.body.source_config.custom_url as string;
  expect(deploymentUrl).toBe(`${cp.env.CONTROL_PLANE_PUBLIC_URL}/d/${id}`);
  const early = await fetch(`${deploymentUrl}/ok`);
  if (early.status !== 200) {
    expect(early.status).toBe(503);
    expect(await early.json()).toMatchObject({
      error: 'DEPLOYMENT_UNAVAILABLE',
      detail: expect.stringContaining('poll the revision until DEPLOYED'),
    });
  }
  // Created QUEUED; the worker builds and starts it.
  expect(await revisionEnds(id, first)).toBe('DEPLOYED');
  let d = (await call('GET', `/v2/deployments/${id}`)).body;
  expect(d).toMatchObject({ status: 'READY', active_revision_id: first, source_config: { custom_url: deploymentUrl } });
  expect((await fetch(`${deploymentUrl}/ok`)).ok).toBe(true);
  expect(await greet(deploymentUrl, 'hello')).toBe('Hello [open-sesame]: you said "hello"');
  // Its agent card names the deployment's URL, not the revision's port.
  const card = (await (
    await fetch(`${deploymentUrl}/.well-known/agent-card.json?assistant_id=greeter`, {
      headers: { 'x-api-key': apiKey },
    })
  ).json()) as { url: string };
  expect(card.url).toContain(`${deploymentUrl}/a2a/`);
  // The deployed server checks the platform's API keys.
  const withoutKey = await fetch(`${deploymentUrl}/assistants/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(withoutKey.status).toBe(401);
  const firstPids = serverPids(first);
  expect(firstPids).toHaveLength(1);

  // New code under a new tag: rolled out, then the old server stops.
  writeFileSync(
    join(repo, 'langgraph.json'),
    readFileSync(join(repo, 'langgraph.json'), 'utf8').replace('"Hello"', '"Welcome"'),
  );
  git('commit', '--quiet', '-am', 'a warmer greeting');
  git('tag', 'v2');
  // Callers of the deployment's URL see no failure while it switches: requests go on throughout.
  const failures: string[] = [];
  let calls = 0;
  let switching = true;
  const caller = (async () => {
    while (switching) {
      calls++;
      const res = await fetch(`${deploymentUrl}/ok`).catch(
        (err: Error) => ({ ok: false, status: err.message }) as const,
      );
      if (!res.ok) failures.push(String(res.status));
    }
  })();
  const patched = await call('PATCH', `/v2/deployments/${id}`, {
    source_revision_config: { repo_ref: 'refs/tags/v2' },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  const second = patched.body.latest_revision_id as string;
  expect(second).not.toBe(first);
  expect(await revisionEnds(id, second)).toBe('DEPLOYED');
  d = (await call('GET', `/v2/deployments/${id}`)).body;
  expect(d).toMatchObject({
    status: 'READY',
    active_revision_id: second,
    source_config: { custom_url: deploymentUrl },
  });
  expect(await greet(deploymentUrl, 'again')).toBe('Welcome [open-sesame]: you said "again"');
  const gone = (pids: number[], revisionId: string) => async () =>
    pids.every((pid) => !isRunning(pid)) && serverPids(revisionId).length === 0;
  await waitFor('the first revision’s server to stop', gone(firstPids, first), 60_000, 100);
  switching = false;
  await caller;
  expect(failures, `${failures.length} of ${calls} calls during the rollout failed`).toEqual([]);
  expect(calls).toBeGreaterThan(10);

  // A ref that does not exist: BUILD_FAILED, and the second revision keeps serving.
  const bad = await call('PATCH', `/v2/deployments/${id}`, {
    source_revision_config: { repo_ref: 'refs/tags/no-such-tag' },
  });
  expect(bad.status).toBe(200);
  const third = bad.body.latest_revision_id as string;
  expect(await revisionEnds(id, third)).toBe('BUILD_FAILED');
  d = (await call('GET', `/v2/deployments/${id}`)).body;
  expect(d).toMatchObject({
    status: 'READY',
    active_revision_id: second,
    source_config: { custom_url: deploymentUrl },
  });
  expect(await greet(deploymentUrl, 'still there?')).toBe('Welcome [open-sesame]: you said "still there?"');
  // Its reason is in the revision's status_message (our field beside the contract's), as in the topic.
  const failed = (await call('GET', `/v2/deployments/${id}/revisions/${third}`)).body;
  expect(failed.status_message).toContain('cannot fetch');
  expect(failed.status_message).toContain('at ref "refs/tags/no-such-tag" (a branch, a tag or a full commit id)');
  const fold = new DeploymentState(cp.config, createLogger('test-fold', 'warn'));
  await fold.start();
  expect(fold.deployment(d.tenant_id, id)!.revisions.find((r) => r.id === third)!.detail).toBe(failed.status_message);
  await fold.close();

  // A control plane killed with SIGKILL takes its servers with it; started again, it re-adopts the active revision.
  const secondPids = serverPids(second);
  expect(secondPids).toHaveLength(1);
  cp.replicas[0]!.child.kill('SIGKILL');
  await waitFor(
    'the deployed server to end with its control plane',
    async () => secondPids.every((pid) => !isRunning(pid)),
    60_000,
    100,
  );
  const env = { ...cp.env, DEPLOYMENTS_DIR: join(scratch, 'deployments'), CONTROL_PLANE_PORT: new URL(url).port };
  restarted = startService('services/processes/controlPlaneMain.ts', env, `${cp.id}-control-plane-restarted`);
  const readopted = await waitFor(
    'the active revision to serve again',
    async () => {
      const res = await call('GET', `/v2/deployments/${id}`).catch(() => null);
      return serverPids(second).length === 1 &&
        (await fetch(`${deploymentUrl}/ok`).then(
          (r) => r.ok,
          () => false,
        ))
        ? res!.body
        : null;
    },
    240_000,
    250,
  );
  expect(readopted).toMatchObject({
    status: 'READY',
    active_revision_id: second,
    source_config: { custom_url: deploymentUrl },
  });
  expect(await greet(deploymentUrl, 'back')).toBe('Welcome [open-sesame]: you said "back"');
  const readoptedPids = serverPids(second);
  expect(readoptedPids).toHaveLength(1);

  // Soft delete: the servers stop; force delete: the record goes.
  expect((await call('DELETE', `/v2/deployments/${id}`)).status).toBe(204);
  expect((await call('GET', `/v2/deployments/${id}`)).body.status).toBe('AWAITING_DELETE');
  expect((await fetch(`${deploymentUrl}/ok`)).status).toBe(404);
  await waitFor('the servers to stop after the soft delete', gone(readoptedPids, second), 60_000, 100);
  expect((await call('DELETE', `/v2/deployments/${id}?force=true`)).status).toBe(204);
  expect((await call('GET', `/v2/deployments/${id}`)).status).toBe(404);
}, 900_000);

test('revisions queued while no replica deploys: the newest is rolled out, older ones SKIPPED; a soft delete ends a build; a crash loop makes it UNKNOWN', async () => {
  const deploymentsDir = join(scratch, 'deployments-queued');
  apiOnly = await startControlPlane('deployment-worker-queued', 1, {
    CONTROL_PLANE_DEPLOYER: 'none',
    DEPLOYMENTS_DIR: deploymentsDir,
  });
  url = apiOnly.urls[0]!;
  apiKey = apiOnly.apiKey;
  const created = await call('POST', '/v2/deployments', {
    name: `queued-${Date.now()}`,
    source: 'github',
    source_config: { repo_url: pathToFileURL(repo).href, deployment_type: 'dev' },
    source_revision_config: { repo_ref: 'refs/tags/v1', langgraph_config_path: 'langgraph.json' },
    secrets: [{ name: 'GREETING_SECRET', value: 'first' }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  const older = created.body.latest_revision_id as string;
  const patched = await call('PATCH', `/v2/deployments/${id}`, {
    secrets: [{ name: 'GREETING_SECRET', value: 'second' }],
  });
  const newer = patched.body.latest_revision_id as string;
  // No replica deploys: both wait.
  const statuses = async () => {
    const revisions = (await call('GET', `/v2/deployments/${id}/revisions`)).body.resources as {
      id: string;
      status: string;
    }[];
    return Object.fromEntries(revisions.map((r) => [r.id, r.status]));
  };
  expect(await statuses()).toEqual({ [older]: 'QUEUED', [newer]: 'QUEUED' });

  // A replica that deploys starts: the newest is rolled out with its secret, the older one skipped.
  const port = await freePort();
  const env = { ...apiOnly.env, CONTROL_PLANE_DEPLOYER: 'local', CONTROL_PLANE_PORT: String(port) };
  deployerReplica = startService('services/processes/controlPlaneMain.ts', env, `${apiOnly.id}-control-plane-deployer`);
  url = `http://127.0.0.1:${port}`;
  expect(await revisionEnds(id, newer)).toBe('DEPLOYED');
  expect(await statuses()).toEqual({ [older]: 'SKIPPED', [newer]: 'DEPLOYED' });
  const d = (await call('GET', `/v2/deployments/${id}`)).body;
  expect(await greet(d.source_config.custom_url, 'hi')).toBe('Hello [second]: you said "hi"');
  expect(serverPids(older)).toEqual([]);

  // A build that would hang (its install command sleeps) is ended by the soft delete, its directory removed.
  const slow = await call('POST', '/v2/deployments', {
    name: `slow-${Date.now()}`,
    source: 'github',
    source_config: { repo_url: pathToFileURL(repo).href, deployment_type: 'dev', install_command: 'sleep 600' },
    source_revision_config: { repo_ref: 'refs/tags/v1', langgraph_config_path: 'langgraph.json' },
    secrets: [],
  });
  expect(slow.status, JSON.stringify(slow.body)).toBe(201);
  const slowId = slow.body.id as string;
  const slowRevision = slow.body.latest_revision_id as string;
  const slowStatus = async () =>
    (await call('GET', `/v2/deployments/${slowId}/revisions/${slowRevision}`)).body.status as string;
  await waitFor('the slow revision to build', async () => (await slowStatus()) === 'BUILDING', 120_000, 100);
  expect(existsSync(join(deploymentsDir, slowId))).toBe(true);
  expect((await call('DELETE', `/v2/deployments/${slowId}`)).status).toBe(204);
  expect(await revisionEnds(slowId, slowRevision)).toBe('BUILD_FAILED');
  await waitFor(
    'the slow revision’s directory to go',
    async () => !existsSync(join(deploymentsDir, slowId)),
    60_000,
    100,
  );

  // The other deployment is untouched; its server, killed again and again, is given up: the deployment is UNKNOWN.
  expect(await greet(d.source_config.custom_url, 'still')).toBe('Hello [second]: you said "still"');
  let [pid] = serverPids(newer);
  for (let kills = 1; kills <= MAX_QUICK_EXITS; kills++) {
    process.kill(pid!, 'SIGKILL');
    if (kills === MAX_QUICK_EXITS) break;
    const killed = pid;
    [pid] = await waitFor(
      `restart ${kills}`,
      async () => {
        const pids = serverPids(newer);
        return pids.length === 1 && pids[0] !== killed ? pids : null;
      },
      60_000,
      50,
    );
  }
  await waitFor(
    'the deployment to be UNKNOWN',
    async () => (await call('GET', `/v2/deployments/${id}`)).body.status === 'UNKNOWN',
    60_000,
    100,
  );
  expect(serverPids(newer)).toEqual([]);
  const down = await fetch(`${d.source_config.custom_url}/ok`);
  expect(down.status).toBe(503);
  expect(await down.json()).toMatchObject({
    error: 'DEPLOYMENT_UNAVAILABLE',
    detail: expect.stringContaining('its agent server is down'),
  });
  expect((await call('DELETE', `/v2/deployments/${id}`)).status).toBe(204);
}, 900_000);

test('a github revision records the commit it was built from and runs build_command; its logs are kept; a redeploy rebuilds that commit', async () => {
  url = cp.urls[0]!;
  apiKey = cp.apiKey;
  const branchRepo = deployableAgentRepo(join(scratch, 'branch-repo'));
  const firstSha = branchRepo.git('rev-parse', 'HEAD');
  const created = await call('POST', '/v2/deployments', {
    name: `built-${Date.now()}`,
    source: 'github',
    source_config: {
      repo_url: branchRepo.url,
      deployment_type: 'dev',
      // Runs where langgraph.json lives, in the sandbox: its output goes to the build log.
      build_command: 'echo "building as $(id -u)" && sed -i s/Hello/Built/ langgraph.json',
    },
    source_revision_config: { repo_ref: 'main', langgraph_config_path: 'langgraph.json' },
    secrets: [{ name: 'GREETING_SECRET', value: 'b' }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  const first = created.body.latest_revision_id as string;
  expect(await revisionEnds(id, first)).toBe('DEPLOYED');
  const firstRevision = (await call('GET', `/v2/deployments/${id}/revisions/${first}`)).body;
  expect(firstRevision.source_revision_config).toMatchObject({ repo_ref: 'main', repo_commit_sha: firstSha });
  const deploymentUrl = created.body.source_config.custom_url as string;
  expect(await greet(deploymentUrl, 'x')).toBe('Built [b]: you said "x"');

  // The logs, as the CLIs read them (POST with filters; GET with them in the query).
  const buildLog = await waitFor(
    'the build log',
    async () => {
      const res = await call('POST', `/v1/projects/${id}/revisions/${first}/build_logs`, { order: 'asc', limit: 1000 });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const messages = (res.body.logs as { message: string }[]).map((l) => l.message);
      return messages.some((m) => m === 'DEPLOYED') ? res.body : null;
    },
    60_000,
    250,
  );
  const messages = (buildLog.logs as { message: string }[]).map((l) => l.message);
  expect(messages.slice(0, 2)).toEqual(['AWAITING_BUILD', 'BUILDING']);
  expect(messages.some((m) => /^building as \d+$/.test(m))).toBe(true);
  for (const entry of buildLog.logs)
    expect(entry).toEqual({
      id: expect.any(String),
      timestamp: expect.any(Number),
      level: expect.any(String),
      message: expect.any(String),
    });
  const deployLog = await waitFor(
    'the deploy log',
    async () => {
      const res = await call('GET', `/v1/projects/${id}/deploy_logs?query=agent%20server%20listening&order=asc`);
      return res.body.logs.length > 0 ? res.body : null;
    },
    60_000,
    250,
  );
  expect(deployLog.logs[0]).toMatchObject({
    level: 'INFO',
    message: expect.stringContaining('agent server listening'),
  });
  const newest = (await call('POST', `/v1/projects/${id}/revisions/${first}/build_logs`, { limit: 1 })).body;
  expect(newest.logs.map((l: { message: string }) => l.message)).toEqual(['DEPLOYED']);
  expect(newest.next_offset).toBe('1');
  expect((await call('POST', `/v1/projects/${id}/revisions/${first}/build_logs`, { order: 'sideways' })).status).toBe(
    422,
  );

  // The branch moves on; a redeploy of the first revision builds the commit it was built from.
  writeFileSync(
    join(branchRepo.dir, 'langgraph.json'),
    readFileSync(join(branchRepo.dir, 'langgraph.json'), 'utf8').replace('"Hello"', '"Later"'),
  );
  branchRepo.git('commit', '--quiet', '-am', 'a later greeting');
  const laterSha = branchRepo.git('rev-parse', 'HEAD');
  const redeployed = await call('POST', `/v2/deployments/${id}/revisions/${first}/redeploy`);
  expect(redeployed.status, JSON.stringify(redeployed.body)).toBe(200);
  const rollback = redeployed.body.latest_revision_id as string;
  expect(await revisionEnds(id, rollback)).toBe('DEPLOYED');
  expect((await call('GET', `/v2/deployments/${id}/revisions/${rollback}`)).body.source_revision_config).toMatchObject({
    repo_ref: 'main',
    repo_commit_sha: firstSha,
  });
  expect(await greet(deploymentUrl, 'y')).toBe('Built [b]: you said "y"');
  // A PATCH to the branch builds its head, without the rollback's pin (sent back read-only, it is ignored).
  const patched = await call('PATCH', `/v2/deployments/${id}`, {
    source_revision_config: { repo_ref: 'main', repo_commit_sha: firstSha },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  expect(await revisionEnds(id, patched.body.latest_revision_id)).toBe('DEPLOYED');
  expect(
    (await call('GET', `/v2/deployments/${id}/revisions/${patched.body.latest_revision_id}`)).body
      .source_revision_config.repo_commit_sha,
  ).toBe(laterSha);
  expect(await greet(deploymentUrl, 'z')).toBe('Later [b]: you said "z"');
  expect((await call('DELETE', `/v2/deployments/${id}`)).status).toBe(204);
}, 600_000);

test('internal_source as the CLIs deploy it, a tarball never uploaded, a redeploy that rolls back code and secrets, a Docker source', async () => {
  uploads = await startControlPlane('deployment-worker-uploads', 1, {
    DEPLOYMENTS_DIR: join(scratch, 'deployments-uploads'),
  });
  url = uploads.urls[0]!;
  apiKey = uploads.apiKey;
  const revision = async (id: string, revisionId: string) =>
    (await call('GET', `/v2/deployments/${id}/revisions/${revisionId}`)).body;
  /** upload-url, then the PUT of `dir` as a tarball: the object path, as `langgraph deploy` does it. */
  const upload = async (id: string, dir: string): Promise<string> => {
    const answer = await call('POST', `/v2/deployments/${id}/upload-url`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const archive = join(scratch, `source-${Date.now()}.tar.gz`);
    makeSourceTarball(dir, archive);
    expect(await uploadLikeTheCli(answer.body.upload_url, archive)).toBe(200);
    return answer.body.object_path as string;
  };
  /** The CLIs' PATCH that deploys an upload. */
  const deployUpload = async (id: string, objectPath: string, secret: string): Promise<string> => {
    const patched = await call('PATCH', `/v2/deployments/${id}`, {
      revision_source: 'internal_source',
      source_revision_config: { source_tarball_path: objectPath, langgraph_config_path: 'langgraph.json' },
      secrets: [{ name: 'GREETING_SECRET', value: secret }],
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    return patched.body.latest_revision_id as string;
  };
  const serving = async (id: string) => (await call('GET', `/v2/deployments/${id}`)).body;

  const created = await call('POST', '/v2/deployments', {
    name: `uploaded-${Date.now()}`,
    source: 'internal_source',
    source_config: { deployment_type: 'dev' },
    source_revision_config: {},
    secrets: [{ name: 'GREETING_SECRET', value: 'first' }],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  const waiting = created.body.latest_revision_id as string;
  expect(await revision(id, waiting)).toMatchObject({
    status: 'QUEUED',
    status_message: expect.stringContaining('upload-url'),
  });

  // The example as uploaded: the revision without a source is skipped, the upload deployed with its secret.
  const hello = await deployUpload(id, await upload(id, join(repoRoot, 'examples/deployable-agent')), 'first');
  expect(await revisionEnds(id, hello)).toBe('DEPLOYED');
  expect(await revision(id, waiting)).toMatchObject({
    status: 'SKIPPED',
    status_message: `revision ${hello} was queued after it`,
  });
  let d = await serving(id);
  expect(d).toMatchObject({ status: 'READY', active_revision_id: hello });
  expect(await greet(d.source_config.custom_url, 'hi')).toBe('Hello [first]: you said "hi"');

  // New code and a new secret.
  const changed = join(scratch, 'changed-agent');
  cpSync(join(repoRoot, 'examples/deployable-agent'), changed, { recursive: true });
  writeFileSync(
    join(changed, 'langgraph.json'),
    readFileSync(join(changed, 'langgraph.json'), 'utf8').replace('"Hello"', '"Howdy"'),
  );
  const howdy = await deployUpload(id, await upload(id, changed), 'second');
  expect(await revisionEnds(id, howdy)).toBe('DEPLOYED');
  d = await serving(id);
  expect(await greet(d.source_config.custom_url, 'hi')).toBe('Howdy [second]: you said "hi"');
  const howdyPids = serverPids(howdy);

  // An object path of this deployment whose PUT never happened: BUILD_FAILED, saying so; the previous one serves on.
  const never = await deployUpload(id, newUploadObjectPath(d.tenant_id, id), 'third');
  expect(await revisionEnds(id, never)).toBe('BUILD_FAILED');
  expect((await revision(id, never)).status_message).toContain('no source was uploaded at');
  expect(await serving(id)).toMatchObject({
    active_revision_id: howdy,
    source_config: { custom_url: d.source_config.custom_url },
  });
  const refused = await call('POST', `/v2/deployments/${id}/revisions/${never}/redeploy`);
  expect(refused.status).toBe(400);
  expect(refused.body.detail).toContain('is BUILD_FAILED');

  // Redeploy the first upload: a new revision with its tarball and its secret, rolled out; the newer server stops.
  const redeployed = await call('POST', `/v2/deployments/${id}/revisions/${hello}/redeploy`);
  expect(redeployed.status, JSON.stringify(redeployed.body)).toBe(200);
  const rollback = redeployed.body.latest_revision_id as string;
  expect(rollback).not.toBe(hello);
  expect(redeployed.body.secrets).toEqual([{ name: 'GREETING_SECRET', value: '********' }]);
  expect((await revision(id, rollback)).source_revision_config).toEqual(
    (await revision(id, hello)).source_revision_config,
  );
  expect(await revisionEnds(id, rollback)).toBe('DEPLOYED');
  d = await serving(id);
  expect(d).toMatchObject({ status: 'READY', active_revision_id: rollback });
  expect(await greet(d.source_config.custom_url, 'back')).toBe('Hello [first]: you said "back"');
  await waitFor(
    'the rolled-back revision’s server to stop',
    async () => howdyPids.every((pid) => !isRunning(pid)),
    60_000,
    100,
  );
  // Older revisions keep their status; the revisions list says what happened.
  const statuses = (await call('GET', `/v2/deployments/${id}/revisions`)).body.resources.map(
    (r: { status: string }) => r.status,
  );
  expect(statuses).toEqual(['DEPLOYED', 'BUILD_FAILED', 'DEPLOYED', 'DEPLOYED', 'SKIPPED']);

  // A source this machine cannot run: DEPLOY_FAILED at once, saying why and what to do instead.
  const docker = await call('POST', '/v2/deployments', {
    name: `docker-${Date.now()}`,
    source: 'external_docker',
    source_config: { deployment_type: 'dev' },
    source_revision_config: { image_uri: 'docker.io/me/agent:1' },
    secrets: [],
  });
  expect(docker.status, JSON.stringify(docker.body)).toBe(201);
  expect(await revisionEnds(docker.body.id, docker.body.latest_revision_id)).toBe('DEPLOY_FAILED');
  const dockerRevision = await revision(docker.body.id, docker.body.latest_revision_id);
  expect(dockerRevision.status_message).toContain('cannot run external_docker revisions');
  expect(dockerRevision.status_message).toContain('without Docker');

  for (const x of [id, docker.body.id]) expect((await call('DELETE', `/v2/deployments/${x}`)).status).toBe(204);
  await waitFor('the servers to stop', async () => serverPids(rollback).length === 0, 60_000, 100);
}, 900_000);
