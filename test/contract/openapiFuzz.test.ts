// Property-based requests generated from each service's own OpenAPI document by schemathesis,
// good and bad alike, with an API key, and all its checks: whatever is sent, no answer may be a
// 5xx (a bad request is the caller's fault and must say so with a 4xx); every answer's status,
// headers, content type and body must be what the document lists for that operation; what the
// document admits is accepted and what it rules out refused; a method a path does not serve is
// a 405 naming, in Allow, the ones it does. So the document is the contract a generated client
// or a fuzzer can rely on. The answers of documented conventions the checks cannot know (A2A's
// JSON-RPC errors, the filter language's 400s…) are listed, with why, in schemathesis.toml.
// Bounded so it fits in CI (FUZZ_MAX_EXAMPLES cases per operation in the fuzzing phase, default 5,
// after the coverage phase's cases at every boundary the document states);
// FUZZ_SEED replays a run, whose seed every failure prints. `npm run fuzz` is the long run (100
// cases unless FUZZ_MAX_EXAMPLES says), ending with one line of totals for the four services.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, test, type ExpectStatic } from 'vitest';
import { startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { startAgentServer, type AgentServer } from '../support/agentServer.ts';
import { ensurePythonEnv, FUZZ_PYTHON, type PythonEnv } from '../support/pythonEnv.ts';
import { fuzzOpenApi, type FuzzResult } from '../support/schemathesis.ts';
import { startControlPlane, type ControlPlaneStack } from '../support/controlPlane.ts';
import { startChatApp, type ChatAppProcess } from '../support/chatApp.ts';
import { DEFAULT_WORKSPACE_ID } from '../../services/tenancy/index.ts';

const maxExamples = Number(process.env.FUZZ_MAX_EXAMPLES ?? 5);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
/**
 * Per service: 8 minutes at the suite's 5 cases (a run takes 2 to 4 under the whole suite's load),
 * growing with them for a long run. A run cut off by it fails, naming the last operation it finished.
 */
const perServiceMs = Math.max(480_000, maxExamples * 90_000);

let python: PythonEnv;
let tracing: TracingStack;
let agent: AgentServer;
let controlPlane: ControlPlaneStack;
let chatApp: ChatAppProcess;
/** Every service's run, for the totals printed at the end. */
const results: Array<{ name: string; result: FuzzResult }> = [];

beforeAll(async () => {
  // Each kept as it starts, and all waited for, so that afterAll stops the others when one fails to.
  const started = await Promise.allSettled([
    ensurePythonEnv(FUZZ_PYTHON).then((p) => (python = p)),
    startTracingStack('fuzz').then((s) => (tracing = s)),
    startAgentServer('fuzz').then((s) => (agent = s)),
    // The API only: fuzzed github deployments are not to be cloned and built.
    startControlPlane('fuzz', 1, { CONTROL_PLANE_DEPLOYER: 'none' }).then((s) => (controlPlane = s)),
    startChatApp('fuzz').then((s) => (chatApp = s)),
  ]);
  for (const s of started) if (s.status === 'rejected') throw s.reason;
}, 900_000);
afterAll(async () => {
  // One line for all of it (what `npm run fuzz` ends with).
  const sum = (f: (r: FuzzResult) => number) => results.reduce((n, { result }) => n + f(result), 0);
  if (results.length > 0)
    console.log(
      `fuzzed ${results.map((r) => r.name).join(', ')}: ${sum((r) => r.requests)} requests over ${sum((r) => r.operations)} operations, ` +
        `${sum((r) => r.serverErrors.length)} answered 5xx, ${sum((r) => r.failures.length)} failed checks`,
    );
  await Promise.all([tracing?.stop(), agent?.stop(), controlPlane?.stop(), chatApp?.stop()]);
});

/** A readable account of a run, for the assertion message and the log. */
function summary(name: string, r: FuzzResult): string {
  const errors = r.serverErrors
    .slice(0, 10)
    .map((e) => `  ${e.status} ${e.method} ${e.url}\n    request: ${e.requestBody}\n    response: ${e.responseBody}`);
  const failures = r.failures.map(
    (f) => `  ${f.operation}: ${f.check} (${f.code}) answered ${f.status}: ${f.message}\n    response: ${f.response}`,
  );
  return [
    `${name}: ${r.requests} requests over ${r.operations} operations, ${r.serverErrors.length} answered 5xx, ` +
      `${r.failures.length} failed checks, ${r.errors.length} operations schemathesis could not test (seed ${r.seed})`,
    ...(r.unfinished ? [`  ${r.unfinished}`] : []),
    ...errors,
    ...failures,
    ...r.errors.map((e) => `  error: ${e}`),
    `replay: ${r.command}`,
  ].join('\n');
}

async function fuzz(
  expect: ExpectStatic,
  name: string,
  url: string,
  apiKey: string | undefined,
  minOperations: number,
  hooks?: string,
): Promise<void> {
  // The key's workspace in X-Tenant-Id (a header every authenticated route documents): a UUID
  // drawn for it would name a workspace the key has no access to, and stop the request at 403.
  const headers = apiKey ? { 'X-Api-Key': apiKey, 'X-Tenant-Id': DEFAULT_WORKSPACE_ID } : undefined;
  const result = await fuzzOpenApi({
    python,
    name,
    schemaUrl: `${url}/docs/json`,
    baseUrl: url,
    headers,
    maxExamples,
    seed,
    hooks,
    timeoutMs: perServiceMs - 30_000,
  });
  results.push({ name, result });
  console.log(summary(name, result).split('\n')[0]);
  expect(result.unfinished, summary(name, result)).toBeUndefined();
  expect(result.operations, result.output.slice(-3000)).toBeGreaterThanOrEqual(minOperations);
  expect(result.requests).toBeGreaterThan(20 * minOperations);
  expect(result.serverErrors, summary(name, result)).toEqual([]);
  expect(result.failures, summary(name, result)).toEqual([]);
  // every operation tested: none that schemathesis could not generate or send requests for
  expect(result.errors, summary(name, result)).toEqual([]);
}

// The four at once: much of a run is waiting on the service (a read that waits for its projector
// to catch up, a Kafka append, a chat run), which another service's run fills.
describe.concurrent('every operation of the four services, under every check: no 5xx, the document kept', () => {
  test(
    'tracing API (/docs/json)',
    ({ expect }) => fuzz(expect, 'tracing', tracing.url, tracing.apiKey, 218),
    perServiceMs,
  );
  // A run's after_seconds holds whoever waits for it: the hooks send delays of a second at most (agentRunHooks.py).
  test(
    'agent server (/docs/json)',
    ({ expect }) =>
      fuzz(expect, 'agent-server', agent.url, agent.apiKey, 73, join(import.meta.dirname, 'agentRunHooks.py')),
    perServiceMs,
  );
  test(
    'control plane (/docs/json)',
    ({ expect }) => fuzz(expect, 'control-plane', controlPlane.urls[0]!, controlPlane.apiKey, 25),
    perServiceMs,
  );
  // The example chat app's event stream follows the thread's next run to its end: the hooks start
  // runs of the threads whose streams the fuzzer opens, so that each ends (chatStreamHooks.py).
  test(
    'example chat app (/docs/json)',
    ({ expect }) =>
      fuzz(expect, 'chat-app', chatApp.url, chatApp.apiKey, 17, join(import.meta.dirname, 'chatStreamHooks.py')),
    perServiceMs,
  );
});
