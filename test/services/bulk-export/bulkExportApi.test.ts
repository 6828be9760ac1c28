// The bulk-export API and worker on the shared stack: bad input, destination checks with real
// MinIO users, credentials that never leave encrypted, rotation, retries, cancellation, and
// exactly-once runs with a second worker.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeleteBucketCommand, DeleteObjectsCommand } from '@aws-sdk/client-s3';
import { Consumer, MessagesStreamModes, stringDeserializer } from '@platformatic/kafka';
import { afterAll, beforeAll, describe, expect, inject, test } from 'vitest';
import { createUserWithPolicy, removeUser } from '../../../infra/minioAdmin.ts';
import { api, createWorkspaces, waitForRun, type Workspace } from '../../support/tracingClient.ts';
import { makeTrace, multipartBody, postParts } from '../../support/runFactory.ts';
import {
  createBucket,
  destinationBody,
  listKeys,
  rootS3,
  waitForExport,
  waitForExportRuns,
} from '../../support/bulkExportClient.ts';
import { freePort, repoRoot, startService, type ServiceProcess } from '../../support/serviceProcess.ts';
import { topicName } from '../../../platform/kafka/topicAdmin.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { loadConfig } from '../../../platform/config.ts';
import { registerSecret } from '../../support/secretSweep.ts';

const RUN = randomBytes(3).toString('hex');
const BUCKET = `bulk-api-${RUN}`;
const users: string[] = [];
let ws: Workspace;
let projectId: string;

const post = (path: string, json: unknown, apiKey = ws.apiKey) => api(path, { method: 'POST', apiKey, json });
const patch = (path: string, json: unknown, apiKey = ws.apiKey) => api(path, { method: 'PATCH', apiKey, json });
const get = (path: string, apiKey = ws.apiKey) => api(path, { apiKey });

/** A MinIO user allowed `actions` on the test bucket's objects under `prefix`. */
async function minioUser(
  actions: string[],
  prefix = 'exports',
): Promise<{ access_key_id: string; secret_access_key: string }> {
  const access = `bulk-${RUN}-${users.length}`;
  const secret = registerSecret(randomBytes(16).toString('hex'));
  await createUserWithPolicy(access, secret, {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: actions, Resource: [`arn:aws:s3:::${BUCKET}/${prefix}/*`] }],
  });
  users.push(access);
  return { access_key_id: access, secret_access_key: secret };
}

async function newDestination(
  credentials?: { access_key_id: string; secret_access_key: string },
  bucket = BUCKET,
): Promise<string> {
  const res = await post('/bulk-exports/destinations', destinationBody(bucket, 'exports', credentials));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id;
}

const HOUR = 3600_000;
const hoursAgo = (h: number) => new Date(Math.floor(Date.now() / HOUR) * HOUR - h * HOUR).toISOString();

beforeAll(async () => {
  [ws] = (await createWorkspaces(1)) as [Workspace];
  await createBucket(BUCKET);
  const project = await post('/sessions', { name: `bulk-api-${RUN}` });
  projectId = project.body.id;
  // Three traces of three runs, one to three hours old: inside every export below, all due.
  const runs = [1, 2, 3].flatMap((h) =>
    makeTrace(2, { session_name: `bulk-api-${RUN}` }, (Date.now() - h * HOUR) * 1000),
  );
  const { body, contentType } = multipartBody(postParts(runs));
  const res = await api('/runs/multipart', {
    method: 'POST',
    apiKey: ws.apiKey,
    body,
    headers: { 'content-type': contentType },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await Promise.all(runs.map((r) => waitForRun(ws.apiKey, r.id)));
}, 120_000);

afterAll(async () => {
  for (const u of users) await removeUser(u).catch(() => {});
  const s3 = rootS3();
  const keys = await listKeys(BUCKET).catch(() => []);
  for (let i = 0; i < keys.length; i += 1000)
    await s3
      .send(
        new DeleteObjectsCommand({
          Bucket: BUCKET,
          Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })) },
        }),
      )
      .catch(() => {});
  await s3.send(new DeleteBucketCommand({ Bucket: BUCKET })).catch(() => {});
  s3.destroy();
});

