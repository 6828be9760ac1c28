// ensureStackUp is idempotent: with the stack running it starts nothing and answers quickly.
import { test, expect } from 'vitest';
import { ensureStackUp, stackStatus } from '../../infra/stack.ts';
import { provideInfra } from '../support/infra.ts';

test.skipIf(process.env.TEST_INFRA === 'containers')('a second ensureStackUp reuses the running servers', async () => {
  const endpoints = await provideInfra();
  const before = await stackStatus();
  expect(before.map((entry) => entry.running)).toEqual([true, true, true, true]);
  expect(await ensureStackUp()).toEqual(endpoints);
  const after = await stackStatus();
  expect(after.map((entry) => entry.pid)).toEqual(before.map((entry) => entry.pid));
  expect(after.map((entry) => entry.endpoint)).toEqual([endpoints.kafkaBrokers, endpoints.clickhouseUrl, endpoints.s3Endpoint, endpoints.postgresUrl]);
});
