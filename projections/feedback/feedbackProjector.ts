// Keeps the ClickHouse `feedback` read model from the feedback topic: one row per feedback id,
// the newest event winning (version = offset; every event of an id is in one partition, keyed
// tenant/feedback id). A submission replaces the item whole; an update changes the fields it
// names on the current row; a deletion writes a tombstone row (`deleted = 1`). An event whose
// version is not above the row's has been applied already (redelivery, replay) and changes
// nothing. Feedback without a project takes its run's project from run_locations, so deleting
// a project deletes its feedback. A presigned token (FeedbackTokenCreated) is a row of its own in
// `feedback_tokens`. The loop, commits and dead-lettering are the runtime's.
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, sql } from '../../platform/clickhouse/sql.ts';
import { TOPICS } from '../../schemas/topics.ts';
import type { FeedbackDeleted, FeedbackUpdated } from '../../schemas/events.generated.ts';
import { projectorRowsWritten } from '../../platform/metrics.ts';
import {
  ProjectorRuntime,
  type Projection,
  type ProjectedEvent,
  type ProjectorRuntimeConfig,
  type Retry,
} from '../shared/projectorRuntime.ts';
import { deleteProjectRows } from '../shared/projectRows.ts';
import type { ReadModelTables } from '../shared/readModelTables.ts';
import { opVersion, ZERO_UUID } from '../shared/runRow.ts';
import { deletedRow, feedbackRow, feedbackRowFromClickHouse, updatedRow, type FeedbackRow } from './feedbackRow.ts';
import { FEEDBACK_COLUMNS } from './feedbackTable.ts';
import { FEEDBACK_TOKEN_COLUMNS, feedbackTokenRow, type FeedbackTokenRow } from './feedbackTokenTable.ts';

export const feedbackProjectorGroupId = (config: Pick<Config, 'KAFKA_TOPIC_PREFIX'>): string =>
  `${config.KAFKA_TOPIC_PREFIX}feedback-projector`;

export interface FeedbackProjectorOptions {
  groupId?: string;
  /** Where to write (the live tables, or a replay's fresh ones); run_locations tells a feedback's trace and project. */
  tables: Pick<ReadModelTables, 'feedback' | 'feedbackTokens' | 'runLocations'>;
  isProjectDeleted?: (tenantId: string, projectId: string) => boolean;
}

const itemKey = (tenantId: string, id: string) => `${tenantId}/${id}`;

export class FeedbackProjector implements Projection {
  readonly name = 'feedback';
  readonly topic = TOPICS.feedback;
  readonly #ch: ClickHouseClient;
  readonly #tables: Pick<ReadModelTables, 'feedback' | 'feedbackTokens' | 'runLocations'>;
  readonly #isProjectDeleted: (tenantId: string, projectId: string) => boolean;
  readonly #runtime: ProjectorRuntime;