describe('bad input is a 422 (a field not of its form) or a 400 (refused for what it asks) that says what is wrong, and nothing is written', () => {
  test('exports', async () => {
    const destination = await newDestination();
    const ok = {
      bulk_export_destination_id: destination,
      session_id: projectId,
      start_time: hoursAgo(3),
      end_time: hoursAgo(1),
    };
    const before = (await get('/bulk-exports')).body.length;
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [{ ...ok, start_time: undefined }, 422, /start_time/],
      [{ ...ok, end_time: undefined, interval_hours: 0 }, 422, /interval_hours must be >= 1/],
      [{ ...ok, end_time: undefined, interval_hours: 169 }, 422, /interval_hours must be <= 168/],
      [{ ...ok, end_time: undefined, interval_hours: 1.5 }, 422, /interval_hours must be integer/],
      [{ ...ok, start_time: 'yesterday' }, 422, /start_time/],
      [{ ...ok, compression: 'lz4' }, 422, /compression must be equal to one of the allowed values/],
      [{ ...ok, format_version: 'v3' }, 422, /format_version must be equal to one of the allowed values/],
      [{ ...ok, format: 'CSV' }, 422, /format must be equal to one of the allowed values/],
      [
        { ...ok, export_fields: ['id', 'nope', 'inputs'] },
        422,
        /export_fields\/1 must be equal to one of the allowed values/,
      ],
      [{ ...ok, export_fields: ['id', 'id'] }, 422, /export_fields must NOT have duplicate items/],
      [{ ...ok, session_id: 'not-a-uuid' }, 422, /session_id must match format "uuid"/],
      // each field of its form, the request refused for what it asks
      [{ ...ok, interval_hours: 2 }, 400, /end_time .*or interval_hours .*not both/],
      [{ ...ok, end_time: undefined }, 400, /end_time .*or interval_hours .*required/],
      [{ ...ok, end_time: ok.start_time }, 400, /end_time must be after start_time/],
      [{ ...ok, filter: 'eq(run_type, ' }, 400, /filter/],
      [{ ...ok, filter: 'eq(colour, "red")' }, 400, /colour/],
    ];
    for (const [body, status, message] of cases) {
      const res = await post('/bulk-exports', body);
      expect(res.status, `${JSON.stringify(body)} -> ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.detail, JSON.stringify(body)).toMatch(message);
    }
    expect((await post('/bulk-exports', { ...ok, session_id: randomUUID() })).status).toBe(404);
    expect((await post('/bulk-exports', { ...ok, bulk_export_destination_id: randomUUID() })).status).toBe(404);
    expect((await get('/bulk-exports')).body.length).toBe(before);
  }, 180_000);

  test('exports of examples: a field of runs, a column runs have, an unknown tag; another workspace’s dataset is a 404', async () => {
    const destination = await newDestination();
    const dataset = (await post('/datasets', { name: `bulk-api-${RUN}`, data_type: 'kv' })).body.id as string;
    const example = await post('/examples', { dataset_id: dataset, inputs: { q: 1 }, outputs: { a: 2 } });
    expect(example.status, JSON.stringify(example.body)).toBe(200);
    const v1 = example.body.modified_at as string;
    const tagged = await api(`/datasets/${dataset}/tags`, {
      method: 'PUT',
      apiKey: ws.apiKey,
      json: { as_of: v1, tag: 'v1' },
    });
    expect(tagged.status, JSON.stringify(tagged.body)).toBe(200);
    const [other] = (await createWorkspaces(1)) as [Workspace];
    const theirs = (await post('/datasets', { name: `theirs-${RUN}` }, other.apiKey)).body.id as string;
    const ok = { bulk_export_destination_id: destination, resource: 'examples', dataset_id: dataset };
    const runs = {
      bulk_export_destination_id: destination,
      session_id: projectId,
      start_time: hoursAgo(3),
      end_time: hoursAgo(1),
    };
    const before = (await get('/bulk-exports')).body.length;
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [{ ...ok, dataset_id: undefined }, 422, /^dataset_id required: an export of examples .*names dataset_id/],
      [{ ...ok, dataset_id: 'not-a-uuid' }, 422, /dataset_id must match format "uuid"/],
      [{ ...ok, resource: 'traces' }, 422, /resource must be equal to one of the allowed values: runs, examples/],
      [{ ...ok, session_id: projectId }, 400, /^session_id is not for an export of examples/],
      [
        { ...ok, start_time: hoursAgo(3), end_time: hoursAgo(1) },
        400,
        /^start_time, end_time are not for an export of examples/,
      ],
      [{ ...ok, interval_hours: 24 }, 400, /^interval_hours is not for an export of examples/],
      [{ ...ok, filter: 'eq(run_type, "llm")' }, 400, /^filter is not for an export of examples/],
      [
        { ...ok, export_fields: ['id', 'trace_id'] },
        422,
        /export_fields names columns an export of examples does not have: trace_id/,
      ],
      [{ ...ok, export_fields: ['nope'] }, 422, /export_fields\/0 must be equal to one of the allowed values/],
      [{ ...ok, as_of: 5 }, 422, /as_of must be string/],
      [{ ...ok, as_of: '2025-02-30T00:00:00Z' }, 422, /as_of is not a valid date/],
      [{ ...ok, as_of: 'v2' }, 404, new RegExp(`^tag "v2" \\(as_of\\) of dataset ${dataset} not found`)],
      [{ ...ok, dataset_id: randomUUID() }, 404, /^dataset \(dataset_id\) .* not found/],
      [{ ...ok, dataset_id: theirs }, 404, new RegExp(`^dataset \\(dataset_id\\) ${theirs} not found`)],
      // and the other way round
      [{ ...runs, dataset_id: dataset }, 400, /^dataset_id is not for an export of runs: .*"resource": "examples"/],
      [{ ...runs, resource: 'runs', as_of: 'latest' }, 400, /^as_of is not for an export of runs/],
      [
        { ...runs, export_fields: ['id', 'splits'] },
        422,
        /export_fields names columns an export of runs does not have: splits/,
      ],
      [{ ...runs, session_id: undefined }, 422, /^session_id required: an export of runs/],
    ];
    for (const [body, status, message] of cases) {
      const res = await post('/bulk-exports', body);
      expect(res.status, `${JSON.stringify(body)} -> ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.detail, JSON.stringify(body)).toMatch(message);
    }
    // Their dataset, with their destination: still not ours to export.
    const theirDestination = await post('/bulk-exports/destinations', destinationBody(BUCKET), other.apiKey);
    expect(
      (await post('/bulk-exports', { ...ok, bulk_export_destination_id: theirDestination.body.id, dataset_id: theirs }))
        .status,
    ).toBe(404);
    expect((await get('/bulk-exports')).body.length).toBe(before);

    // A tag is pinned to its version: the export says which, and neither a project nor a range.
    const created = await post('/bulk-exports', { ...ok, as_of: 'v1', format_version: 'v2_beta' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({
      resource: 'examples',
      dataset_id: dataset,
      as_of: v1,
      session_id: null,
      start_time: null,
      end_time: null,
      interval_hours: null,
      format_version: 'v2_beta',
      progress: { runs_planned: 1 },
    });
    expect((await get(`/bulk-exports/${created.body.id}`, other.apiKey)).status).toBe(404);
    const done = await waitForExport(ws.apiKey, created.body.id, (e) => ['Completed', 'Failed'].includes(e.status));
    expect(done).toMatchObject({ status: 'Completed', progress: { rows_written: 1, files_written: 1 } });
  }, 180_000);

  test('cancel accepts only {"status": "Cancelled"}; unknown ids are 404s', async () => {
    const res = await patch(`/bulk-exports/${randomUUID()}`, { status: 'Cancelled' });
    expect(res.status).toBe(404);
    const destination = await newDestination();
    const created = await post('/bulk-exports', {
      bulk_export_destination_id: destination,
      session_id: projectId,
      start_time: hoursAgo(1),
      interval_hours: 24,
    });
    const running = await patch(`/bulk-exports/${created.body.id}`, { status: 'Running' });
    expect(running.status).toBe(422);
    expect(running.body.detail).toMatch(/status must be equal to one of the allowed values: Cancelled/);
    expect((await get(`/bulk-exports/${created.body.id}/runs/${randomUUID()}`)).status).toBe(404);
    expect((await get('/bulk-exports/destinations/not-a-uuid')).status).toBe(422);
    expect((await patch(`/bulk-exports/${created.body.id}`, { status: 'Cancelled' })).body.status).toBe('Cancelled');
  }, 180_000);

  test('destinations: bad config and failed test writes', async () => {
    const before = (await get('/bulk-exports/destinations')).body.length;
    const base = destinationBody(BUCKET) as { config: Record<string, unknown>; credentials: Record<string, unknown> };
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [
        { ...base, config: { ...base.config, endpoint_url: 'not a url' } },
        400,
        /^Invalid endpoint: endpoint_url must be an absolute http/,
      ],
      [
        { ...base, config: { ...base.config, endpoint_url: 'ftp://example.com' } },
        400,
        /^Invalid endpoint: endpoint_url must be an absolute http/,
      ],
      [
        { ...base, credentials: { access_key_id: `nobody-${RUN}`, secret_access_key: 'x'.repeat(20) } },
        400,
        /^Key ID you provided does not exist$/,
      ],
      [
        { ...base, config: { ...base.config, bucket_name: `missing-${RUN}` } },
        400,
        /The specified bucket does not exist/,
      ],
      [
        { ...base, config: { ...base.config, aws_role_arn: 'arn:aws:iam::1:role/x' } },
        400,
        /config.aws_role_arn is not supported/,
      ],
      [{ ...base, config: { ...base.config, prefix: 'a/../b' } }, 400, /prefix/],
      [{ ...base, destination_type: 'gcs' }, 422, /destination_type/],
      [{ ...base, credentials: undefined }, 422, /credentials/],
      [{ ...base, config: { prefix: 'x' } }, 422, /bucket_name/],
    ];
    for (const [body, status, message] of cases) {
      const res = await post('/bulk-exports/destinations', body);
      expect(res.status, `${JSON.stringify(body.config)} -> ${JSON.stringify(res.body)}`).toBe(status);
      expect(res.body.detail).toMatch(message);
    }
    const readOnly = await minioUser(['s3:GetObject']);
    const denied = await post('/bulk-exports/destinations', destinationBody(BUCKET, 'exports', readOnly));
    expect(denied.status).toBe(400);
    expect(denied.body.detail).toBe('Access denied');
    expect((await get('/bulk-exports/destinations')).body.length).toBe(before);
  }, 180_000);

  test('endpoints not reached as S3 (internal services, closed ports, metadata and private addresses) all get one answer', async () => {
    const before = (await get('/bulk-exports/destinations')).body.length;
    const base = destinationBody(BUCKET) as { config: Record<string, unknown> };
    const clickhouse = new URL(inject('tracingEnv').CLICKHOUSE_URL!);
    const endpoints = [
      `http://127.0.0.1:${clickhouse.port}`, // ClickHouse's HTTP port: open, not S3, on loopback
      `http://127.0.0.1:${await freePort()}`, // nothing listens
      'http://169.254.169.254', // cloud metadata
      'http://10.0.0.1:9000', // a private address
      `http://localhost:${clickhouse.port}`, // a name that resolves to loopback
      `http://[::ffff:127.0.0.1]:${clickhouse.port}`, // loopback, IPv4-mapped
      `http://no-such-host-${RUN}.invalid:9000`, // a name that does not resolve
    ];
    const answers = [];
    for (const endpoint_url of endpoints) {
      const res = await post('/bulk-exports/destinations', { ...base, config: { ...base.config, endpoint_url } });
      answers.push({ status: res.status, body: res.body });
    }
    const neutral = {
      status: 400,
      body: {
        error: 'DESTINATION_CHECK_FAILED',
        detail: 'Invalid endpoint: the endpoint could not be reached as an S3-compatible service',
      },
    };
    expect(answers).toEqual(endpoints.map(() => neutral));
    expect((await get('/bulk-exports/destinations')).body.length).toBe(before);
    // The deployment's own object store (S3_ENDPOINT) is the one loopback endpoint allowed by default.
    expect((await post('/bulk-exports/destinations', base)).status).toBe(200);
  }, 120_000);
});

