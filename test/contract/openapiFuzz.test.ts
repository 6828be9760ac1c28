// Property-based requests generated from each service's own OpenAPI document by schemathesis,
// good and bad alike, with an API key, and all its checks: whatever is sent, no answer may be a
// 5xx (a bad request is the caller's fault and must say so with a 4xx); every answer's status,
// headers, content type and body must be what the document lists for that operation; what the
// document admits is accepted and what it rules out refused; a method a path does not serve is
// a 405 naming, in Allow, the ones it does. So the document is the contract a generated client
// or a fuzzer can rely on. The answers of documented conventions the checks cannot know (A2A's
// JSON-RPC errors, the filter language's 400s…) are listed, with why, in schemathesis.toml.
// Bounded so it fits in CI (FUZZ_MAX_EXAMPLES cases per operation and phase, default 10);
// FUZZ_SEED replays a run, whose seed every failure prints. `npm run fuzz` is the long run (100
// cases unless FUZZ_MAX_EXAMPLES says), ending with one line of totals for the four services.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { startAgentServer, type AgentServer } from '../support/agentServer.ts';
import { ensurePythonEnv, FUZZ_PYTHON, type PythonEnv } from '../support/pythonEnv.ts';
import { fuzzOpenApi, type FuzzResult } from '../support/schemathesis.ts';
import { startControlPlane, type ControlPlaneStack } from '../support/controlPlane.ts';
import { startChatApp, type ChatAppProcess } from '../support/chatApp.ts';
import { DEFAULT_WORKSPACE_ID } from '../../services/tenancy/index.ts';

const maxExamples = Number(process.env.FUZZ_MAX_EXAMPLES ?? 10);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
/** Per service: 15 minutes at the suite's 10 cases, growing with them for a long run. */
const perServiceMs = Math.max(900_000, maxExamples * 90_000);

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
  const errors = r.serverErrors.slice(0, 10).map((e) => `  ${e.status} ${e.method} ${e.url}\n    request: ${e.requestBody}\n    response: ${e.responseBody}`);
  const failures = r.failures.map((f) => `  ${f.operation}: ${f.check} (${f.code}) answered ${f.status}: ${f.message}\n    response: ${f.response}`);
  return [
    `${name}: ${r.requests} requests over ${r.operations} operations, ${r.serverErrors.length} answered 5xx, ` +
      `${r.failures.length} failed checks, ${r.errors.length} operations schemathesis could not test (seed ${r.seed})`,
    ...errors,
    ...failures,
    ...r.errors.map((e) => `  error: ${e}`),
    `replay: ${r.command}`,
  ].join('\n');
}

async function fuzz(name: string, url: string, apiKey: string | undefined, minOperations: number, excludePaths?: string[]): Promise<void> {
  // The key's workspace in X-Tenant-Id (a header every authenticated route documents): a UUID
  // drawn for it would name a workspace the key has no access to, and stop the request at 403.
  const headers = apiKey ? { 'X-Api-Key': apiKey, 'X-Tenant-Id': DEFAULT_WORKSPACE_ID } : undefined;
  const result = await fuzzOpenApi({ python, name, schemaUrl: `${url}/docs/json`, baseUrl: url, headers, maxExamples, seed, excludePaths, timeoutMs: perServiceMs - 30_000 });
  results.push({ name, result });
  console.log(summary(name, result).split('\n')[0]);
  expect(result.operations, result.output.slice(-3000)).toBeGreaterThanOrEqual(minOperations);
  expect(result.requests).toBeGreaterThan(20 * minOperations);
  expect(result.serverErrors, summary(name, result)).toEqual([]);
  expect(result.failures, summary(name, result)).toEqual([]);
}

describe('whatever the fuzzer sends: no 5xx, and only documented statuses', () => {
  test('tracing API (/docs/json)', () => fuzz('tracing', tracing.url, tracing.apiKey, 70), perServiceMs);
  test('agent server (/docs/json)', () => fuzz('agent-server', agent.url, agent.apiKey, 35), perServiceMs);
  test('control plane (/docs/json)', () => fuzz('control-plane', controlPlane.urls[0]!, controlPlane.apiKey, 18), perServiceMs);
  // The example chat app's event stream stays open until the thread's run ends, which a fuzzed
  // request never starts: each would wait out the request timeout, so it is left to its own tests
  // (test/examples/chatApp.test.ts).
  test('example chat app (/docs/json)', () => fuzz('chat-app', chatApp.url, chatApp.apiKey, 12, ['/api/threads/{threadId}/stream']), perServiceMs);
});
