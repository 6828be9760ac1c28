// Control-plane benchmark (`npm run bench:deploy`): how long a deployment takes to serve, how a
// rollout looks to the callers of its URL, and what a running deployment costs in memory.
//
// A control plane of our own (a child process, as `npm start` runs it; tracing off, logs at warn)
// deploys examples/deployable-agent from a local git repository (file:// URL: no network in the
// measurement). Phases:
//   baseline      a bare agent server with the same graph, started BENCH_DEPLOYS times: spawn to
//                 its first /ok, and its resident memory. The floor a deployment adds its cost to
//                 (the deployment also clones, checks the config, and records every status on Kafka).
//   create        BENCH_DEPLOYS deployments one after the other: POST /v2/deployments to the
//                 revision's DEPLOYED (polled every 25 ms), p50/p95.
//   rollout       BENCH_ROLLOUTS PATCHes of one deployment (a new tag each) to DEPLOYED, while
//                 BENCH_CALLERS clients call POST /runs/wait on the deployment's URL back to back:
//                 every failed call counts (the goal is none), with their latency.
//   gateway       GET /ok on the deployment's URL against the same on its agent server directly,
//                 BENCH_CALLERS clients for BENCH_SECONDS each: what forwarding costs.
//   memory        BENCH_MEMORY_DEPLOYMENTS deployments created at once, all DEPLOYED: the resident
//                 memory of their servers (per deployment) and of the control plane.
//
// Progress goes to stderr; stdout gets exactly one JSON line (`npm run -s bench:deploy | tail -1`),
// also written to bench/results/deploy.json (results.ts).
// Knobs: BENCH_DEPLOYS=5 BENCH_ROLLOUTS=5 BENCH_CALLERS=4 BENCH_SECONDS=5 BENCH_MEMORY_DEPLOYMENTS=10
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { startAgentServer } from '../support/agentServer.ts';
import { deployableAgentRepo, serverPids } from '../support/deployableAgent.ts';
import { controlPlaneCall, startControlPlane, type ControlPlaneStack } from '../support/controlPlane.ts';
import { repoRoot, waitFor } from '../support/serviceProcess.ts';
import { createLogger } from '../../platform/logger.ts';
import { DeploymentState } from '../../services/deployments/index.ts';
import { percentile, round, rssMiB } from './measure.ts';
import { startBenchRun } from './results.ts';

const env = process.env;
const num = (name: string, fallback: number) => (env[name] ? Number(env[name]) : fallback);
const options = {
  deploys: num('BENCH_DEPLOYS', 5),
  rollouts: num('BENCH_ROLLOUTS', 5),
  callers: num('BENCH_CALLERS', 4),
  seconds: num('BENCH_SECONDS', 5),
  memoryDeployments: num('BENCH_MEMORY_DEPLOYMENTS', 10),
};
const goals = { deployed_p50_ms: 5000, failed_calls_during_rollouts: 0 };
const progress = (message: string) => process.stderr.write(`[bench:deploy] ${message}\n`);
const ms = (from: number) => performance.now() - from;
const stats = (samples: number[]) => ({
  p50: round(percentile(samples, 50), 0),
  p95: round(percentile(samples, 95), 0),
  n: samples.length,
});

// ---- the deployable example, as a git repository with tags ----

const benchRun = startBenchRun();
const scratch = mkdtempSync(join(tmpdir(), 'bench-deploy-'));
const example = deployableAgentRepo(join(scratch, 'repo'));
const repo = example.dir;
const git = example.git;
/** A new commit and tag whose graph answers with `prefix`. */
function tagWithPrefix(tag: string, prefix: string): void {
  const file = join(repo, 'langgraph.json');
  const config = JSON.parse(readFileSync(file, 'utf8')) as { env: Record<string, string> };
  config.env.GREETING_PREFIX = prefix;
  writeFileSync(file, JSON.stringify(config, null, 2));
  git('commit', '--quiet', '-am', `prefix ${prefix}`);
  git('tag', tag);
}

let cp: ControlPlaneStack | undefined;
const call = (method: string, path: string, json?: unknown) =>
  controlPlaneCall(cp!.urls[0]!, cp!.apiKey, method, path, json);

