// The explorer page's routes (services/tracing/explorerPage.ts) on a server of their own, over a
// pages directory of the test's: / redirects to /ui/, every client-side route under /ui/ answers
// the page, its assets are served under /ui/assets/, the clients' run links redirect to the
// page's URL for the run, and before the build every page route answers 503 saying how to build.
// The deployments view's calls under /ui/control-plane/ go to the control plane's URL (here a
// plain HTTP server recording what reaches it): only GET and DELETE of /v2/deployments…, with the
// caller's key; with nothing listening there, a 503 that says the control plane is not running.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHttpServer } from '../../../platform/http/server.ts';
import { createLogger } from '../../../platform/logger.ts';
import { explorerPageRoutes } from '../../../services/tracing/explorerPage.ts';
import { freePort } from '../../support/serviceProcess.ts';

const TENANT = '6f1e2d3c-4b5a-4987-8654-3210fedcba98';
const PROJECT = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const RUN = '01a214e0-4f9e-7000-8000-0340da27d56c';

let dir: string;
const servers: FastifyInstance[] = [];

async function server(pagesDir: string, controlPlaneUrl?: string): Promise<FastifyInstance> {
  const app = await createHttpServer({
    logger: createLogger('explorer-page-test', 'warn'),
    title: 't',
    version: '0',
    description: 't',
    ready: () => true,
  });
  await app.register(explorerPageRoutes, { pagesDir, controlPlaneUrl });
  await app.ready();
  servers.push(app);
  return app;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'explorer-page-'));
  mkdirSync(join(dir, 'built', 'explorer'), { recursive: true });
  mkdirSync(join(dir, 'built', 'assets'), { recursive: true });
  writeFileSync(join(dir, 'built', 'explorer', 'index.html'), '<!doctype html><title>Trace explorer</title>');
  writeFileSync(join(dir, 'built', 'assets', 'explorer-abc.js'), 'console.log(1)');
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

describe('the explorer page routes', () => {
  test('/ and /ui redirect to /ui/; /ui/ and any path under it answer the page', async () => {
    const app = await server(join(dir, 'built'));
    for (const url of ['/', '/ui']) {
      const res = await app.inject({ url });
      expect([res.statusCode, res.headers.location]).toEqual([302, '/ui/']);
    }
    for (const url of ['/ui/', '/ui/projects/x', `/ui/projects/${PROJECT}/traces/${RUN}?run=${RUN}`]) {
      const res = await app.inject({ url });
      expect([res.statusCode, res.body, res.headers['cache-control']], url).toEqual([
        200,
        '<!doctype html><title>Trace explorer</title>',
        'no-cache',
      ]);
    }
  });

  test('assets under /ui/assets/, cached for good; a missing one is a 404, not the page', async () => {
    const app = await server(join(dir, 'built'));
    const asset = await app.inject({ url: '/ui/assets/explorer-abc.js' });
    expect([asset.statusCode, asset.body]).toEqual([200, 'console.log(1)']);
    expect(asset.headers['cache-control']).toContain('immutable');
    expect((await app.inject({ url: '/ui/assets/missing.js' })).statusCode).toBe(404);
  });

  test("a client's run link (/o/<workspace>/projects/p/<project>/r/<run>?poll=true) redirects to the run's page; bad ids are refused", async () => {
    const app = await server(join(dir, 'built'));
    const res = await app.inject({ url: `/o/${TENANT}/projects/p/${PROJECT}/r/${RUN}?poll=true` });
    expect([res.statusCode, res.headers.location]).toEqual([
      302,
      `/ui/projects/${PROJECT}/runs/${RUN}?workspace=${TENANT}`,
    ]);
    const bad = await app.inject({ url: `/o/${TENANT}/projects/p/not-a-uuid/r/${RUN}` });
    expect(bad.statusCode).toBe(422);
  });

  test('before the build, the page routes answer 503 saying how to build it', async () => {
    const app = await server(join(dir, 'not-built'));
    for (const url of ['/ui/', '/ui/projects/x']) {
      const res = await app.inject({ url });
      expect([res.statusCode, res.headers['content-type']]).toEqual([503, 'text/plain']);
      expect(res.body).toContain('npm run build:apps');
    }
  });
});

