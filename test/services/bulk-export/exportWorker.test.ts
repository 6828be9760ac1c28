// The export worker, on a stack of its own: a run ClickHouse will always refuse (the runs table
// altered by hand, so the export's query names a column that is gone) fails at once, with
// ClickHouse's reason, instead of being retried BULK_EXPORT_MAX_RETRIES times.
import { randomBytes } from 'node:crypto';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { stackCall, stackClickHouse, startTracingStack, type TracingStack } from '../../support/tracingStack.ts';
import { sql } from '../../../platform/clickhouse/sql.ts';
import { makeTrace, multipartBody, postParts } from '../../support/runFactory.ts';
import { waitFor } from '../../support/serviceProcess.ts';

const bucket = `refused-${randomBytes(3).toString('hex')}`;
const HOUR = 3600_000;
let stack: TracingStack;
const call = (method: string, path: string, json?: unknown) => stackCall(stack, method, path, json);

beforeAll(async () => {
  stack = await startTracingStack('exportrefused', {
    BULK_EXPORT_LAG_SECONDS: '0',
    BULK_EXPORT_POLL_MS: '250',
    BULK_EXPORT_RETRY_DELAY_MS: '100',
  });
  stack.startExportWorker();
  const s3 = new S3Client({
    endpoint: stack.env.S3_ENDPOINT,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: stack.env.S3_ACCESS_KEY_ID!, secretAccessKey: stack.env.S3_SECRET_ACCESS_KEY! },
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  s3.destroy();
  const runs = makeTrace(2, { session_name: 'refused' }, (Date.now() - HOUR) * 1000);
  const { body, contentType } = multipartBody(postParts(runs));
  expect(
    (
      await fetch(`${stack.url}/runs/multipart`, {
        method: 'POST',
        headers: { 'x-api-key': stack.apiKey, 'content-type': contentType },
        body,
      })
    ).status,
  ).toBe(202);
  const ch = stackClickHouse(stack);
  await waitFor(
    'the runs to be projected',
    async () => Number((await ch.query<{ n: string }>(sql`SELECT count() AS n FROM runs FINAL`))[0]!.n) === runs.length,
    60_000,
    250,
  );
  await ch.close();
}, 240_000);

afterAll(() => stack?.stop());

test('a run whose query ClickHouse will always refuse fails at once, with the reason, and is not retried', async () => {
  const credentials = { access_key_id: stack.env.S3_ACCESS_KEY_ID, secret_access_key: stack.env.S3_SECRET_ACCESS_KEY };
  const dest = await call('POST', '/bulk-exports/destinations', {
    display_name: 'refused',
    config: { bucket_name: bucket, prefix: 'exports', endpoint_url: stack.env.S3_ENDPOINT },
    credentials,
  });
  expect(dest.status, JSON.stringify(dest.body)).toBe(200);
  const project = (await call('POST', '/runs/query', { is_root: true, select: ['id', 'session_id'], limit: 1 })).body
    .runs[0].session_id as string;
  const ch = stackClickHouse(stack);
  await ch.exec(sql`ALTER TABLE runs DROP COLUMN tags`);
  await ch.close();

  const created = await call('POST', '/bulk-exports', {
    bulk_export_destination_id: dest.body.id,
    session_id: project,
    start_time: new Date(Date.now() - 6 * HOUR).toISOString(),
    end_time: new Date().toISOString(),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const failed = await waitFor(
    'the export to fail',
    async () => {
      const e = (await call('GET', `/bulk-exports/${created.body.id}`)).body;
      return e?.status === 'Failed' ? e : null;
    },
    60_000,
    200,
  );
  expect(failed.status).toBe('Failed');
  const runs = (await call('GET', `/bulk-exports/${created.body.id}/runs`)).body as Array<{
    status: string;
    retry_number: number;
    errors: Record<string, string>;
  }>;
  expect(runs.length).toBeGreaterThan(0);
  for (const run of runs) {
    expect(run.status).toBe('Failed');
    expect(run.retry_number, 'no retry').toBe(0);
    expect(run.errors.retry_0).toMatch(/Code: \d+.*tags/s);
  }
}, 120_000);