async function revisionDeployed(deploymentId: string, revisionId: string): Promise<void> {
  const revision = await waitFor(
    `revision ${revisionId} to end`,
    async () => {
      const body = (await call('GET', `/v2/deployments/${deploymentId}/revisions/${revisionId}`)).body as
        | { status?: string; status_message?: unknown }
        | undefined;
      return body?.status === 'DEPLOYED' || body?.status?.endsWith('_FAILED') ? body : null;
    },
    300_000,
    25,
  );
  if (revision.status !== 'DEPLOYED')
    throw new Error(`revision ${revisionId} ended ${revision.status}: ${JSON.stringify(revision.status_message)}`);
}

const created: string[] = [];
async function createDeployment(name: string): Promise<{ id: string; revisionId: string; url: string }> {
  const res = await call('POST', '/v2/deployments', {
    name,
    source: 'github',
    source_config: { repo_url: pathToFileURL(repo).href, deployment_type: 'dev' },
    source_revision_config: { repo_ref: 'refs/tags/v1', langgraph_config_path: 'langgraph.json' },
    secrets: [{ name: 'GREETING_SECRET', value: 'bench' }],
  });
  if (res.status !== 201) throw new Error(`create: ${res.status} ${JSON.stringify(res.body)}`);
  created.push(res.body.id);
  return { id: res.body.id, revisionId: res.body.latest_revision_id, url: res.body.source_config.custom_url };
}

/** Clients calling `send` back to back until `stop` resolves: latencies and failures. */
async function callersUntil(
  stop: Promise<unknown>,
  send: () => Promise<boolean>,
): Promise<{ calls: number; failed: number; latencies: number[]; failures: string[] }> {
  let done = false;
  void stop.finally(() => (done = true));
  const latencies: number[] = [];
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: options.callers }, async () => {
      while (!done) {
        const t = performance.now();
        try {
          if (await send()) latencies.push(ms(t));
          else failures.push('status');
        } catch (err) {
          failures.push((err as Error).message);
        }
      }
    }),
  );
  return {
    calls: latencies.length + failures.length,
    failed: failures.length,
    latencies,
    failures: [...new Set(failures)].slice(0, 5),
  };
}

