// Credential rotation with a run in flight, on a stack of its own. The destination's endpoint is
// a small proxy in front of MinIO that records which access key signed each request and can hold
// the export's uploads: the test holds the first upload of a run, rotates the credentials, then
// lets the run go on. Every upload of that run (files written after the rotation included) must
// be signed with the old key; a run started after the rotation, with the new one.
import { randomBytes } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createUserWithPolicy, removeUser } from '../../../infra/minioAdmin.ts';
import { stackCall, startTracingStack, stackClickHouse, type TracingStack } from '../../support/tracingStack.ts';
import { sql } from '../../../platform/clickhouse/sql.ts';
import { makeTrace, multipartBody, postParts } from '../../support/runFactory.ts';
import { waitFor } from '../../support/serviceProcess.ts';
import { registerSecret } from '../../support/secretSweep.ts';

const RUN = randomBytes(3).toString('hex');
const bucket = `rotation-${RUN}`;
const HOUR = 3600_000;
let stack: TracingStack;
let proxy: Server;
let proxyUrl: string;
const users: string[] = [];

/** Export uploads seen by the proxy: the access key that signed each, and its path. */
const uploads: Array<{ keyId: string; path: string }> = [];
let holding = false;
const held: Array<() => void> = [];

function forward(req: IncomingMessage, res: ServerResponse, target: URL): void {
  const upstream = httpRequest(
    { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    },
  );
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
}

const call = (method: string, path: string, json?: unknown) => stackCall(stack, method, path, json);

async function writer(): Promise<{ access_key_id: string; secret_access_key: string }> {
  const access = `rot-${RUN}-${users.length}`;
  const secret = registerSecret(randomBytes(16).toString('hex'));
  await createUserWithPolicy(access, secret, {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['s3:PutObject', 's3:GetObject', 's3:AbortMultipartUpload'],
        Resource: [`arn:aws:s3:::${bucket}/exports/*`],
      },
    ],
  });
  users.push(access);
  return { access_key_id: access, secret_access_key: secret };
}

const exportOnce = (destination: string, sessionId: string) =>
  call('POST', '/bulk-exports', {
    bulk_export_destination_id: destination,
    session_id: sessionId,
    start_time: new Date(Date.now() - 6 * HOUR).toISOString(),
    end_time: new Date().toISOString(),
  });

const waitForStatus = (exportId: string, status: string) =>
  waitFor(
    `export ${exportId} ${status}`,
    async () => (await call('GET', `/bulk-exports/${exportId}`)).body?.status === status,
    90_000,
    200,
  );

beforeAll(async () => {
  // Files of a few KiB, so one run writes several, some of them after the rotation.
  // The proxy listens on loopback, which destinations may not reach unless allowed.
  stack = await startTracingStack('rotation', {
    BULK_EXPORT_LAG_SECONDS: '0',
    BULK_EXPORT_POLL_MS: '250',
    BULK_EXPORT_FILE_MAX_BYTES: '1',
    BULK_EXPORT_ALLOWED_HOSTS: '127.0.0.1',
  });
  stack.startExportWorker();
  const target = new URL(stack.env.S3_ENDPOINT!);
  proxy = createServer((req, res) => {
    const path = decodeURIComponent(req.url ?? '');
    if (path.includes('export_id=')) {
      uploads.push({ keyId: /Credential=([^/]+)\//.exec(req.headers.authorization ?? '')?.[1] ?? '', path });
      if (holding) return void held.push(() => forward(req, res, target));
    }
    forward(req, res, target);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  const s3 = new S3Client({
    endpoint: stack.env.S3_ENDPOINT,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: stack.env.S3_ACCESS_KEY_ID!, secretAccessKey: stack.env.S3_SECRET_ACCESS_KEY! },
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  s3.destroy();
  // 150 traces of three runs with inputs of ~1 KiB: several 16 KiB batches, so several files.
  const runs = Array.from({ length: 150 }, (_, i) =>
    makeTrace(
      2,
      { session_name: 'rotation', inputs: { text: 'x'.repeat(1000), i } },
      (Date.now() - 2 * HOUR + i * 1000) * 1000,
    ),
  ).flat();
  const { body, contentType } = multipartBody(postParts(runs));
  const res = await fetch(`${stack.url}/runs/multipart`, {
    method: 'POST',
    headers: { 'x-api-key': stack.apiKey, 'content-type': contentType },
    body,
  });
  expect(res.status).toBe(202);
  const ch = stackClickHouse(stack);
  await waitFor(
    'the runs to be projected',
    async () => Number((await ch.query<{ n: string }>(sql`SELECT count() AS n FROM runs FINAL`))[0]!.n) === runs.length,
    60_000,
    250,
  );
  await ch.close();
}, 240_000);

afterAll(async () => {
  for (const h of held.splice(0)) h();
  await new Promise((resolve) => proxy?.close(resolve));
  for (const u of users) await removeUser(u).catch(() => {});
  await stack?.stop();
});

test('a run in flight finishes with the keys it started with; runs started after the rotation use the new keys', async () => {
  const [oldKeys, newKeys] = [await writer(), await writer()];
  const dest = await call('POST', '/bulk-exports/destinations', {
    display_name: 'rotating',
    config: { bucket_name: bucket, prefix: 'exports', endpoint_url: proxyUrl },
    credentials: oldKeys,
  });
  expect(dest.status, JSON.stringify(dest.body)).toBe(200);
  const project = (await call('POST', '/runs/query', { is_root: true, select: ['id', 'session_id'], limit: 1 })).body
    .runs[0].session_id as string;

  holding = true;
  const first = await exportOnce(dest.body.id, project);
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  await waitFor('the first upload of the run to reach the store', async () => held.length > 0, 60_000, 50);
  const rotated = await call('PATCH', `/bulk-exports/destinations/${dest.body.id}`, { credentials: newKeys });
  expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
  holding = false;
  for (const h of held.splice(0)) h();
  await waitForStatus(first.body.id, 'Completed');
  const firstRuns = (await call('GET', `/bulk-exports/${first.body.id}/runs`)).body as Array<{
    metadata: { result: { exported_files: string[] } };
  }>;
  const firstFiles = firstRuns.flatMap((r) => r.metadata.result.exported_files);
  expect(firstFiles.length).toBeGreaterThan(2);
  const ofFirst = uploads.filter((u) => u.path.includes(`export_id=${first.body.id}`));
  expect(new Set(ofFirst.map((u) => u.keyId))).toEqual(new Set([oldKeys.access_key_id]));

  const second = await exportOnce(dest.body.id, project);
  await waitForStatus(second.body.id, 'Completed');
  const ofSecond = uploads.filter((u) => u.path.includes(`export_id=${second.body.id}`));
  expect(ofSecond.length).toBeGreaterThan(2);
  expect(new Set(ofSecond.map((u) => u.keyId))).toEqual(new Set([newKeys.access_key_id]));
}, 240_000);
