// platform/http/server.ts: every failure leaves with a code of the catalogue (platform/errors.ts),
// whoever raised it; a ClickHouse failure is a 503 only when retrying can help.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createHttpServer } from '../../../platform/http/server.ts';
import { createLogger } from '../../../platform/logger.ts';
import { ClickHouseError } from '../../../platform/clickhouse/client.ts';
import { ERROR_CODES } from '../../../platform/errors.ts';

let app: FastifyInstance;
beforeAll(async () => {
  app = await createHttpServer({ logger: createLogger('server-test', 'silent'), title: 't', version: '0', description: 'd', ready: () => true });
  app.get('/store-away', async () => {
    throw new ClickHouseError(0, 'ClickHouse unreachable at http://127.0.0.1:8123: connect ECONNREFUSED');
  });
  app.get('/store-refuses', async () => {
    throw new ClickHouseError(400, 'Code: 62, e.displayText() = DB::Exception: Syntax error', { exceptionCode: 62 });
  });
  app.post('/echo', async (request) => request.body);
  app.get<{ Params: { id: string } }>('/things/:id', { schema: { params: { type: 'object', properties: { id: { type: 'string' } } } } }, async (r) => r.params);
  await app.ready();
});
afterAll(() => app?.close());

test('a read model that is away is a 503 to retry; a statement it refuses is an internal error', async () => {
  const away = await app.inject({ method: 'GET', url: '/store-away' });
  expect([away.statusCode, away.json().error, away.headers['retry-after']]).toEqual([503, 'READ_MODEL_UNAVAILABLE', '2']);
  const refused = await app.inject({ method: 'GET', url: '/store-refuses' });
  expect([refused.statusCode, refused.json().error]).toEqual([500, 'INTERNAL']);
});

test('what fastify refuses is answered with a code of the catalogue, its message kept', async () => {
  const answers = [
    await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '' }),
    await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: '{"a":' }),
    await app.inject({ method: 'GET', url: '/no/such/route' }),
  ];
  for (const res of answers) {
    const body = res.json() as { error: string; detail: string };
    expect(Object.keys(ERROR_CODES), `${res.statusCode} ${JSON.stringify(body)}`).toContain(body.error);
    expect(res.statusCode, body.error).toBe(ERROR_CODES[body.error as keyof typeof ERROR_CODES].status);
    expect(body.detail).not.toBe('');
  }
  expect(answers.map((r) => r.json().error)).toEqual(['BAD_REQUEST', 'BAD_REQUEST', 'NOT_FOUND']);
});

test('a path parameter longer than the router takes is a 414 of the catalogue, and the document says so', async () => {
  const res = await app.inject({ method: 'GET', url: `/things/${'x'.repeat(5000)}` });
  expect([res.statusCode, res.json().error]).toEqual([414, 'URI_TOO_LONG']);
  const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  expect(Object.keys(doc.paths['/things/{id}']!.get!.responses)).toContain('414');
});
