// A scratch ClickHouse database with the read-model tables, for tests that insert rows directly.
import { randomBytes } from 'node:crypto';
import { provideInfra } from '../../../support/infra.ts';
import { ClickHouseClient } from '../../../../platform/clickhouse/client.ts';
import { ident, sql } from '../../../../platform/clickhouse/sql.ts';
import { createReadModelTables } from '../../../../projections/readModels.ts';
import { LIVE_TABLES } from '../../../../projections/readModelTables.ts';
import { emptyRow } from '../../../../projections/runs/runRow.ts';
import type { RunRow } from '../../../../projections/shared/runRow.ts';
import { formatDottedTimestamp } from '../../../../platform/time.ts';

export interface ScratchDatabase {
  ch: ClickHouseClient;
  drop(): Promise<void>;
}

export async function scratchDatabase(name: string): Promise<ScratchDatabase> {
  const infra = await provideInfra();
  const database = `${name}_${randomBytes(3).toString('hex')}`;
  const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database });
  await ch.exec(sql`CREATE DATABASE ${ident(database)}`, { database: null });
  await createReadModelTables(ch, LIVE_TABLES);
  return {
    ch,
    async drop() {
      await ch.exec(sql`DROP DATABASE IF EXISTS ${ident(database)}`, { database: null });
      await ch.close();
    },
  };
}

/** A posted run row (as the projector would write it). */
export function runRow(tenantId: string, fields: Partial<RunRow> & { id: string; start_time: number }): RunRow {
  const traceId = fields.trace_id ?? fields.id;
  const row: RunRow = {
    ...emptyRow(tenantId, traceId, fields.id),
    has_post: 1,
    version: 1,
    ...fields,
    trace_id: traceId,
  };
  row.is_root = row.trace_id === row.id ? 1 : 0;
  row.dotted_order ||= formatDottedTimestamp(row.start_time) + row.id;
  row.status = row.error !== null ? 'error' : row.end_time !== null ? 'success' : 'pending';
  return row;
}

/** Rows into `runs`, with their rows of run_keys, run_threads and run_locations alongside (as the projector writes them). */
export async function insertRuns(ch: ClickHouseClient, rows: RunRow[]): Promise<void> {
  await ch.insert(
    LIVE_TABLES.runKeys,
    rows.map((r) => ({
      tenant_id: r.tenant_id,
      trace_id: r.trace_id,
      id: r.id,
      session_id: r.session_id,
      is_root: r.is_root,
      start_time: r.start_time,
    })),
  );
  const threads = rows.filter((r) => r.thread_id !== '');
  if (threads.length)
    await ch.insert(
      LIVE_TABLES.runThreads,
      threads.map((r) => ({
        tenant_id: r.tenant_id,
        thread_id: r.thread_id,
        session_id: r.session_id,
        is_root: r.is_root,
        start_time: r.start_time,
        id: r.id,
      })),
    );
  await ch.insert(LIVE_TABLES.runs, rows);
  await ch.insert(
    LIVE_TABLES.runLocations,
    rows.map((r) => ({ tenant_id: r.tenant_id, id: r.id, trace_id: r.trace_id })),
  );
}

export interface FeedbackRow {
  tenant_id: string;
  run_id: string;
  id: string;
  key: string;
  score: number | null;
  value?: string;
  version?: number;
  /** 1: a deletion's tombstone. */
  deleted?: 0 | 1;
}

export async function insertFeedback(ch: ClickHouseClient, rows: FeedbackRow[]): Promise<void> {
  await ch.insert(
    LIVE_TABLES.feedback,
    rows.map((f) => ({
      trace_id: null,
      session_id: null,
      comment: null,
      correction: '',
      feedback_source: '',
      created_at: 0,
      value: '',
      version: 1,
      ...f,
    })),
  );
}
