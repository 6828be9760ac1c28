// Crons in PostgreSQL (AGENT_SERVER_CHECKPOINTER=postgres), beside the threads and runs: every
// agent-server replica on the database sees them, and each claims due ones with
// `FOR UPDATE SKIP LOCKED`, moving their next_run_date to the next tick in the same transaction:
// a tick is claimed by one replica, whatever the race, and a replica that finds a row locked
// moves on to the next. Times are the database's (`now()`), so replicas' clocks need not agree.
// A cron on a thread goes with its thread (a foreign key that cascades on delete).
import type pg from 'pg';
import { inTransaction } from '../../../platform/postgres.ts';
import type { AuthContext } from '../auth/customAuth.ts';
import type { RecordScope } from '../store/agentRecords.ts';
import { type Bind, filterConditions } from '../store/postgresRecordStore.ts';
import {
  claimAt,
  CRON_SORT_FIELDS,
  type CronChange,
  type CronFilter,
  type CronRecord,
  type CronSearch,
  type CronStore,
  type StoredCron,
} from './cronRecords.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS agent_crons (
  cron_id uuid PRIMARY KEY,
  workspace_id uuid NOT NULL,
  thread_id uuid,
  assistant_id text NOT NULL,
  schedule text NOT NULL,
  timezone text,
  next_run_date timestamptz,
  end_time timestamptz,
  enabled boolean NOT NULL,
  on_run_completed text,
  payload jsonb NOT NULL,
  metadata jsonb NOT NULL,
  user_id text,
  -- whom the cron's runs act as: the auth context of the caller that created it
  auth jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT agent_crons_thread_fkey FOREIGN KEY (workspace_id, thread_id)
    REFERENCES agent_threads (workspace_id, thread_id) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS agent_crons_due ON agent_crons (next_run_date) WHERE enabled;