describe("the deployments view's calls, forwarded to the control plane", () => {
  const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders }> = [];
  let upstream: Server;
  let upstreamUrl: string;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers });
      if (req.method === 'DELETE') return void res.writeHead(204).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resources: [], offset: 0 }));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

  test("GET and DELETE of /v2/deployments… reach the control plane with the caller's key and workspace; its answer comes back", async () => {
    const app = await server(join(dir, 'built'), upstreamUrl);
    seen.length = 0;
    const list = await app.inject({
      url: '/ui/control-plane/v2/deployments?limit=100',
      headers: { 'x-api-key': 'lsk_k', 'x-tenant-id': TENANT },
    });
    expect([list.statusCode, list.json()]).toEqual([200, { resources: [], offset: 0 }]);
    const removed = await app.inject({
      method: 'DELETE',
      url: `/ui/control-plane/v2/deployments/${RUN}`,
      headers: { 'x-api-key': 'lsk_k' },
    });
    expect(removed.statusCode).toBe(204);
    expect(seen.map((r) => [r.method, r.url, r.headers['x-api-key'], r.headers['x-tenant-id']])).toEqual([
      ['GET', '/v2/deployments?limit=100', 'lsk_k', TENANT],
      ['DELETE', `/v2/deployments/${RUN}`, 'lsk_k', undefined],
    ]);
  });

  test('nothing else is forwarded: other methods, other control-plane paths', async () => {
    const app = await server(join(dir, 'built'), upstreamUrl);
    seen.length = 0;
    // (a path the page reads, which takes no other method: 405)
    expect(
      (await app.inject({ method: 'POST', url: '/ui/control-plane/v2/deployments', payload: {} })).statusCode,
    ).toBe(405);
    expect(
      (await app.inject({ method: 'PATCH', url: `/ui/control-plane/v2/deployments/${RUN}`, payload: {} })).statusCode,
    ).toBe(405);
    // Any other GET under /ui/ is a page route: the page, not a call to the control plane.
    const other = await app.inject({ url: '/ui/control-plane/docs/json' });
    expect([other.statusCode, other.body]).toEqual([200, '<!doctype html><title>Trace explorer</title>']);
    // Nor a path that climbs out of /v2/deployments, raw or percent-encoded, sent as-is over a
    // socket (inject would normalise it before the router sees it).
    await app.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.server.address() as AddressInfo).port;
    for (const climb of [
      '/v2/deployments/../../docs/json',
      '/v2/deployments/%2e%2e/%2e%2e/docs/json',
      '/v2/deployments/x%2f..%2f..',
    ]) {
      const status = await new Promise<number>((resolve, reject) =>
        request(
          {
            host: '127.0.0.1',
            port,
            method: 'DELETE',
            path: `/ui/control-plane${climb}`,
            headers: { 'x-api-key': 'lsk_k' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        )
          .on('error', reject)
          .end(),
      );
      expect([400, 404], climb).toContain(status);
    }
    await app.close();
    expect(seen).toEqual([]);
  });

  test('with no control plane listening, a 503 CONTROL_PLANE_UNAVAILABLE saying where it was looked for and how to start it', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const app = await server(join(dir, 'built'), closed);
    const res = await app.inject({ url: '/ui/control-plane/v2/deployments', headers: { 'x-api-key': 'lsk_k' } });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({
      error: 'CONTROL_PLANE_UNAVAILABLE',
      detail: expect.stringContaining(`not running at ${closed} (ECONNREFUSED)`),
    });
    expect(res.json().detail).toContain('`npm start`');
  });
});
