// docker-compose.yml run for real (npm run test:compose): every image built here without a
// registry (infra/compose.ts), the whole topology up and healthy, then, through the gateway only:
// the official clients (langsmith JS and Python ingest and read back, the explorer in Chromium, a
// deployment to DEPLOYED, the LangGraph SDK streaming a run on an agent server, a bulk export to
// MinIO); faults under sustained ingestion (one replica of each replicated service and one Kafka
// broker killed: every accepted run stored exactly once); and a rolling upgrade under load (a
// rebuilt image, replicas replaced one at a time: no failed request, nothing lost). What it
// measured (image sizes, build and start times, memory, refusal and takeover times) is printed as
// one JSON line and recorded in bench/results/compose.json (test/bench/results.ts), which
// docs/performance.md is rendered from (npm run bench:docs). COMPOSE_COLD=1 first removes every
// image and Docker's build cache: the build is then a cold one.
//
// COMPOSE_KEEP=1 leaves the topology running afterwards (docker compose -p lscp-compose ...), to
// look at; the next run starts it afresh, unless COMPOSE_REUSE=1 says to run on it as it is (its
// ports and secrets are kept in .local/compose/test-env.json).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Client as LangGraphClient } from '@langchain/langgraph-sdk';
import { Client } from 'langsmith';
import { traceable } from 'langsmith/traceable';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import {
  baseImage,
  buildAll,
  buildProductImage,
  compose,
  composeCapture,
  ensureComposeCommand,
  ensureDockerEngine,
  productImage,
  standins,
  type BuildReport,
} from '../../infra/compose.ts';
import { startBenchRun } from '../bench/results.ts';
import { capture } from '../../infra/commands.ts';
import { repoRoot } from '../../infra/config.ts';
import { deployableAgentRepo } from '../support/deployableAgent.ts';
import { startExplorerBrowser } from '../support/explorer.ts';
import { ensurePythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';
import { endTimeAfter, makeTrace, multipartBody, postParts, type TestRun } from '../support/runFactory.ts';
import { waitFor } from '../support/serviceProcess.ts';

const envFile = join(repoRoot, '.local', 'compose', 'test-env.json');
const reuse = process.env.COMPOSE_REUSE === '1' && existsSync(envFile);
const env: Record<string, string> = reuse ? JSON.parse(readFileSync(envFile, 'utf8')) : {};
const apiKey = env.BOOTSTRAP_API_KEY ?? `lsv2_compose_${randomBytes(16).toString('hex')}`;
const s3 = { accessKeyId: 'minioadmin', secretAccessKey: 'minioadmin-dev-secret' };
const urls = { tracing: '', controlPlane: '', agentServer: '', chat: '', clickhouse: '', minio: '' };
/** The bulk-export destination (MinIO on the compose network) the export test made. */
let destinationId = '';
/** Everything measured, printed and stored at the end. */
const report: Record<string, unknown> = {};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A ClickHouse query through its published HTTP port (JSON rows). */
async function clickhouse<T>(query: string): Promise<T[]> {
  const res = await fetch(`${urls.clickhouse}/?database=langsmith&default_format=JSON`, {
    method: 'POST',
    body: query,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`ClickHouse: ${res.status} ${text.slice(0, 500)}`);
  return (JSON.parse(text) as { data: T[] }).data;
}

async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: res.status, body: parsed };
}

/** The containers of a service, oldest first. */
async function containersOf(service: string): Promise<string[]> {
  const { stdout } = await composeCapture(['ps', '--quiet', service], env);
  const ids = stdout.split('\n').filter(Boolean);
  const created = await Promise.all(
    ids.map(async (id) => (await capture('docker', ['inspect', '--format', '{{.Created}}', id])).stdout.trim()),
  );
  return ids
    .map((id, i) => ({ id, created: created[i]! }))
    .sort((a, b) => a.created.localeCompare(b.created))
    .map((c) => c.id);
}

const docker = (...args: string[]) => execFileSync('docker', args, { stdio: 'pipe' }).toString().trim();

