// A thin client for ClickHouse's HTTP interface. We talk to 18.16 (Debian) and to current
// releases, so it sends nothing but the query, the database and settings both understand (the
// JSON form of 64-bit integers; the uncompressed-block cache where a read asks for it): no
// server-side parameters, no settings that older servers reject. Values reach SQL only
// through ./sql.ts. Every failure is a ClickHouseError that says whether retrying can help
// (platform/retry.ts obeys it).
import { request, Agent } from 'undici';
import type { IncomingHttpHeaders } from 'undici/types/header.js';
import type { Sql } from './sql.ts';
import { encodeRowBinary, type RowBinaryColumns } from './rowBinary.ts';
import type { ClickHouseConfig } from '../config.ts';
import { retry, type RetryPolicy } from '../retry.ts';
import { clusterStatement } from './clusterDdl.ts';

export interface ClickHouseOptions {
  url: string;
  database: string;
  user?: string;
  password?: string;
  /** Other replicas, tried in turn when the server in use cannot be reached. */
  replicaUrls?: readonly string[];
  /** The cluster the read models live on: DDL sent ON CLUSTER, with Replicated engines (clusterDdl.ts). */
  cluster?: string;
  /**
   * With a cluster: the replicas that must hold an insert before it is acknowledged (see
   * insertQuorum()); a majority of `url` and `replicaUrls` when not given.
   */
  insertQuorum?: number;
}

/**
 * How many replicas must hold an insert before ClickHouse acknowledges it: on a cluster, the
 * configured number, else a majority of the servers the client knows (2 of 2, 2 of 3, 3 of 5);
 * 1 (no quorum) on one server. docs/read-models.md, "What an acknowledged row is worth".
 */
export function insertQuorum(options: Pick<ClickHouseOptions, 'cluster' | 'replicaUrls' | 'insertQuorum'>): number {
  if (!options.cluster) return 1;
  return options.insertQuorum ?? Math.floor((1 + (options.replicaUrls?.length ?? 0)) / 2) + 1;
}

/**
 * How long a quorum insert waits for its replicas before ClickHouse answers 319 (unknown status:
 * the rows may be on the replica that took them; sending them again is safe). Under undici's
 * 300 s without an answer, and long enough for a busy replica to fetch a part.
 */
const INSERT_QUORUM_TIMEOUT_MS = 60_000;

/** The settings an insert is sent with to need `quorum` replicas (18.16 and current releases know both). */
export const quorumInsertSettings = (quorum: number): Record<string, string> => ({
  insert_quorum: String(quorum),
  insert_quorum_timeout: String(INSERT_QUORUM_TIMEOUT_MS),
});

/**
 * ClickHouse's error codes (src/Common/ErrorCodes.cpp) for a statement, or data, that it will
 * refuse however often it is sent: syntax, names it does not know in a query, types, values a
 * column cannot hold, limits on the query itself. Every other failure may pass: the server
 * unreachable, overloaded (241 memory, 202 too many queries, 252 too many parts), timing out
 * (159, 209), a network error (210), a system error (425), a table not there yet (60: created at
 * start-up, swapped in by a replay), credentials an operator has yet to fix.
 */
