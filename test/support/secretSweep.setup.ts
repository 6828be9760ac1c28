// In every test process (vitest setupFiles): every answer a test gets through fetch is searched
// for the suite's secrets (secretSweep.ts), and a test file whose answers held one fails at its
// end, naming the request. Event streams are left out (their own tests read them; a copy would
// hold the connection open).
import { afterAll, expect } from 'vitest';
import { nameOf, secretsIn } from './secretSweep.ts';

const original = globalThis.fetch;
const findings: string[] = [];
const pending = new Set<Promise<void>>();

const describe = (input: Parameters<typeof fetch>[0], init?: RequestInit): string => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  return `${method} ${url.replace(/^https?:\/\/[^/]+/, '')}`;
};

globalThis.fetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
  const res = await original(input, init);
  if (res.body && !(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const check: Promise<void> = res
      .clone()
      .arrayBuffer()
      .then((body) => {
        for (const secret of secretsIn(Buffer.from(body)))
          findings.push(`${nameOf(secret)} in the answer (${res.status}) to ${describe(input, init)}`);
      })
      .catch(() => undefined)
      .finally(() => pending.delete(check));
    pending.add(check);
  }
  return res;
};

afterAll(async () => {
  await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, 5_000))]);
  expect(findings, 'answers that held a secret of the suite').toEqual([]);
});