test('a filter exports only the runs that match it, by their final state', async () => {
  const destination = await newDestination();
  const created = await post('/bulk-exports', {
    bulk_export_destination_id: destination,
    session_id: projectId,
    start_time: hoursAgo(4),
    end_time: new Date().toISOString(),
    filter: 'eq(run_type, "llm")',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect(created.body.filter).toBe('eq(run_type, "llm")');
  await waitForExport(ws.apiKey, created.body.id, (e) => ['Completed', 'Failed'].includes(e.status));
  const runs = (await get(`/bulk-exports/${created.body.id}/runs`)).body as Array<{
    metadata: { result: { rows_written: number } };
  }>;
  expect(runs.reduce((n, r) => n + r.metadata.result.rows_written, 0)).toBe(6); // three traces of a chain and two llm runs
}, 180_000);

describe('destinations and credentials', () => {
  test('credentials are never returned, never logged, and only encrypted in Kafka', async () => {
    const user = await minioUser(['s3:PutObject', 's3:DeleteObject']);
    const id = await newDestination(user);
    const read = await get(`/bulk-exports/destinations/${id}`);
    expect(read.body).toMatchObject({
      id,
      tenant_id: ws.id,
      destination_type: 's3',
      config: { bucket_name: BUCKET, prefix: 'exports' },
      credentials_keys: ['access_key_id', 'secret_access_key'],
    });
    const everything = JSON.stringify([read.body, (await get('/bulk-exports/destinations')).body]);
    expect(everything).not.toContain(user.secret_access_key);
    expect(everything).not.toContain(user.access_key_id);

    // The topic holds the destination sealed: neither the key id nor the secret appear in any message.
    const config = loadConfig(inject('tracingEnv'));
    const consumer = new Consumer({
      clientId: 'test-secrets',
      groupId: `test-secrets-${RUN}`,
      bootstrapBrokers: config.KAFKA_BROKERS.split(','),
      deserializers: { key: stringDeserializer, headerKey: stringDeserializer, headerValue: stringDeserializer },
    });
    const topic = topicName(config, TOPICS.bulkExport);
    const end = (await consumer.listOffsets({ topics: [topic] })).get(topic)![0]!;
    const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST, autocommit: false });
    let seen = 0;
    let created = false;
    for await (const message of stream) {
      const value = (message.value as Buffer).toString('latin1');
      expect(value).not.toContain(user.secret_access_key);
      expect(value).not.toContain(user.access_key_id);
      if (value.includes(id)) created = true;
      if (++seen >= Number(end) || message.offset + 1n >= end) break;
    }
    await stream.close();
    await consumer.close(true);
    expect(created).toBe(true);

    // Nor do the service logs.
    for (const service of ['api', 'export-worker']) {
      const prefix = config.KAFKA_TOPIC_PREFIX.replace(/\.$/, '');
      const log = readFileSync(join(repoRoot, '.local', 'logs', 'test', `${prefix}-${service}.log`), 'utf8');
      expect(log).not.toContain(user.secret_access_key);
    }
  }, 180_000);

  test('a write-only user is enough: the tmp object stays and exports still work; rotation moves new runs to new keys', async () => {
    const writeOnly = await minioUser(['s3:PutObject']);
    const id = await newDestination(writeOnly);
    expect((await listKeys(BUCKET, 'exports/tmp/')).length).toBeGreaterThan(0);
    const first = await post('/bulk-exports', {
      bulk_export_destination_id: id,
      session_id: projectId,
      start_time: hoursAgo(4),
      end_time: new Date().toISOString(),
    });
    const done = await waitForExport(ws.apiKey, first.body.id, (e) => ['Completed', 'Failed'].includes(e.status));
    expect(done.status).toBe('Completed');

    // Rotate to a second user, then take the first user away: a new export must use the new keys.
    const second = await minioUser(['s3:PutObject']);
    const rotated = await patch(`/bulk-exports/destinations/${id}`, { credentials: second });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body.updated_at > rotated.body.created_at).toBe(true);
    await removeUser(writeOnly.access_key_id);
    const after = await post('/bulk-exports', {
      bulk_export_destination_id: id,
      session_id: projectId,
      start_time: hoursAgo(4),
      end_time: new Date().toISOString(),
    });
    const ended = await waitForExport(ws.apiKey, after.body.id, (e) => ['Completed', 'Failed'].includes(e.status));
    expect(ended.status).toBe('Completed');

    // Rotating to keys that cannot write is refused, and the working keys stay.
    const denied = await patch(`/bulk-exports/destinations/${id}`, {
      credentials: { access_key_id: writeOnly.access_key_id, secret_access_key: writeOnly.secret_access_key },
    });
    expect(denied.status).toBe(400);
    expect(denied.body.detail).toBe('Key ID you provided does not exist');
    const again = await post('/bulk-exports', {
      bulk_export_destination_id: id,
      session_id: projectId,
      start_time: hoursAgo(4),
      end_time: new Date().toISOString(),
    });
    expect(
      (await waitForExport(ws.apiKey, again.body.id, (e) => ['Completed', 'Failed'].includes(e.status))).status,
    ).toBe('Completed');
  }, 180_000);
});

