// The run queue in PostgreSQL, for agent-server replicas sharing one database
// (AGENT_SERVER_CHECKPOINTER=postgres). The agent_runs rows are the queue:
//
// - A run that may start at once (its thread has no unfinished run) is inserted as `running`,
//   owned by the replica that took the request, which executes it: no hop through the queue.
//   Others are inserted `pending`, behind the thread's unfinished runs (or until `after_seconds`).
//   A thread is its workspace and its id (two workspaces may each have a thread of one id).
// - A replica claims pending runs with `FOR UPDATE SKIP LOCKED`: the first pending run of a
//   thread with no running run. A partial unique index allows one running run per thread, so the
//   database itself refuses a second one, whatever the race.
// - Wake-ups go over LISTEN/NOTIFY on one channel: a run became claimable; cancel a run (its owner
//   acts); a run was claimed or ended (for replicas following it: /join, /wait, a proxied stream).
//   Every replica also polls at each heartbeat, so a notification lost with a connection delays
//   work by a heartbeat at most.
// - Each replica heartbeats in agent_server_replicas. A replica silent for AGENT_SERVER_RUN_LEASE_MS
//   is dead: any replica marks its running runs failed (not retried: a graph's tools may have
//   acted already) and its threads free for their next runs. A replica that starts at the address
//   of a registered one knows that one is gone (one process holds a port) and reaps it at once.
import pg from 'pg';
import { inTransaction } from '../../../platform/postgres.ts';
import { v4 as uuidv4 } from 'uuid';
import { errors } from '../../../platform/errors.ts';
import { retry, type RetryPolicy } from '../../../platform/retry.ts';
import type { Logger } from '../../../platform/logger.ts';
import type { ThreadKey } from '../../../platform/workspaceThreads.ts';
import type { AuthContext } from '../auth/customAuth.ts';
import type { MultitaskStrategy, RunRecord, RunStatus } from '../store/agentRecords.ts';
import type { ActiveRun, CancelAction, RunAssistant, RunOutcome } from './activeRun.ts';
import type { RunCreateBody, StreamMode } from './runBody.ts';
import { threadAfterRun, type RunExecutor, type RunQueue, type ThreadAdmission } from './runQueue.ts';
import { KeyedWaiters } from './keyedWaiters.ts';

const CHANNEL = 'agent_runs';
/** Held while a replica creates the run queue's own table (the record store's tables are created before). */
const QUEUE_SCHEMA_LOCK = 0x61677371; // "agsq"
/**
 * The threads whose streams (GET /threads/{id}/stream) a replica serves: an admission on such a
 * thread notifies (`n`), so the stream learns of runs created on any replica. Rows go with their
 * replica (when it leaves, or is reaped as dead).
 */
const QUEUE_SCHEMA = `
CREATE TABLE IF NOT EXISTS agent_thread_streams (
  workspace_id uuid NOT NULL,
  thread_id uuid NOT NULL,
  replica_id uuid NOT NULL REFERENCES agent_server_replicas (replica_id) ON DELETE CASCADE,
  PRIMARY KEY (workspace_id, thread_id, replica_id)
);
`;
/** The notice of a run admitted on a watched thread, made in the admitting statement. */
const NOTIFY_WATCHERS = (workspace: string, thread: string, notice: string) =>
  `(SELECT count(pg_notify('${CHANNEL}', ${notice})) FROM agent_thread_streams s WHERE s.workspace_id = ${workspace} AND s.thread_id = ${thread})`;
/** NOTIFY payloads are at most 8000 bytes: an outcome larger than this is read from its row. */
const OUTCOME_IN_NOTICE_BYTES = 6000;

/** What another replica needs to execute a run: kept on its row. */
export interface RunWork {
  body: RunCreateBody;
  streamModes: StreamMode[];
  auth: AuthContext;
  temporary: boolean;
  /** The assistant as the run was created on it (absent in rows of older versions: the config file's). */
  assistant?: RunAssistant;
}

/** What the queue asks of the run manager beyond starting and cancelling runs here. */
export interface SharedRunExecutor extends RunExecutor {
  /** A run claimed here from the queue: the manager's ActiveRun for it (its own, when it created the run here). */
  adopt(record: RunRecord, work: RunWork, workspaceId: string): ActiveRun;
  /** A temporary thread whose run was lost with its replica: its checkpoints go too. */
  forgetThread(thread: ThreadKey): Promise<void>;
  /** A run was created on a thread a stream here watches (watchThread), by any replica. */
  threadRunCreated(thread: ThreadKey, runId: string): void;
}

