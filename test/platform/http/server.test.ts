// platform/http/server.ts: every failure leaves with a code of the catalogue (platform/errors.ts),
// whoever raised it; a ClickHouse failure is a 503 only when retrying can help. What every route
// takes alike, as generic HTTP clients send it: no body whatever Content-Type is named, an
// optional body left out, encoded JSON bodies, a 405 naming the methods a path answers.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { AddressInfo } from 'node:net';
import { deflateSync, gzipSync, zstdCompressSync } from 'node:zlib';
import { request } from 'undici';
import type { FastifyInstance } from 'fastify';
import { createHttpServer } from '../../../platform/http/server.ts';
import { declareApiKeyAuth } from '../../../platform/http/openapi.ts';
import { createLogger } from '../../../platform/logger.ts';
import { ClickHouseError } from '../../../platform/clickhouse/client.ts';
import { ERROR_CODES } from '../../../platform/errors.ts';

let app: FastifyInstance;
beforeAll(async () => {
  app = await createHttpServer({
    logger: createLogger('server-test', 'silent'),
    title: 't',
    version: '0',
    description: 'd',
    ready: () => true,
  });
  app.get('/store-away', async () => {
    throw new ClickHouseError(0, 'ClickHouse unreachable at http://127.0.0.1:8123: connect ECONNREFUSED');
  });
  app.get('/store-refuses', async () => {
    throw new ClickHouseError(400, 'Code: 62, e.displayText() = DB::Exception: Syntax error', { exceptionCode: 62 });
  });
  app.post('/echo', async (request) => request.body);
  app.get<{ Params: { id: string } }>(
    '/things/:id',
    { schema: { params: { type: 'object', properties: { id: { type: 'string' } } } } },
    async (r) => r.params,
  );
  app.delete('/things/:id', async (request, reply) => reply.code(204).send());
  app.post('/things/batch', async () => ({}));
  app.post('/items/batch', async () => ({}));
  app.patch(
    '/items/:id',
    { schema: { params: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } } } },
    async () => ({}),
  );
  const optional = { type: 'object', properties: { limit: { type: 'integer' } }, additionalProperties: false };
  const required = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
  app.post('/search', { schema: { body: optional } }, async (request) => ({ body: request.body }));
  app.post('/create', { schema: { body: required } }, async (request) => ({ body: request.body }));
  const pageQuery = {
    type: 'object',
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: 5 },
      flag: { type: 'boolean' },
      ids: { type: 'array', items: { type: 'string', format: 'uuid' } },
      name: { type: 'string' },
    },
  };
  app.get('/page', { schema: { querystring: pageQuery } }, async (request) => request.query);
  await app.register(async (scope) => {
    declareApiKeyAuth(scope);
    scope.get('/mine', async () => ({}));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
let url: string;
const call = async (
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string | Buffer } = {},
) => {
  const res = await fetch(`${url}${path}`, { method, ...init });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
};
const JSON_TYPE = { 'content-type': 'application/json' };
afterAll(() => app?.close());

test('a read model that is away is a 503 to retry; a statement it refuses is an internal error', async () => {
  const away = await app.inject({ method: 'GET', url: '/store-away' });
  expect([away.statusCode, away.json().error, away.headers['retry-after']]).toEqual([
    503,
    'READ_MODEL_UNAVAILABLE',
    '2',
  ]);
  const refused = await app.inject({ method: 'GET', url: '/store-refuses' });
  expect([refused.statusCode, refused.json().error]).toEqual([500, 'INTERNAL']);
});

test('what fastify refuses is answered with a code of the catalogue, its message kept', async () => {
  const answers = [
    await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":',
    }),
    await app.inject({ method: 'GET', url: '/no/such/route' }),
  ];
  for (const res of answers) {
    const body = res.json() as { error: string; detail: string };
    expect(Object.keys(ERROR_CODES), `${res.statusCode} ${JSON.stringify(body)}`).toContain(body.error);
    expect(res.statusCode, body.error).toBe(ERROR_CODES[body.error as keyof typeof ERROR_CODES].status);
    expect(body.detail).not.toBe('');
  }
  expect(answers.map((r) => r.json().error)).toEqual(['BAD_REQUEST', 'NOT_FOUND']);
});

