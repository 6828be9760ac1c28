// Thread and run records in PostgreSQL, beside the checkpoints (same database), so a restarted
// server finds its threads again. JSON columns are jsonb; search uses jsonb containment (`@>`).
// Every row carries its workspace, and a thread is keyed by its workspace and its id; every
// statement names the workspace it acts in, and a custom auth module's filter (auth/authFilters.ts)
// becomes a condition on the thread's metadata.
import pg from 'pg';
import { inTransaction } from '../../../platform/postgres.ts';
import { DEFAULT_WORKSPACE_ID } from '../../tenancy/index.ts';
import type { AuthFilters } from '../auth/authFilters.ts';
import type {
  AgentRecordStore,
  RecordScope,
  RunRecord,
  RunStatus,
  ThreadRecord,
  ThreadSearch,
} from './agentRecords.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS agent_threads (
  thread_id uuid NOT NULL,
  workspace_id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  state_updated_at timestamptz NOT NULL,
  metadata jsonb NOT NULL,
  status text NOT NULL,
  config jsonb NOT NULL,
  "values" jsonb,
  interrupts jsonb NOT NULL,
  error jsonb,
  PRIMARY KEY (workspace_id, thread_id)
);
CREATE INDEX IF NOT EXISTS agent_threads_metadata ON agent_threads USING gin (metadata jsonb_path_ops);
CREATE TABLE IF NOT EXISTS agent_runs (
  run_id uuid PRIMARY KEY,
  thread_id uuid NOT NULL,
  workspace_id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  record jsonb NOT NULL,
  status text NOT NULL,
  CONSTRAINT agent_runs_thread_fkey FOREIGN KEY (workspace_id, thread_id) REFERENCES agent_threads (workspace_id, thread_id) ON DELETE CASCADE
);
-- Tables of versions before workspaces: their threads and runs were made without a key, and
-- belong to the default workspace (the one BOOTSTRAP_API_KEY opens). New rows always name theirs.
ALTER TABLE agent_threads ADD COLUMN IF NOT EXISTS workspace_id uuid NOT NULL DEFAULT '${DEFAULT_WORKSPACE_ID}';
ALTER TABLE agent_threads ALTER COLUMN workspace_id DROP DEFAULT;
ALTER TABLE agent_runs ADD COLUMN IF NOT EXISTS workspace_id uuid NOT NULL DEFAULT '${DEFAULT_WORKSPACE_ID}';
ALTER TABLE agent_runs ALTER COLUMN workspace_id DROP DEFAULT;
-- The run queue shared by agent-server replicas (runs/postgresRunQueue.ts): queue order, the
-- replica running a run, when a delayed run may start, a cancel asked of its replica, what a
-- replica needs to execute it, how it ended, and whether a replica follows it.
ALTER TABLE agent_runs ADD COLUMN IF NOT EXISTS seq bigserial;
ALTER TABLE agent_runs ADD COLUMN IF NOT EXISTS owner uuid;
ALTER TABLE agent_runs ADD COLUMN IF NOT EXISTS available_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE agent_runs ADD COLUMN IF NOT EXISTS cancel_action text;
ALTER TABLE agent_runs ADD COLUMN IF NOT EXISTS work jsonb;
ALTER TABLE agent_runs ADD COLUMN IF NOT EXISTS outcome jsonb;
ALTER TABLE agent_runs ADD COLUMN IF NOT EXISTS watched boolean NOT NULL DEFAULT false;
-- A thread's TTL (store/agentRecords.ts ThreadTtl): it expires ttl_minutes after its updated_at.
ALTER TABLE agent_threads ADD COLUMN IF NOT EXISTS ttl jsonb;
CREATE TABLE IF NOT EXISTS agent_server_replicas (
  replica_id uuid PRIMARY KEY,
  url text, -- where peers reach it; null until it listens
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);
`;

/**
 * Tables of versions whose thread ids were global (the thread's primary key its id alone): each
 * thread becomes its workspace's, keyed by both, and so do its runs and its checkpoints, which
 * LangGraph's PostgresSaver keeps (in this database's `public` schema) under the thread's stored
 * id, `<workspace id>/<thread id>` (platform/workspaceThreads.ts). Checkpoints of no recorded
 * thread were never reachable through the API and are left as they are.
 */
const SCOPE_THREAD_IDS = `
DO $$
DECLARE
  old_key text;
  checkpoint_table text;