function setUrls(): void {
  const port = (name: string) => `http://127.0.0.1:${env[name]}`;
  urls.tracing = port('COMPOSE_TEST_TRACING_PORT');
  urls.controlPlane = port('COMPOSE_TEST_CONTROL_PLANE_PORT');
  urls.agentServer = port('COMPOSE_TEST_AGENT_SERVER_PORT');
  urls.chat = port('COMPOSE_TEST_CHAT_PORT');
  urls.clickhouse = port('COMPOSE_TEST_CLICKHOUSE_PORT');
  urls.minio = port('COMPOSE_TEST_MINIO_PORT');
}

const benchRun = startBenchRun();
/** A failed test: the run records nothing. */
let failed = false;
beforeEach(({ onTestFailed }) => {
  onTestFailed(() => {
    failed = true;
  });
});
const cold = process.env.COMPOSE_COLD === '1';

beforeAll(async () => {
  if (reuse) {
    setUrls();
    return;
  }
  const ports = {
    COMPOSE_TEST_TRACING_PORT: await freePort(),
    COMPOSE_TEST_CONTROL_PLANE_PORT: await freePort(),
    COMPOSE_TEST_AGENT_SERVER_PORT: await freePort(),
    COMPOSE_TEST_CHAT_PORT: await freePort(),
    COMPOSE_TEST_CLICKHOUSE_PORT: await freePort(),
    COMPOSE_TEST_MINIO_PORT: await freePort(),
  };
  Object.assign(env, Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), {
    BOOTSTRAP_API_KEY: apiKey,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    CONTROL_PLANE_PUBLIC_URL: `http://127.0.0.1:${ports.COMPOSE_TEST_CONTROL_PLANE_PORT}`,
    S3_PUBLIC_ENDPOINT: `http://127.0.0.1:${ports.COMPOSE_TEST_MINIO_PORT}`,
  });
  setUrls();
  mkdirSync(dirname(envFile), { recursive: true });
  writeFileSync(envFile, JSON.stringify(env));

  // A fresh topology: what an earlier run left (COMPOSE_KEEP) goes, volumes included.
  await ensureDockerEngine();
  await ensureComposeCommand();
  await compose(['down', '--volumes', '--remove-orphans', '--timeout', '30'], env);
  if (cold) {
    for (const image of [productImage, baseImage, ...standins.map((s) => s.image)])
      await capture('docker', ['image', 'rm', '--force', image]);
    await capture('docker', ['builder', 'prune', '--all', '--force']);
  }
  report.cold = cold;
  const buildStarted = Date.now();
  const builds = await buildAll();
  report.build_seconds = (Date.now() - buildStarted) / 1000;
  // By a short name: the product, the Debian base, or the stand-in's folder (node, kafka, …).
  const shortName = (image: string) =>
    image === productImage
      ? 'product'
      : image === baseImage
        ? 'debian'
        : (standins.find((st) => st.image === image)?.dir ?? image);
  report.images = Object.fromEntries(
    builds.map((b: BuildReport) => [
      shortName(b.image),
      { built: b.built, seconds: b.seconds, mb: Math.round((b.bytes ?? 0) / 1e6) },
    ]),
  );

  const upStarted = Date.now();
  await compose(['up', '--detach', '--no-build', '--wait', '--wait-timeout', '900'], env);
  report.start_to_healthy_seconds = (Date.now() - upStarted) / 1000;
}, 3_600_000);

afterAll(async () => {
  // A run on a topology left up, or one with a failed test, records nothing.
  if (!reuse && !failed && report.rolling_upgrade) benchRun.finish({ bench: 'compose', ...report });
  else console.log(JSON.stringify({ compose: report }));
  if (process.env.COMPOSE_KEEP === '1') return;
  if (Object.keys(env).length > 0)
    await compose(['down', '--volumes', '--remove-orphans', '--timeout', '30'], env).catch((err) => console.error(err));
});

