// platform/http/sse.ts: an event stream's status and headers leave when it opens, before its first
// frame, so a client can wait for the stream to be open before it starts what the stream carries.
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createHttpServer } from '../../../platform/http/server.ts';
import { openEventStream, type EventStream } from '../../../platform/http/sse.ts';
import { createLogger } from '../../../platform/logger.ts';

let app: FastifyInstance;
let url: string;
let open: EventStream | undefined;
beforeAll(async () => {
  app = await createHttpServer({
    logger: createLogger('sse-test', 'silent'),
    title: 't',
    version: '0',
    description: 'd',
    ready: () => true,
  });
  // A stream that sends nothing until the test says so.
  app.get('/quiet', (_request, reply) => {
    open = openEventStream(reply);
  });
  url = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  open?.end();
  await app?.close();
});

test('a stream that has sent no frame yet has its status and SSE headers at the client', async () => {
  const abort = new AbortController();
  // Without the headers flushed, fetch would resolve only at the first frame or heartbeat (15 s): the test times out.
  const res = await fetch(`${url}/quiet`, { signal: abort.signal });
  expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
  open!.send({ event: 'ping', data: '{}' });
  const reader = res.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  expect(first).toBe('event: ping\ndata: {}\n\n');
  abort.abort();
}, 5_000);
