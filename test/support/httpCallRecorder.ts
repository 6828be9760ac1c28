// A recording pass-through in front of one of our HTTP services: every call a client makes
// through it (method, path with its query, the answer's status), in order, with requests and
// answers passed on unchanged. Point the client at its `url` instead of the service's; nothing in
// the client or the service changes. For tests that pin what an official client calls
// (test/e2e/langgraphCli.test.ts); test/support/clickHouseRecorder.ts does the same for
// ClickHouse's statements.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  method: string;
  /** The path and query as the client sent them. */
  path: string;
  status: number;
}

export interface HttpCallRecorder {
  url: string;
  calls: RecordedCall[];
  close(): Promise<void>;
}

/** Hop-by-hop headers, and the ones fetch sets itself from the body it is given. */
const NOT_PASSED_ON = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
]);

const headersOf = (raw: IncomingMessage['headers'] | Headers): [string, string][] =>
  (raw instanceof Headers
    ? [...raw.entries()]
    : Object.entries(raw).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')] as [string, string])
  ).filter(([name]) => !NOT_PASSED_ON.has(name.toLowerCase()));

export async function startHttpCallRecorder(upstream: string): Promise<HttpCallRecorder> {
  const origin = upstream.replace(/\/$/, '');
  const calls: RecordedCall[] = [];
  const server = createServer(async (req, res) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = chunks.length ? Buffer.concat(chunks) : undefined;
      const answer = await fetch(`${origin}${req.url}`, {
        method: req.method,
        headers: headersOf(req.headers),
        body,
        redirect: 'manual',
      });
      const bytes = Buffer.from(await answer.arrayBuffer());
      calls.push({ method: req.method!, path: req.url!, status: answer.status });
      res.writeHead(answer.status, headersOf(answer.headers));
      res.end(bytes);
    } catch (err) {
      calls.push({ method: req.method!, path: req.url!, status: 502 });
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`recorder: ${(err as Error).message}`);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