const REFUSED_STATEMENT_CODES = new Set([
  6, // CANNOT_PARSE_TEXT
  8, // THERE_IS_NO_COLUMN
  16, // NO_SUCH_COLUMN_IN_TABLE
  20, // NUMBER_OF_COLUMNS_DOESNT_MATCH
  25, // CANNOT_PARSE_ESCAPE_SEQUENCE
  26, // CANNOT_PARSE_QUOTED_STRING
  27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  34, // TOO_MANY_ARGUMENTS_FOR_FUNCTION
  35, // TOO_FEW_ARGUMENTS_FOR_FUNCTION
  36, // BAD_ARGUMENTS
  38, // CANNOT_PARSE_DATE
  41, // CANNOT_PARSE_DATETIME
  42, // NUMBER_OF_ARGUMENTS_DOESNT_MATCH
  43, // ILLEGAL_TYPE_OF_ARGUMENT
  44, // ILLEGAL_COLUMN
  46, // UNKNOWN_FUNCTION
  47, // UNKNOWN_IDENTIFIER
  48, // NOT_IMPLEMENTED
  50, // UNKNOWN_TYPE
  53, // TYPE_MISMATCH
  62, // SYNTAX_ERROR
  63, // UNKNOWN_AGGREGATE_FUNCTION
  69, // ARGUMENT_OUT_OF_BOUND
  70, // CANNOT_CONVERT_TYPE
  72, // CANNOT_PARSE_NUMBER
  73, // UNKNOWN_FORMAT
  80, // INCORRECT_QUERY
  115, // UNKNOWN_SETTING
  117, // INCORRECT_DATA
  128, // TOO_LARGE_ARRAY_SIZE
  131, // TOO_LARGE_STRING_SIZE
  167, // TOO_DEEP_AST
  168, // TOO_BIG_AST
  174, // CYCLIC_ALIASES
  179, // MULTIPLE_EXPRESSIONS_FOR_ALIAS
  184, // ILLEGAL_AGGREGATION
  207, // AMBIGUOUS_IDENTIFIER
  215, // NOT_AN_AGGREGATE
  229, // QUERY_IS_TOO_LARGE
  321, // VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE
  349, // CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN
  352, // AMBIGUOUS_COLUMN_NAME
  376, // CANNOT_PARSE_UUID
  386, // NO_COMMON_TYPE
  407, // DECIMAL_OVERFLOW
  441, // CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING
]);

/** ClickHouse's UNKNOWN_TABLE. */
const UNKNOWN_TABLE = 60;
/** ClickHouse's UNSATISFIED_QUORUM_FOR_PREVIOUS_WRITE: another quorum insert into the table still waits for its replicas. */
const QUORUM_OF_PREVIOUS_WRITE = 286;

