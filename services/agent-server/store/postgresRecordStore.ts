// Thread and run records in PostgreSQL, beside the checkpoints (same database), so a restarted
// server finds its threads again. JSON columns are jsonb; search uses jsonb containment (`@>`).
import pg from 'pg';
import type { AgentRecordStore, RunRecord, RunStatus, ThreadRecord, ThreadSearch } from './agentRecords.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS agent_threads (
  thread_id uuid PRIMARY KEY,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  state_updated_at timestamptz NOT NULL,
  metadata jsonb NOT NULL,
  status text NOT NULL,
  config jsonb NOT NULL,
  "values" jsonb,
  interrupts jsonb NOT NULL,
  error jsonb
);
CREATE INDEX IF NOT EXISTS agent_threads_metadata ON agent_threads USING gin (metadata jsonb_path_ops);
CREATE TABLE IF NOT EXISTS agent_runs (
  run_id uuid PRIMARY KEY,
  thread_id uuid NOT NULL REFERENCES agent_threads (thread_id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  record jsonb NOT NULL,
  status text NOT NULL
);
CREATE INDEX IF NOT EXISTS agent_runs_thread ON agent_runs (thread_id, created_at DESC);
`;

const THREAD_COLUMNS = ['thread_id', 'created_at', 'updated_at', 'state_updated_at', 'metadata', 'status', 'config', 'values', 'interrupts', 'error'] as const;
const JSON_COLUMNS = new Set(['metadata', 'config', 'values', 'interrupts', 'error']);
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
  };
}

function columnValue(column: string, value: unknown): unknown {
  return JSON_COLUMNS.has(column) ? (value === undefined ? null : JSON.stringify(value)) : value;
}

export class PostgresRecordStore implements AgentRecordStore {
  private readonly pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  static async open(url: string): Promise<PostgresRecordStore> {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    await pool.query(SCHEMA);
    return new PostgresRecordStore(pool);
  }

  async createThread(thread: ThreadRecord): Promise<ThreadRecord | undefined> {
    const values = THREAD_COLUMNS.map((c) => columnValue(c, thread[c as keyof ThreadRecord]));
    const placeholders = THREAD_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
    const result = await this.pool.query(
      `INSERT INTO agent_threads (${THREAD_COLUMNS.map((c) => `"${c}"`).join(', ')}) VALUES (${placeholders}) ON CONFLICT (thread_id) DO NOTHING RETURNING *`,
      values,
    );
    return result.rows[0] ? threadFromRow(result.rows[0]) : undefined;
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    const result = await this.pool.query('SELECT * FROM agent_threads WHERE thread_id = $1', [threadId]);
    return result.rows[0] ? threadFromRow(result.rows[0]) : undefined;
  }

  async updateThread(threadId: string, patch: Partial<ThreadRecord>): Promise<ThreadRecord | undefined> {
    const columns = Object.keys(patch).filter((c) => (THREAD_COLUMNS as readonly string[]).includes(c) && c !== 'thread_id');
    if (columns.length === 0) return this.getThread(threadId);
    const sets = columns.map((c, i) => `"${c}" = $${i + 2}`).join(', ');
    const result = await this.pool.query(`UPDATE agent_threads SET ${sets} WHERE thread_id = $1 RETURNING *`, [
      threadId,
      ...columns.map((c) => columnValue(c, patch[c as keyof ThreadRecord])),
    ]);
    return result.rows[0] ? threadFromRow(result.rows[0]) : undefined;
  }

  async deleteThread(threadId: string): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM agent_threads WHERE thread_id = $1', [threadId]);
    return (result.rowCount ?? 0) > 0;
  }

  async searchThreads(search: ThreadSearch): Promise<{ threads: ThreadRecord[]; total: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    const bind = (v: unknown) => `$${params.push(v)}`;
    if (search.ids) where.push(`thread_id = ANY(${bind(search.ids)}::uuid[])`);
    if (search.status) where.push(`status = ${bind(search.status)}`);
    if (search.metadata) where.push(`metadata @> ${bind(JSON.stringify(search.metadata))}::jsonb`);
    if (search.values) where.push(`"values" @> ${bind(JSON.stringify(search.values))}::jsonb`);
    const condition = where.length ? `WHERE ${where.join(' AND ')}` : '';
    if (!SORTABLE.has(search.sortBy)) throw new Error(`cannot sort by ${search.sortBy}`);
    const order = `ORDER BY "${search.sortBy}" ${search.sortOrder === 'asc' ? 'ASC' : 'DESC'}`;
    const rows = await this.pool.query(
      `SELECT *, count(*) OVER () AS total FROM agent_threads ${condition} ${order} LIMIT ${bind(search.limit)} OFFSET ${bind(search.offset)}`,
      params,
    );
    let total = Number(rows.rows[0]?.total ?? 0);
    if (rows.rows.length === 0 && search.offset > 0) {
      total = Number((await this.pool.query(`SELECT count(*) AS total FROM agent_threads ${condition}`, params.slice(0, -2))).rows[0].total);
    }
    return { threads: rows.rows.map(threadFromRow), total };
  }

  async putRun(run: RunRecord): Promise<void> {
    await this.pool.query(
      `INSERT INTO agent_runs (run_id, thread_id, created_at, updated_at, record, status) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (run_id) DO UPDATE SET updated_at = EXCLUDED.updated_at, record = EXCLUDED.record, status = EXCLUDED.status`,
      [run.run_id, run.thread_id, run.created_at, run.updated_at, JSON.stringify(run), run.status],
    );
  }

  async getRun(threadId: string, runId: string): Promise<RunRecord | undefined> {
    const result = await this.pool.query('SELECT record FROM agent_runs WHERE thread_id = $1 AND run_id = $2', [threadId, runId]);
    return result.rows[0]?.record as RunRecord | undefined;
  }

  async listRuns(threadId: string, options: { limit: number; offset: number; status?: RunStatus }): Promise<RunRecord[]> {
    const result = await this.pool.query(
      `SELECT record FROM agent_runs WHERE thread_id = $1 AND ($2::text IS NULL OR status = $2) ORDER BY created_at DESC LIMIT $3 OFFSET $4`,
      [threadId, options.status ?? null, options.limit, options.offset],
    );
    return result.rows.map((r) => r.record as RunRecord);
  }

  async deleteRun(threadId: string, runId: string): Promise<boolean> {
    const result = await this.pool.query('DELETE FROM agent_runs WHERE thread_id = $1 AND run_id = $2', [threadId, runId]);
    return (result.rowCount ?? 0) > 0;
  }

  async failUnfinishedRuns(reason: string): Promise<number> {
    const now = new Date().toISOString();
    const result = await this.pool.query(
      `UPDATE agent_runs SET status = 'error', updated_at = $1::timestamptz,
         record = record || jsonb_build_object('status', 'error', 'updated_at', $2::text, 'error', $3::text)
       WHERE status IN ('pending', 'running') RETURNING thread_id`,
      [now, now, reason],
    );
    await this.pool.query(`UPDATE agent_threads SET status = 'idle', updated_at = $1 WHERE status = 'busy'`, [now]);
    return result.rowCount ?? 0;
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