BEGIN
  UPDATE agent_runs r SET workspace_id = t.workspace_id FROM agent_threads t WHERE t.thread_id = r.thread_id AND r.workspace_id <> t.workspace_id;
  FOR old_key IN SELECT conname FROM pg_constraint WHERE conrelid = 'agent_runs'::regclass AND contype = 'f' LOOP
    EXECUTE format('ALTER TABLE agent_runs DROP CONSTRAINT %I', old_key);
  END LOOP;
  SELECT conname INTO old_key FROM pg_constraint WHERE conrelid = 'agent_threads'::regclass AND contype = 'p';
  EXECUTE format('ALTER TABLE agent_threads DROP CONSTRAINT %I', old_key);
  ALTER TABLE agent_threads ADD PRIMARY KEY (workspace_id, thread_id);
  ALTER TABLE agent_runs ADD CONSTRAINT agent_runs_thread_fkey FOREIGN KEY (workspace_id, thread_id) REFERENCES agent_threads (workspace_id, thread_id) ON DELETE CASCADE;
  DROP INDEX IF EXISTS agent_runs_thread;
  DROP INDEX IF EXISTS agent_runs_one_running;
  DROP INDEX IF EXISTS agent_runs_unfinished;
  FOREACH checkpoint_table IN ARRAY ARRAY['checkpoints', 'checkpoint_blobs', 'checkpoint_writes'] LOOP
    IF to_regclass('public.' || checkpoint_table) IS NOT NULL THEN
      EXECUTE format('UPDATE public.%I c SET thread_id = t.workspace_id || ''/'' || c.thread_id FROM agent_threads t WHERE c.thread_id = t.thread_id::text', checkpoint_table);
    END IF;
  END LOOP;