export class ClickHouseError extends Error {
  /** The HTTP status ClickHouse answered with; 0 when it could not be reached. */
  readonly status: number;
  /** ClickHouse's error code (`Code: 62` is SYNTAX_ERROR); null when it could not be reached or did not say. */
  readonly exceptionCode: number | null;
  /** Whether sending the same statement again can succeed. */
  readonly retryable: boolean;
  constructor(status: number, message: string, options: { exceptionCode?: number | null; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ClickHouseError';
    this.status = status;
    this.exceptionCode = options.exceptionCode ?? null;
    this.retryable = this.exceptionCode === null || !REFUSED_STATEMENT_CODES.has(this.exceptionCode);
  }

  /**
   * From an error answer: the code from the X-ClickHouse-Exception-Code header (19.x on), else
   * from the text (`Code: 62, e.displayText() = …` in 18.16, `Code: 62. DB::Exception: …` now).
   */
  static fromResponse(
    status: number,
    text: string,
    headers: Record<string, string | string[] | undefined>,
  ): ClickHouseError {
    const header = headers['x-clickhouse-exception-code'];
    const fromHeader = Number(Array.isArray(header) ? header[0] : header);
    const fromText = /^Code: (\d+)/.exec(text.trimStart())?.[1];
    const exceptionCode =
      Number.isInteger(fromHeader) && fromHeader > 0 ? fromHeader : fromText ? Number(fromText) : null;
    return new ClickHouseError(status, text.trim().slice(0, 2000), { exceptionCode });
  }
}

/**
 * A kept-alive socket the server closed while our event loop was busy fails on first use; one
 * more try on a fresh socket is safe (nothing reached the server).
 */
const STALE_SOCKET_RETRY: RetryPolicy = { initialDelayMs: 0, backoffCoefficient: 1, maxDelayMs: 0, maxAttempts: 2 };
const isStaleSocket = (err: unknown) =>
  ['UND_ERR_SOCKET', 'EPIPE', 'ECONNRESET'].includes((err as NodeJS.ErrnoException).code ?? '');

/**
 * A replay swaps tables in by RENAME, which 18.16 does one table after the other, so a read can
 * fall between two renames: a table that does not exist is asked for again over ~350 ms.
 */
const TABLE_SWAP_RETRY: RetryPolicy = { initialDelayMs: 50, backoffCoefficient: 2, maxDelayMs: 200, maxAttempts: 4 };
const isUnknownTable = (err: unknown) => err instanceof ClickHouseError && err.exceptionCode === UNKNOWN_TABLE;

/**
 * 18.16 takes one quorum insert into a table at a time, cluster-wide: another one, while the
 * previous waits for its replicas (a fraction of a second), is refused with nothing written (286). The
 * same insert is sent again over ~500 ms before the caller's retry policy gets the error: the
 * projectors' parts overlap, and several projector processes write the same tables. A previous
 * write that stays short of its quorum (a replica down) keeps refusing; that is the caller's.
 * (Current releases take quorum inserts in parallel, insert_quorum_parallel.)
 */
const QUORUM_TURN_RETRY: RetryPolicy = { initialDelayMs: 20, backoffCoefficient: 2, maxDelayMs: 200, maxAttempts: 6 };
const isQuorumOfPreviousWrite = (err: unknown) =>
  err instanceof ClickHouseError && err.exceptionCode === QUORUM_OF_PREVIOUS_WRITE;

export interface InsertOptions {
  /**
   * false: acknowledged by the replica in use alone, without waiting for the quorum. For rows
   * that are recomputed when missing (the stats slices the API writes back as a cache).
   */
  quorum?: boolean;
}

export interface QueryOptions {
  /**
   * Keep the blocks this read decompresses in the server's uncompressed cache, and read them from
   * it (`use_uncompressed_cache`; the cache's size is the server's `uncompressed_cache_size`).
   * For short reads that pick granules scattered over a table by key (a page of threads): each
   * granule read otherwise decompresses the whole block around it (64 KiB or more per column),
   * again on every request. Not for scans: they would push out the blocks such reads share, and
   * ClickHouse skips the cache for reads of more than `merge_tree_max_rows_to_use_cache` rows.
   */
  cacheBlocks?: boolean;
}

interface WholeResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * A POST whose answer is read whole, through undici's dispatch with a handler that keeps the
 * body's chunks: ClickHouse 18.16 sends its answers in 4 KB chunks (a 1,000-run trace is ~100),
 * and `request`'s body stream spends ~0.2 ms more CPU per such answer taking them in. Fails as
 * `request` does (the socket errors the retries look for), the body's errors included.
 */
function postWhole(agent: Agent, url: string, body: string | Buffer, headers: Record<string, string>) {
  const { origin, pathname, search } = new URL(url);
  return new Promise<WholeResponse>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let statusCode = 0;
    let responseHeaders: IncomingHttpHeaders = {};
    agent.dispatch(
      { origin, path: pathname + search, method: 'POST', body, headers },
      {
        onRequestStart() {},
        onResponseStart(_controller, status, received) {
          statusCode = status;
          responseHeaders = received;
        },
        onResponseData(_controller, chunk) {
          chunks.push(chunk);
        },
        onResponseEnd() {
          resolve({ statusCode, headers: responseHeaders, text: Buffer.concat(chunks).toString('utf8') });
        },
        onResponseError(_controller, err) {
          reject(err);
        },
      },
    );
  });
}

export class ClickHouseClient {
  readonly database: string;
  readonly cluster: string | undefined;
  /** Replicas that must hold an insert before it is acknowledged (1: the one that takes it). */
  readonly insertQuorum: number;
  /** CLICKHOUSE_URL, then the other replicas. */
  readonly #urls: string[];
  /** The one in use: the last that answered. */
  #current = 0;
  readonly #headers: Record<string, string>;
  readonly #agent = new Agent({ keepAliveTimeout: 10_000, connections: 16 });

  /** The one way a process gets its client: from the CLICKHOUSE_* settings. */
  static fromConfig(config: ClickHouseConfig): ClickHouseClient {
    return new ClickHouseClient({
      url: config.CLICKHOUSE_URL,
      database: config.CLICKHOUSE_DATABASE,
      user: config.CLICKHOUSE_USER,
      password: config.CLICKHOUSE_PASSWORD,
      replicaUrls: config.CLICKHOUSE_REPLICA_URLS,
      cluster: config.CLICKHOUSE_CLUSTER || undefined,
      insertQuorum: config.CLICKHOUSE_INSERT_QUORUM,
    });
  }