test('a path parameter longer than the router takes is a 414 of the catalogue, and the document says so', async () => {
  const res = await app.inject({ method: 'GET', url: `/things/${'x'.repeat(5000)}` });
  expect([res.statusCode, res.json().error]).toEqual([414, 'URI_TOO_LONG']);
  // what the document admits reaches the route: its parameters are bounded below the router's limit
  // (1,024 code units), a character outside the BMP (two of them) included
  const admitted = '\u{1F600}'.repeat(512);
  expect((await app.inject({ method: 'GET', url: `/things/${encodeURIComponent(admitted)}` })).json()).toEqual({
    id: admitted,
  });
  const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as {
    paths: Record<
      string,
      Record<string, { responses: Record<string, unknown>; parameters: Array<{ name: string; schema: unknown }> }>
    >;
  };
  expect(Object.keys(doc.paths['/things/{id}']!.get!.responses)).toContain('414');
  expect(doc.paths['/things/{id}']!.get!.parameters.find((p) => p.name === 'id')!.schema).toEqual({
    type: 'string',
    maxLength: 512,
  });
});

test('a request without a body has none, whatever Content-Type and Content-Encoding it names', async () => {
  // what generic clients and SDK generators send on every request, DELETEs included
  expect((await call('DELETE', '/things/1', { headers: JSON_TYPE })).status).toBe(204);
  expect((await call('DELETE', '/things/1', { headers: { ...JSON_TYPE, 'content-length': '0' } })).status).toBe(204);
  expect((await call('DELETE', '/things/1', { headers: { ...JSON_TYPE, 'content-encoding': 'gzip' } })).status).toBe(
    204,
  );
  // an empty body sent chunked is no body either
  const chunkedEmpty = new ReadableStream({ start: (c) => c.close() });
  expect(
    (
      await fetch(`${url}/things/1`, {
        method: 'DELETE',
        headers: JSON_TYPE,
        body: chunkedEmpty,
        duplex: 'half',
      } as RequestInit)
    ).status,
  ).toBe(204);
  expect(await call('POST', '/echo', { headers: JSON_TYPE })).toMatchObject({ status: 200, body: null });
});