/** A run followed from here: how it ended, or who runs it. */
export type Followed = { ended: RunOutcome | null } | { owner: string | undefined; ended: Promise<RunOutcome | null> };

type Notice =
  | { k: 'q' }
  | { k: 'n'; w: string; t: string; r: string }
  | { k: 'c'; r: string; a: CancelAction }
  | { k: 'd'; r: string; o?: RunOutcome }
  | { k: 'o'; r: string; u: string };

const FINAL: RunStatus[] = ['success', 'error', 'interrupted', 'timeout'];

/** A race lost to another replica's statement: unique violation, deadlock, serialization failure. */
const isRace = (err: unknown) => ['23505', '40P01', '40001'].includes((err as { code?: string }).code ?? '');
const RACE_RETRY: RetryPolicy = {
  initialDelayMs: 2,
  backoffCoefficient: 2,
  maxDelayMs: 50,
  maxAttempts: 6,
  jitter: 0.5,
};
const END_RETRY: RetryPolicy = {
  initialDelayMs: 50,
  backoffCoefficient: 2,
  maxDelayMs: 1000,
  maxAttempts: Infinity,
  jitter: 0.3,
};
const nowIso = () => new Date().toISOString();

export interface PostgresRunQueueOptions {
  pool: pg.Pool;
  /** For the LISTEN connection. */
  connectionString: string;
  logger: Logger;
  leaseMs: number;
}

export class PostgresRunQueue implements RunQueue {
  readonly shared = true;
  readonly replicaId = uuidv4();
  readonly #pool: pg.Pool;
  readonly #options: PostgresRunQueueOptions;
  readonly #executor: SharedRunExecutor;
  readonly #logger: Logger;
  #url: string | undefined;
  #listener: pg.Client | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #closed = false;
  #claiming: Promise<void> | undefined;
  #registering: Promise<void> | undefined;
  #claimAgain = false;
  /** Runs followed here, not executed here: resolved when they end. */
  readonly #followers = new KeyedWaiters<RunOutcome | null>();
  /** Runs waiting here for a replica to claim them: resolved with its address. */
  readonly #claimWaiters = new KeyedWaiters<string>();
  /** Cancels that arrived before the run they name started here (the notice can beat the claim's answer). */
  readonly #cancelsAhead = new Map<string, CancelAction>();
  /** Threads whose streams this replica serves (their rows are put back if this replica registers again). */
  readonly #watchedThreads = new Map<string, ThreadKey>();

  constructor(options: PostgresRunQueueOptions, executor: SharedRunExecutor) {
    this.#options = options;
    this.#pool = options.pool;
    this.#executor = executor;
    this.#logger = options.logger;
  }