END $$;
`;

/** A thread's rows are found by its workspace and id. */
const INDEXES = `
CREATE INDEX IF NOT EXISTS agent_threads_workspace ON agent_threads (workspace_id, created_at DESC);
CREATE INDEX IF NOT EXISTS agent_runs_thread ON agent_runs (workspace_id, thread_id, created_at DESC);
-- Runs of versions before the queue were failed at each start: one running run per thread at most.
CREATE UNIQUE INDEX IF NOT EXISTS agent_runs_one_running ON agent_runs (workspace_id, thread_id) WHERE status = 'running';
CREATE INDEX IF NOT EXISTS agent_runs_pending ON agent_runs (seq) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS agent_threads_with_ttl ON agent_threads (updated_at) WHERE ttl IS NOT NULL;
CREATE INDEX IF NOT EXISTS agent_runs_unfinished ON agent_runs (workspace_id, thread_id, seq) WHERE status IN ('pending', 'running');
`;

/** Replicas starting together on one database create and migrate the tables one after the other. */
const SCHEMA_LOCK = 0x61676e74; // "agnt"

const THREAD_COLUMNS = [
  'thread_id',
  'created_at',
  'updated_at',
  'state_updated_at',
  'metadata',
  'status',
  'config',
  'values',
  'interrupts',
  'error',
  'ttl',
] as const;
const JSON_COLUMNS = new Set(['metadata', 'config', 'values', 'interrupts', 'error', 'ttl']);
const SORTABLE = new Set(['thread_id', 'status', 'created_at', 'updated_at']);

type Row = Record<string, unknown>;

function threadFromRow(row: Row): ThreadRecord {
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));
  return {
    thread_id: row.thread_id as string,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    state_updated_at: iso(row.state_updated_at),
    metadata: row.metadata as ThreadRecord['metadata'],
    status: row.status as ThreadRecord['status'],
    config: row.config as ThreadRecord['config'],
    values: (row.values ?? null) as ThreadRecord['values'],
    interrupts: (row.interrupts ?? {}) as ThreadRecord['interrupts'],
    ...(row.error != null ? { error: row.error } : {}),
    ...(row.ttl != null ? { ttl: row.ttl as ThreadRecord['ttl'] } : {}),
  };
}

/** When a thread with a TTL expires (store/agentRecords.ts ThreadTtl). */
const EXPIRES_AT = `(updated_at + (ttl ->> 'ttl_minutes')::float8 * interval '1 minute')`;

function columnValue(column: string, value: unknown): unknown {
  return JSON_COLUMNS.has(column) ? (value === undefined ? null : JSON.stringify(value)) : value;
}

export type Bind = (value: unknown) => string;

/** The conditions of a scope on a thread row (aliased `t`), with the values bound through `bind`. */
function scopeConditions(scope: RecordScope, bind: Bind): string[] {
  return [`t.workspace_id = ${bind(scope.workspaceId)}`, ...filterConditions(scope.filters, bind)];
}

/** authFilters.ts `isAuthMatching` in SQL, on the jsonb `metadata` column: equal JSON strings, or a JSON array holding every wanted string. */
export function filterConditions(filters: AuthFilters | undefined, bind: Bind, metadata = 't.metadata'): string[] {
  return Object.entries(filters ?? {}).flatMap(([key, filter]) => {
    const value = `(${metadata} -> ${bind(key)}::text)`;
    if (typeof filter === 'string') return [`${value} = to_jsonb(${bind(filter)}::text)`];
    if (filter.$eq !== undefined) return [`${value} = to_jsonb(${bind(filter.$eq)}::text)`];
    if (filter.$contains !== undefined) {
      const wanted = Array.isArray(filter.$contains) ? filter.$contains : [filter.$contains];
      return [`jsonb_typeof(${value}) = 'array'`, `${value} @> ${bind(JSON.stringify(wanted))}::jsonb`];
    }
    return [];
  });
}

/** A query's parameters and a binder that numbers them. */
export function parameters(): { params: unknown[]; bind: Bind } {
  const params: unknown[] = [];
  return { params, bind: (v) => `$${params.push(v)}` };
}

export class PostgresRecordStore implements AgentRecordStore {
  /** Also the run queue's, which shares these tables (runs/postgresRunQueue.ts). */
  readonly pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** Creates or migrates the tables in the pool's database (checkpointer.ts's postgresPool gives a pool that survives lost connections). */
  static async open(pool: pg.Pool): Promise<PostgresRecordStore> {
    await inTransaction(pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
      await client.query(SCHEMA);
      const key = await client.query(
        `SELECT indnatts FROM pg_index WHERE indrelid = 'agent_threads'::regclass AND indisprimary`,
      );
      if (key.rows[0]?.indnatts === 1) await client.query(SCOPE_THREAD_IDS);
      await client.query(INDEXES);
    });
    return new PostgresRecordStore(pool);
  }

  async createThread(workspaceId: string, thread: ThreadRecord): Promise<ThreadRecord | undefined> {
    const values = [workspaceId, ...THREAD_COLUMNS.map((c) => columnValue(c, thread[c as keyof ThreadRecord]))];
    const placeholders = values.map((_, i) => `$${i + 1}`).join(', ');
    const result = await this.pool.query(
      `INSERT INTO agent_threads (workspace_id, ${THREAD_COLUMNS.map((c) => `"${c}"`).join(', ')}) VALUES (${placeholders})
       ON CONFLICT (workspace_id, thread_id) DO NOTHING RETURNING *`,
      values,
    );
    return result.rows[0] ? threadFromRow(result.rows[0]) : undefined;
  }

  async getThread(scope: RecordScope, threadId: string): Promise<ThreadRecord | undefined> {
    const { params, bind } = parameters();
    const where = [`t.thread_id = ${bind(threadId)}`, ...scopeConditions(scope, bind)];
    const result = await this.pool.query(`SELECT * FROM agent_threads t WHERE ${where.join(' AND ')}`, params);
    return result.rows[0] ? threadFromRow(result.rows[0]) : undefined;
  }

  async updateThread(
    scope: RecordScope,
    threadId: string,
    patch: Partial<ThreadRecord>,
  ): Promise<ThreadRecord | undefined> {
    const columns = Object.keys(patch).filter(
      (c) => (THREAD_COLUMNS as readonly string[]).includes(c) && c !== 'thread_id',
    );
    if (columns.length === 0) return this.getThread(scope, threadId);
    const { params, bind } = parameters();
    const sets = columns.map((c) => `"${c}" = ${bind(columnValue(c, patch[c as keyof ThreadRecord]))}`).join(', ');
    const where = [`t.thread_id = ${bind(threadId)}`, ...scopeConditions(scope, bind)];
    const result = await this.pool.query(
      `UPDATE agent_threads t SET ${sets} WHERE ${where.join(' AND ')} RETURNING *`,
      params,
    );
    return result.rows[0] ? threadFromRow(result.rows[0]) : undefined;
  }

  async deleteThread(scope: RecordScope, threadId: string): Promise<boolean> {
    const { params, bind } = parameters();
    const where = [`t.thread_id = ${bind(threadId)}`, ...scopeConditions(scope, bind)];
    const result = await this.pool.query(`DELETE FROM agent_threads t WHERE ${where.join(' AND ')}`, params);
    return (result.rowCount ?? 0) > 0;
  }

  async expiredThreads(now: string, limit: number): Promise<{ workspaceId: string; thread: ThreadRecord }[]> {
    const result = await this.pool.query(
      `SELECT * FROM agent_threads WHERE ttl IS NOT NULL AND ${EXPIRES_AT} < $1 AND status <> 'busy' ORDER BY ${EXPIRES_AT} LIMIT $2`,
      [now, limit],
    );
    return result.rows.map((row) => ({ workspaceId: row.workspace_id as string, thread: threadFromRow(row) }));
  }

  async deleteExpiredThread(workspaceId: string, threadId: string, now: string): Promise<boolean> {
    const result = await this.pool.query(
      `DELETE FROM agent_threads WHERE workspace_id = $1 AND thread_id = $2 AND ttl IS NOT NULL AND ${EXPIRES_AT} < $3 AND status <> 'busy'`,
      [workspaceId, threadId, now],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async searchThreads(scope: RecordScope, search: ThreadSearch): Promise<{ threads: ThreadRecord[]; total: number }> {
    const { params, bind } = parameters();
    const where = scopeConditions(scope, bind);
    if (search.ids) where.push(`t.thread_id = ANY(${bind(search.ids)}::uuid[])`);
    if (search.status) where.push(`t.status = ${bind(search.status)}`);
    if (search.metadata) where.push(`t.metadata @> ${bind(JSON.stringify(search.metadata))}::jsonb`);
    if (search.values) where.push(`t."values" @> ${bind(JSON.stringify(search.values))}::jsonb`);
    const condition = `WHERE ${where.join(' AND ')}`;
    if (!SORTABLE.has(search.sortBy)) throw new Error(`cannot sort by ${search.sortBy}`);
    const order = `ORDER BY t."${search.sortBy}" ${search.sortOrder === 'asc' ? 'ASC' : 'DESC'}`;
    const filterParams = params.length;
    const rows = await this.pool.query(
      `SELECT t.*, count(*) OVER () AS total FROM agent_threads t ${condition} ${order} LIMIT ${bind(search.limit)} OFFSET ${bind(search.offset)}`,
      params,
    );
    let total = Number(rows.rows[0]?.total ?? 0);
    if (rows.rows.length === 0 && search.offset > 0) {
      total = Number(
        (
          await this.pool.query(
            `SELECT count(*) AS total FROM agent_threads t ${condition}`,
            params.slice(0, filterParams),
          )
        ).rows[0].total,
      );
    }
    return { threads: rows.rows.map(threadFromRow), total };
  }

  async putRun(workspaceId: string, run: RunRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO agent_runs (run_id, thread_id, workspace_id, created_at, updated_at, record, status) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (run_id) DO UPDATE SET updated_at = EXCLUDED.updated_at, record = EXCLUDED.record, status = EXCLUDED.status
       WHERE agent_runs.workspace_id = EXCLUDED.workspace_id AND agent_runs.thread_id = EXCLUDED.thread_id`,
      [run.run_id, run.thread_id, workspaceId, run.created_at, run.updated_at, JSON.stringify(run), run.status],
    );
  }

  /** The runs of a thread the scope sees, matching `conditions` on the run row (aliased `r`). */
  async #runs(
    scope: RecordScope,
    threadId: string,
    build: (bind: Bind) => { conditions: string[]; tail?: string },
  ): Promise<RunRecord[]> {
    const { params, bind } = parameters();
    const where = [
      `r.thread_id = ${bind(threadId)}`,
      `r.workspace_id = ${bind(scope.workspaceId)}`,
      ...scopeConditions(scope, bind),
    ];
    const { conditions, tail = '' } = build(bind);
    const result = await this.pool.query(
      `SELECT r.record FROM agent_runs r JOIN agent_threads t ON t.workspace_id = r.workspace_id AND t.thread_id = r.thread_id WHERE ${[...where, ...conditions].join(' AND ')} ${tail}`,
      params,
    );
    return result.rows.map((row) => row.record as RunRecord);
  }

  async getRun(scope: RecordScope, threadId: string, runId: string): Promise<RunRecord | undefined> {
    return (await this.#runs(scope, threadId, (bind) => ({ conditions: [`r.run_id = ${bind(runId)}`] })))[0];
  }

  async listRuns(
    scope: RecordScope,
    threadId: string,
    options: { limit: number; offset: number; status?: RunStatus },
  ): Promise<RunRecord[]> {
    return this.#runs(scope, threadId, (bind) => ({
      conditions: options.status ? [`r.status = ${bind(options.status)}`] : [],
      tail: `ORDER BY r.created_at DESC LIMIT ${bind(options.limit)} OFFSET ${bind(options.offset)}`,
    }));
  }

  async deleteRun(scope: RecordScope, threadId: string, runId: string): Promise<boolean> {
    const { params, bind } = parameters();
    const where = [
      `r.run_id = ${bind(runId)}`,
      `r.thread_id = ${bind(threadId)}`,
      `r.workspace_id = ${bind(scope.workspaceId)}`,
      ...scopeConditions(scope, bind),
    ];
    const result = await this.pool.query(
      `DELETE FROM agent_runs r USING agent_threads t WHERE t.workspace_id = r.workspace_id AND t.thread_id = r.thread_id AND ${where.join(' AND ')}`,
      params,
    );
    return (result.rowCount ?? 0) > 0;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
