// The local deployer with real processes, in its bubblewrap sandbox: the deployable example
// deployed from a git repository (file:// URL, a tag) into a directory outside the project (so its
// imports resolve only through the deployer's link to the platform's packages), served with API
// keys of the shared stack (verified by its tracing API, reached through the egress proxy),
// restarted after a SIGKILL, stopped without a process left; and the failures a person must act
// on: a ref that does not exist (BUILD_FAILED), a config without graphs (BUILD_FAILED), a graph
// that throws when it loads, from a tarball (DEPLOY_FAILED); a crash loop given up; a stop
// mid-build; and a deployer killed with SIGKILL, whose server must not outlive it.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import { MAX_QUICK_EXITS } from '../../../../platform/restartPolicy.ts';
import { LocalDeployer } from '../../../../services/deployments/deployer/localDeployer.ts';
import { deployableAgentRepo } from '../../../support/deployableAgent.ts';
import type {
  DeployerEvent,
  DeployOutcome,
  RevisionSpec,
} from '../../../../services/deployments/deployer/revisionSpec.ts';
import { tracingUrl } from '../../../support/tracingClient.ts';
import { DEFAULT_WORKSPACE_ID } from '../../../../services/tenancy/index.ts';
import { isRunning, repoRoot, waitFor } from '../../../support/serviceProcess.ts';

const scratch = mkdtempSync(join(tmpdir(), 'deployer-test-'));
const rootDir = join(scratch, 'deployments');
const events: DeployerEvent[] = [];
const apiKey = inject('bootstrapApiKey');
const authEndpoint = tracingUrl();
const deployer = new LocalDeployer({
  rootDir,
  baseEnv: {
    AGENT_SERVER_AUTH: 'api_key',
    LANGSMITH_AUTH_ENDPOINT: authEndpoint,
    LANGSMITH_TRACING: 'false',
    LOG_LEVEL: 'info',
  },
  egress: { allowed: new URL(authEndpoint).host },
  onEvent: (event) => events.push(event),
});

let repoUrl: string;
beforeAll(() => {
  repoUrl = deployableAgentRepo(join(scratch, 'repo')).url;
});

afterAll(async () => {
  await deployer.stopAll();
  rmSync(scratch, { recursive: true, force: true });
});

let serial = 0;
function spec(source: RevisionSpec['source'], secrets: Record<string, string> = {}): RevisionSpec {
  serial += 1;
  return {
    deploymentId: `00000000-0000-4000-8000-${String(serial).padStart(12, '0')}`,
    revisionId: `10000000-0000-4000-8000-${String(serial).padStart(12, '0')}`,
    deploymentName: `deployer-test-${serial}`,
    // The bootstrap key's workspace: the server takes keys of its deployment's workspace only.
    tenantId: DEFAULT_WORKSPACE_ID,
    apiKey: 'lsk_the-server-s-own-key-unused-without-tracing',
    source,
    env: {},
    secrets,
  };
}

const statusesOf = (revisionId: string) =>
  events.flatMap((e) => (e.revisionId === revisionId && e.type === 'status' ? [e.status] : []));
test('deploys the example from a git tag, serves it with the secret, restarts it after a SIGKILL, and stop leaves nothing', async () => {
  const revision = spec(
    { kind: 'git', repoUrl, ref: 'refs/tags/v1', configPath: 'langgraph.json' },
    { GREETING_SECRET: 's3cret' },
  );
  const started = performance.now();
  const outcome = await deployer.deploy(revision);
  console.log(`deploy of the example (clone + start to healthy): ${Math.round(performance.now() - started)} ms`);
  if (outcome.status !== 'DEPLOYED') throw new Error(`not deployed: ${outcome.message}`);
  expect(statusesOf(revision.revisionId)).toEqual([
    'AWAITING_BUILD',
    'BUILDING',
    'AWAITING_DEPLOY',
    'DEPLOYING',
    'DEPLOYED',
  ]);
  expect(outcome.commitSha).toMatch(/^[0-9a-f]{40}$/);
  const { url } = outcome;
  const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };

  expect((await fetch(`${url}/ok`)).ok).toBe(true);
  const search = await fetch(`${url}/assistants/search`, { method: 'POST', headers, body: '{}' });
  expect(search.status).toBe(200);
  expect(((await search.json()) as { graph_id: string }[]).map((a) => a.graph_id)).toEqual(['greeter']);
  // Without a key the server refuses: it runs with the platform's API keys, not open.
  expect(
    (
      await fetch(`${url}/assistants/search`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).status,
  ).toBe(401);

  const ask = async () => {
    const res = await fetch(`${url}/runs/wait`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ assistant_id: 'greeter', input: { messages: [{ type: 'human', content: 'Hi there' }] } }),
    });
    expect(res.status).toBe(200);
    const values = (await res.json()) as { messages: { content: string }[] };
    return values.messages.at(-1)!.content;
  };
  // GREETING_PREFIX from langgraph.json's env, GREETING_SECRET from the deployment's secrets.
  expect(await ask()).toBe('Hello [s3cret]: you said "Hi there"');

  const firstPid = outcome.pid;
  process.kill(firstPid, 'SIGKILL');
  const restarted = await waitFor('the restart', async () =>
    events.find((e) => e.revisionId === revision.revisionId && e.type === 'process_restarted'),
  );
  expect(events.find((e) => e.revisionId === revision.revisionId && e.type === 'process_exited')).toMatchObject({
    signal: 'SIGKILL',
  });
  if (restarted.type !== 'process_restarted') throw new Error('unreachable');
  expect(restarted.pid).not.toBe(firstPid);
  expect(restarted.url).toBe(url); // the same port: the deployment's URL does not change
  expect(await ask()).toBe('Hello [s3cret]: you said "Hi there"');

  await deployer.stop(revision.revisionId);
  expect(isRunning(firstPid)).toBe(false);
  expect(isRunning(restarted.pid)).toBe(false);
  expect(existsSync(join(rootDir, revision.deploymentId))).toBe(false);
  expect(deployer.revisions()).toEqual([]);
});