/** Each container's memory now (MiB), by container name without the project prefix. */
async function memoryByContainer(): Promise<Record<string, number>> {
  const { stdout } = await capture('docker', ['stats', '--no-stream', '--format', '{{.Name}}\t{{.MemUsage}}']);
  const out: Record<string, number> = {};
  for (const line of stdout.trim().split('\n')) {
    const [name, usage] = line.split('\t');
    if (!name?.startsWith('lscp-compose-') || !usage) continue;
    const [, value, unit] = /^([\d.]+)\s*([KMG]i?B)/.exec(usage) ?? [];
    const scale = unit?.startsWith('G') ? 1024 : unit?.startsWith('K') ? 1 / 1024 : 1;
    out[name.slice('lscp-compose-'.length)] = Math.round(Number(value) * scale);
  }
  return out;
}

describe('the official clients through the gateway', () => {
  // Sizing: what each container holds once the clients have used it.
  afterAll(async () => {
    report.memory_mib_after_clients = await memoryByContainer();
  });

  test('every service is up with its replicas', async () => {
    const { stdout } = await composeCapture(['ps', '--format', 'json'], env);
    const rows = stdout
      .trim()
      .split('\n')
      .flatMap((line) => (line.startsWith('[') ? JSON.parse(line) : [JSON.parse(line)])) as {
      Service: string;
      State: string;
      Health: string;
    }[];
    const count = (service: string) => rows.filter((r) => r.Service === service && r.State === 'running').length;
    expect({
      kafka: count('kafka-1') + count('kafka-2') + count('kafka-3'),
      clickhouse: count('clickhouse'),
      minio: count('minio'),
      postgres: count('postgres'),
      'tracing-api': count('tracing-api'),
      projectors: count('projectors'),
      'export-worker': count('export-worker'),
      'agent-server': count('agent-server'),
      'control-plane': count('control-plane'),
      'chat-app': count('chat-app'),
      gateway: count('gateway'),
    }).toEqual({
      kafka: 3,
      clickhouse: 1,
      minio: 1,
      postgres: 1,
      'tracing-api': 2,
      projectors: 2,
      'export-worker': 2,
      'agent-server': 2,
      'control-plane': 1,
      'chat-app': 1,
      gateway: 1,
    });
    expect(rows.filter((r) => r.Health && r.Health !== 'healthy').map((r) => `${r.Service}: ${r.Health}`)).toEqual([]);
  });

  test('langsmith (npm): traceable runs go in as multipart and come back through readRun and listRuns', async () => {
    const paths: string[] = [];
    const client = new Client({
      apiUrl: urls.tracing,
      apiKey,
      autoBatchTracing: true,
      fetchImplementation: async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
        const res = await fetch(input, init);
        const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
        paths.push(`${init?.method ?? 'GET'} ${url.pathname} ${res.status}`);
        return res;
      },
    });
    const project = `compose-js-${Date.now()}`;
    const options = { client, project_name: project, tracingEnabled: true };
    const shout = traceable(async (text: string) => text.toUpperCase(), { name: 'shout', ...options });
    const pipeline = traceable(async (question: string) => ({ answer: await shout(question) }), {
      name: 'pipeline',
      ...options,
    });
    expect(await pipeline('hello from compose')).toEqual({ answer: 'HELLO FROM COMPOSE' });
    await client.awaitPendingTraceBatches();
    expect(paths.filter((p) => p.startsWith('POST') && p.includes('/runs/multipart'))).not.toEqual([]);
    expect(paths.filter((p) => !/ 2\d\d$/.test(p))).toEqual([]);

    const runs = await waitFor(
      'the two runs in the read model',
      async () => {
        const list = [];
        for await (const run of client.listRuns({ projectName: project })) list.push(run);
        return list.length === 2 && list.every((r) => r.end_time) ? list : null;
      },
      60_000,
      500,
    );
    const root = runs.find((r) => r.name === 'pipeline')!;
    const read = await client.readRun(root.id, { loadChildRuns: true });
    expect(read.outputs).toEqual({ answer: 'HELLO FROM COMPOSE' });
    // A traceable's value that is not an object is kept as {outputs: value}.
    expect(read.child_runs?.map((r) => [r.name, r.outputs])).toEqual([['shout', { outputs: 'HELLO FROM COMPOSE' }]]);
  });

  test('langsmith (PyPI): traceables as zstd multipart, read back with Client.read_run', async () => {
    const pyenv = await ensurePythonEnv();
    const project = `compose-py-${Date.now()}`;
    const pyEnv = {
      LANGSMITH_ENDPOINT: urls.tracing,
      LANGSMITH_API_KEY: apiKey,
      LANGSMITH_TRACING: 'true',
      LANGSMITH_PROJECT: project,
    };
    const traced = await runPythonScript<any>(pyenv, 'trace_runs.py', [], pyEnv);
    const requests = traced.result.requests as { method: string; path: string; status: number }[];
    expect(requests.filter((r) => r.path === '/runs/multipart').length, JSON.stringify(requests)).toBeGreaterThan(0);
    expect(requests.filter((r) => r.status >= 300)).toEqual([]);
    const ids = (traced.result.traced as { id: string }[]).map((r) => r.id);
    expect(ids.length).toBeGreaterThan(5);
    await waitFor(
      'every traced run in the read model',
      async () => {
        const rows = await clickhouse<{ n: string }>(
          `SELECT count() AS n FROM runs FINAL WHERE id IN (${ids.map((id) => `toUUID('${id}')`).join(',')})`,
        );
        return Number(rows[0]?.n) === ids.length;
      },
      60_000,
      500,
    );
    const { result } = await runPythonScript<any>(pyenv, 'read_runs.py', ids, pyEnv);
    expect(Object.keys(result.runs).sort()).toEqual([...ids].sort());
    for (const run of Object.values(result.runs) as { type: string; id: string }[]) expect(run.type).toBe('Run');
  });

  test('the trace explorer loads in Chromium through the gateway', async () => {
    const explorer = await startExplorerBrowser('compose');
    if (typeof explorer === 'string') throw new Error(explorer);
    try {
      const { page, problems, shot } = await explorer.open(apiKey, '/ui/', { baseUrl: urls.tracing });
      await page
        .getByRole('link', { name: /compose-js-/ })
        .first()
        .waitFor({ timeout: 30_000 });
      // The row's statistics come in a request of their own: its trace count once they are in.
      const row = page.getByRole('row', { name: /compose-js-/ }).first();
      await expect.poll(async () => (await row.innerText()).includes('…')).toBe(false);
      // One trace (its root and a child run).
      expect((await row.innerText()).split('\t').map((cell) => cell.trim())).toContain('1');
      await shot('projects');
      await page
        .getByRole('link', { name: /compose-js-/ })
        .first()
        .click();
      await page.getByText('pipeline').first().waitFor({ timeout: 30_000 });
      await shot('traces');
      expect(problems).toEqual([]);
    } finally {
      await explorer.close();
    }
  });

  test('a deployment from a git repository reaches DEPLOYED, and its agent server answers', async () => {
    // The repository inside the control plane's container (file://), where its deployer fetches it.
    const scratch = mkdtempSync(join(tmpdir(), 'compose-deploy-'));
    try {
      deployableAgentRepo(join(scratch, 'repo'));
      const [container] = await containersOf('control-plane');
      docker('cp', join(scratch, 'repo'), `${container}:/tmp/agent-repo`);
      docker('exec', '--user', '0', container!, 'chown', '-R', 'node:node', '/tmp/agent-repo');
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    const started = Date.now();
    const created = await call(urls.controlPlane, 'POST', '/v2/deployments', {
      name: `compose-greeter-${Date.now()}`,
      source: 'github',
      source_config: { repo_url: 'file:///tmp/agent-repo', deployment_type: 'dev', build_on_push: false },
      source_revision_config: { repo_ref: 'refs/tags/v1', langgraph_config_path: 'langgraph.json' },
      secrets: [{ name: 'GREETING_SECRET', value: 'open-sesame' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id, latest_revision_id: revision } = created.body;
    const status = await waitFor(
      'the revision to end',
      async () => {
        const s = (await call(urls.controlPlane, 'GET', `/v2/deployments/${id}/revisions/${revision}`)).body
          ?.status as string;
        return ['DEPLOYED', 'BUILD_FAILED', 'DEPLOY_FAILED'].includes(s) ? s : null;
      },
      300_000,
      500,
    );
    if (status !== 'DEPLOYED') {
      const logs = await Promise.all(
        ['build_logs', 'deploy_logs'].map(
          async (kind) =>
            (await call(urls.controlPlane, 'GET', `/v1/projects/${id}/revisions/${revision}/${kind}`)).body,
        ),
      );
      throw new Error(`revision ${status}: ${JSON.stringify(logs).slice(0, 6000)}`);
    }
    report.deployment_seconds = (Date.now() - started) / 1000;
    const deployment = (await call(urls.controlPlane, 'GET', `/v2/deployments/${id}`)).body;
    const client = new LangGraphClient({ apiUrl: deployment.source_config.custom_url, apiKey });
    const answer = (await client.runs.wait(null, 'greeter', {
      input: { messages: [{ role: 'human', content: 'hi' }] },
    })) as {
      messages: { content: string }[];
    };
    expect(answer.messages.at(-1)?.content).toBe('Hello [open-sesame]: you said "hi"');
  });

  test('@langchain/langgraph-sdk: a run on an agent-server replica streams its values and message chunks', async () => {
    const client = new LangGraphClient({ apiUrl: urls.agentServer, apiKey });
    const thread = await client.threads.create();
    const events: string[] = [];
    let last: any;
    for await (const chunk of client.runs.stream(thread.thread_id, 'agent', {
      input: { messages: [{ role: 'human', content: 'hello over compose' }] },
      streamMode: ['values', 'messages-tuple'],
    })) {
      events.push(chunk.event);
      if (chunk.event === 'values') last = chunk.data;
    }
    expect(events[0]).toBe('metadata');
    expect(events).toContain('messages');
    expect(events).toContain('values');
    expect(last.messages.length).toBe(2);
    const state = await client.threads.getState(thread.thread_id);
    expect((state.values as any).messages.length).toBe(2);
  });

  test('a bulk export lands Parquet in MinIO', async () => {
    const sessions = (await call(urls.tracing, 'GET', '/sessions?limit=100')).body as { id: string; name: string }[];
    const source = sessions.find((p) => p.name.startsWith('compose-js-'));
    expect(source, JSON.stringify(sessions)).toBeDefined();
    const bucket = 'compose-exports';
    const minio = new S3Client({
      endpoint: urls.minio,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: s3,
    });
    try {
      const { CreateBucketCommand } = await import('@aws-sdk/client-s3');
      await minio.send(new CreateBucketCommand({ Bucket: bucket }));
      // The destination as the services reach MinIO: by its name on the compose network.
      const destination = await call(urls.tracing, 'POST', '/bulk-exports/destinations', {
        destination_type: 's3',
        display_name: 'compose lake',
        config: { bucket_name: bucket, prefix: 'runs', endpoint_url: 'http://minio:9000' },
        credentials: { access_key_id: s3.accessKeyId, secret_access_key: s3.secretAccessKey },
      });
      expect(destination.status, JSON.stringify(destination.body)).toBe(200);
      destinationId = destination.body.id;
      const created = await call(urls.tracing, 'POST', '/bulk-exports', {
        bulk_export_destination_id: destination.body.id,
        session_id: source!.id,
        start_time: new Date(Date.now() - 3_600_000).toISOString(),
        end_time: new Date().toISOString(),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const done = await waitFor(
        'the export to complete',
        async () => {
          const e = (await call(urls.tracing, 'GET', `/bulk-exports/${created.body.id}`)).body;
          if (['Failed', 'Cancelled', 'TimedOut'].includes(e.status)) throw new Error(JSON.stringify(e));
          return e.status === 'Completed' ? e : null;
        },
        180_000,
        1_000,
      );
      expect(done.status).toBe('Completed');
      const listed = await minio.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'runs/' }));
      const keys = (listed.Contents ?? []).map((o) => o.Key!);
      expect(
        keys.some((k) => k.endsWith('.parquet')),
        JSON.stringify(keys),
      ).toBe(true);
    } finally {
      minio.destroy();
    }
  });
});

type Answer = { sent: number; at: number; status: number; error?: string };

/**
 * Sustained ingestion through the gateway: `clients` loops posting traces as multipart (10 traces
 * of 5 runs), then patching them; a refused request is retried after a pause, as the clients do.
 * Every answer is kept; `accepted` holds the runs answered 2xx, `patched` those whose patch was.
 */
function ingestion(project: string, clients = 4) {
  const accepted = new Set<string>();
  const patched = new Set<string>();
  const answers: Answer[] = [];
  let stop = false;
  const send = async (body: { body: Buffer; contentType: string }): Promise<boolean> => {
    const sent = Date.now();
    try {
      const res = await fetch(`${urls.tracing}/runs/multipart`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': body.contentType },
        body: body.body,
      });
      const text = await res.text();
      answers.push({ sent, at: Date.now(), status: res.status, ...(res.ok ? {} : { error: text.slice(0, 200) }) });
      return res.status === 202;
    } catch (err) {
      answers.push({ sent, at: Date.now(), status: 0, error: String(err) });
      return false;
    }
  };
  /** Posts the body until it is taken (true), or until the load stops (false). */
  const untilTaken = async (parts: Parameters<typeof multipartBody>[0]): Promise<boolean> => {
    while (!stop) {
      if (await send(multipartBody(parts))) return true;
      await sleep(200);
    }
    return false;
  };
  const client = async () => {
    while (!stop) {
      const runs: TestRun[] = Array.from({ length: 10 }, () => makeTrace(4, { session_name: project })).flat();
      if (!(await untilTaken(postParts(runs)))) break;
      for (const r of runs) accepted.add(r.id);
      const end = endTimeAfter(runs);
      const patch = runs.map((r) => ({ ...r, inputs: undefined, outputs: { ok: true }, end_time: end }));
      if (await untilTaken(postParts(patch, 'patch'))) for (const r of runs) patched.add(r.id);
    }
  };
  const running = Promise.all(Array.from({ length: clients }, client));
  return {
    accepted,
    patched,
    answers,
    async stop() {
      stop = true;
      await running;
    },
  };
}

/** Every accepted run in ClickHouse exactly once, every accepted patch applied. */
async function expectStoredExactlyOnce(project: string, accepted: Set<string>, patched: Set<string>): Promise<void> {
  const sessions = await call(urls.tracing, 'GET', `/sessions?name=${encodeURIComponent(project)}`);
  const sessionId = (sessions.body as { id: string }[])[0]?.id;
  expect(sessionId, JSON.stringify(sessions.body)).toBeDefined();
  const read = async () => {
    const rows = await clickhouse<{ id: string; status: string; copies: string }>(
      `SELECT toString(id) AS id, any(status) AS status, count() AS copies
         FROM (SELECT id, status FROM runs FINAL WHERE session_id = toUUID('${sessionId}')) GROUP BY id`,
    );
    const ids = new Map(rows.map((r) => [r.id, r]));
    return {
      rows,
      missing: [...accepted].filter((id) => !ids.has(id)),
      unpatched: [...patched].filter((id) => ids.get(id)?.status !== 'success'),
      doubled: rows.filter((r) => Number(r.copies) !== 1).map((r) => r.id),
    };
  };
  await waitFor(
    'every accepted run and patch to be projected',
    async () => {
      const { missing, unpatched } = await read();
      return missing.length === 0 && unpatched.length === 0;
    },
    180_000,
    1_000,
  ).catch(() => undefined);
  const { missing, unpatched, doubled } = await read();
  expect({ missing: missing.length, unpatched: unpatched.length, doubled: doubled.length, of: accepted.size }).toEqual({
    missing: 0,
    unpatched: 0,
    doubled: 0,
    of: accepted.size,
  });
}

/** The longest stretch (ms) after `from` with no 2xx answer, and how many requests were refused. */
function refusals(answers: Answer[], from: number, to: number) {
  const taken = answers.filter((a) => a.status === 202 && a.at >= from && a.at <= to).map((a) => a.at);
  let gap = 0;
  let previous = from;
  for (const at of [...taken.sort((a, b) => a - b), to]) {
    gap = Math.max(gap, at - previous);
    previous = at;
  }
  const refused = answers.filter((a) => a.status !== 202 && a.sent >= from && a.sent <= to);
  return { no_2xx_for_ms: gap, refused: refused.length, statuses: [...new Set(refused.map((a) => a.status))] };
}

/** A bulk export of the project's last hour to the compose MinIO; its id. */
async function startExport(project: string): Promise<string> {
  const sessions = (await call(urls.tracing, 'GET', `/sessions?name=${encodeURIComponent(project)}`)).body;
  const created = await call(urls.tracing, 'POST', '/bulk-exports', {
    bulk_export_destination_id: destinationId,
    session_id: sessions[0].id,
    start_time: new Date(Date.now() - 3_600_000).toISOString(),
    end_time: new Date().toISOString(),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.id;
}

// The rolling upgrade runs before the faults, on a cluster whose partitions all have their
// preferred leaders: after a killed broker comes back, Kafka moves leadership back to it (its
// leader-imbalance check, every 5 minutes), and a produce that meets that move under load may be
// answered 503 (the API's producer retries for about a second). That is a refusal a client retries,
// but not a replica replacement's doing.
describe('rolling upgrade', () => {
  test('a rebuilt image replaces every replica one at a time under load: no failed request, nothing lost', async () => {
    const before = docker('image', 'inspect', '--format', '{{.Id}}', productImage);
    const rebuild = await buildProductImage();
    // A rebuild of the same sources takes its layers from the cache; a new label makes it a new image all the same.
    const after = docker('image', 'inspect', '--format', '{{.Id}}', productImage);
    report.rebuild_seconds = rebuild.seconds;
    expect(after).not.toBe(before);

    const project = `compose-upgrade-${Date.now()}`;
    const load = ingestion(project);
    await sleep(5_000);
    const started = Date.now();
    const replaced: Record<string, number> = {};
    for (const service of ['tracing-api', 'projectors', 'export-worker', 'agent-server']) {
      const old = await containersOf(service);
      for (const container of old) {
        // One more replica on the new image, healthy before an old one goes.
        await compose(
          [
            'up',
            '--detach',
            '--no-deps',
            '--no-build',
            '--no-recreate',
            '--wait',
            '--scale',
            `${service}=${old.length + 1}`,
            service,
          ],
          env,
        );
        docker('stop', '--time', '30', container);
        docker('rm', container);
        replaced[service] = (replaced[service] ?? 0) + 1;
      }
      const images = await Promise.all(
        (await containersOf(service)).map(async (id) =>
          (await capture('docker', ['inspect', '--format', '{{.Image}}', id])).stdout.trim(),
        ),
      );
      expect(images).toEqual(images.map(() => after));
    }
    report.rolling_upgrade = { replaced, seconds: (Date.now() - started) / 1000 };
    await sleep(5_000);
    await load.stop();
    report.rolling_upgrade = {
      ...(report.rolling_upgrade as object),
      requests: load.answers.length,
      failed: load.answers.filter((a) => a.status !== 202).length,
      runs_accepted: load.accepted.size,
    };
    expect(load.answers.filter((a) => a.status !== 202).map((a) => [a.status, a.error])).toEqual([]);
    await expectStoredExactlyOnce(project, load.accepted, load.patched);
  });
});

describe('faults in the running topology', () => {
  test('one replica of each replicated service and one Kafka broker killed during sustained ingestion: every accepted run stored exactly once', async () => {
    const project = `compose-faults-${Date.now()}`;
    const load = ingestion(project);
    const faults: Record<string, unknown> = {};
    try {
      await sleep(8_000);

      // A probe: a trace posted now, and how long until the read model has it (the projectors' takeover).
      const projectedAfter = async (since: number): Promise<number> => {
        const runs = makeTrace(0, { session_name: project });
        const probe = multipartBody(postParts(runs));
        await waitFor(
          'a probe trace to be accepted',
          async () => {
            const res = await fetch(`${urls.tracing}/runs/multipart`, {
              method: 'POST',
              headers: { 'x-api-key': apiKey, 'content-type': probe.contentType },
              body: probe.body,
            }).catch(() => undefined);
            await res?.arrayBuffer();
            return res?.status === 202;
          },
          120_000,
          200,
        );
        load.accepted.add(runs[0]!.id);
        await waitFor(
          'the probe in the read model',
          async () => (await clickhouse(`SELECT 1 FROM runs WHERE id = toUUID('${runs[0]!.id}')`)).length > 0,
          180_000,
          200,
        );
        return Date.now() - since;
      };

      for (const service of ['tracing-api', 'projectors', 'export-worker', 'agent-server']) {
        // An export started as an export worker dies: the surviving worker finishes it (after the
        // lease, BULK_EXPORT_LEASE_MS, when the dead one held it).
        const exportId = service === 'export-worker' ? await startExport(project) : '';
        const [victim] = await containersOf(service);
        const killedAt = Date.now();
        docker('kill', victim!);
        if (service === 'projectors') faults.projector_takeover_ms = await projectedAfter(killedAt);
        if (service === 'agent-server') {
          // The surviving replica takes the runs: a run through the gateway right after the kill.
          const client = new LangGraphClient({ apiUrl: urls.agentServer, apiKey });
          await waitFor(
            'a run on the surviving agent server',
            async () => {
              const out = (await client.runs.wait(null, 'noop', { input: {} }).catch(() => null)) as unknown;
              return out !== null;
            },
            120_000,
            200,
          );
          faults.agent_server_takeover_ms = Date.now() - killedAt;
        }
        if (service === 'export-worker') {
          await waitFor(
            'the export to complete on the surviving worker',
            async () => {
              const e = (await call(urls.tracing, 'GET', `/bulk-exports/${exportId}`)).body;
              if (['Failed', 'Cancelled', 'TimedOut'].includes(e.status)) throw new Error(JSON.stringify(e));
              return e.status === 'Completed';
            },
            300_000,
            500,
          );
          faults.export_takeover_ms = Date.now() - killedAt;
        }
        await sleep(6_000);
        faults[service] = refusals(load.answers, killedAt, Date.now());
      }

      const [broker] = await containersOf('kafka-2');
      const brokerKilledAt = Date.now();
      docker('kill', broker!);
      await sleep(15_000);
      faults['kafka-2'] = refusals(load.answers, brokerKilledAt, Date.now());
      faults.kafka_projected_after_ms = await projectedAfter(brokerKilledAt);

      await load.stop();
      faults.requests = load.answers.length;
      faults.refused_requests = load.answers.filter((a) => a.status !== 202).length;
      faults.runs_accepted = load.accepted.size;
      report.faults = faults;
      // A refused request is a 503 (with Retry-After) from the API, or a 502 from the gateway: never another error.
      expect(load.answers.filter((a) => ![202, 502, 503].includes(a.status)).map((a) => [a.status, a.error])).toEqual(
        [],
      );
      await expectStoredExactlyOnce(project, load.accepted, load.patched);
    } finally {
      await load.stop();
      // Back to the full topology for what follows: the killed containers start again.
      await compose(['up', '--detach', '--no-build', '--wait', '--wait-timeout', '600'], env);
    }
  });
});