  constructor(config: ProjectorRuntimeConfig, ch: ClickHouseClient, logger: Logger, options: FeedbackProjectorOptions) {
    this.#ch = ch;
    this.#tables = options.tables;
    this.#isProjectDeleted = options.isProjectDeleted ?? (() => false);
    this.#runtime = new ProjectorRuntime(config, logger, this, {
      groupId: options.groupId ?? feedbackProjectorGroupId(config),
    });
  }

  start(): Promise<void> {
    return this.#runtime.start();
  }

  stop(): Promise<void> {
    return this.#runtime.stop();
  }

  requestProjectDeletion(tenantId: string, projectId: string): void {
    this.#runtime.requestProjectDeletion(tenantId, projectId);
  }

  deleteProject(tenantId: string, projectId: string, retry: Retry): Promise<void> {
    return retry("delete a project's feedback", () =>
      deleteProjectRows(this.#ch, this.#tables.feedback, tenantId, projectId),
    );
  }

  async project(events: ProjectedEvent[], retry: Retry): Promise<void> {
    // The rows this batch changes, by tenant/id, in event order; updates and deletions of items
    // the batch did not submit start from the row in ClickHouse.
    const changes = events.filter((e) => e.event.name === 'FeedbackUpdated' || e.event.name === 'FeedbackDeleted');
    let current = new Map<string, FeedbackRow>();
    await retry('load feedback rows', async () => {
      current = await this.#currentRows(changes.map((e) => e.event.payload as FeedbackUpdated | FeedbackDeleted));
    });
    const written = new Map<string, FeedbackRow>();
    const tokens: FeedbackTokenRow[] = [];
    for (const { event, offset } of events) {
      const version = opVersion(offset, 0);
      if (event.name === 'FeedbackTokenCreated') {
        tokens.push(feedbackTokenRow(event.payload, version));
        continue;
      }
      if (event.name === 'FeedbackSubmitted') {
        const row = feedbackRow(event.payload, version);
        if (!row) continue;
        current.set(itemKey(row.tenant_id, row.id), row);
        written.set(itemKey(row.tenant_id, row.id), row);
        continue;
      }
      if (event.name !== 'FeedbackUpdated' && event.name !== 'FeedbackDeleted') continue;
      const key = itemKey(event.payload.tenant_id, event.payload.feedback_id);
      const row = current.get(key);
      // Unknown (its project was deleted, or it never was), gone, or applied already: nothing to do.
      if (!row || row.deleted || row.version >= version) continue;
      const next =
        event.name === 'FeedbackUpdated'
          ? updatedRow(row, event.payload, version)
          : deletedRow(row, event.payload, version);
      current.set(key, next);
      written.set(key, next);
    }
    await retry('find the projects of feedback', () => this.#fillSessions([...written.values()]));
    const rows = [...written.values()].filter(
      (r) => !(r.session_id && this.#isProjectDeleted(r.tenant_id, r.session_id)),
    );
    await retry('insert feedback', () => this.#ch.insertRowBinary(this.#tables.feedback, FEEDBACK_COLUMNS, rows));
    if (tokens.length > 0)
      await retry('insert feedback tokens', () =>
        this.#ch.insertRowBinary(this.#tables.feedbackTokens, FEEDBACK_TOKEN_COLUMNS, tokens),
      );
    projectorRowsWritten.inc({ projector: 'feedback' }, rows.length + tokens.length);
  }

  /** The current rows (FINAL) of the items that updates and deletions name, found by key. */
  async #currentRows(changes: Array<FeedbackUpdated | FeedbackDeleted>): Promise<Map<string, FeedbackRow>> {
    const rows = new Map<string, FeedbackRow>();
    for (let i = 0; i < changes.length; i += 2000) {
      const chunk = changes.slice(i, i + 2000);
      const keys = join(chunk.map((c) => sql`(${c.tenant_id}, ${c.run_id}, ${c.feedback_id})`));
      const found = await this.#ch.query(
        sql`SELECT * FROM ${ident(this.#tables.feedback)} FINAL WHERE (tenant_id, run_id, id) IN (${keys})`,
      );
      for (const raw of found) {
        const row = feedbackRowFromClickHouse(raw);
        rows.set(itemKey(row.tenant_id, row.id), row);
      }
    }
    return rows;
  }

  async #fillSessions(rows: FeedbackRow[]): Promise<void> {
    const missing = rows.filter((r) => r.session_id === null && r.run_id !== ZERO_UUID);
    for (let i = 0; i < missing.length; i += 2000) {
      const chunk = missing.slice(i, i + 2000);
      const keys = join(chunk.map((r) => sql`(${r.tenant_id}, ${r.run_id})`));
      const found = await this.#ch.query<{ tenant_id: string; id: string; trace_id: string; session_id: string }>(
        sql`SELECT tenant_id, id, trace_id, session_id FROM ${ident(this.#tables.runLocations)} FINAL WHERE (tenant_id, id) IN (${keys})`,
      );
      const byRun = new Map(found.map((f) => [`${f.tenant_id}/${f.id}`, f]));
      for (const r of chunk) {
        const f = byRun.get(`${r.tenant_id}/${r.run_id}`);
        if (!f) continue;
        r.session_id = f.session_id;
        r.trace_id ??= f.trace_id;
      }
    }
  }
}