test('a __proto__ key of a JSON body is dropped, not refused', async () => {
  expect(
    await call('POST', '/echo', { headers: JSON_TYPE, body: '{"a":1,"__proto__":{"polluted":true}}' }),
  ).toMatchObject({ status: 200, body: { a: 1 } });
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

test('a body that requires no field may be left out: it reads as {}, and the document says it is optional', async () => {
  expect(await call('POST', '/search', { headers: JSON_TYPE })).toEqual(
    expect.objectContaining({ status: 200, body: { body: {} } }),
  );
  expect(await call('POST', '/search')).toEqual(expect.objectContaining({ status: 200, body: { body: {} } }));
  expect(await call('POST', '/search', { headers: JSON_TYPE, body: '{"limit":2}' })).toEqual(
    expect.objectContaining({ body: { body: { limit: 2 } } }),
  );
  // null is a body, and not an object
  expect((await call('POST', '/search', { headers: JSON_TYPE, body: 'null' })).status).toBe(422);
  // a body with a required field is still required: a 422, as for {}
  const missing = await call('POST', '/create', { headers: JSON_TYPE });
  expect([missing.status, missing.body.error]).toEqual([422, 'VALIDATION_ERROR']);
  const doc = (await call('GET', '/docs/json')).body as {
    paths: Record<string, Record<string, { requestBody: { required: boolean } }>>;
  };
  expect(doc.paths['/search']!.post!.requestBody.required).toBe(false);
  expect(doc.paths['/create']!.post!.requestBody.required).toBe(true);
  expect(JSON.stringify(doc)).not.toContain('x-optional-body');
});

test('a JSON body may be gzip, zstd or deflate encoded; another encoding is a 415, a body that does not decode a 400', async () => {
  const json = Buffer.from(JSON.stringify({ name: 'zipped' }));
  for (const [encoding, body] of [
    ['gzip', gzipSync(json)],
    ['zstd', zstdCompressSync(json)],
    ['deflate', deflateSync(json)],
  ] as const)
    expect(
      await call('POST', '/create', { headers: { ...JSON_TYPE, 'content-encoding': encoding }, body }),
      encoding,
    ).toMatchObject({ status: 200, body: { body: { name: 'zipped' } } });
  const unknown = await call('POST', '/create', { headers: { ...JSON_TYPE, 'content-encoding': 'br' }, body: json });
  expect([unknown.status, unknown.body.error]).toEqual([415, 'UNSUPPORTED_CONTENT_ENCODING']);
  const garbled = await call('POST', '/create', { headers: { ...JSON_TYPE, 'content-encoding': 'gzip' }, body: json });
  expect([garbled.status, garbled.body.error]).toEqual([400, 'UNDECODABLE_BODY']);
});

test('a method a path does not answer is a 405 naming, in Allow, the ones it does; a path nothing answers is a 404', async () => {
  for (const [method, path, allow] of [
    ['POST', '/things/1', 'DELETE, GET, HEAD'],
    ['PUT', '/search', 'POST'],
    ['TRACE', '/ok', 'GET, HEAD'],
    ['PATCH', '/docs/json', 'GET, HEAD'],
    // the static path's methods, not those of /things/:id, which GET /things/batch would reach
    ['OPTIONS', '/things/batch', 'POST'],
    // a parametric route of that method that refuses the path's segment as its parameter
    ['PATCH', '/items/batch', 'POST'],
  ] as const) {
    const res = await request(`${url}${path}`, {
      method,
      headers: JSON_TYPE,
      body: method === 'TRACE' ? undefined : '{"a":',
    });
    const body = (await res.body.json()) as { error: string; detail: string };
    expect([res.statusCode, body.error, res.headers.allow], `${method} ${path}`).toEqual([
      405,
      'METHOD_NOT_ALLOWED',
      allow,
    ]);
    expect(body.detail).toContain(allow);
  }
  // whatever the request carries: fastify refuses a QUERY without Content-Type before routing it
  const query = await request(`${url}/things/1`, { method: 'QUERY' });
  await query.body.dump();
  expect([query.statusCode, query.headers.allow]).toEqual([405, 'DELETE, GET, HEAD']);
  const none = await call('POST', '/no/such/route', { headers: JSON_TYPE, body: '{}' });
  expect([none.status, none.body.error, none.headers.get('allow')]).toEqual([404, 'NOT_FOUND', null]);
});

test('X-Tenant-Id is a header parameter of authenticated routes, a UUID', async () => {
  const doc = (await call('GET', '/docs/json')).body as {
    paths: Record<string, Record<string, { parameters: Array<Record<string, unknown>>; security: unknown }>>;
    components: { securitySchemes: Record<string, unknown> };
  };
  const mine = doc.paths['/mine']!.get!;
  expect(mine.parameters).toContainEqual(
    expect.objectContaining({
      in: 'header',
      name: 'X-Tenant-Id',
      required: false,
      schema: expect.objectContaining({ type: 'string', format: 'uuid' }),
    }),
  );
  expect(mine.security).toEqual([{ apiKey: [] }]);
  expect(Object.keys(doc.components.securitySchemes)).toEqual(['apiKey']);
});

test('typed query parameters are read into their types, and the schema checks them: 422 naming the one that does not fit', async () => {
  const id = '6ba7b821-9dad-11d1-80b4-00c04fd430c8';
  expect((await call('GET', `/page?limit=3&flag=Yes&ids=${id}&name=7`)).body).toEqual({
    limit: 3,
    flag: true,
    ids: [id],
    name: '7',
  });
  expect((await call('GET', `/page?ids=${id}&ids=${id.replaceAll('-', '')}&flag=0`)).body).toEqual({
    ids: [id, id.replaceAll('-', '')],
    flag: false,
  });
  for (const [query, detail] of [
    ['limit=abc', /limit must be integer/],
    ['limit=9', /limit must be <= 5/],
    ['flag=maybe', /flag must be boolean/],
    ['ids=nope', /ids\/0 must match format "uuid"/],
  ] as const) {
    const res = await call('GET', `/page?${query}`);
    expect([res.status, res.body.error], query).toEqual([422, 'VALIDATION_ERROR']);
    expect(res.body.detail).toMatch(detail);
  }
  const doc = (await call('GET', '/docs/json')).body as {
    paths: Record<string, Record<string, { parameters: Array<{ name: string; schema: unknown }> }>>;
  };
  expect(doc.paths['/page']!.get!.parameters.find((p) => p.name === 'limit')!.schema).toEqual({
    type: 'integer',
    minimum: 1,
    maximum: 5,
  });
});

test('close() drains: a request in flight is answered, a stream is cut at once, and new connections are refused', async () => {
  const server = await createHttpServer({
    logger: createLogger('server-drain-test', 'silent'),
    title: 't',
    version: '0',
    description: 'd',
    ready: () => true,
  });
  let arrived!: () => void;
  const slowArrived = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  server.post('/slow', async () => {
    arrived();
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { answered: true };
  });
  server.get('/stream', (_request, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'text/event-stream' });
    reply.raw.write(': open\n\n');
  });
  await server.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;

  const stream = await request(`${base}/stream`);
  const streamEnded = new Promise<string>((resolve) => {
    stream.body.on('error', () => resolve('cut'));
    stream.body.on('end', () => resolve('ended'));
    stream.body.resume();
  });
  const slow = request(`${base}/slow`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
  await slowArrived;
  const closing = server.close();

  const answer = await slow;
  expect(answer.statusCode).toBe(200);
  expect(await answer.body.json()).toEqual({ answered: true });
  expect(await streamEnded).toMatch(/cut|ended/);
  // Answered while closing: the connection goes with the answer, so it does not hold the close up.
  expect(answer.headers.connection).toBe('close');
  await closing;
  await expect(request(`${base}/slow`, { method: 'POST', body: '{}' })).rejects.toThrow(/ECONNREFUSED/);
});