describe('runs: retries, cancellation, exactly once', () => {
  test('a failing run is retried with its errors kept, and completes once the store is back', async () => {
    const bucket = `bulk-retry-${RUN}`;
    await createBucket(bucket);
    const id = await newDestination(undefined, bucket);
    const s3 = rootS3();
    await s3
      .send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: (await listKeys(bucket)).map((Key) => ({ Key })) },
        }),
      )
      .catch(() => {});
    await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
    const created = await post('/bulk-exports', {
      bulk_export_destination_id: id,
      session_id: projectId,
      start_time: hoursAgo(4),
      end_time: new Date().toISOString(),
    });
    const failing = await waitForExportRuns(ws.apiKey, created.body.id, (runs) =>
      runs.some((r) => r.retry_number >= 2),
    );
    const run = failing.find((r) => r.retry_number >= 2);
    expect(run.errors.retry_0).toMatch(/bucket does not exist/);
    expect(run.status).toBe('Running');
    await createBucket(bucket);
    const done = await waitForExport(ws.apiKey, created.body.id, (e) => e.status === 'Completed');
    expect(done.finished_at).not.toBeNull();
    const runs = (await get(`/bulk-exports/${created.body.id}/runs`)).body;
    const withRows = runs.find(
      (r: { metadata: { result: { rows_written: number } } }) => r.metadata.result.rows_written > 0,
    );
    expect(withRows.errors.retry_0).toMatch(/bucket does not exist/);
    expect(await listKeys(bucket, 'exports/export_id=')).toEqual(
      [
        ...runs.flatMap(
          (r: { metadata: { result: { exported_files: string[] } } }) => r.metadata.result.exported_files,
        ),
      ].sort(),
    );
    s3.destroy();
  }, 180_000);

  test('cancel stops a scheduled export: finished runs stay, the rest are cancelled, nothing new is scheduled', async () => {
    const id = await newDestination();
    // An hourly export that starts 20 days ago: 480 windows to work through.
    const created = await post('/bulk-exports', {
      bulk_export_destination_id: id,
      session_id: projectId,
      start_time: hoursAgo(480),
      interval_hours: 1,
    });
    expect(created.body.status).toBe('IntervalScheduled');
    await waitForExportRuns(
      ws.apiKey,
      created.body.id,
      (runs) => runs.filter((r) => r.status === 'Completed').length >= 3,
    );
    const cancelled = await patch(`/bulk-exports/${created.body.id}`, { status: 'Cancelled' });
    expect(cancelled.body.status).toBe('Cancelled');
    const runs = (await get(`/bulk-exports/${created.body.id}/runs`)).body as Array<{ status: string; id: string }>;
    expect(
      runs.every((r) => r.status === 'Completed' || r.status === 'Cancelled'),
      JSON.stringify(runs.map((r) => r.status)),
    ).toBe(true);
    expect(runs.some((r) => r.status === 'Cancelled')).toBe(true);
    await new Promise((r) => setTimeout(r, 1500)); // a few worker ticks
    const later = (await get(`/bulk-exports/${created.body.id}/runs`)).body as Array<{ status: string; id: string }>;
    expect(later.map((r) => [r.id, r.status])).toEqual(runs.map((r) => [r.id, r.status]));
    expect((await patch(`/bulk-exports/${created.body.id}`, { status: 'Cancelled' })).status).toBe(200);
  }, 180_000);

  test('with a second worker, and one worker killed mid-way, every window is exported exactly once', async () => {
    const bucket = `bulk-once-${RUN}`;
    await createBucket(bucket);
    const id = await newDestination(undefined, bucket);
    const env = inject('tracingEnv');
    const prefix = loadConfig(env).KAFKA_TOPIC_PREFIX.replace(/\.$/, '');
    const extra: ServiceProcess[] = [
      startService('services/processes/exportWorkerMain.ts', env, `${prefix}-export-worker-2`),
    ];
    try {
      // Windows of 1 hour over the last 3 days: 72 runs (73 pieces with the midnights), most empty, a few with rows.
      const created = await post('/bulk-exports', {
        bulk_export_destination_id: id,
        session_id: projectId,
        start_time: hoursAgo(72),
        interval_hours: 1,
      });
      await waitForExportRuns(
        ws.apiKey,
        created.body.id,
        (runs) => runs.filter((r) => r.status === 'Completed').length >= 10,
      );
      await extra[0]!.kill('SIGKILL');
      extra.push(startService('services/processes/exportWorkerMain.ts', env, `${prefix}-export-worker-3`));
      const runs = await waitForExportRuns(
        ws.apiKey,
        created.body.id,
        (list) => list.length >= 72 && list.every((r) => r.status === 'Completed'),
        120_000,
      );
      const ids = runs.map((r) => r.id);
      expect(new Set(ids).size).toBe(ids.length);
      const files = runs.flatMap((r) => r.metadata.result.exported_files as string[]);
      expect(new Set(files).size).toBe(files.length);
      expect(await listKeys(bucket, 'exports/export_id=')).toEqual([...files].sort());
      const rows = runs.reduce((n, r) => n + r.metadata.result.rows_written, 0);
      expect(rows).toBe(9); // three traces of three runs, all inside the window
    } finally {
      await Promise.all(extra.map((w) => w.stop()));
    }
  }, 180_000);
});
