// A recording proxy in front of ClickHouse's HTTP interface: every statement our processes send
// (DDL, inserts with their rows, mutations, queries), with ClickHouse's answer, in the order
// ClickHouse ran them. Point a process's CLICKHOUSE_URL (or a ClickHouseClient) at one of its
// listeners; each listener names the origin of what comes through it. Nothing in the product
// changes: what is recorded is exactly what went over the wire.
// Statements pass one at a time, so the recorded order is the order in which they took effect,
// and a replay of the sequence elsewhere meets the same state at every step
// (test/contract/currentClickHouse.test.ts). The test's own steps that must sit at a place in
// that order (making merges deterministic) run in the same queue, through `exclusive`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request, Agent } from 'undici';

/** One statement as sent and as 18.16 answered it. */
export interface RecordedStatement {
  kind: 'statement';
  /** Where it came from: a listener's origin (e.g. `stack`, or the label of a direct call). */
  origin: string;
  /** The `database` URL parameter (null: the server's default database). */
  database: string | null;
  /** The statement text, with its FORMAT clause (an insert's rows are in `data`). */
  query: string;
  /** An insert's rows as sent (the request body; base64 when `binary`); null for other statements. */
  data: string | null;
  /** The insert's rows are in a binary format (RowBinary): `data` is their base64. */
  binary: boolean;
  status: number;
  /** The answer's bytes: rows in the statement's output format, or the error text. */
  answer: Buffer;
}

/** A step of the test's own, recorded in order so a replay can take it at the same place. */
export interface RecordedControl {
  kind: 'control';
  action: string;
  [key: string]: unknown;
}

export type RecordedStep = RecordedStatement | RecordedControl;

export class ClickHouseRecorder {
  readonly steps: RecordedStep[] = [];
  readonly #upstream: string;
  readonly #agent = new Agent({ keepAliveTimeout: 10_000, connections: 4 });
  readonly #servers: Server[] = [];
  #queue: Promise<unknown> = Promise.resolve();

  constructor(upstream: string) {
    this.#upstream = upstream.replace(/\/$/, '');
  }

  /** A listener whose statements are recorded under `origin()` (asked per statement); its URL. */
  async listen(origin: string | (() => string)): Promise<string> {
    const originOf = typeof origin === 'string' ? () => origin : origin;
    const server = createServer(
      (req, res) =>
        void this.#handle(req, res, originOf).catch((err: Error) => {
          res.statusCode = 502;
          res.end(`recorder: ${err.message}`);
        }),
    );
    this.#servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** Runs `fn` between two statements (no statement passes meanwhile) and records `control` there. */
  exclusive<T>(control: RecordedControl, fn: () => Promise<T>): Promise<T> {
    return this.#inQueue(async () => {
      const result = await fn();
      this.steps.push(control);
      return result;
    });
  }

  /** The recorded statements. */
  statements(): RecordedStatement[] {
    return this.steps.filter((s): s is RecordedStatement => s.kind === 'statement');
  }

  async close(): Promise<void> {
    await Promise.all(this.#servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await this.#agent.close();
  }

  #inQueue<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(fn);
    this.#queue = next.catch(() => {});
    return next;
  }

  async #handle(req: IncomingMessage, res: ServerResponse, originOf: () => string): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://recorder');
    const headers: Record<string, string> = {};
    for (const name of ['x-clickhouse-user', 'x-clickhouse-key', 'content-type'])
      if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
    const method = req.method === 'GET' ? 'GET' : 'POST';
    const forward = () =>
      request(`${this.#upstream}${url.pathname}${url.search}`, {
        method,
        headers,
        body: method === 'GET' ? undefined : body,
        dispatcher: this.#agent,
      });
    if (url.pathname !== '/') {
      // /ping and the like: passed through, not statements
      const answer = await forward();
      res.writeHead(answer.statusCode).end(Buffer.from(await answer.body.arrayBuffer()));
      return;
    }
    const origin = originOf();
    await this.#inQueue(async () => {
      const answer = await forward();
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      const inURL = url.searchParams.get('query');
      const binary = inURL !== null && /\bFORMAT\s+RowBinary\s*$/.test(inURL);
      this.steps.push({
        kind: 'statement',
        origin,
        database: url.searchParams.get('database') || null,
        query: inURL ?? body.toString('utf8'),
        data: inURL === null ? null : body.toString(binary ? 'base64' : 'utf8'),
        binary,
        status: answer.statusCode,
        answer: bytes,
      });
      res.writeHead(answer.statusCode, { 'content-type': 'text/plain; charset=UTF-8' }).end(bytes);
    });
  }
}