CREATE INDEX IF NOT EXISTS agent_crons_workspace ON agent_crons (workspace_id, created_at DESC);
CREATE INDEX IF NOT EXISTS agent_crons_thread ON agent_crons (workspace_id, thread_id);
`;

/** Replicas starting together create the table one after the other. */
const SCHEMA_LOCK = 0x61676372; // "agcr"

const COLUMNS = [
  'cron_id',
  'thread_id',
  'assistant_id',
  'schedule',
  'timezone',
  'next_run_date',
  'end_time',
  'enabled',
  'on_run_completed',
  'payload',
  'metadata',
  'user_id',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof CronRecord)[];
const JSON_COLUMNS = new Set<string>(['payload', 'metadata']);

type Row = Record<string, unknown>;

const iso = (v: unknown): string | null => (v === null || v === undefined ? null : (v as Date).toISOString());

function cronFromRow(row: Row): CronRecord {
  return {
    cron_id: row.cron_id as string,
    assistant_id: row.assistant_id as string,
    thread_id: (row.thread_id as string | null) ?? null,
    on_run_completed: (row.on_run_completed as CronRecord['on_run_completed']) ?? null,
    end_time: iso(row.end_time),
    schedule: row.schedule as string,
    timezone: (row.timezone as string | null) ?? null,
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    payload: row.payload as CronRecord['payload'],
    user_id: (row.user_id as string | null) ?? null,
    next_run_date: iso(row.next_run_date),
    metadata: row.metadata as CronRecord['metadata'],
    enabled: row.enabled as boolean,
  };
}

const columnValue = (column: string, value: unknown) => (JSON_COLUMNS.has(column) ? JSON.stringify(value) : value);

function parameters(): { params: unknown[]; bind: Bind } {
  const params: unknown[] = [];
  return { params, bind: (v) => `$${params.push(v)}` };
}

/** The conditions of a scope and a filter on a cron row (aliased `t`). */
function conditions(scope: RecordScope, filter: CronFilter, bind: Bind): string[] {
  const where = [`t.workspace_id = ${bind(scope.workspaceId)}`, ...filterConditions(scope.filters, bind)];
  if (filter.assistantId !== undefined) where.push(`t.assistant_id = ${bind(filter.assistantId)}`);
  if (filter.threadId !== undefined) where.push(`t.thread_id = ${bind(filter.threadId)}`);
  if (filter.enabled !== undefined) where.push(`t.enabled = ${bind(filter.enabled)}`);
  if (filter.metadata !== undefined) where.push(`t.metadata @> ${bind(JSON.stringify(filter.metadata))}::jsonb`);
  return where;
}

export class PostgresCronStore implements CronStore {
  readonly #pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** Creates the table in the pool's database (after the record store's: a cron's thread is one of agent_threads). */
  static async open(pool: pg.Pool): Promise<PostgresCronStore> {
    await inTransaction(pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
      await client.query(SCHEMA);
    });
    return new PostgresCronStore(pool);
  }

  async create(stored: StoredCron): Promise<void> {
    const values = [
      stored.workspaceId,
      JSON.stringify(stored.auth),
      ...COLUMNS.map((c) => columnValue(c, stored.cron[c])),
    ];
    await this.#pool.query(
      `INSERT INTO agent_crons (workspace_id, auth, ${COLUMNS.join(', ')}) VALUES (${values.map((_, i) => `$${i + 1}`).join(', ')})`,
      values,
    );
  }

  async get(scope: RecordScope, cronId: string): Promise<CronRecord | undefined> {
    const { params, bind } = parameters();
    const where = [`t.cron_id = ${bind(cronId)}`, ...conditions(scope, {}, bind)];
    const result = await this.#pool.query(`SELECT * FROM agent_crons t WHERE ${where.join(' AND ')}`, params);
    return result.rows[0] ? cronFromRow(result.rows[0]) : undefined;
  }

  async update(scope: RecordScope, cronId: string, change: CronChange): Promise<CronRecord | undefined> {
    return inTransaction(this.#pool, async (client) => {
      const { params, bind } = parameters();
      const where = [`t.cron_id = ${bind(cronId)}`, ...conditions(scope, {}, bind)];
      const found = await client.query(
        `SELECT t.*, now() AS db_now FROM agent_crons t WHERE ${where.join(' AND ')} FOR UPDATE`,
        params,
      );
      const row = found.rows[0];
      if (!row) return undefined;
      const next = change(cronFromRow(row), row.db_now as Date);
      const changed = COLUMNS.filter((c) => c !== 'cron_id' && c !== 'created_at');
      const set = changed.map((c, i) => `${c} = $${i + 2}`).join(', ');
      const result = await client.query(`UPDATE agent_crons SET ${set} WHERE cron_id = $1 RETURNING *`, [
        cronId,
        ...changed.map((c) => columnValue(c, next[c])),
      ]);
      return cronFromRow(result.rows[0]);
    });
  }

  async delete(scope: RecordScope, cronId: string): Promise<boolean> {
    const { params, bind } = parameters();
    const where = [`t.cron_id = ${bind(cronId)}`, ...conditions(scope, {}, bind)];
    const result = await this.#pool.query(`DELETE FROM agent_crons t WHERE ${where.join(' AND ')}`, params);
    return (result.rowCount ?? 0) > 0;
  }

  async search(scope: RecordScope, search: CronSearch): Promise<{ crons: CronRecord[]; total: number }> {
    if (!CRON_SORT_FIELDS.includes(search.sortBy)) throw new Error(`cannot sort crons by ${search.sortBy}`);
    const { params, bind } = parameters();
    const where = conditions(scope, search, bind);
    const order = `ORDER BY t.${search.sortBy} ${search.sortOrder === 'asc' ? 'ASC' : 'DESC'}, t.cron_id`;
    const rows = await this.#pool.query(
      `SELECT t.*, count(*) OVER () AS total FROM agent_crons t WHERE ${where.join(' AND ')} ${order} LIMIT ${bind(search.limit)} OFFSET ${bind(search.offset)}`,
      params,
    );
    const total =
      rows.rows.length > 0 || search.offset === 0 ? Number(rows.rows[0]?.total ?? 0) : await this.count(scope, search); // a page past the end still says how many there are
    return { crons: rows.rows.map(cronFromRow), total };
  }

  async count(scope: RecordScope, filter: CronFilter): Promise<number> {
    const { params, bind } = parameters();
    const where = conditions(scope, filter, bind);
    const result = await this.#pool.query(
      `SELECT count(*) AS total FROM agent_crons t WHERE ${where.join(' AND ')}`,
      params,
    );
    return Number(result.rows[0].total);
  }

  async claimDue(limit: number): Promise<StoredCron[]> {
    return inTransaction(this.#pool, async (client) => {
      const due = await client.query(
        `SELECT *, now() AS db_now FROM agent_crons
         WHERE enabled AND next_run_date <= now()
         ORDER BY next_run_date LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (due.rows.length === 0) return [];
      const now = due.rows[0].db_now as Date;
      const firing: StoredCron[] = [];
      const ids: string[] = [];
      const nexts: (string | null)[] = [];
      for (const row of due.rows) {
        const cron = cronFromRow(row);
        const { fires, next } = claimAt(cron, now);
        ids.push(cron.cron_id);
        nexts.push(next);
        if (fires)
          firing.push({
            workspaceId: row.workspace_id as string,
            auth: row.auth as AuthContext,
            cron: { ...cron, next_run_date: next },
          });
      }
      await client.query(
        `UPDATE agent_crons c SET next_run_date = u.next
         FROM unnest($1::uuid[], $2::timestamptz[]) AS u(cron_id, next) WHERE c.cron_id = u.cron_id`,
        [ids, nexts],
      );
      return firing;
    });
  }

  async msUntilNextDue(): Promise<number | undefined> {
    const result = await this.#pool.query(
      `SELECT (extract(epoch FROM (min(next_run_date) - now())) * 1000)::float8 AS ms FROM agent_crons WHERE enabled`,
    );
    const ms = result.rows[0]?.ms;
    return ms === null || ms === undefined ? undefined : Number(ms);
  }
}
