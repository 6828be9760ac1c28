// The long-term store in PostgreSQL (AGENT_SERVER_CHECKPOINTER=postgres), beside the threads, so
// every replica on the database reads and writes the same items. Our own tables rather than
// LangGraph's PostgresStore: every row carries its workspace and every statement names it; an
// item is keyed by the hash of its namespace and key (no unbounded text in a b-tree); TTLs keep
// each item's own minutes for refreshes; embeddings are float8 arrays compared in SQL (no
// pgvector needed). Expired rows are never read and are deleted by sweeps (any replica's).
import type pg from 'pg';
import { inTransaction } from '../../../platform/postgres.ts';
import { BaseLongTermStore, type ItemSearch, type ItemWrite, type StoreSettings } from './baseLongTermStore.ts';
import type { FieldCondition, NamespaceOptions, StoreItem } from './store.ts';
import { expiryOf } from './store.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS agent_store_items (
  workspace_id uuid NOT NULL,
  item_hash bytea NOT NULL, -- sha256 of [namespace, key] (store.ts itemHash)
  namespace text[] COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  ttl_minutes double precision, -- null: no TTL
  expires_at timestamptz,
  PRIMARY KEY (workspace_id, item_hash)
);
CREATE INDEX IF NOT EXISTS agent_store_items_namespace ON agent_store_items USING gin (namespace);
CREATE INDEX IF NOT EXISTS agent_store_items_updated ON agent_store_items (workspace_id, updated_at DESC);
CREATE INDEX IF NOT EXISTS agent_store_items_expiry ON agent_store_items (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS agent_store_vectors (
  workspace_id uuid NOT NULL,
  item_hash bytea NOT NULL,
  ordinal integer NOT NULL,
  field text NOT NULL,
  embedding double precision[] NOT NULL,
  norm double precision NOT NULL,
  PRIMARY KEY (workspace_id, item_hash, ordinal),
  FOREIGN KEY (workspace_id, item_hash) REFERENCES agent_store_items (workspace_id, item_hash) ON DELETE CASCADE
);
`;

/** Replicas starting together create the tables one after the other. */
const SCHEMA_LOCK = 0x6167736d; // "agsm"

const LIVE = (alias: string, now: string) => `(${alias}.expires_at IS NULL OR ${alias}.expires_at > ${now})`;

type Bind = (value: unknown) => string;

function binder(): { params: unknown[]; bind: Bind } {
  const params: unknown[] = [];
  return { params, bind: (v) => `$${params.push(v)}` };
}

/** store.ts matchesConditions in SQL, on the value of the row aliased `i`. */
function conditionSql({ field, op, operand }: FieldCondition, bind: Bind): string {
  const at = `(i.value -> ${bind(field)}::text)`;
  const json = () => `${bind(JSON.stringify(operand))}::jsonb`;
  const any = () => `EXISTS (SELECT 1 FROM jsonb_array_elements(${json()}) o WHERE o = ${at})`;
  switch (op) {
    case '$eq':
      return `${at} = ${json()}`;
    case '$ne':
      return `${at} IS DISTINCT FROM ${json()}`;
    case '$in':
      return any();
    case '$nin':
      return `NOT ${any()}`;
    default: {
      const sign = { $gt: '>', $gte: '>=', $lt: '<', $lte: '<=' }[op];
      // CASE, not AND: SQL may evaluate the cast of a value that is not a number first
      return typeof operand === 'number'
        ? `CASE WHEN jsonb_typeof(${at}) = 'number' THEN (${at})::numeric ${sign} ${bind(String(operand))}::numeric ELSE false END`
        : `CASE WHEN jsonb_typeof(${at}) = 'string' THEN (${at} #>> '{}') COLLATE "C" ${sign} ${bind(operand)}::text ELSE false END`;
    }
  }
}

