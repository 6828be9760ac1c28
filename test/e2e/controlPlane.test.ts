// A deployment made through the control plane, used by the official clients unchanged, then
// deleted with its tracing project. One deploy for the whole file (each takes a few seconds): the
// deployable example from a git repository (file:// URL), with a secret, on a tracing stack of our
// own that the control plane shares (same topics: the deployed server traces into the tracing API,
// the control plane deletes the project on the projects topic). Against the deployed server:
// - the official Python LangGraph SDK (langgraph-sdk): assistants search, a thread, runs.wait;
// - the official A2A client (@a2a-js/sdk), with the API key the deployed server checks;
// then DELETE ?delete_tracing_project=true deletes the project named after the deployment and its
// rows, a DELETE without it leaves its project alone, and the deletion is done once: a project
// made later under the same name survives a restart of the control plane.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TaskState, type SendMessageRequest, type Task } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { a2aClientFactory, userMessage } from '../support/a2aTesting.ts';
import { controlPlaneCall, startControlPlane, type ControlPlaneStack } from '../support/controlPlane.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';
import { startService, waitFor, type ServiceProcess } from '../support/serviceProcess.ts';
import { deployableAgentRepo } from '../support/deployableAgent.ts';
import { stackCall, stackClickHouse, startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { ident, sql } from '../../platform/clickhouse/sql.ts';
import { createLogger } from '../../platform/logger.ts';
import { DeploymentState } from '../../services/deployments/deploymentState.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';

const scratch = mkdtempSync(join(tmpdir(), 'control-plane-e2e-'));
const repo = join(scratch, 'repo');
let stack: TracingStack;
let cp: ControlPlaneStack;
/** The control plane's URL (the same port after the restart). */
let cpUrl: string;
let restarted: ServiceProcess | undefined;
let pyenv: PythonEnv;
/** The deployment every client talks to. */
let deployment: { id: string; name: string; url: string };

const call = (method: string, path: string, json?: unknown) => controlPlaneCall(cpUrl, cp.apiKey, method, path, json);
const tracing = (method: string, path: string, json?: unknown) => stackCall(stack, method, path, json);

async function create(body: Record<string, unknown>): Promise<{ id: string; latest_revision_id: string }> {
  const res = await call('POST', '/v2/deployments', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A deployment whose image this machine does not run (it stays QUEUED): enough to own a project name. */
const imageDeployment = (name: string) =>
  create({
    name,
    source: 'external_docker',
    source_config: {},
    source_revision_config: { image_uri: 'x/agent:1' },
    secrets: [],
  });

/** A project made through the tracing API, as a deployed server's first trace would make it. */
async function projectNamed(name: string): Promise<string> {
  const res = await tracing('POST', '/sessions', { name });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id as string;
}

const projectStatus = async (id: string) => (await tracing('GET', `/sessions/${id}`)).status;

beforeAll(async () => {
  deployableAgentRepo(repo);
  [stack, pyenv] = await Promise.all([startTracingStack('control_plane_e2e'), ensurePythonEnv()]);
  // The stack's topics, key and workspace: the deployment's workspace is the one its server traces into.
  cp = await startControlPlane('control-plane-e2e', 1, {
    ...stack.env,
    DEPLOYMENTS_DIR: join(scratch, 'deployments'),
    LANGSMITH_ENDPOINT: stack.url,
    LANGSMITH_API_KEY: stack.apiKey,
  });
  cpUrl = cp.urls[0]!;

  const name = `greeter-e2e-${Date.now()}`;
  const created = await create({
    name,
    source: 'github',
    source_config: { repo_url: pathToFileURL(repo).href, deployment_type: 'dev', build_on_push: false },
    source_revision_config: { repo_ref: 'refs/tags/v1', langgraph_config_path: 'langgraph.json' },
    secrets: [{ name: 'GREETING_SECRET', value: 'open-sesame' }],
  });
  const status = await waitFor(
    'the revision to end',
    async () => {
      const s = (await call('GET', `/v2/deployments/${created.id}/revisions/${created.latest_revision_id}`)).body
        .status as string;
      return ['DEPLOYED', 'BUILD_FAILED', 'DEPLOY_FAILED'].includes(s) ? s : null;
    },
    240_000,
    250,
  );
  expect(status).toBe('DEPLOYED');
  const d = (await call('GET', `/v2/deployments/${created.id}`)).body;
  deployment = { id: created.id, name, url: d.source_config.custom_url as string };
}, 20 * 60_000);

afterAll(async () => {
  await restarted?.stop();
  await cp?.stop();
  await stack?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** The run ids the clients made on the deployed server: their traces are checked, then deleted. */
const runIds: string[] = [];

describe('the official clients against a deployed agent server', () => {
  it('langgraph-sdk (PyPI): assistants search, a thread, runs.wait', async () => {
    // The SDK sends LANGGRAPH_API_KEY as X-Api-Key; the deployed server checks it against the platform's keys.
    const env = { LANGGRAPH_API_KEY: cp.apiKey };
    const { result } = await runPythonScript<any>(pyenv, 'langgraph_sdk_deployed.py', [deployment.url], env);
    expect(result.graphs).toEqual(['greeter']);
    expect(result.answer).toBe('Hello [open-sesame]: you said "hello from python"');
    expect(result.state_messages).toEqual(['hello from python', 'Hello [open-sesame]: you said "hello from python"']);
    expect(result.run_ids).toHaveLength(1);
    runIds.push(result.run_ids[0]);
  }, 180_000);

  it('@a2a-js/sdk: reads the agent card, sends a message with the API key; without the key it is refused', async () => {
    const client = await a2aClientFactory(cp.apiKey).createFromUrl(`${deployment.url}/a2a/greeter/`);
    expect((await client.getAgentCard()).name).toBe('greeter');
    const message = userMessage('hello over a2a');
    const request: SendMessageRequest = { tenant: '', message, configuration: undefined, metadata: undefined };
    const task = (await client.sendMessage(request)) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const texts = (task.artifacts[0]?.parts ?? []).map((p) => (p.content?.$case === 'text' ? p.content.value : ''));
    const answer = texts.join('');
    expect(answer).toBe('Hello [open-sesame]: you said "hello over a2a"');

    const anonymous = await a2aClientFactory('').createFromUrl(`${deployment.url}/a2a/greeter/`);
    await expect(anonymous.sendMessage({ ...request, message: userMessage('no key') })).rejects.toThrow(/401/);
  });
});

describe('DELETE ?delete_tracing_project=true', () => {
  it('deletes the project named after the deployment and its rows; a DELETE without it keeps its project', async () => {
    expect(runIds).toHaveLength(1);
    // The clients' runs are traced into the project named after the deployment.
    const run = await waitFor(
      'the Python client’s run to be traced',
      async () => {
        const res = await tracing('GET', `/runs/${runIds[0]}`);
        return res.status === 200 && res.body.end_time ? res.body : null;
      },
      120_000,
      200,
    );
    const projectId = run.session_id as string;
    expect((await tracing('GET', `/sessions/${projectId}`)).body).toMatchObject({ name: deployment.name });
    expect((await tracing('POST', '/runs/query', { session: [projectId] })).body.runs.length).toBeGreaterThan(0);
    const ch = stackClickHouse(stack);
    const rows = async () => {
      const count = sql`SELECT count() AS n FROM ${ident(LIVE_TABLES.runs)} WHERE session_id = toUUID(${projectId})`;
      const [row] = await ch.query<{ n: string }>(count);
      return Number(row!.n);
    };
    expect(await rows()).toBeGreaterThan(0);

    // A deployment deleted without the flag, first: its project stays.
    const keeperName = `keeper-${Date.now()}`;
    const keeper = await imageDeployment(keeperName);
    const keeperProject = await projectNamed(keeperName);
    expect((await call('DELETE', `/v2/deployments/${keeper.id}`)).status).toBe(204);

    expect((await call('DELETE', `/v2/deployments/${deployment.id}?delete_tracing_project=true`)).status).toBe(204);
    expect((await call('GET', `/v2/deployments/${deployment.id}`)).body.status).toBe('AWAITING_DELETE');
    await waitFor(
      'the tracing project to be deleted',
      async () => (await projectStatus(projectId)) === 404,
      120_000,
      200,
    );
    expect((await tracing('GET', `/sessions?name=${encodeURIComponent(deployment.name)}`)).body).toEqual([]);
    expect((await tracing('POST', '/runs/query', { session: [projectId] })).status).toBe(404);
    await waitFor('the project’s rows to be removed', async () => (await rows()) === 0, 120_000, 200);
    await ch.close();
    // The keeper's soft delete came first, and its teardown has no server to wait for: had it
    // deleted its project, that would show by now.
    expect(await projectStatus(keeperProject)).toBe(200);
  }, 300_000);

  it('is done once: a project made later under the name survives a restart of the control plane', async () => {
    const later = await projectNamed(deployment.name);
    // Restarted, the worker tears down every AWAITING_DELETE deployment again.
    await cp.replicas[0]!.stop();
    const env = { ...cp.env, CONTROL_PLANE_PORT: new URL(cpUrl).port };
    restarted = startService('services/processes/controlPlaneMain.ts', env, `${cp.id}-control-plane-restarted`);
    const ready = async () => (await fetch(`${cpUrl}/ready`).catch(() => null))?.ok === true;
    await waitFor('the control plane to be ready again', ready, 90_000, 200);

    // A deployment deleted with the flag after the restart: once its project is gone, the
    // restarted worker has done the teardowns it does at start.
    const otherName = `other-${Date.now()}`;
    const other = await imageDeployment(otherName);
    const otherProject = await projectNamed(otherName);
    expect((await call('DELETE', `/v2/deployments/${other.id}?delete_tracing_project=true`)).status).toBe(204);
    await waitFor(
      'the other project to be deleted',
      async () => (await projectStatus(otherProject)) === 404,
      120_000,
      200,
    );
    expect(await projectStatus(later)).toBe(200);

    // Force deletes remove the records.
    for (const id of [deployment.id, other.id])
      expect((await call('DELETE', `/v2/deployments/${id}?force=true`)).status).toBe(204);
  }, 300_000);

  it('a deployment whose workspace has no project of its name is deleted all the same', async () => {
    const untraced = await imageDeployment(`untraced-${Date.now()}`);
    expect((await call('DELETE', `/v2/deployments/${untraced.id}?delete_tracing_project=true`)).status).toBe(204);
    // The worker records that there was nothing to delete, rather than trying again and again.
    const fold = new DeploymentState(cp.config, createLogger('test-fold', 'warn'));
    await fold.start();
    try {
      const tenantId = (await call('GET', `/v2/deployments/${untraced.id}`)).body.tenant_id as string;
      const recorded = async () => (
        await fold.catchUp(), fold.deployment(tenantId, untraced.id)?.tracingProjectDeleted
      );
      await waitFor('the deletion to be recorded', recorded, 60_000, 200);
    } finally {
      await fold.close();
    }
    expect((await call('DELETE', `/v2/deployments/${untraced.id}?force=true`)).status).toBe(204);
  }, 120_000);
});
