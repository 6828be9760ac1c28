// Replicas on one PostgreSQL database tell each other where a thread's protocol run executes, so
// that a subscription on any of them follows the run's events there (./protocolStreams.ts). Over
// LISTEN/NOTIFY on a channel of its own: "run R of thread T began here, at URL U" and "run R of
// thread T ended here, its last seq S". A notice lost with a connection leaves a subscription on
// another replica waiting for the thread's next run (the client's reconnect after that run asks
// again); the connection is opened again at once.
import pg from 'pg';
import { v4 as uuidv4 } from 'uuid';
import type { Logger } from '../../../platform/logger.ts';
import { retry, type RetryPolicy } from '../../../platform/retry.ts';
import type { ThreadKey } from '../../../platform/workspaceThreads.ts';

export type Announcement =
  | { kind: 'started'; thread: ThreadKey; runId: string; url: string }
  | { kind: 'ended'; thread: ThreadKey; runId: string; url: string; lastSeq: number };

export interface ReplicaAnnouncer {
  /** Tells the other replicas (never this one). */
  announce(announcement: Announcement): void;
  /** What the other replicas announce. */
  listen(listener: (announcement: Announcement) => void): void;
  close(): Promise<void>;
}

const CHANNEL = 'agent_protocol_runs';

/** On the wire, short: NOTIFY payloads are at most 8000 bytes. */
type Notice =
  | { k: 's'; from: string; w: string; t: string; r: string; u: string }
  | { k: 'e'; from: string; w: string; t: string; r: string; u: string; q: number };

const LISTEN_AGAIN: RetryPolicy = {
  initialDelayMs: 100,
  backoffCoefficient: 2,
  maxDelayMs: 5000,
  maxAttempts: Infinity,
  jitter: 0.3,
};

export class PostgresAnnouncer implements ReplicaAnnouncer {
  readonly #replicaId = uuidv4();
  readonly #pool: pg.Pool;
  readonly #connectionString: string;
  readonly #logger: Logger;
  readonly #listeners: ((announcement: Announcement) => void)[] = [];
  #client: pg.Client | undefined;
  #closed = false;
  #listening: Promise<void> | undefined;

  constructor(options: { pool: pg.Pool; connectionString: string; logger: Logger }) {
    this.#pool = options.pool;
    this.#connectionString = options.connectionString;
    this.#logger = options.logger;
  }

  /** Listens from now on (before the server takes requests, so that no run begun elsewhere goes unheard). */
  open(): Promise<void> {
    this.#listening ??= this.#listen();
    return this.#listening;
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#connectionString });
    client.on('error', (err) => {
      this.#logger.warn(
        { err: err.message },
        'the protocol announcements lost their LISTEN connection; opening another',
      );
      if (this.#client !== client) return;
      this.#client = undefined;
      client.end().catch(() => undefined);
      if (!this.#closed) this.#listening = this.#listenAgain();
    });
    client.on('notification', (message) => {
      if (message.channel !== CHANNEL || !message.payload) return;
      try {
        this.#heard(JSON.parse(message.payload) as Notice);
      } catch (err) {
        this.#logger.warn({ err: (err as Error).message }, 'a protocol announcement could not be read');
      }
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.#closed) {
      await client.end();
      return;
    }
    this.#client = client;
  }

  #listenAgain(): Promise<void> {
    return retry(LISTEN_AGAIN, () => (this.#closed ? Promise.resolve() : this.#listen()), {
      what: 'listen for protocol announcements',
      logger: this.#logger,
      retryIf: () => !this.#closed,
    }).catch(() => undefined);
  }

  #heard(notice: Notice): void {
    if (notice.from === this.#replicaId) return;
    const thread = { workspaceId: notice.w, threadId: notice.t };
    const announcement: Announcement =
      notice.k === 's'
        ? { kind: 'started', thread, runId: notice.r, url: notice.u }
        : { kind: 'ended', thread, runId: notice.r, url: notice.u, lastSeq: notice.q };
    for (const listener of this.#listeners) listener(announcement);
  }

  announce(announcement: Announcement): void {
    const { thread, runId } = announcement;
    const base = { from: this.#replicaId, w: thread.workspaceId, t: thread.threadId, r: runId };
    const notice: Notice =
      announcement.kind === 'started'
        ? { k: 's', ...base, u: announcement.url }
        : { k: 'e', ...base, u: announcement.url, q: announcement.lastSeq };
    this.#pool
      .query('SELECT pg_notify($1, $2)', [CHANNEL, JSON.stringify(notice)])
      .catch((err: Error) =>
        this.#logger.warn(
          { err: err.message, run_id: runId },
          'a protocol run could not be announced to the other replicas',
        ),
      );
  }

  listen(listener: (announcement: Announcement) => void): void {
    this.#listeners.push(listener);
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#listening?.catch(() => undefined);
    await this.#client?.end().catch(() => undefined);
    this.#client = undefined;
  }
}