test('a ref the repository does not have fails the build, naming the ref and what git said', async () => {
  const revision = spec({ kind: 'git', repoUrl, ref: 'no-such-branch', configPath: 'langgraph.json' });
  const outcome = await deployer.deploy(revision);
  expect(outcome).toEqual({
    status: 'BUILD_FAILED',
    message: expect.stringMatching(/ref "no-such-branch".*\n?.*not found/s),
  });
  expect(statusesOf(revision.revisionId)).toEqual(['AWAITING_BUILD', 'BUILDING', 'BUILD_FAILED']);
  expect(existsSync(join(rootDir, revision.deploymentId))).toBe(false);
});

test('a config without graphs fails the build, naming the field', async () => {
  const dir = join(scratch, 'no-graphs');
  mkdirSync(dir);
  writeFileSync(join(dir, 'langgraph.json'), JSON.stringify({ graphs: {} }));
  const outcome = await deployer.deploy(spec({ kind: 'directory', path: dir }));
  expect(outcome).toEqual({ status: 'BUILD_FAILED', message: expect.stringMatching(/graphs: at least one graph/) });
});

test('a graph that throws when it loads, from a tarball, fails the deploy with the error it threw', async () => {
  const dir = join(scratch, 'throws-at-load');
  mkdirSync(dir);
  writeFileSync(join(dir, 'langgraph.json'), JSON.stringify({ graphs: { broken: './broken.ts:graph' } }));
  writeFileSync(
    join(dir, 'broken.ts'),
    "throw new Error('the broken graph refuses to load');\nexport const graph = null;\n",
  );
  const tarball = join(scratch, 'throws-at-load.tar.gz');
  execFileSync('tar', ['-czf', tarball, '-C', dir, '.']);
  const revision = spec({ kind: 'tarball', path: tarball });
  const outcome = await deployer.deploy(revision);
  expect(outcome).toEqual({
    status: 'DEPLOY_FAILED',
    message: expect.stringContaining('the broken graph refuses to load'),
  });
  expect(statusesOf(revision.revisionId)).toEqual([
    'AWAITING_BUILD',
    'BUILDING',
    'AWAITING_DEPLOY',
    'DEPLOYING',
    'DEPLOY_FAILED',
  ]);
  expect(deployer.revisions()).toEqual([]);
});

test('a server that keeps dying soon after each start is given up, with why, and leaves no process', async () => {
  const revision = spec({ kind: 'directory', path: join(repoRoot, 'examples/deployable-agent') });
  const outcome = await deployer.deploy(revision);
  if (outcome.status !== 'DEPLOYED') throw new Error(`not deployed: ${outcome.message}`);
  const lifeEvents = () =>
    events.filter((e) => e.revisionId === revision.revisionId && e.type !== 'status' && e.type !== 'log');
  let pid = outcome.pid;
  for (let restarts = 1; restarts < MAX_QUICK_EXITS; restarts++) {
    process.kill(pid, 'SIGKILL');
    const restarted = await waitFor(
      `restart ${restarts}`,
      async () => lifeEvents().filter((e) => e.type === 'process_restarted')[restarts - 1],
    );
    pid = (restarted as { pid: number }).pid;
  }
  process.kill(pid, 'SIGKILL');
  const givenUp = await waitFor('giving up', async () => lifeEvents().find((e) => e.type === 'process_given_up'));
  expect(givenUp).toMatchObject({ message: expect.stringContaining(`exited ${MAX_QUICK_EXITS} times in a row`) });
  expect(lifeEvents().map((e) => e.type)).toEqual([
    ...Array.from({ length: MAX_QUICK_EXITS - 1 }, () => ['process_exited', 'process_restarted']).flat(),
    'process_given_up',
  ]);
  expect(isRunning(pid)).toBe(false);
  await deployer.stop(revision.revisionId);
  expect(existsSync(join(rootDir, revision.deploymentId))).toBe(false);
}, 240_000);

test('a revision stopped while it is being built ends as stopped, leaving no directory and no process', async () => {
  const revision = spec({ kind: 'git', repoUrl, ref: 'main', configPath: 'langgraph.json' });
  const deploying = deployer.deploy(revision);
  await deployer.stop(revision.revisionId);
  expect(await deploying).toEqual({
    status: 'BUILD_FAILED',
    message: expect.stringContaining('stopped before this revision was deployed'),
  });
  expect(deployer.revisions()).toEqual([]);
  expect(existsSync(join(rootDir, revision.deploymentId))).toBe(false);
});

test('a deployer killed with SIGKILL leaves no server behind: the server ends when its supervisor is gone', async () => {
  const root = join(scratch, 'killed-deployer');
  const deployerProcess = spawn(process.execPath, [join(import.meta.dirname, 'fixtures/deployerProcess.ts'), root], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolveLine, reject) => {
    let out = '';
    deployerProcess.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) resolveLine(out.split('\n')[0]!);
    });
    deployerProcess.once('exit', (code) => reject(new Error(`the deployer exited (${code}) before it deployed`)));
  });
  const outcome = JSON.parse(line) as DeployOutcome;
  if (outcome.status !== 'DEPLOYED') throw new Error(`not deployed: ${outcome.message}`);
  expect((await fetch(`${outcome.url}/ok`)).ok).toBe(true);
  deployerProcess.kill('SIGKILL');
  await waitFor('the orphaned server to end', async () => !isRunning(outcome.pid));
});