  /** This replica's address, once it listens: reaps a dead predecessor there, and starts taking work from the queue. */
  async open(url: string): Promise<void> {
    this.#url = url;
    await this.#register();
    await this.#pool.query(`UPDATE agent_server_replicas SET url = $2 WHERE replica_id = $1`, [this.replicaId, url]);
    const gone = await this.#pool.query(
      `DELETE FROM agent_server_replicas WHERE url = $1 AND replica_id <> $2 RETURNING replica_id`,
      [url, this.replicaId],
    );
    if (gone.rowCount)
      this.#logger.info({ url }, 'a previous agent server at this address is gone: its unfinished runs are failed');
    await this.#reap();
    this.poke();
  }

  /**
   * Registers this replica, listens for notices and heartbeats: before its first run is admitted
   * (a request may come in before the server has told its address), so that no peer takes the
   * owner of that run for a dead replica.
   */
  #register(): Promise<void> {
    this.#registering ??= (async () => {
      await this.#transaction(async (client) => {
        await client.query(`SELECT pg_advisory_xact_lock(${QUEUE_SCHEMA_LOCK})`);
        await client.query(QUEUE_SCHEMA);
      });
      await this.#pool.query(`INSERT INTO agent_server_replicas (replica_id, url) VALUES ($1, $2)`, [
        this.replicaId,
        this.#url ?? null,
      ]);
      await this.#listen();
      this.#heartbeat = setInterval(() => void this.#beat(), Math.max(100, Math.floor(this.#options.leaseMs / 4)));
      this.#heartbeat.unref();
    })();
    return this.#registering;
  }

  get url(): string | undefined {
    return this.#url;
  }

  async admit(run: ActiveRun, strategy: MultitaskStrategy, thread: ThreadAdmission): Promise<void> {
    await this.#register();
    const delayed = (run.body.after_seconds ?? 0) > 0;
    // Another request's run took the thread between our look and our insert (the unique index
    // refused ours), or PostgreSQL broke a lock cycle: look again.
    const startNow = await retry(
      RACE_RETRY,
      async () =>
        (!delayed && (await this.#admitIfIdle(run, thread))) || (await this.#admitLocked(run, strategy, thread)),
      {
        what: 'admit a run',
        retryIf: isRace,
      },
    );
    if (startNow) {
      run.record.status = 'running';
      this.#executor.startHere(run);
    } else if (delayed) {
      setTimeout(() => this.poke(), (run.body.after_seconds ?? 0) * 1000 + 10).unref();
    }
  }

  /**
   * The common case in one statement: the thread has no unfinished run, so this one runs here,
   * now. Every statement that touches a thread's runs locks the thread's row first (here, the
   * admissions, the ends, the reaper, a cancel): one lock order, no deadlock.
   */
  async #admitIfIdle(run: ActiveRun, thread: ThreadAdmission): Promise<boolean> {
    const { record } = run;
    const result = await this.#pool.query(
      `WITH locked AS (SELECT thread_id FROM agent_threads WHERE workspace_id = $3 AND thread_id = $2 FOR UPDATE),
       inserted AS (
         INSERT INTO agent_runs (run_id, thread_id, workspace_id, created_at, updated_at, record, status, owner, work)
         SELECT $1, locked.thread_id, $3, $4, $4, $5, 'running', $6, $7 FROM locked
         WHERE NOT EXISTS (SELECT 1 FROM agent_runs WHERE workspace_id = $3 AND thread_id = $2 AND status IN ('pending', 'running'))
         RETURNING thread_id)
       UPDATE agent_threads SET status = $8, updated_at = $9, metadata = $10 WHERE workspace_id = $3 AND thread_id = (SELECT thread_id FROM inserted)
       RETURNING ${NOTIFY_WATCHERS('$3', '$2', '$11')}`,
      [
        record.run_id,
        record.thread_id,
        run.workspaceId,
        record.created_at,
        JSON.stringify({ ...record, status: 'running' }),
        this.replicaId,
        JSON.stringify(workOf(run)),
        thread.status,
        thread.updated_at,
        JSON.stringify(thread.metadata),
        createdNotice(run),
      ],
    );
    return (result.rowCount ?? 0) > 0;
  }

  /**
   * With the thread locked against other admissions and ends: applies the strategy to its
   * unfinished runs, and inserts the run, running here when nothing is ahead of it. True when it runs here now.
   */
  async #admitLocked(run: ActiveRun, strategy: MultitaskStrategy, thread: ThreadAdmission): Promise<boolean> {
    const { record } = run;
    return this.#transaction(async (client) => {
      await this.#lockThread(client, run.thread);
      const ahead = (
        await client.query(
          `SELECT run_id, status FROM agent_runs WHERE workspace_id = $1 AND thread_id = $2 AND status IN ('pending', 'running') ORDER BY seq`,
          [run.workspaceId, record.thread_id],
        )
      ).rows as { run_id: string; status: RunStatus }[];
      const running = ahead.filter((r) => r.status === 'running').length;
      let pending = ahead.length - running;
      if (ahead.length > 0 && strategy === 'reject') throw errors.threadBusy();
      if (strategy === 'interrupt' || strategy === 'rollback') {
        for (const other of ahead) {
          if (other.status === 'pending') {
            await this.#endPending(client, other.run_id, strategy);
            pending--;
          } else {
            await this.#requestCancel(client, other.run_id, strategy);
          }
        }
      }
      const delayed = (run.body.after_seconds ?? 0) > 0;
      const startNow = running + pending === 0 && !delayed;
      await client.query(
        `INSERT INTO agent_runs (run_id, thread_id, workspace_id, created_at, updated_at, record, status, owner, work, available_at, watched)
         VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8, now() + make_interval(secs => $9), $10)`,
        [
          record.run_id,
          record.thread_id,
          run.workspaceId,
          record.created_at,
          JSON.stringify({ ...record, status: startNow ? 'running' : 'pending' }),
          startNow ? 'running' : 'pending',
          startNow ? this.replicaId : null,
          JSON.stringify(workOf(run)),
          run.body.after_seconds ?? 0,
          !startNow, // its creator follows a queued run
        ],
      );
      await client.query(
        `UPDATE agent_threads SET status = $3, updated_at = $4, metadata = $5 WHERE workspace_id = $1 AND thread_id = $2
         RETURNING ${NOTIFY_WATCHERS('$1', '$2', '$6')}`,
        [
          run.workspaceId,
          record.thread_id,
          thread.status,
          thread.updated_at,
          JSON.stringify(thread.metadata),
          createdNotice(run),
        ],
      );
      return startNow;
    });
  }

  async markRunning(): Promise<void> {
    // claimed or admitted as running already
  }

  /**
   * Retried while this replica's lease would last (PostgreSQL away, a lock cycle broken): a run
   * whose end is not recorded stays `running` until a peer takes this replica for dead.
   */
  recordEnd(run: ActiveRun, outcome: RunOutcome): Promise<boolean> {
    const policy = { ...END_RETRY, maxElapsedMs: this.#options.leaseMs };
    return retry(policy, () => this.#recordEnd(run, outcome), {
      what: `record the end of run ${run.record.run_id}`,
      logger: this.#logger,
    });
  }

  async #recordEnd(run: ActiveRun, outcome: RunOutcome): Promise<boolean> {
    const { record } = run;
    if (run.temporaryThread) return this.#endTemporary(run, outcome);
    return this.#transaction(async (client) => {
      await this.#lockThread(client, run.thread);
      const ended = await this.#endRow(
        client,
        record,
        outcome,
        run.cancelAction === 'rollback',
        `owner = $${2} AND status = 'running'`,
        [this.replicaId],
      );
      if (!ended) return false;
      await this.#afterEnd(client, run.thread, record.run_id, run.temporaryThread, outcome, ended.watched);
      return true;
    });
  }

  /**
   * A stateless run's end in one statement: its temporary thread goes, and the run with it (no
   * other run waits on that thread). Those who follow it learn its outcome from the notice.
   */
  async #endTemporary(run: ActiveRun, outcome: RunOutcome): Promise<boolean> {
    const { record } = run;
    const result = await this.#pool.query(
      `WITH locked AS (SELECT thread_id FROM agent_threads WHERE workspace_id = $4 AND thread_id = $3 FOR UPDATE),
       mine AS (SELECT r.watched FROM agent_runs r JOIN locked ON locked.thread_id = r.thread_id WHERE r.run_id = $1 AND r.workspace_id = $4 AND r.owner = $2 AND r.status = 'running' FOR UPDATE OF r),
       gone AS (DELETE FROM agent_threads WHERE workspace_id = $4 AND thread_id = $3 AND EXISTS (SELECT 1 FROM mine) RETURNING 1)
       SELECT (SELECT watched FROM mine) AS watched, EXISTS (SELECT 1 FROM gone) AS ended`,
      [record.run_id, this.replicaId, record.thread_id, run.workspaceId],
    );
    const { watched, ended } = result.rows[0] as { watched: boolean | null; ended: boolean };
    if (ended && watched)
      await this.#notify(this.#pool, {
        k: 'd',
        r: record.run_id,
        ...(JSON.stringify(outcome).length <= OUTCOME_IN_NOTICE_BYTES ? { o: outcome } : {}),
      });
    return ended;
  }

  /**
   * Ends a run's row (updates it with its outcome, or deletes it under rollback) if `condition`
   * holds, returning whether someone follows it; undefined when the condition did not hold.
   */
  async #endRow(
    client: pg.PoolClient,
    record: RunRecord,
    outcome: RunOutcome,
    rollback: boolean,
    condition: string,
    params: unknown[],
  ): Promise<{ watched: boolean } | undefined> {
    const result = rollback
      ? await client.query(`DELETE FROM agent_runs WHERE run_id = $1 AND ${condition} RETURNING watched`, [
          record.run_id,
          ...params,
        ])
      : await client.query(
          `UPDATE agent_runs SET status = $${params.length + 2}, updated_at = $${params.length + 3}, record = $${params.length + 4}, outcome = $${params.length + 5}, owner = NULL
           WHERE run_id = $1 AND ${condition} RETURNING watched`,
          [
            record.run_id,
            ...params,
            outcome.status,
            record.updated_at,
            JSON.stringify(record),
            JSON.stringify(outcome),
          ],
        );
    const row = result.rows[0] as { watched: boolean } | undefined;
    return row ? { watched: row.watched } : undefined;
  }

  async #lockThread(client: pg.PoolClient, thread: ThreadKey): Promise<void> {
    await client.query(`SELECT 1 FROM agent_threads WHERE workspace_id = $1 AND thread_id = $2 FOR UPDATE`, [
      thread.workspaceId,
      thread.threadId,
    ]);
  }

  /** The thread after one of its runs ended: its status (or gone, if temporary), and the next run woken. With the thread locked. */
  async #afterEnd(
    client: pg.PoolClient,
    thread: ThreadKey,
    runId: string,
    temporary: boolean,
    outcome: RunOutcome,
    watched: boolean,
  ): Promise<void> {
    const key = [thread.workspaceId, thread.threadId];
    if (temporary) {
      await client.query(`DELETE FROM agent_threads WHERE workspace_id = $1 AND thread_id = $2`, key);
    } else {
      const others = Number(
        (
          await client.query(
            `SELECT count(*) AS n FROM agent_runs WHERE workspace_id = $1 AND thread_id = $2 AND status IN ('pending', 'running')`,
            key,
          )
        ).rows[0].n,
      );
      const patch = threadAfterRun(runId, outcome, others, nowIso());
      if (patch) {
        const columns = Object.keys(patch) as (keyof typeof patch)[];
        const sets = columns.map((c, i) => `"${c}" = $${i + 3}`).join(', ');
        const values = columns.map((c) =>
          ['values', 'interrupts', 'error'].includes(c) ? JSON.stringify(patch[c]) : patch[c],
        );
        await client.query(`UPDATE agent_threads SET ${sets} WHERE workspace_id = $1 AND thread_id = $2`, [
          ...key,
          ...values,
        ]);
      }
      if (others > 0) await this.#notify(client, { k: 'q' });
    }
    if (watched) {
      const small = JSON.stringify(outcome).length <= OUTCOME_IN_NOTICE_BYTES;
      await this.#notify(client, { k: 'd', r: runId, ...(small ? { o: outcome } : {}) });
    }
  }

  /** Ends a pending run (cancelled before any replica took it). */
  async #endPending(
    client: pg.PoolClient,
    runId: string,
    action: CancelAction,
  ): Promise<{ thread: ThreadKey; temporary: boolean } | undefined> {
    const row = (
      await client.query(
        `SELECT record, work, workspace_id FROM agent_runs WHERE run_id = $1 AND status = 'pending' FOR UPDATE`,
        [runId],
      )
    ).rows[0] as { record: RunRecord; work: RunWork; workspace_id: string } | undefined;
    if (!row) return undefined;
    const record = { ...row.record, status: 'interrupted' as const, updated_at: nowIso() };
    const outcome: RunOutcome = { status: 'interrupted', values: null };
    const ended = await this.#endRow(client, record, outcome, action === 'rollback', `status = 'pending'`, []);
    if (ended?.watched) await this.#notify(client, { k: 'd', r: runId, o: outcome });
    return { thread: { workspaceId: row.workspace_id, threadId: record.thread_id }, temporary: row.work.temporary };
  }

  async #requestCancel(client: pg.PoolClient | pg.Pool, runId: string, action: CancelAction): Promise<boolean> {
    const result = await client.query(
      `UPDATE agent_runs SET cancel_action = coalesce(cancel_action, $2) WHERE run_id = $1 AND status = 'running' RETURNING 1`,
      [runId, action],
    );
    if (!result.rowCount) return false;
    await this.#notify(client, { k: 'c', r: runId, a: action });
    return true;
  }

  /**
   * Cancels a run not executing here: a pending one ends now (as interrupted, or deleted under
   * rollback); a running one's replica is told to stop it. False when the run is not unfinished.
   */
  async cancelElsewhere(runId: string, action: CancelAction): Promise<boolean> {
    const row = (await this.#pool.query(`SELECT thread_id, workspace_id FROM agent_runs WHERE run_id = $1`, [runId]))
      .rows[0] as { thread_id: string; workspace_id: string } | undefined;
    if (row === undefined) return false;
    const ended = await this.#transaction(async (client) => {
      await this.#lockThread(client, { workspaceId: row.workspace_id, threadId: row.thread_id });
      const pending = await this.#endPending(client, runId, action);
      if (!pending) return false;
      await this.#afterEnd(
        client,
        pending.thread,
        runId,
        pending.temporary,
        { status: 'interrupted', values: null },
        false,
      );
      return true;
    });
    if (ended) return true;
    return this.#requestCancel(this.#pool, runId, action);
  }

  /**
   * Follows a run executed elsewhere (or queued): how it ended when it has, else who runs it (if
   * anyone yet) and a promise of its end (null: its row is gone, as a rolled-back run's).
   */
  async follow(runId: string): Promise<Followed> {
    const ended = this.#followers.wait(runId);
    const row = (
      await this.#pool.query(
        `UPDATE agent_runs r SET watched = true WHERE run_id = $1
         RETURNING status, outcome, (SELECT url FROM agent_server_replicas a WHERE a.replica_id = r.owner) AS url`,
        [runId],
      )
    ).rows[0] as { status: RunStatus; outcome: RunOutcome | null; url: string | null } | undefined;
    if (!row || FINAL.includes(row.status)) {
      this.#followers.settle(runId, row?.outcome ?? null);
      return { ended: row?.outcome ?? null };
    }
    return { owner: row.url ?? undefined, ended };
  }

  /** The address of the replica that claims a queued run, once one does. */
  claimedBy(runId: string, signal: AbortSignal): Promise<string> {
    const claimed = this.#claimWaiters.wait(runId, signal);
    // it may have been claimed before we asked
    void this.#pool
      .query(
        `SELECT a.url FROM agent_runs r JOIN agent_server_replicas a ON a.replica_id = r.owner WHERE r.run_id = $1`,
        [runId],
      )
      .then((r) => r.rows[0] && this.#claimWaiters.settle(runId, r.rows[0].url as string))
      .catch(() => undefined);
    return claimed;
  }

  async unfinished(thread: ThreadKey): Promise<RunRecord[]> {
    const result = await this.#pool.query(
      `SELECT record FROM agent_runs WHERE workspace_id = $1 AND thread_id = $2 AND status IN ('pending', 'running') ORDER BY status = 'running' DESC, seq`,
      [thread.workspaceId, thread.threadId],
    );
    return result.rows.map((r) => r.record as RunRecord);
  }

  /** From now on, runs admitted on the thread by any replica are told to this one (threadRunCreated). */
  async watchThread(thread: ThreadKey): Promise<void> {
    await this.#register();
    this.#watchedThreads.set(`${thread.workspaceId}/${thread.threadId}`, thread);
    await this.#pool.query(
      `INSERT INTO agent_thread_streams (workspace_id, thread_id, replica_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
      [thread.workspaceId, thread.threadId, this.replicaId],
    );
  }

  async unwatchThread(thread: ThreadKey): Promise<void> {
    this.#watchedThreads.delete(`${thread.workspaceId}/${thread.threadId}`);
    await this.#pool
      .query(`DELETE FROM agent_thread_streams WHERE workspace_id = $1 AND thread_id = $2 AND replica_id = $3`, [
        thread.workspaceId,
        thread.threadId,
        this.replicaId,
      ])
      .catch((err) => this.#logger.warn({ err: (err as Error).message }, 'could not stop watching a thread'));
  }

  async unfinishedIn(workspaceId: string, statuses: RunStatus[], threadId?: string): Promise<RunRecord[]> {
    const wanted = statuses.filter((s) => s === 'pending' || s === 'running');
    const result = await this.#pool.query(
      `SELECT record FROM agent_runs WHERE workspace_id = $1 AND status = ANY($2::text[]) AND ($3::uuid IS NULL OR thread_id = $3) ORDER BY seq`,
      [workspaceId, wanted, threadId ?? null],
    );
    return result.rows.map((r) => r.record as RunRecord);
  }

  async locate(workspaceId: string, runId: string): Promise<RunRecord | undefined> {
    const result = await this.#pool.query(`SELECT record FROM agent_runs WHERE run_id = $1 AND workspace_id = $2`, [
      runId,
      workspaceId,
    ]);
    return result.rows[0]?.record as RunRecord | undefined;
  }

  /** Asks for pending runs to claim, now (coalesced: one claim loop at a time). */
  poke(): void {
    if (this.#closed || !this.#url) return;
    if (this.#claiming) {
      this.#claimAgain = true;
      return;
    }
    this.#claiming = this.#claimAll()
      .catch((err) =>
        this.#logger.warn(
          { err: (err as Error).message },
          'could not claim queued runs; trying again at the next heartbeat',
        ),
      )
      .finally(() => {
        this.#claiming = undefined;
        if (this.#claimAgain) {
          this.#claimAgain = false;
          this.poke();
        }
      });
  }

  async #claimAll(): Promise<void> {
    for (;;) {
      const claimed = await this.#claim(8);
      for (const row of claimed) {
        const run = this.#executor.adopt(row.record, row.work, row.workspace_id);
        run.record.status = 'running';
        const cancel = this.#cancelsAhead.get(row.record.run_id);
        this.#executor.startHere(run);
        if (cancel) this.#executor.cancelHere(row.record.run_id, cancel);
      }
      if (claimed.length < 8 || this.#closed) return;
    }
  }

  async #claim(limit: number): Promise<{ record: RunRecord; work: RunWork; workspace_id: string }[]> {
    try {
      const result = await this.#pool.query(
        `WITH next AS (
           SELECT p.run_id FROM agent_runs p
           WHERE p.status = 'pending' AND p.available_at <= now()
             AND NOT EXISTS (SELECT 1 FROM agent_runs o WHERE o.workspace_id = p.workspace_id AND o.thread_id = p.thread_id AND (o.status = 'running' OR (o.status = 'pending' AND o.seq < p.seq)))
           ORDER BY p.seq LIMIT $2 FOR UPDATE SKIP LOCKED),
         claimed AS (
           UPDATE agent_runs r SET status = 'running', owner = $1, updated_at = $3::timestamptz,
             record = r.record || jsonb_build_object('status', 'running', 'updated_at', $3::text)
           FROM next WHERE r.run_id = next.run_id
           RETURNING r.run_id, r.record, r.work, r.workspace_id, r.watched, r.cancel_action)
         SELECT c.record, c.work, c.workspace_id, c.cancel_action,
           CASE WHEN c.watched THEN pg_notify('${CHANNEL}', json_build_object('k', 'o', 'r', c.run_id, 'u', $4::text)::text) END
         FROM claimed c`,
        [this.replicaId, limit, nowIso(), this.#url],
      );
      return result.rows;
    } catch (err) {
      if (isRace(err)) return []; // a thread's run started elsewhere meanwhile: the next poke looks again
      throw err;
    }
  }

  async #listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.#options.connectionString });
    client.on('error', (err) => {
      this.#logger.warn({ err: err.message }, 'the run queue lost its LISTEN connection; opening another');
      if (this.#listener === client) this.#listener = undefined;
    });
    client.on('notification', (message) => {
      if (message.channel !== CHANNEL || !message.payload) return;
      try {
        this.#onNotice(JSON.parse(message.payload) as Notice);
      } catch (err) {
        this.#logger.warn({ err: (err as Error).message }, 'a run queue notice could not be read');
      }
    });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    this.#listener = client;
  }

  #onNotice(notice: Notice): void {
    switch (notice.k) {
      case 'q':
        this.poke();
        return;
      case 'c':
        if (!this.#executor.cancelHere(notice.r, notice.a)) {
          this.#cancelsAhead.set(notice.r, notice.a);
          setTimeout(() => this.#cancelsAhead.delete(notice.r), 60_000).unref();
        }
        return;
      case 'o':
        this.#claimWaiters.settle(notice.r, notice.u);
        return;
      case 'n':
        this.#executor.threadRunCreated({ workspaceId: notice.w, threadId: notice.t }, notice.r);
        return;
      case 'd':
        if (!this.#followers.has(notice.r)) return;
        if (notice.o) this.#followers.settle(notice.r, notice.o);
        else
          void this.#pool
            .query(`SELECT outcome FROM agent_runs WHERE run_id = $1`, [notice.r])
            .then((r) => this.#followers.settle(notice.r, (r.rows[0]?.outcome as RunOutcome | undefined) ?? null))
            .catch(() => this.#followers.settle(notice.r, null));
    }
  }

  async #beat(): Promise<void> {
    if (this.#closed) return;
    try {
      const alive = await this.#pool.query(
        `UPDATE agent_server_replicas SET heartbeat_at = now() WHERE replica_id = $1`,
        [this.replicaId],
      );
      if (!alive.rowCount) {
        this.#logger.error(
          { replica: this.replicaId },
          'this agent server was taken for dead (no heartbeat for the lease): its running runs were failed by another; registering again',
        );
        await this.#pool.query(`INSERT INTO agent_server_replicas (replica_id, url) VALUES ($1, $2)`, [
          this.replicaId,
          this.#url ?? null,
        ]);
        // the threads streamed here went with the replica's row
        for (const thread of this.#watchedThreads.values()) await this.watchThread(thread);
      }
      if (!this.#listener) {
        await this.#listen();
        for (const runId of this.#followers.keys())
          void this.follow(runId).then(
            (f) => 'owner' in f || this.#followers.settle(runId, f.ended as RunOutcome | null),
          );
      }
      await this.#reap();
      this.poke();
    } catch (err) {
      this.#logger.warn({ err: (err as Error).message }, 'run queue heartbeat failed');
    }
  }

  /** Fails the running runs of replicas that stopped heartbeating (or that have no replica row), and frees their threads. */
  async #reap(): Promise<void> {
    const reason = 'the agent server running it stopped before it ended';
    const lost = (
      await this.#pool.query(
        `WITH dead AS (DELETE FROM agent_server_replicas WHERE heartbeat_at < now() - make_interval(secs => $1) RETURNING replica_id)
         SELECT run_id, thread_id, workspace_id, record, work FROM agent_runs r
         WHERE r.status = 'running' AND (r.owner IS NULL OR r.owner IN (SELECT replica_id FROM dead)
           OR NOT EXISTS (SELECT 1 FROM agent_server_replicas a WHERE a.replica_id = r.owner))`,
        [this.#options.leaseMs / 1000],
      )
    ).rows as { run_id: string; thread_id: string; workspace_id: string; record: RunRecord; work: RunWork | null }[];
    for (const row of lost) {
      const thread = { workspaceId: row.workspace_id, threadId: row.thread_id };
      const error = { error: 'AgentServerGone', message: reason };
      const record: RunRecord = { ...row.record, status: 'error', updated_at: nowIso(), ...{ error: reason } };
      const outcome: RunOutcome = { status: 'error', values: null, error };
      const temporary = row.work?.temporary ?? false;
      const reaped = await this.#transaction(async (client) => {
        await this.#lockThread(client, thread);
        const ended = await this.#endRow(
          client,
          record,
          outcome,
          false,
          `status = 'running' AND (owner IS NULL OR NOT EXISTS (SELECT 1 FROM agent_server_replicas a WHERE a.replica_id = agent_runs.owner))`,
          [],
        );
        if (!ended) return false;
        await this.#afterEnd(client, thread, row.run_id, temporary, outcome, ended.watched);
        return true;
      });
      if (reaped) {
        this.#logger.warn(
          { run_id: row.run_id, thread_id: row.thread_id },
          'a run whose agent server stopped was marked failed',
        );
        if (temporary) await this.#executor.forgetThread(thread);
      }
    }
  }

  async #notify(client: pg.PoolClient | pg.Pool, notice: Notice): Promise<void> {
    await client.query(`SELECT pg_notify('${CHANNEL}', $1)`, [JSON.stringify(notice)]);
  }

  #transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.#pool, work);
  }

  /** Stops taking work and leaves: the runs still running here are failed at once (a stopped server finishes none). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#heartbeat);
    await this.#claiming;
    if (this.#registering) {
      await this.#pool
        .query(`DELETE FROM agent_server_replicas WHERE replica_id = $1`, [this.replicaId])
        .catch(() => undefined);
      await this.#reap().catch((err) =>
        this.#logger.warn({ err: (err as Error).message }, 'could not fail the runs left running here'),
      );
    }
    await this.#listener?.end().catch(() => undefined);
    for (const runId of this.#followers.keys()) this.#followers.settle(runId, null);
  }
}

function createdNotice(run: ActiveRun): string {
  const notice: Notice = { k: 'n', w: run.workspaceId, t: run.record.thread_id, r: run.record.run_id };
  return JSON.stringify(notice);
}

function workOf(run: ActiveRun): RunWork {
  return {
    body: run.body,
    streamModes: run.streamModes,
    auth: run.auth,
    temporary: run.temporaryThread,
    assistant: run.assistant,
  };
}
