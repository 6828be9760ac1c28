// Assistants in PostgreSQL, beside threads (same database): the assistant as it is (its pinned
// version's fields) in agent_assistants, and every version in agent_assistant_versions. Rows are
// keyed by workspace and id; every statement names the workspace, and the auth module's filter
// becomes a condition on the assistant's metadata (store/postgresRecordStore.ts filterConditions).
import type pg from 'pg';
import { inTransaction } from '../../../platform/postgres.ts';
import type { AuthFilters } from '../auth/authFilters.ts';
import type { Assistant } from '../graphRegistry.ts';
import type { Json } from '../store/agentRecords.ts';
import { filterConditions, parameters } from '../store/postgresRecordStore.ts';
import {
  ASSISTANT_SORTABLE,
  nextVersion,
  versionOf,
  withVersion,
  type AssistantPatch,
  type AssistantQuery,
  type AssistantStore,
  type AssistantVersion,
} from './assistantStore.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS agent_assistants (
  workspace_id uuid NOT NULL,
  assistant_id uuid NOT NULL,
  graph_id text NOT NULL,
  name text NOT NULL,
  description text,
  config jsonb NOT NULL,
  context jsonb NOT NULL,
  metadata jsonb NOT NULL,
  version integer NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, assistant_id)
);
CREATE INDEX IF NOT EXISTS agent_assistants_metadata ON agent_assistants USING gin (metadata jsonb_path_ops);
CREATE TABLE IF NOT EXISTS agent_assistant_versions (
  workspace_id uuid NOT NULL,
  assistant_id uuid NOT NULL,
  version integer NOT NULL,
  graph_id text NOT NULL,
  name text NOT NULL,
  description text,
  config jsonb NOT NULL,
  context jsonb NOT NULL,
  metadata jsonb NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, assistant_id, version),
  FOREIGN KEY (workspace_id, assistant_id) REFERENCES agent_assistants (workspace_id, assistant_id) ON DELETE CASCADE
);
`;

/** Replicas starting together create the tables one after the other. */
const SCHEMA_LOCK = 0x61677374 + 1; // "agst" + 1

type Row = Record<string, unknown>;
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));

function versionFromRow(row: Row): AssistantVersion {
  return {
    assistant_id: row.assistant_id as string,
    graph_id: row.graph_id as string,
    version: Number(row.version),
    name: row.name as string,
    description: (row.description ?? null) as string | null,
    config: row.config as Json,
    context: row.context as Json,
    metadata: row.metadata as Json,
    created_at: iso(row.created_at),
  };
}

function assistantFromRow(row: Row): Assistant {
  return { ...versionFromRow(row), created_at: iso(row.created_at), updated_at: iso(row.updated_at) };
}

const FIELDS = ['graph_id', 'name', 'description', 'config', 'context', 'metadata', 'version'] as const;
const fieldValues = (v: AssistantVersion) => [
  v.graph_id,
  v.name,
  v.description,
  JSON.stringify(v.config),
  JSON.stringify(v.context),
  JSON.stringify(v.metadata),
  v.version,
];

export class PostgresAssistantStore implements AssistantStore {
  private readonly pool: pg.Pool;

  private constructor(pool: pg.Pool) {
    this.pool = pool;
  }

  /** Creates the tables if they are not there; the pool is the record store's (it is not closed here). */
  static async open(pool: pg.Pool): Promise<PostgresAssistantStore> {
    await inTransaction(pool, async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
      await client.query(SCHEMA);
    });
    return new PostgresAssistantStore(pool);
  }

  async create(workspaceId: string, assistant: Assistant): Promise<Assistant | undefined> {
    return inTransaction(this.pool, async (client) => {
      const inserted = await client.query(
        `INSERT INTO agent_assistants (workspace_id, assistant_id, ${FIELDS.join(', ')}, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         ON CONFLICT (workspace_id, assistant_id) DO NOTHING RETURNING *`,
        [
          workspaceId,
          assistant.assistant_id,
          ...fieldValues(versionOf(assistant)),
          assistant.created_at,
          assistant.updated_at,
        ],
      );
      if (!inserted.rows[0]) return undefined;
      await this.insertVersion(client, workspaceId, versionOf(assistant));
      return assistantFromRow(inserted.rows[0]);
    });
  }

  private async insertVersion(client: pg.PoolClient, workspaceId: string, v: AssistantVersion): Promise<void> {
    await client.query(
      `INSERT INTO agent_assistant_versions (workspace_id, assistant_id, ${FIELDS.join(', ')}, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [workspaceId, v.assistant_id, ...fieldValues(v), v.created_at],
    );
  }

  /** The assistant's row, locked when inside a transaction that changes it. */
  private async row(
    db: pg.Pool | pg.PoolClient,
    workspaceId: string,
    assistantId: string,
    filters: AuthFilters | undefined,
    lock = false,
  ): Promise<Assistant | undefined> {
    const { params, bind } = parameters();
    const where = [
      `a.workspace_id = ${bind(workspaceId)}`,
      `a.assistant_id = ${bind(assistantId)}`,
      ...filterConditions(filters, bind, 'a.metadata'),
    ];
    const result = await db.query(
      `SELECT * FROM agent_assistants a WHERE ${where.join(' AND ')}${lock ? ' FOR UPDATE' : ''}`,
      params,
    );
    return result.rows[0] ? assistantFromRow(result.rows[0]) : undefined;
  }

  get(workspaceId: string, assistantId: string, filters?: AuthFilters): Promise<Assistant | undefined> {
    return this.row(this.pool, workspaceId, assistantId, filters);
  }

  private async pin(client: pg.PoolClient, workspaceId: string, assistant: Assistant): Promise<Assistant> {
    const v = versionOf(assistant);
    const sets = FIELDS.map((f, i) => `${f} = $${i + 3}`).join(', ');
    const result = await client.query(
      `UPDATE agent_assistants SET ${sets}, updated_at = $${FIELDS.length + 3}
       WHERE workspace_id = $1 AND assistant_id = $2 RETURNING *`,
      [workspaceId, assistant.assistant_id, ...fieldValues(v), assistant.updated_at],
    );
    return assistantFromRow(result.rows[0]);
  }

  update(workspaceId: string, assistantId: string, patch: AssistantPatch, filters?: AuthFilters) {
    return inTransaction(this.pool, async (client) => {
      const current = await this.row(client, workspaceId, assistantId, filters, true);
      if (!current) return undefined;
      const latest = await client.query(
        'SELECT max(version) AS v FROM agent_assistant_versions WHERE workspace_id = $1 AND assistant_id = $2',
        [workspaceId, assistantId],
      );
      const version = nextVersion(current, patch, Number(latest.rows[0]?.v ?? current.version) + 1);
      await this.insertVersion(client, workspaceId, version);
      return this.pin(client, workspaceId, withVersion(current, version, version.created_at));
    });
  }

  async delete(workspaceId: string, assistantId: string, filters?: AuthFilters): Promise<boolean> {
    const { params, bind } = parameters();
    const where = [
      `a.workspace_id = ${bind(workspaceId)}`,
      `a.assistant_id = ${bind(assistantId)}`,
      ...filterConditions(filters, bind, 'a.metadata'),
    ];
    const result = await this.pool.query(`DELETE FROM agent_assistants a WHERE ${where.join(' AND ')}`, params);
    return (result.rowCount ?? 0) > 0;
  }

  async search(workspaceId: string, query: AssistantQuery) {
    const { params, bind } = parameters();
    const where = [`a.workspace_id = ${bind(workspaceId)}`, ...filterConditions(query.filters, bind, 'a.metadata')];
    if (query.graphId) where.push(`a.graph_id = ${bind(query.graphId)}`);
    if (query.name) where.push(`strpos(lower(a.name), lower(${bind(query.name)})) > 0`);
    if (query.metadata) where.push(`a.metadata @> ${bind(JSON.stringify(query.metadata))}::jsonb`);
    if (!(ASSISTANT_SORTABLE as readonly string[]).includes(query.sortBy))
      throw new Error(`cannot sort by ${query.sortBy}`);
    const order = `ORDER BY a.${query.sortBy} ${query.sortOrder === 'asc' ? 'ASC' : 'DESC'}, a.assistant_id`;
    const condition = where.join(' AND ');
    const [rows, count] = await Promise.all([
      this.pool.query(`SELECT * FROM agent_assistants a WHERE ${condition} ${order} LIMIT ${query.limit}`, params),
      this.pool.query(`SELECT count(*) AS n FROM agent_assistants a WHERE ${condition}`, params),
    ]);
    return { assistants: rows.rows.map(assistantFromRow), total: Number(count.rows[0]?.n ?? 0) };
  }

  async versions(
    workspaceId: string,
    assistantId: string,
    options: { metadata?: Json; limit: number; offset: number; filters?: AuthFilters },
  ) {
    if (!(await this.get(workspaceId, assistantId, options.filters))) return undefined;
    const { params, bind } = parameters();
    const where = [`workspace_id = ${bind(workspaceId)}`, `assistant_id = ${bind(assistantId)}`];
    if (options.metadata) where.push(`metadata @> ${bind(JSON.stringify(options.metadata))}::jsonb`);
    const result = await this.pool.query(
      `SELECT * FROM agent_assistant_versions WHERE ${where.join(' AND ')} ORDER BY version DESC
       LIMIT ${bind(options.limit)} OFFSET ${bind(options.offset)}`,
      params,
    );
    return result.rows.map(versionFromRow);
  }

  setLatest(workspaceId: string, assistantId: string, version: number, filters?: AuthFilters) {
    return inTransaction(this.pool, async (client): Promise<Assistant | undefined | 'no-version'> => {
      const current = await this.row(client, workspaceId, assistantId, filters, true);
      if (!current) return undefined;
      const found = await client.query(
        'SELECT * FROM agent_assistant_versions WHERE workspace_id = $1 AND assistant_id = $2 AND version = $3',
        [workspaceId, assistantId, version],
      );
      if (!found.rows[0]) return 'no-version';
      return this.pin(client, workspaceId, withVersion(current, versionFromRow(found.rows[0])));
    });
  }

  async close(): Promise<void> {}
}
