// Property-based requests generated from each service's own OpenAPI document by schemathesis,
// good and bad alike: whatever is sent, no answer may be a 5xx (a bad request is the caller's
// fault, and must say so with a 4xx). Bounded so it fits in CI (FUZZ_MAX_EXAMPLES cases per
// operation and phase, default 10); FUZZ_SEED replays a run, whose seed every failure prints.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { ensurePythonEnv, FUZZ_PYTHON, type PythonEnv } from '../support/pythonEnv.ts';
import { fuzzOpenApi, type FuzzResult } from '../support/schemathesis.ts';

const maxExamples = Number(process.env.FUZZ_MAX_EXAMPLES ?? 10);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

let python: PythonEnv;
let tracing: TracingStack;

beforeAll(async () => {
  [python, tracing] = await Promise.all([ensurePythonEnv(FUZZ_PYTHON), startTracingStack('fuzz')]);
}, 900_000);
afterAll(async () => {
  await tracing?.stop();
});

/** A readable account of a run, for the assertion message and the log. */
function summary(name: string, r: FuzzResult): string {
  const errors = r.serverErrors.slice(0, 10).map((e) => `  ${e.status} ${e.method} ${e.url}\n    request: ${e.requestBody}\n    response: ${e.responseBody}`);
  return `${name}: ${r.requests} requests over ${r.operations} operations, ${r.serverErrors.length} answered 5xx (seed ${r.seed})\n${errors.join('\n')}\nreplay: ${r.command}`;
}

describe('no 5xx, whatever the fuzzer sends', () => {
  test('tracing API (/docs/json)', async () => {
    const result = await fuzzOpenApi({ python, name: 'tracing', schemaUrl: `${tracing.url}/docs/json`, baseUrl: tracing.url, headers: { 'X-Api-Key': tracing.apiKey }, maxExamples, seed });
    console.log(summary('tracing API', result).split('\n')[0]);
    expect(result.operations, result.output.slice(-3000)).toBeGreaterThan(50);
    expect(result.requests).toBeGreaterThan(1000);
    expect(result.serverErrors, summary('tracing API', result)).toEqual([]);
  }, 900_000);
});