async function main(): Promise<void> {
  // Baseline: a bare agent server with the same graph.
  progress(`baseline: a bare agent server, started ${options.deploys} times`);
  const bareStarts: number[] = [];
  let bareRss: number | null = null;
  for (let i = 0; i < options.deploys; i++) {
    const t = performance.now();
    const server = await startAgentServer(`bench-deploy-bare-${i}`, {
      configFile: join(repoRoot, 'examples/deployable-agent/langgraph.json'),
      env: { AGENT_SERVER_AUTH: 'none', GREETING_SECRET: 'bench', LOG_LEVEL: 'warn' },
    });
    bareStarts.push(ms(t));
    await fetch(`${server.url}/runs/wait`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ assistant_id: 'greeter', input: { messages: [{ role: 'user', content: 'hi' }] } }),
    }).then((r) => r.text());
    bareRss = rssMiB(server.process.child.pid!);
    await server.stop();
  }

  cp = await startControlPlane('bench-deploy', 1, { LOG_LEVEL: 'warn', DEPLOYMENTS_DIR: join(scratch, 'deployments') });
  const headers = { 'x-api-key': cp.apiKey, 'content-type': 'application/json' };
  const runBody = JSON.stringify({ assistant_id: 'greeter', input: { messages: [{ role: 'user', content: 'hi' }] } });

  // Create: POST to DEPLOYED, one after the other.
  progress(`create: ${options.deploys} deployments, one after the other`);
  const deployTimes: number[] = [];
  let main: { id: string; revisionId: string; url: string } | undefined;
  for (let i = 0; i < options.deploys; i++) {
    const t = performance.now();
    const d = await createDeployment(`bench-${Date.now()}-${i}`);
    await revisionDeployed(d.id, d.revisionId);
    deployTimes.push(ms(t));
    main ??= d;
  }

  // Rollouts under load on the deployment's URL.
  progress(
    `rollout: ${options.rollouts} PATCHes while ${options.callers} clients call /runs/wait on the deployment's URL`,
  );
  const pool = new Pool(new URL(main!.url).origin, { connections: options.callers });
  const path = new URL(main!.url).pathname;
  const runWait = async () => {
    const res = await pool.request({ method: 'POST', path: `${path}/runs/wait`, headers, body: runBody });
    const text = await res.body.text();
    return res.statusCode === 200 && text.includes('bench');
  };
  const rolloutTimes: number[] = [];
  const rollouts = (async () => {
    for (let i = 1; i <= options.rollouts; i++) {
      tagWithPrefix(`r${i}`, `Hello ${i}`);
      const t = performance.now();
      const res = await call('PATCH', `/v2/deployments/${main!.id}`, {
        source_revision_config: { repo_ref: `refs/tags/r${i}` },
      });
      if (res.status !== 200) throw new Error(`patch: ${res.status} ${JSON.stringify(res.body)}`);
      await revisionDeployed(main!.id, res.body.latest_revision_id);
      rolloutTimes.push(ms(t));
    }
    // Past the last drain: the old server's stop is part of what callers must not notice.
    await new Promise((r) => setTimeout(r, 6_000));
  })();
  const during = await callersUntil(rollouts, runWait);
  await rollouts;

  // Gateway: GET /ok through the deployment's URL, and on its agent server directly.
  progress(`gateway: GET /ok through the deployment's URL and directly, ${options.seconds} s each`);
  const fold = new DeploymentState(cp.config, createLogger('bench', 'warn'));
  await fold.start();
  const d = fold.deploymentById(main!.id)!;
  const serverUrl = d.revisions.find((r) => r.id === d.activeRevisionId)!.serverUrl!;
  await fold.close();
  const rate = async (base: string) => {
    const p = new Pool(new URL(base).origin, { connections: options.callers });
    const prefix = new URL(base).pathname.replace(/\/$/, '');
    const r = await callersUntil(new Promise((res) => setTimeout(res, options.seconds * 1000)), async () => {
      const res = await p.request({ method: 'GET', path: `${prefix}/ok` });
      await res.body.text();
      return res.statusCode === 200;
    });
    await p.close();
    return {
      rps: round(r.calls / options.seconds, 0),
      p50_ms: round(percentile(r.latencies, 50), 2),
      failed: r.failed,
    };
  };
  const viaGateway = await rate(main!.url);
  const direct = await rate(serverUrl);

  // Memory: many deployments at once.
  progress(`memory: ${options.memoryDeployments} deployments created at once`);
  for (const id of created.splice(0)) await call('DELETE', `/v2/deployments/${id}`);
  await pool.close();
  const t = performance.now();
  const many = await Promise.all(
    Array.from({ length: options.memoryDeployments }, (_, i) => createDeployment(`bench-many-${Date.now()}-${i}`)),
  );
  await Promise.all(many.map((x) => revisionDeployed(x.id, x.revisionId)));
  const allDeployedMs = ms(t);
  // Each serves once, so what it holds includes a run's work.
  await Promise.all(
    many.map((x) => fetch(`${x.url}/runs/wait`, { method: 'POST', headers, body: runBody }).then((r) => r.text())),
  );
  const rss = many
    .flatMap((x) => serverPids(x.revisionId))
    .map(rssMiB)
    .filter((v): v is number => v !== null);
  const controlPlaneRss = rssMiB(cp.replicas[0]!.child.pid!);

  const result = {
    bench: 'deploy',
    options,
    goals,
    baseline_bare_server: { start_to_ok_ms: stats(bareStarts), rss_mib: round(bareRss, 0) },
    create_to_deployed_ms: stats(deployTimes),
    rollout_to_deployed_ms: stats(rolloutTimes),
    calls_during_rollouts: {
      calls: during.calls,
      failed: during.failed,
      failures: during.failures,
      p50_ms: round(percentile(during.latencies, 50), 1),
      p99_ms: round(percentile(during.latencies, 99), 1),
      max_ms: round(Math.max(...during.latencies), 1),
    },
    gateway_ok: { via_deployment_url: viaGateway, direct_to_server: direct },
    memory: {
      deployments: options.memoryDeployments,
      all_deployed_ms: round(allDeployedMs, 0),
      servers_found: rss.length,
      per_deployment_rss_mib: stats(rss),
      total_servers_rss_mib: round(
        rss.reduce((a, b) => a + b, 0),
        0,
      ),
      control_plane_rss_mib: round(controlPlaneRss, 0),
    },
    met: {
      deployed_p50: (percentile(deployTimes, 50) ?? Infinity) < goals.deployed_p50_ms,
      no_failed_call_during_rollouts: during.failed === goals.failed_calls_during_rollouts,
    },
  };
  for (const x of many) created.push(x.id);
  benchRun.finish(result);
}

try {
  await main();
} finally {
  if (cp) {
    for (const id of created) await call('DELETE', `/v2/deployments/${id}`).catch(() => undefined);
    await cp.stop();
  }
  rmSync(scratch, { recursive: true, force: true });
}
