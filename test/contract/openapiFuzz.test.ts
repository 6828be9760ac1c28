// Property-based requests generated from each service's own OpenAPI document by schemathesis,
// good and bad alike, with an API key: whatever is sent, no answer may be a 5xx (a bad request is
// the caller's fault and must say so with a 4xx), and every answer's status must be one the
// document lists for that operation (so a generated client or a fuzzer knows the contract).
// Bounded so it fits in CI (FUZZ_MAX_EXAMPLES cases per operation and phase, default 10);
// FUZZ_SEED replays a run, whose seed every failure prints.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { startAgentServer, type AgentServer } from '../support/agentServer.ts';
import { ensurePythonEnv, FUZZ_PYTHON, type PythonEnv } from '../support/pythonEnv.ts';
import { fuzzOpenApi, type FuzzResult } from '../support/schemathesis.ts';
import { startControlPlane, type ControlPlaneStack } from '../support/controlPlane.ts';

const maxExamples = Number(process.env.FUZZ_MAX_EXAMPLES ?? 10);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

let python: PythonEnv;
let tracing: TracingStack;
let agent: AgentServer;
let controlPlane: ControlPlaneStack;

beforeAll(async () => {
  [python, tracing, agent, controlPlane] = await Promise.all([
    ensurePythonEnv(FUZZ_PYTHON),
    startTracingStack('fuzz'),
    startAgentServer('fuzz'),
    // The API only: fuzzed github deployments are not to be cloned and built.
    startControlPlane('fuzz', 1, { CONTROL_PLANE_DEPLOYER: 'none' }),
  ]);
}, 900_000);
afterAll(async () => {
  await Promise.all([tracing?.stop(), agent?.stop(), controlPlane?.stop()]);
});

/** A readable account of a run, for the assertion message and the log. */
function summary(name: string, r: FuzzResult): string {
  const errors = r.serverErrors.slice(0, 10).map((e) => `  ${e.status} ${e.method} ${e.url}\n    request: ${e.requestBody}\n    response: ${e.responseBody}`);
  const undocumented = r.undocumented.map((u) => `  ${u.operation} answered ${u.status} (documented: ${u.documented})`);
  return [
    `${name}: ${r.requests} requests over ${r.operations} operations, ${r.serverErrors.length} answered 5xx, ` +
      `${r.undocumented.length} undocumented statuses (seed ${r.seed})`,
    ...errors,
    ...undocumented,
    `replay: ${r.command}`,
  ].join('\n');
}

async function fuzz(name: string, url: string, apiKey: string, minOperations: number): Promise<void> {
  const result = await fuzzOpenApi({ python, name, schemaUrl: `${url}/docs/json`, baseUrl: url, headers: { 'X-Api-Key': apiKey }, maxExamples, seed });
  console.log(summary(name, result).split('\n')[0]);
  expect(result.operations, result.output.slice(-3000)).toBeGreaterThanOrEqual(minOperations);
  expect(result.requests).toBeGreaterThan(20 * minOperations);
  expect(result.serverErrors, summary(name, result)).toEqual([]);
  expect(result.undocumented, summary(name, result)).toEqual([]);
}

describe('whatever the fuzzer sends: no 5xx, and only documented statuses', () => {
  test('tracing API (/docs/json)', () => fuzz('tracing', tracing.url, tracing.apiKey, 70), 900_000);
  test('agent server (/docs/json)', () => fuzz('agent-server', agent.url, agent.apiKey, 35), 900_000);
  test('control plane (/docs/json)', () => fuzz('control-plane', controlPlane.urls[0]!, controlPlane.apiKey, 18), 900_000);
});
