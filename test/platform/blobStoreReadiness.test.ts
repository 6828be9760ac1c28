// Object storage that comes up after the services (a first `npm start` builds MinIO meanwhile): tracing is
// served at once, and what needs the store (bulk export; the control plane's source uploads) answers 503 with
// Retry-After and a message naming what waits, then works once the store answers, without a restart. The store
// is the real MinIO behind a port of the test's: nothing listens there at first, then a forwarder to MinIO.
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { DeleteBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { provideInfra } from '../support/infra.ts';
import { freePort, waitFor } from '../support/serviceProcess.ts';
import { stackCall, startTracingStack, type TracingStack } from '../support/tracingStack.ts';
import { controlPlaneCall, startControlPlane, type ControlPlaneStack } from '../support/controlPlane.ts';
import { STORAGE_NOT_READY_RETRY_AFTER_S } from '../../platform/errors.ts';

/**
 * A port where nothing listens until open(), then a forwarder to `target` (the real MinIO). (The port was free
 * when chosen; that another program takes it in between is as unlikely as for every freePort() of the suite.)
 */
async function storeGate(target: URL): Promise<{ url: string; open(): Promise<void>; close(): Promise<void> }> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    track(client);
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  return {
    url: `http://127.0.0.1:${port}`,
    open: () => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve)),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return server.listening ? new Promise((resolve) => server.close(() => resolve())) : Promise.resolve();
    },
  };
}

/** The 503 of a route that waits for the store: code, Retry-After, and a message that says what and why. */
function expectStorageNotReady(res: { status: number; body: any; retryAfter: string | null }, needs: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(res.retryAfter).toBe(String(STORAGE_NOT_READY_RETRY_AFTER_S));
  expect(res.body.error).toBe('STORAGE_UNAVAILABLE');
  expect(res.body.detail).toContain(`${needs} needs object storage`);
  expect(res.body.detail).toContain('MinIO is still being built');
}

async function callWithHeaders(base: string, apiKey: string, method: string, path: string, json?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json().catch(() => null) };
}

const infra = await provideInfra();
// A bucket of its own, so that the first answer of the store has the bucket to make.
const bucket = `coldstart-${randomBytes(4).toString('hex')}`;
let gate: Awaited<ReturnType<typeof storeGate>>;
let tracing: TracingStack;
let controlPlane: ControlPlaneStack;

beforeAll(async () => {
  gate = await storeGate(new URL(infra.s3Endpoint));
  const env = { S3_ENDPOINT: gate.url, S3_PAYLOAD_BUCKET: bucket };
  // One after the other: each waits at most 90 s for its service to be ready, which two at once on a busy machine may miss.
  tracing = await startTracingStack('coldstart', env);
  controlPlane = await startControlPlane('coldstart', 1, env);
}, 240_000);

afterAll(async () => {
  await Promise.allSettled([tracing?.stop(), controlPlane?.stop()]);
  await gate?.close();
  const s3 = new S3Client({
    endpoint: infra.s3Endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: infra.s3AccessKeyId, secretAccessKey: infra.s3SecretAccessKey },
  });
  await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => undefined);
  s3.destroy();
}, 120_000);

describe('object storage that answers only after the services started', () => {
  test('tracing takes runs; bulk export and source uploads answer 503 with Retry-After; both work once the store answers', async () => {
    // Tracing needs no object storage for runs with small payloads.
    const id = crypto.randomUUID();
    const now = new Date();
    const dotted = `${now.toISOString().replace(/[-:.]/g, '').slice(0, 15)}${String(now.getUTCMilliseconds()).padStart(3, '0')}000Z${id}`;
    const run = {
      id,
      trace_id: id,
      dotted_order: dotted,
      name: 'cold',
      run_type: 'chain',
      start_time: now.toISOString(),
      inputs: { q: 1 },
    };
    const posted = await stackCall(tracing, 'POST', '/runs', run);
    expect(posted.status, JSON.stringify(posted.body)).toBe(202);

    for (const path of ['/bulk-exports', '/api/v1/bulk-exports/destinations'])
      expectStorageNotReady(await callWithHeaders(tracing.url, tracing.apiKey, 'GET', path), 'bulk export');
    // Authentication first: no key is a 401, not a hint that the store is missing.
    expect((await fetch(`${tracing.url}/bulk-exports`)).status).toBe(401);

    const cp = controlPlane.urls[0]!;
    const created = await controlPlaneCall(cp, controlPlane.apiKey, 'POST', '/v2/deployments', {
      name: `cold-${randomBytes(3).toString('hex')}`,
      source: 'internal_source',
      source_config: { deployment_type: 'dev' },
      source_revision_config: {},
      secrets: [],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const uploadUrl = `/v2/deployments/${created.body.id}/upload-url`;
    expectStorageNotReady(
      await callWithHeaders(cp, controlPlane.apiKey, 'POST', uploadUrl),
      'source uploads and revision logs',
    );

    await gate.open();
    await waitFor(
      'bulk export to be served',
      async () => (await stackCall(tracing, 'GET', '/bulk-exports')).status === 200,
      60_000,
      500,
    );
    expect((await stackCall(tracing, 'GET', '/api/v1/bulk-exports/destinations')).status).toBe(200);
    const upload = await waitFor(
      'an upload URL',
      async () => {
        const res = await controlPlaneCall(cp, controlPlane.apiKey, 'POST', uploadUrl);
        return res.status === 200 ? res.body : null;
      },
      60_000,
      500,
    );
    expect(upload.upload_url).toContain(bucket);
  });
});