/** `namespace` starts (or ends) with `labels`, `*` any label; the GIN index narrows by the named ones. */
function namespaceSql(labels: string[], at: 'prefix' | 'suffix', bind: Bind): string[] {
  if (labels.length === 0) return [];
  const n = labels.length;
  const named = labels.filter((l) => l !== '*');
  const position = (i: number) => (at === 'prefix' ? `${i + 1}` : `cardinality(i.namespace) - ${n - 1 - i}`);
  return [
    `cardinality(i.namespace) >= ${n}`,
    ...(named.length ? [`i.namespace @> ${bind(named)}::text[]`] : []),
    ...labels.flatMap((label, i) => (label === '*' ? [] : [`i.namespace[${position(i)}] = ${bind(label)}::text`])),
  ];
}

const itemOf = (row: Record<string, unknown>): StoreItem => ({
  namespace: row.namespace as string[],
  key: row.key as string,
  value: row.value as Record<string, unknown>,
  createdAt: row.created_at as Date,
  updatedAt: row.updated_at as Date,
  ...(row.score !== undefined ? { score: row.score as number | null } : {}),
});

export class PostgresLongTermStore extends BaseLongTermStore {
  readonly #pool: pg.Pool;

  private constructor(pool: pg.Pool, settings: StoreSettings) {
    super(settings);
    this.#pool = pool;
  }

