// A thin client for ClickHouse's HTTP interface. We talk to 18.16 (Debian) and to current
// releases, so it sends nothing but the query, the database and one setting both understand:
// no server-side parameters, no settings that older servers reject. Values reach SQL only
// through ./sql.ts.
import { request, Agent } from 'undici';
import type { Sql } from './sql.ts';
import type { ClickHouseConfig } from '../config.ts';

export interface ClickHouseOptions {
  url: string;
  database: string;
  user?: string;
  password?: string;
}

export class ClickHouseError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ClickHouseError';
    this.status = status;
  }
}

/** ClickHouse's UNKNOWN_TABLE error. */
const UNKNOWN_TABLE = /^Code: 60\b/;

export class ClickHouseClient {
  readonly database: string;
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #agent = new Agent({ keepAliveTimeout: 10_000, connections: 16 });

  /** The one way a process gets its client: from the CLICKHOUSE_* settings. */
  static fromConfig(config: ClickHouseConfig): ClickHouseClient {
    return new ClickHouseClient({ url: config.CLICKHOUSE_URL, database: config.CLICKHOUSE_DATABASE, user: config.CLICKHOUSE_USER, password: config.CLICKHOUSE_PASSWORD });
  }

  constructor(options: ClickHouseOptions) {
    this.#url = options.url.replace(/\/$/, '');
    this.database = options.database;
    this.#headers = {
      'X-ClickHouse-User': options.user ?? 'default',
      ...(options.password ? { 'X-ClickHouse-Key': options.password } : {}),
    };
  }

  async #send(query: string, body: string | Buffer | undefined, database: string | null): Promise<string> {
    const params = new URLSearchParams();
    if (database) params.set('database', database);
    // 64-bit integers as JSON strings, as 18.16 writes them by default: current releases write
    // bare numbers, which lose precision above 2^53 and would answer in another shape.
    params.set('output_format_json_quote_64bit_integers', '1');
    let payload: string | Buffer;
    if (body === undefined) payload = query;
    else {
      params.set('query', query);
      payload = body;
    }
    let res;
    for (let attempt = 1; ; attempt++) {
      try {
        res = await request(`${this.#url}/?${params}`, { method: 'POST', body: payload, headers: this.#headers, dispatcher: this.#agent });
        break;
      } catch (err) {
        // A kept-alive socket the server closed while our event loop was busy fails on first
        // use; one retry on a fresh socket is safe (nothing reached the server).
        const code = (err as NodeJS.ErrnoException).code ?? '';
        if (attempt === 1 && ['UND_ERR_SOCKET', 'EPIPE', 'ECONNRESET'].includes(code)) continue;
        throw new ClickHouseError(0, `ClickHouse unreachable at ${this.#url}: ${(err as Error).message}`);
      }
    }
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new ClickHouseError(res.statusCode, text.trim().slice(0, 2000));
    return text;
  }

  /** Runs a statement that returns nothing (DDL, mutations). */
  async exec(statement: Sql, options: { database?: string | null } = {}): Promise<void> {
    await this.#send(statement.text, undefined, options.database === undefined ? this.database : options.database);
  }

  /**
   * Runs a SELECT and returns its rows as objects (FORMAT JSONEachRow). A table that does not
   * exist is asked for again a few times over ~300 ms: a replay swaps tables in by RENAME, which
   * 18.16 does one table after the other, so a read can fall between two renames.
   */
  async query<Row = Record<string, unknown>>(statement: Sql): Promise<Row[]> {
    let text: string;
    for (let attempt = 1; ; attempt++) {
      try {
        text = await this.#send(statement.text + '\nFORMAT JSONEachRow', undefined, this.database);
        break;
      } catch (err) {
        if (attempt >= 4 || !(err instanceof ClickHouseError) || !UNKNOWN_TABLE.test(err.message)) throw err;
        await new Promise((r) => setTimeout(r, 50 * attempt));
      }
    }
    const rows: Row[] = [];
    for (const line of text.split('\n')) if (line) rows.push(JSON.parse(line) as Row);
    return rows;
  }

  /**
   * Runs a SELECT and streams its result's raw bytes in `format` (RowBinary, TabSeparated…), for
   * results too big to hold: the caller reads the body to its end, or stops (leaving the loop or
   * aborting `signal` closes the connection, which cancels the query). An error
   * before the first byte is thrown; one ClickHouse meets later (it has answered 200 by then)
   * arrives as text at the end of the stream, so decoders must check that the bytes end cleanly.
   */
  async queryStream(statement: Sql, format: string, options: { signal?: AbortSignal } = {}): Promise<AsyncIterable<Buffer>> {
    if (!/^[A-Za-z]+$/.test(format)) throw new TypeError(`invalid ClickHouse format: ${format}`);
    const url = `${this.#url}/?${new URLSearchParams({ database: this.database, output_format_json_quote_64bit_integers: '1' })}`;
    const body = `${statement.text}\nFORMAT ${format}`;
    for (let attempt = 1; ; attempt++) {
      let res;
      try {
        res = await request(url, { method: 'POST', body, headers: this.#headers, dispatcher: this.#agent, signal: options.signal });
      } catch (err) {
        // As in #send: a kept-alive socket the server closed fails on first use; retry once.
        const code = (err as NodeJS.ErrnoException).code ?? '';
        if (attempt === 1 && ['UND_ERR_SOCKET', 'EPIPE', 'ECONNRESET'].includes(code)) continue;
        if (options.signal?.aborted) throw err;
        throw new ClickHouseError(0, `ClickHouse unreachable at ${this.#url}: ${(err as Error).message}`);
      }
      if (res.statusCode !== 200) throw new ClickHouseError(res.statusCode, (await res.body.text()).trim().slice(0, 2000));
      return res.body;
    }
  }

  /** Inserts rows in one request (JSONEachRow). Callers batch: thousands of rows per call. */
  async insert(table: string, rows: readonly object[]): Promise<void> {
    if (rows.length === 0) return;
    let body = '';
    for (const row of rows) body += JSON.stringify(row) + '\n';
    await this.#send(`INSERT INTO ${table} FORMAT JSONEachRow`, body, this.database);
  }

  async ping(): Promise<boolean> {
    try {
      const res = await request(`${this.#url}/ping`, { dispatcher: this.#agent });
      const text = await res.body.text();
      return res.statusCode === 200 && text.startsWith('Ok');
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}
