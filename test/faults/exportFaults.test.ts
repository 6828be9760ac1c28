// Bulk export under faults, on a stack of its own: ClickHouse down when an export is due (the
// run fails, is retried with backoff, and completes once ClickHouse is back), and the Kafka
// broker restarted while a scheduled export works through its windows (every window still
// exported exactly once: no file lost, none doubled, every row counted once), and a worker that
// died after completing a file but before recording it (the next attempt finds the file and
// records it instead of writing its rows again). On a Kafka broker and a ClickHouse server of its
// own (privateServers.ts), so the rest of the suite runs on beside it.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { listKeys } from '../support/bulkExportClient.ts';
import { stackCall, startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { makeTrace, multipartBody, postParts } from '../support/runFactory.ts';
import { waitFor } from '../support/serviceProcess.ts';
import { privateClickHouse, privateKafka, type PrivateServer } from '../support/privateServers.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { BlobStore } from '../../platform/blobStore.ts';
import { event, EventLog } from '../../platform/kafka/eventLog.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import { dueRuns } from '../../services/bulk-export/exportSchedule.ts';
import { exportEventKey } from '../../services/bulk-export/exportState.ts';
import { exportRunsToParquet } from '../../services/bulk-export/parquet/runsExport.ts';

const HOUR = 3600_000;
const hourAligned = (hoursAgo: number) =>
  new Date(Math.floor(Date.now() / HOUR) * HOUR - hoursAgo * HOUR).toISOString();
let kafka: PrivateServer;
let clickhouse: PrivateServer;
let stack: TracingStack;
let s3: S3Client;
let projectId: string;
let destinationId: string;
const bucket = `export-faults-${Date.now()}`;

const call = (method: string, path: string, json?: unknown) => stackCall(stack, method, path, json);

/** The export's runs once `ready` holds for them (polling through outages). */
async function runsWhen(exportId: string, ready: (runs: any[]) => boolean, timeoutMs = 120_000): Promise<any[]> {
  return waitFor(
    `runs of export ${exportId}`,
    async () => {
      const res = await call('GET', `/bulk-exports/${exportId}/runs`).catch(() => null);
      return res?.status === 200 && ready(res.body) ? res.body : null;
    },
    timeoutMs,
    250,
  );
}

async function expectExactlyOnce(exportId: string, runs: any[], rows: number): Promise<void> {
  const files = runs.flatMap((r) => r.metadata.result.exported_files as string[]);
  expect(new Set(files).size).toBe(files.length);
  expect(await listKeys(bucket, `exports/export_id=${exportId}/`, s3)).toEqual([...files].sort());
  expect(runs.reduce((n, r) => n + r.metadata.result.rows_written, 0)).toBe(rows);
}

beforeAll(async () => {
  [kafka, clickhouse] = await Promise.all([privateKafka('exportfaults'), privateClickHouse('exportfaults')]);
  stack = await startTracingStack('exportfaults', {
    KAFKA_BROKERS: kafka.endpoint,
    CLICKHOUSE_URL: clickhouse.endpoint,
    BULK_EXPORT_LAG_SECONDS: '0',
    BULK_EXPORT_POLL_MS: '250',
    BULK_EXPORT_RETRY_DELAY_MS: '500',
    BULK_EXPORT_LEASE_MS: '5000',
  });
  stack.startExportWorker();
  s3 = new S3Client({
    endpoint: stack.env.S3_ENDPOINT,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: stack.env.S3_ACCESS_KEY_ID!, secretAccessKey: stack.env.S3_SECRET_ACCESS_KEY! },
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  // Ten traces of three runs, one every 5 hours over the last two days.
  const runs = Array.from({ length: 10 }, (_, i) =>
    makeTrace(2, { session_name: 'export-faults' }, (Date.now() - (i * 5 + 1) * HOUR) * 1000),
  ).flat();
  const { body, contentType } = multipartBody(postParts(runs));
  const res = await fetch(`${stack.url}/runs/multipart`, {
    method: 'POST',
    headers: { 'x-api-key': stack.apiKey, 'content-type': contentType },
    body,
  });
  expect(res.status).toBe(202);
  await waitFor(
    'the runs to be projected',
    async () => {
      const q = await call('POST', '/runs/query', {
        filter: 'gte(start_time, "2000-01-01T00:00:00Z")',
        select: ['id', 'session_id'],
        limit: 100,
      });
      if (q.body?.runs?.length === 30) projectId = q.body.runs[0].session_id;
      return q.body?.runs?.length === 30;
    },
    60_000,
    250,
  );
  const dest = await call('POST', '/bulk-exports/destinations', {
    display_name: 'faults',
    config: { bucket_name: bucket, prefix: 'exports', endpoint_url: stack.env.S3_ENDPOINT },
    credentials: { access_key_id: stack.env.S3_ACCESS_KEY_ID, secret_access_key: stack.env.S3_SECRET_ACCESS_KEY },
  });
  expect(dest.status, JSON.stringify(dest.body)).toBe(200);
  destinationId = dest.body.id;
}, 240_000);

afterAll(async () => {
  await Promise.all([kafka?.start(), clickhouse?.start()]);
  s3?.destroy();
  await stack?.stop();
  await Promise.all([kafka?.remove(), clickhouse?.remove()]);
}, 300_000);

test('ClickHouse down when an export is due: the run fails, is retried with backoff, and completes once ClickHouse is back', async () => {
  await clickhouse.stop(0);
  try {
    const created = await call('POST', '/bulk-exports', {
      bulk_export_destination_id: destinationId,
      session_id: projectId,
      start_time: hourAligned(60),
      end_time: new Date().toISOString(),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const failing = await runsWhen(created.body.id, (runs) => runs.some((r) => r.retry_number >= 2));
    const run = failing.find((r) => r.retry_number >= 2);
    expect(run.errors.retry_0).toMatch(/ClickHouse/);
    expect(run.status).toBe('Running');
    await clickhouse.start();
    const done = await runsWhen(
      created.body.id,
      (runs) => runs.length > 0 && runs.every((r) => r.status === 'Completed'),
    );
    await expectExactlyOnce(created.body.id, done, 30);
    expect((await call('GET', `/bulk-exports/${created.body.id}`)).body.status).toBe('Completed');
  } finally {
    await clickhouse.start();
  }
}, 300_000);

test('the Kafka broker restarted while a scheduled export works through its windows: every window exported exactly once', async () => {
  // Hourly windows over the last 60 hours: 60 runs, most of them empty.
  const created = await call('POST', '/bulk-exports', {
    bulk_export_destination_id: destinationId,
    session_id: projectId,
    start_time: hourAligned(60),
    interval_hours: 1,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  await runsWhen(created.body.id, (runs) => runs.filter((r) => r.status === 'Completed').length >= 5);
  await kafka.stop(0);
  await new Promise((r) => setTimeout(r, 5000));
  await kafka.start();
  const runs = await runsWhen(
    created.body.id,
    (list) => list.length >= 60 && list.every((r) => r.status === 'Completed'),
    240_000,
  );
  await expectExactlyOnce(created.body.id, runs, 30);
}, 300_000);

test('a worker that died after completing a file but before recording it: the next attempt finds the file, records it, and writes no row twice', async () => {
  await stack.exportWorker!.stop();
  const start = Date.now() - 20 * HOUR;
  const end = Date.now() - 30_000;
  const created = await call('POST', '/bulk-exports', {
    bulk_export_destination_id: destinationId,
    session_id: projectId,
    start_time: new Date(start).toISOString(),
    end_time: new Date(end).toISOString(),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const e = created.body;
  const tenantId = e.tenant_id as string;
  const key = exportEventKey(tenantId, e.id);
  const log = new EventLog(stack.config, 'test-ghost-worker');
  const ch = ClickHouseClient.fromConfig(stack.config);
  const blobs = new BlobStore(stack.config);
  try {
    // A "ghost" worker schedules and claims the runs, writes every file, announces each as
    // pending, and dies before recording any of them as written.
    const { runs } = dueRuns(
      { id: e.id, startTime: start * 1000, endTime: end * 1000, intervalHours: null },
      Date.now() * 1000,
      0,
    );
    const now = Date.now() * 1000;
    await log.append(
      runs.flatMap((r) => [
        event('ExportRunScheduled', key, {
          tenant_id: tenantId,
          export_id: e.id,
          run_id: r.id,
          start_time: r.startTime,
          end_time: r.endTime,
          scheduled_at: now,
        }),
        event('ExportRunStarted', key, {
          tenant_id: tenantId,
          export_id: e.id,
          run_id: r.id,
          attempt: 0,
          worker_id: 'ghost',
          started_at: now,
        }),
      ]),
    );
    const location = { bucket, prefix: 'exports', endpointUrl: stack.env.S3_ENDPOINT!, region: null };
    let written = 0;
    for (const r of runs) {
      const task = {
        tenantId,
        sessionId: projectId,
        exportId: e.id,
        runId: r.id,
        attempt: 0,
        startMicros: r.startTime,
        endMicros: r.endTime,
        formatVersion: 'v1' as const,
        compression: 'gzip' as const,
        exportFields: null,
        filter: null,
        resumeAfter: null,
      };
      const result = await exportRunsToParquet({ ch, tables: LIVE_TABLES, blobs, s3 }, task, location, {
        signal: new AbortController().signal,
        maxFileBytes: 128 * 1024 * 1024,
        beforeFileCompletes: (f) =>
          log.append([
            event('ExportRunFilePending', key, {
              tenant_id: tenantId,
              export_id: e.id,
              run_id: r.id,
              attempt: 0,
              worker_id: 'ghost',
              file: f.key,
              file_rows: f.rows,
              cursor_start_time: f.cursor.startTime,
              cursor_id: f.cursor.id,
              recorded_at: Date.now() * 1000,
            }),
          ]),
        onFile: async () => {}, // died here: never recorded
      });
      written += result.rows;
    }
    expect(written).toBeGreaterThan(0);
    const ghostFiles = await listKeys(bucket, `exports/export_id=${e.id}/`, s3);
    const pending = (await call('GET', `/bulk-exports/${e.id}/runs`)).body.filter(
      (r: any) => r.metadata.result.pending_upload !== null,
    );
    expect(pending.length).toBe(ghostFiles.length);

    // A worker comes back: the ghost's claims time out, the runs are retried and find the files.
    stack.startExportWorker();
    const done = await runsWhen(
      e.id,
      (list) => list.length === runs.length && list.every((r) => r.status === 'Completed'),
    );
    await expectExactlyOnce(e.id, done, written);
    expect(await listKeys(bucket, `exports/export_id=${e.id}/`, s3)).toEqual(ghostFiles); // the ghost's files, and no other
    expect(done.every((r) => r.metadata.result.pending_upload === null)).toBe(true);
    expect(done.some((r) => r.retry_number === 1 && /stopped reporting/.test(r.errors.retry_0))).toBe(true);
  } finally {
    await log.close();
    await ch.close();
    blobs.close();
  }
}, 300_000);