  constructor(options: ClickHouseOptions) {
    this.#urls = [options.url, ...(options.replicaUrls ?? [])].map((u) => u.replace(/\/$/, ''));
    this.database = options.database;
    this.cluster = options.cluster;
    this.insertQuorum = insertQuorum(options);
    this.#headers = {
      'X-ClickHouse-User': options.user ?? 'default',
      ...(options.password ? { 'X-ClickHouse-Key': options.password } : {}),
    };
  }

  /**
   * POSTs `pathAndQuery` to the server in use, once more on a stale kept-alive socket; when it
   * cannot be reached, to the next replica, and so on. Unreachable (all of them) is a
   * ClickHouseError with status 0. A request sent again elsewhere may have been applied where it
   * failed: reads do not care, and the projectors' writes are idempotent (ReplacingMergeTree; a
   * Replicated table also drops a block it has had inserted already).
   */
  async #post<T>(send: (url: string) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const failures: string[] = [];
    for (let tried = 0; tried < this.#urls.length; tried++) {
      const index = (this.#current + tried) % this.#urls.length;
      const url = this.#urls[index]!;
      try {
        const res = await retry(STALE_SOCKET_RETRY, () => send(url), {
          what: 'ClickHouse request',
          retryIf: isStaleSocket,
          signal,
        });
        this.#current = index;
        return res;
      } catch (err) {
        if (signal?.aborted) throw err;
        failures.push(`${url}: ${(err as Error).message}`);
        if (tried === this.#urls.length - 1)
          throw new ClickHouseError(0, `ClickHouse unreachable at ${failures.join('; ')}`, { cause: err });
      }
    }
    throw new ClickHouseError(0, 'ClickHouse: no URL');
  }

  async #send(
    query: string,
    body: string | Buffer | undefined,
    database: string | null,
    options: QueryOptions = {},
    settings?: Record<string, string>,
  ): Promise<string> {
    const params = new URLSearchParams(settings);
    if (database) params.set('database', database);
    // 64-bit integers as JSON strings, as 18.16 writes them by default: current releases write
    // bare numbers, which lose precision above 2^53 and would answer in another shape.
    params.set('output_format_json_quote_64bit_integers', '1');
    if (options.cacheBlocks) params.set('use_uncompressed_cache', '1');
    let payload: string | Buffer;
    if (body === undefined) payload = query;
    else {
      params.set('query', query);
      payload = body;
    }
    const path = `/?${params}`;
    const res = await this.#post((url) => postWhole(this.#agent, `${url}${path}`, payload, this.#headers));
    if (res.statusCode !== 200) throw ClickHouseError.fromResponse(res.statusCode, res.text, res.headers);
    return res.text;
  }

  /** Runs a statement that returns nothing (DDL, mutations). */
  async exec(statement: Sql, options: { database?: string | null } = {}): Promise<void> {
    const ddl = this.cluster ? clusterStatement(statement, this.cluster, this.database) : statement;
    // ON CLUSTER waits for every replica; one that is down gets the statement when it returns
    // (from ZooKeeper's queue), and this one fails after the timeout instead of waiting 3 minutes.
    const settings = ddl !== statement ? { distributed_ddl_task_timeout: '60' } : undefined;
    await this.#send(
      ddl.text,
      undefined,
      options.database === undefined ? this.database : options.database,
      {},
      settings,
    );
  }

  /**
   * Runs a SELECT and returns its rows as objects. A table that does not exist is asked for again
   * a few times (TABLE_SWAP_RETRY: a replay may be swapping it in). Read as JSONCompact (the
   * column names once, then rows of values; each row's values as JSONEachRow has them): the
   * names are not written, sent and parsed again for every row (a 1,000-run trace's rows came in
   * 16 ms instead of 24, and parsed in 1.6–1.9 ms instead of 2.5–2.7).
   */
  async query<Row = Record<string, unknown>>(statement: Sql, options: QueryOptions = {}): Promise<Row[]> {
    const read = () => this.#send(statement.text + '\nFORMAT JSONCompact', undefined, this.database, options);
    const text = await retry(TABLE_SWAP_RETRY, read, { what: 'ClickHouse read', retryIf: isUnknownTable });
    return compactRows(text) as Row[];
  }

  /**
   * Runs a SELECT and streams its result's raw bytes in `format` (RowBinary, TabSeparated…), for
   * results too big to hold: the caller reads the body to its end, or stops (leaving the loop or
   * aborting `signal` closes the connection, which cancels the query). An error
   * before the first byte is thrown; one ClickHouse meets later (it has answered 200 by then)
   * arrives as text at the end of the stream, so decoders must check that the bytes end cleanly.
   */
  async queryStream(
    statement: Sql,
    format: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<AsyncIterable<Buffer>> {
    if (!/^[A-Za-z]+$/.test(format)) throw new TypeError(`invalid ClickHouse format: ${format}`);
    const path = `/?${new URLSearchParams({ database: this.database, output_format_json_quote_64bit_integers: '1' })}`;
    const body = `${statement.text}\nFORMAT ${format}`;
    const { signal } = options;
    const res = await this.#post(
      (url) =>
        request(`${url}${path}`, { method: 'POST', body, headers: this.#headers, dispatcher: this.#agent, signal }),
      signal,
    );
    if (res.statusCode !== 200) throw ClickHouseError.fromResponse(res.statusCode, await res.body.text(), res.headers);
    return res.body;
  }

  /**
   * Sends an INSERT; with a quorum (insertQuorum > 1), ClickHouse answers only once that many
   * replicas hold its rows, and refuses it (285) while fewer are up: the caller's retry policy
   * waits. An insert refused for another quorum insert into the table is sent again
   * (QUORUM_TURN_RETRY).
   */
  async #insert(query: string, body: string | Buffer, options: InsertOptions): Promise<void> {
    if (this.insertQuorum <= 1 || options.quorum === false) {
      await this.#send(query, body, this.database);
      return;
    }
    const settings = quorumInsertSettings(this.insertQuorum);
    await retry(QUORUM_TURN_RETRY, () => this.#send(query, body, this.database, {}, settings), {
      what: 'ClickHouse quorum insert',
      retryIf: isQuorumOfPreviousWrite,
    });
  }

  /** Inserts rows in one request (JSONEachRow). Callers batch: thousands of rows per call. */
  async insert(table: string, rows: readonly object[], options: InsertOptions = {}): Promise<void> {
    if (rows.length === 0) return;
    let body = '';
    for (const row of rows) body += JSON.stringify(row) + '\n';
    await this.#insert(`INSERT INTO ${table} FORMAT JSONEachRow`, body, options);
  }

  /**
   * Inserts rows in one request as RowBinary, in the columns of the table's DDL
   * (rowBinaryColumns): nothing to build as text here, nothing to parse in ClickHouse. The
   * projectors' way; a value a column cannot hold throws a RowBinaryError (not retryable).
   */
  async insertRowBinary(
    table: string,
    columns: RowBinaryColumns,
    rows: readonly object[],
    options: InsertOptions = {},
  ): Promise<void> {
    if (rows.length === 0) return;
    await this.#insert(
      `INSERT INTO ${table} ${columns.list} FORMAT RowBinary`,
      encodeRowBinary(columns, rows),
      options,
    );
  }

  async ping(): Promise<boolean> {
    try {
      const res = await request(`${this.#urls[this.#current]}/ping`, { dispatcher: this.#agent });
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

/** The rows of a JSONCompact answer as objects keyed by column name, in the columns' order. */
export function compactRows(text: string): Array<Record<string, unknown>> {
  const { meta, data } = JSON.parse(text) as { meta: Array<{ name: string }>; data: unknown[][] };
  const names = meta.map((m) => m.name);
  const rows = new Array<Record<string, unknown>>(data.length);
  for (let i = 0; i < data.length; i++) {
    const values = data[i]!;
    const row: Record<string, unknown> = {};
    for (let c = 0; c < names.length; c++) row[names[c]!] = values[c];
    rows[i] = row;
  }
  return rows;
}