  /** Creates the tables if need be (replicas one at a time); the pool is the record store's. */
  static async open(pool: pg.Pool, settings: StoreSettings): Promise<PostgresLongTermStore> {
    await inTransaction(pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
      await client.query(SCHEMA);
    });
    return new PostgresLongTermStore(pool, settings);
  }

  protected async readItem(workspaceId: string, hash: Buffer, refresh: boolean, now: number) {
    // The refresh, when asked, in the same statement: it touches only rows with a TTL.
    const { rows } = await this.#pool.query(
      `WITH found AS (
         SELECT namespace, key, value, created_at, updated_at FROM agent_store_items i
         WHERE workspace_id = $1 AND item_hash = $2 AND ${LIVE('i', '$3::timestamptz')}
       ), refreshed AS (
         UPDATE agent_store_items i SET expires_at = $3::timestamptz + ttl_minutes * interval '1 minute'
         WHERE $4::boolean AND workspace_id = $1 AND item_hash = $2 AND ttl_minutes IS NOT NULL AND ${LIVE('i', '$3::timestamptz')}
       )
       SELECT * FROM found`,
      [workspaceId, hash, new Date(now), refresh],
    );
    return rows[0] ? itemOf(rows[0]) : null;
  }

  protected async writeItem(workspaceId: string, write: ItemWrite) {
    const at = new Date(write.now);
    const upsert = (client: pg.Pool | pg.PoolClient) =>
      client.query(
        `INSERT INTO agent_store_items (workspace_id, item_hash, namespace, key, value, created_at, updated_at, ttl_minutes, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8)
         ON CONFLICT (workspace_id, item_hash) DO UPDATE SET
           value = EXCLUDED.value, updated_at = EXCLUDED.updated_at,
           ttl_minutes = EXCLUDED.ttl_minutes, expires_at = EXCLUDED.expires_at,
           -- an expired item written again is a new one
           created_at = CASE WHEN ${LIVE('agent_store_items', 'EXCLUDED.updated_at')} THEN agent_store_items.created_at ELSE EXCLUDED.created_at END`,
        [
          workspaceId,
          write.hash,
          write.namespace,
          write.key,
          JSON.stringify(write.value),
          at,
          write.ttlMinutes,
          expiryOf(write.now, write.ttlMinutes),
        ],
      );
    // (A value PostgreSQL cannot hold, a NUL character, is the request's 422: platform/http/server.ts.)
    const { vectors } = write;
    if (vectors === undefined) {
      await upsert(this.#pool);
      return;
    }
    await inTransaction(this.#pool, async (client) => {
      await upsert(client);
      await client.query('DELETE FROM agent_store_vectors WHERE workspace_id = $1 AND item_hash = $2', [
        workspaceId,
        write.hash,
      ]);
      if (vectors.length === 0) return;
      const { params, bind } = binder();
      const [ws, hash] = [bind(workspaceId), bind(write.hash)];
      const rows = vectors.map(
        ({ field, vector }, i) =>
          `(${ws}::uuid, ${hash}::bytea, ${i}, ${bind(field)}, ${bind(vector)}::float8[], ${bind(Math.hypot(...vector))}::float8)`,
      );
      await client.query(
        `INSERT INTO agent_store_vectors (workspace_id, item_hash, ordinal, field, embedding, norm) VALUES ${rows.join(', ')}`,
        params,
      );
    });
  }

  protected async deleteItem(workspaceId: string, hash: Buffer) {
    await this.#pool.query('DELETE FROM agent_store_items WHERE workspace_id = $1 AND item_hash = $2', [
      workspaceId,
      hash,
    ]);
  }

  protected async findItems(workspaceId: string, search: ItemSearch) {
    const { params, bind } = binder();
    const now = `${bind(new Date(search.now))}::timestamptz`;
    const where = [
      `i.workspace_id = ${bind(workspaceId)}`,
      LIVE('i', now),
      ...namespaceSql(search.prefix, 'prefix', bind),
      ...search.conditions.map((c) => conditionSql(c, bind)),
    ];
    const { queryVector } = search;
    // Cosine similarity of each of the item's vectors with the query's, the best of them; null without vectors.
    const score = queryVector
      ? `(SELECT max(COALESCE(
            (SELECT sum(e * q) FROM unnest(v.embedding, ${bind(queryVector)}::float8[]) AS t(e, q))
              / NULLIF(v.norm * ${bind(Math.hypot(...queryVector))}::float8, 0), 0))
          FROM agent_store_vectors v WHERE v.workspace_id = i.workspace_id AND v.item_hash = i.item_hash)`
      : 'NULL::float8';
    const order = `${queryVector ? 'score DESC NULLS LAST, ' : ''}updated_at DESC, namespace, key`;
    const { rows } = await this.#pool.query(
      `WITH page AS (
         SELECT i.workspace_id, i.item_hash, i.namespace, i.key, i.value, i.created_at, i.updated_at, i.ttl_minutes,
           ${score} AS score
         FROM agent_store_items i WHERE ${where.join(' AND ')}
         ORDER BY ${order} LIMIT ${bind(search.limit)} OFFSET ${bind(search.offset)}
       ), refreshed AS (
         UPDATE agent_store_items i SET expires_at = ${now} + i.ttl_minutes * interval '1 minute' FROM page p
         WHERE ${bind(search.refresh)}::boolean AND i.workspace_id = p.workspace_id AND i.item_hash = p.item_hash
           AND i.ttl_minutes IS NOT NULL
       )
       SELECT namespace, key, value, created_at, updated_at, score FROM page ORDER BY ${order}`,
      params,
    );
    return rows.map((row) => {
      const item = itemOf(row);
      if (!queryVector) delete item.score;
      return item;
    });
  }

  protected async findNamespaces(workspaceId: string, options: NamespaceOptions, now: number) {
    const { params, bind } = binder();
    const where = [
      `i.workspace_id = ${bind(workspaceId)}`,
      LIVE('i', `${bind(new Date(now))}::timestamptz`),
      ...namespaceSql(options.prefix ?? [], 'prefix', bind),
      ...namespaceSql(options.suffix ?? [], 'suffix', bind),
    ];
    const namespace = options.maxDepth === undefined ? 'i.namespace' : `i.namespace[1:${bind(options.maxDepth)}::int]`;
    const { rows } = await this.#pool.query(
      `SELECT DISTINCT ${namespace} AS ns FROM agent_store_items i WHERE ${where.join(' AND ')}
       ORDER BY ns LIMIT ${bind(options.limit)} OFFSET ${bind(options.offset)}`,
      params,
    );
    return rows.map((row) => row.ns as string[]);
  }

  protected async deleteExpired(now: number) {
    const { rowCount } = await this.#pool.query('DELETE FROM agent_store_items WHERE expires_at <= $1', [
      new Date(now),
    ]);
    return rowCount ?? 0;
  }

  /** The pool is the record store's, which ends it. */
  async close() {}
}
