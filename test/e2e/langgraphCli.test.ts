// The official `langgraph deploy` CLIs, unchanged, against our control plane in their source-upload
// mode (`--remote`: no Docker): PyPI langgraph-cli (test/e2e/langgraph-cli/requirements.txt) and npm
// @langchain/langgraph-cli (installed on first use under .local/, test/support/langgraphCliJs.ts),
// each pointed at our control plane with `--host-url` and given our API key. Each deploys a copy of
// examples/deployable-agent laid out as `langgraph new` lays a project out (`"env": ".env"` in
// langgraph.json, `.env` in .gitignore): the CLI sends the .env's variables as the deployment's
// secrets and leaves the file out of the upload, so the greeting carries the secret only if the
// secrets reached the server. The CLI finds the deployment by name (none yet), creates it, asks for
// an upload URL, PUTs the tarball to the object store, PATCHes the deployment with it and polls the
// revision until DEPLOYED. We then check through our API what it made, and call its custom_url with
// the official LangGraph JS SDK. A second run with changed code and a changed secret finds the
// deployment by name and PATCHes it: a new revision, the new code at the same URL. Then `deploy
// logs` prints its build and deploy logs, `deploy list` shows it and `deploy delete` soft-deletes it. The CLIs reach
// the control plane through a recording pass-through (test/support/httpCallRecorder.ts), so the
// test also pins what each one calls, and that we refused none of it.
//
// The CLIs run with LANGGRAPH_CLI_NO_ANALYTICS=1 (their documented opt-out of usage reports) and a
// HOME of their own. Each deploy takes a few seconds; the CLIs poll every 3 s.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlPlaneCall, startControlPlane, type ControlPlaneStack } from '../support/controlPlane.ts';
import { startHttpCallRecorder, type HttpCallRecorder, type RecordedCall } from '../support/httpCallRecorder.ts';
import { ensureLanggraphCliJs, LANGGRAPH_CLI_JS_VERSION } from '../support/langgraphCliJs.ts';
import { ensurePythonEnv, LANGGRAPH_CLI_PYTHON, run, type Output } from '../support/pythonEnv.ts';
import { repoRoot } from '../support/serviceProcess.ts';
import { DEFAULT_WORKSPACE_ID } from '../../services/tenancy/index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'langgraph-cli-e2e-'));
let cp: ControlPlaneStack;
let cpUrl: string;
/** The CLIs' --host-url: our control plane, through a pass-through that records what they call. */
let recorder: HttpCallRecorder;
/** The Python CLI's `langgraph` and the JS CLI's entry point. */
let pythonCli: string;
let jsCli: string;

const call = (method: string, path: string) => controlPlaneCall(cpUrl, cp.apiKey, method, path);

beforeAll(async () => {
  let venv: string;
  [cp, { venv }, jsCli] = await Promise.all([
    startControlPlane('langgraph-cli', 1, { DEPLOYMENTS_DIR: join(scratch, 'deployments') }),
    ensurePythonEnv(LANGGRAPH_CLI_PYTHON),
    ensureLanggraphCliJs(),
  ]);
  pythonCli = join(venv, 'bin', 'langgraph');
  cpUrl = cp.urls[0]!;
  recorder = await startHttpCallRecorder(cpUrl);
}, 20 * 60_000);

