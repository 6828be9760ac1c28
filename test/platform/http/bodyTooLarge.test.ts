// A body over the limit is a 413 the client reads, not a reset: the server answers at once, then
// reads and discards what the client still sends (for a bounded time) before the connection can
// close, as nginx's lingering close does. Closing at once left a client that was still uploading
// with EPIPE or ECONNRESET instead of the answer, and the official clients retry those.
import { afterAll, beforeAll, expect, test } from 'vitest';
import { connect, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { request } from 'undici';
import type { FastifyInstance } from 'fastify';
import { createHttpServer } from '../../../platform/http/server.ts';
import { createLogger } from '../../../platform/logger.ts';
import { readDecodedBody } from '../../../platform/http/requestBody.ts';

const LIMIT = 1024 * 1024;
const ROUNDS = Number(process.env.ROUNDS ?? 3);
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  app = await createHttpServer({
    logger: createLogger('body-limit-test', 'silent'),
    title: 't',
    version: '0',
    description: 'd',
    ready: () => true,
    bodyLimit: { bytes: LIMIT, setting: 'TEST_LIMIT' },
  });
  app.post('/echo', async (request) => ({ size: JSON.stringify(request.body).length }));
  // a route that reads its body itself, as the tracing API does (gzip, zstd, multipart)
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      (req, payload, done) =>
        void readDecodedBody(payload, req.headers, LIMIT).then(
          (body) => done(null, body),
          (err) => done(err),
        ),
    );
    scope.post('/raw', async (request) => ({ size: (request.body as Buffer).length }));
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(() => app?.close());

const huge = () => Buffer.alloc(48 * LIMIT, 0x20); // 48 MiB of spaces: valid JSON padding, far over the limit
async function* chunked(total: number) {
  for (let sent = 0; sent < total; sent += 256 * 1024) yield Buffer.alloc(256 * 1024, 0x20);
}

test.each(['/echo', '/raw'])(
  '%s: a declared length over the limit is a 413 the client reads, and the connection serves again',
  async (path) => {
    for (let i = 0; i < ROUNDS; i++) {
      const res = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: huge(),
      });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/exceeds the limit of 1048576 bytes/);
    }
    const ok = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(ok.status).toBe(200);
  },
);

test.each(['/echo', '/raw'])('%s: a chunked body that grows over the limit is a 413 the client reads', async (path) => {
  for (let i = 0; i < ROUNDS; i++) {
    const res = await request(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Readable.from(chunked(48 * LIMIT)),
    });
    expect(res.statusCode).toBe(413);
    expect(((await res.body.json()) as { detail: string }).detail).toMatch(/exceeds the limit of 1048576 bytes/);
  }
});

test.each(['/echo', '/raw'])(
  '%s: after the 413, the connection takes the rest of the body and then the next request',
  async (path) => {
    const port = (app.server.address() as AddressInfo).port;
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let received = '';
    socket.setEncoding('latin1').on('data', (text: string) => (received += text));
    const closed = once(socket, 'close');
    const answers = async (n: number) => {
      while ((received.match(/HTTP\/1\.1 \d{3}/g) ?? []).length < n) {
        const more = once(socket, 'data');
        const ended = await Promise.race([more.then(() => false), closed.then(() => true)]);
        if (ended) throw new Error(`the server closed the connection after: ${JSON.stringify(received.slice(0, 200))}`);
      }
    };
    // the headers of a body 8 times the limit: answered before the body is sent
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${8 * LIMIT}\r\n\r\n`,
    );
    await answers(1);
    expect(received).toMatch(/^HTTP\/1\.1 413 /);
    expect(received).not.toMatch(/connection: close/i);
    // the whole body still goes, without a reset, and the same connection answers the next request
    for (let i = 0; i < 8; i++)
      await new Promise<void>((resolve, reject) =>
        socket.write(Buffer.alloc(LIMIT, 0x20), (err) => (err ? reject(err) : resolve())),
      );
    socket.write(
      `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 7\r\n\r\n{"a":1}`,
    );
    await answers(2);
    expect(received.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 413', 'HTTP/1.1 200']);
    socket.destroy();
  },
);