afterAll(async () => {
  await recorder?.close();
  await cp?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** A copy of the deployable example as `langgraph new` lays a project out, with `secret` in its .env. */
function makeProject(dir: string, secret: string): void {
  cpSync(join(repoRoot, 'examples/deployable-agent'), dir, { recursive: true });
  const config = JSON.parse(readFileSync(join(dir, 'langgraph.json'), 'utf8'));
  writeFileSync(join(dir, 'langgraph.json'), JSON.stringify({ ...config, env: '.env' }, null, 2));
  writeFileSync(join(dir, '.gitignore'), '.env\n');
  writeEnv(dir, secret);
}

const writeEnv = (dir: string, secret: string) =>
  writeFileSync(join(dir, '.env'), `GREETING_PREFIX=Hello\nGREETING_SECRET=${secret}\n`);

interface CliUnderTest {
  name: string;
  /** Names its project directory and deployments. */
  slug: string;
  /** The deployment type the CLI sends by default. */
  deploymentType: string;
  /** How it looks for a deployment by name. */
  lookup: string;
  /** The command line of `deploy <args>`, with our host (`--host-url`) and key, as each CLI takes them. */
  deploy(args: string[]): [command: string, args: string[], env: Record<string, string>];
}

const CLIS: CliUnderTest[] = [
  {
    name: 'langgraph-cli (PyPI)',
    slug: 'py',
    // Its default `--deployment-type serverless` is sent as dev_zero.
    deploymentType: 'dev_zero',
    lookup: 'GET /v2/deployments?name={name}&name_contains={name}&limit=100&offset=0 200',
    deploy: (args) => [pythonCli, ['deploy', ...args, '--host-url', recorder.url], { LANGSMITH_API_KEY: cp.apiKey }],
  },
  {
    name: `@langchain/langgraph-cli@${LANGGRAPH_CLI_JS_VERSION} (npm)`,
    slug: 'js',
    deploymentType: 'dev',
    lookup: 'GET /v2/deployments?name_contains={name} 200',
    deploy: (args) => [
      process.execPath,
      [jsCli, 'deploy', ...args, '--host-url', recorder.url, '--api-key', cp.apiKey],
      {},
    ],
  },
];

/**
 * Runs `deploy <args>` of the CLI in the project directory, with only the environment it needs, to
 * exit code 0; its output and the calls it made (`name` replaced by a placeholder).
 */
async function runCli(
  cli: CliUnderTest,
  dir: string,
  cliArgs: string[],
  name: string,
): Promise<Output & { calls: string[] }> {
  const [command, args, env] = cli.deploy(cliArgs);
  const firstCall = recorder.calls.length;
  const home = join(scratch, 'home');
  mkdirSync(home, { recursive: true });
  const out = await run(
    command,
    args,
    {
      PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
      HOME: home,
      NO_COLOR: '1',
      LANGGRAPH_CLI_NO_ANALYTICS: '1',
      ...env,
    },
    5 * 60_000,
    dir,
  );
  expect(
    out.code,
    `${cli.name} deploy ${cliArgs.join(' ')} exited with ${out.code}:\n${out.stdout}\n${out.stderr}`,
  ).toBe(0);
  return { ...out, calls: callsOf(recorder.calls.slice(firstCall), name) };
}

/** Calls as `METHOD path status`, ids and the name replaced by placeholders, repeated polls once. */
function callsOf(calls: RecordedCall[], name: string): string[] {
  const lines = calls.map(
    ({ method, path, status }) =>
      `${method} ${path
        .replaceAll(name, '{name}')
        .replace(/\/v2\/deployments\/[0-9a-f-]{36}/, '/v2/deployments/{id}')
        .replace(/\/revisions\/[0-9a-f-]{36}/, '/revisions/{revision}')} ${status}`,
  );
  return lines.filter((line, i) => line !== lines[i - 1]);
}

/** The one deployment of that name in the workspace, as our API answers it. */
async function deploymentNamed(name: string) {
  const list = await call('GET', `/v2/deployments?name_contains=${name}`);
  expect(list.status).toBe(200);
  const found = list.body.resources.filter((d: { name: string }) => d.name === name);
  expect(found).toHaveLength(1);
  return found[0];
}

async function revisionsOf(
  id: string,
): Promise<{ id: string; status: string; source_revision_config: Record<string, unknown> }[]> {
  const res = await call('GET', `/v2/deployments/${id}/revisions`);
  expect(res.status).toBe(200);
  return res.body.resources;
}

/** The greeter's answer through the deployment's URL, with the official SDK and our API key. */
async function greeting(url: string, text: string): Promise<unknown> {
  const client = new Client({ apiUrl: url, apiKey: cp.apiKey });
  const state = (await client.runs.wait(null, 'greeter', {
    input: { messages: [{ type: 'human', content: text }] },
  })) as { messages: { content: unknown }[] };
  return state.messages.at(-1)?.content;
}

/** `langgraph deploy`'s arguments as our docs give them: a build from source, no prompts. */
const deployArgs = (name: string) => ['--name', name, '--remote', '--no-input'];

/** What both CLIs call after finding or creating the deployment (the same poll repeated counts once). */
const uploadAndPoll = [
  'POST /v2/deployments/{id}/upload-url 200',
  'PATCH /v2/deployments/{id} 200',
  'GET /v2/deployments/{id}/revisions?limit=1 200',
  'GET /v2/deployments/{id}/revisions/{revision} 200',
  'GET /v2/deployments/{id} 200',
];

describe.each(CLIS)('$name against our control plane', (cli) => {
  const dir = join(scratch, `project-${cli.slug}`);
  const name = `greeter-${cli.slug}-${randomBytes(3).toString('hex')}`;
  const firstSecret = `first-${randomBytes(4).toString('hex')}`;
  /** The deployment's id and URL after the first deploy. */
  let first: { id: string; url: string };

  it('creates the deployment, uploads the source, and the revision serves at custom_url', async () => {
    makeProject(dir, firstSecret);
    const out = await runCli(cli, dir, deployArgs(name), name);
    // Not found by name, so created; then the upload flow and the polling (the PUT goes to the object store).
    expect(out.calls).toEqual([cli.lookup, 'POST /v2/deployments 201', ...uploadAndPoll]);

    const d = await deploymentNamed(name);
    expect(d).toMatchObject({
      source: 'internal_source',
      status: 'READY',
      source_config: { deployment_type: cli.deploymentType, custom_url: `${cpUrl}/d/${d.id}` },
      secrets: [
        { name: 'GREETING_PREFIX', value: '********' },
        { name: 'GREETING_SECRET', value: '********' },
      ],
    });
    // The first revision (made by the POST, without a source) was superseded by the PATCH's.
    const revisions = await revisionsOf(d.id);
    expect(revisions.map((r) => r.status)).toEqual(['DEPLOYED', 'SKIPPED']);
    expect(revisions[0]!.id).toBe(d.active_revision_id);
    expect(revisions[0]!.source_revision_config).toMatchObject({ langgraph_config_path: 'langgraph.json' });
    expect(revisions[0]!.source_revision_config.source_tarball_path).toMatch(
      new RegExp(`^${DEFAULT_WORKSPACE_ID}/deployment-sources/${d.id}/`),
    );
    // The CLI read the URL back and printed it.
    expect(out.stdout).toContain(d.source_config.custom_url);

    expect(await greeting(d.source_config.custom_url, 'hi')).toBe(`Hello [${firstSecret}]: you said "hi"`);
    first = { id: d.id, url: d.source_config.custom_url };
  }, 300_000);

  it('deploys changed code again by name: a new revision of the same deployment serves it at the same URL', async () => {
    expect(first).toBeDefined();
    const source = join(dir, 'greeterGraph.ts');
    writeFileSync(source, readFileSync(source, 'utf8').replace('you said', 'you wrote'));
    const secondSecret = `second-${randomBytes(4).toString('hex')}`;
    writeEnv(dir, secondSecret);
    const out = await runCli(cli, dir, deployArgs(name), name);
    // Found by name: no POST this time.
    expect(out.calls).toEqual([cli.lookup, ...uploadAndPoll]);

    const d = await deploymentNamed(name);
    expect(d.id).toBe(first.id);
    expect(d.source_config.custom_url).toBe(first.url);
    const revisions = await revisionsOf(d.id);
    expect(revisions.map((r) => r.status)).toEqual(['DEPLOYED', 'DEPLOYED', 'SKIPPED']);
    expect(d.active_revision_id).toBe(revisions[0]!.id);
    expect(await greeting(first.url, 'hi again')).toBe(`Hello [${secondSecret}]: you wrote "hi again"`);
  }, 300_000);

  it("deploy logs prints the revision's build log and its server's deploy log", async () => {
    expect(first).toBeDefined();
    const build = await runCli(cli, dir, ['logs', '--deployment-id', first.id, '--type', 'build'], name);
    expect(
      build.calls.every((c) => / 2\d\d$/.test(c)),
      build.calls.join('\n'),
    ).toBe(true);
    for (const status of ['AWAITING_BUILD', 'BUILDING', 'DEPLOYED'])
      expect(build.stdout, build.stdout).toContain(status);
    const deploy = await runCli(
      cli,
      dir,
      ['logs', '--deployment-id', first.id, '--type', 'deploy', '--query', 'agent server listening'],
      name,
    );
    expect(deploy.stdout, deploy.stdout).toMatch(/\[INFO\] agent server listening/);
  }, 120_000);

  it('deploy list shows it with its URL; deploy delete soft-deletes it', async () => {
    expect(first).toBeDefined();
    const list = await runCli(cli, dir, ['list'], name);
    expect(
      list.calls.every((c) => / 2\d\d$/.test(c)),
      list.calls.join('\n'),
    ).toBe(true);
    expect(
      list.stdout
        .split('\n')
        .some((line) => line.includes(first.id) && line.includes(name) && line.includes(first.url)),
      list.stdout,
    ).toBe(true);

    const deleted = await runCli(cli, dir, ['delete', first.id, '--force'], name);
    expect(deleted.calls).toEqual(['DELETE /v2/deployments/{id} 204']);
    expect((await call('GET', `/v2/deployments/${first.id}`)).body.status).toBe('AWAITING_DELETE');
  }, 120_000);
});
