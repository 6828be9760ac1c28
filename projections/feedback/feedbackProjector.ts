// Consumes the feedback topic and keeps the ClickHouse `feedback` read model: one row per
// feedback id, the newest submission winning (version = offset). Feedback without a project
// takes its run's project from run_locations, so deleting a project deletes its feedback.
import { MessagesStreamModes, type Consumer, type MessagesStream } from '@platformatic/kafka';
import type { Config } from '../../services/common/config.ts';
import type { Logger } from '../../services/common/logger.ts';
import type { ClickHouseClient } from '../../services/common/clickhouse/client.ts';
import { ident, join, sql } from '../../services/common/clickhouse/sql.ts';
import { topicName, TOPICS } from '../../services/common/kafka/topics.ts';
import { decodeEvent } from '../../schemas/registry.ts';
import type { FeedbackSubmitted } from '../../schemas/events.generated.ts';
import { projectorBatchSeconds, projectorRowsWritten } from '../../services/common/metrics.ts';
import { batches, commitBatch, deleteProjectRows, createProjectorConsumer, retryForever, type StringMessage } from '../consumerBatches.ts';
import { LIVE_TABLES, type ReadModelTables } from '../readModelTables.ts';
import { opVersion } from '../runs/runRow.ts';

export const feedbackProjectorGroupId = (config: Pick<Config, 'KAFKA_TOPIC_PREFIX'>): string => `${config.KAFKA_TOPIC_PREFIX}feedback-projector`;

export interface FeedbackRow {
  tenant_id: string;
  run_id: string;
  id: string;
  trace_id: string | null;
  session_id: string | null;
  key: string;
  score: number | null;
  value: string;
  comment: string | null;
  correction: string;
  feedback_source: string;
  created_at: number;
  version: number;
}

export interface FeedbackProjectorOptions {
  groupId?: string;
  tables?: ReadModelTables;
  isProjectDeleted?: (tenantId: string, projectId: string) => boolean;
}

export function feedbackRow(f: FeedbackSubmitted, version: number): FeedbackRow | null {
  if (!f.run_id) return null; // feedback on a trace only or on nothing has no run to attach to
  return {
    tenant_id: f.tenant_id,
    run_id: f.run_id,
    id: f.feedback_id,
    trace_id: f.trace_id,
    session_id: f.session_id,
    key: f.key,
    score: f.score,
    value: f.value ?? '',
    comment: f.comment,
    correction: f.correction ?? '',
    feedback_source: f.feedback_source ?? '',
    created_at: f.created_at,
    version,
  };
}

export class FeedbackProjector {
  readonly #config: Config;
  readonly #ch: ClickHouseClient;
  readonly #logger: Logger;
  readonly #tables: ReadModelTables;
  readonly #isProjectDeleted: (tenantId: string, projectId: string) => boolean;
  readonly #consumer: Consumer<string, Buffer, string, string>;
  readonly #pendingDeletions: Array<{ tenantId: string; projectId: string }> = [];
  #stream: MessagesStream<string, Buffer, string, string> | null = null;
  #loop: Promise<void> | null = null;
  #stopping = false;
  #queue: Promise<void> = Promise.resolve();

  constructor(config: Config, ch: ClickHouseClient, logger: Logger, options: FeedbackProjectorOptions = {}) {
    this.#config = config;
    this.#ch = ch;
    this.#logger = logger;
    this.#tables = options.tables ?? LIVE_TABLES;
    this.#isProjectDeleted = options.isProjectDeleted ?? (() => false);
    this.#consumer = createProjectorConsumer(config, 'feedback-projector', options.groupId ?? feedbackProjectorGroupId(config));
  }

  async start(): Promise<void> {
    this.#stream = await this.#consumer.consume({
      topics: [topicName(this.#config, TOPICS.feedback)],
      mode: MessagesStreamModes.COMMITTED,
      fallbackMode: 'earliest',
      autocommit: false,
      sessionTimeout: 30_000,
      heartbeatInterval: 3_000,
    });
    this.#stream.on('error', (err) => this.#logger.error({ err }, 'feedback stream error'));
    const stream = this.#stream;
    this.#loop = (async () => {
      for await (const batch of batches(stream, this.#config.PROJECTOR_BATCH_EVENTS, this.#config.PROJECTOR_FLUSH_MS)) {
        if (this.#stopping) break;
        const timer = projectorBatchSeconds.startTimer({ projector: 'feedback' });
        await this.#serially(() => this.#project(batch));
        timer();
      }
    })();
  }

  requestProjectDeletion(tenantId: string, projectId: string): void {
    this.#pendingDeletions.push({ tenantId, projectId });
    // now, not with the next batch (there may be none for a long time); never during a batch
    void this.#serially(() => this.#applyDeletions()).catch((err) => this.#logger.error({ err }, 'project deletion failed'));
  }

  async #applyDeletions(): Promise<void> {
    while (this.#pendingDeletions.length > 0) {
      const { tenantId, projectId } = this.#pendingDeletions[0]!;
      await this.#retry('delete a project\'s feedback', () => deleteProjectRows(this.#ch, this.#tables.feedback, tenantId, projectId));
      this.#pendingDeletions.shift();
    }
  }

  /** Batches and deletions run one at a time, in the order they were asked for. */
  #serially(task: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(task);
    this.#queue = next.catch(() => {});
    return next;
  }

  async #project(batch: StringMessage[]): Promise<void> {
    const rows: FeedbackRow[] = [];
    for (const message of batch) {
      let decoded;
      try {
        decoded = decodeEvent(message.headers, message.value);
      } catch (err) {
        this.#logger.error({ err, partition: message.partition, offset: String(message.offset) }, 'undecodable feedback event skipped');
        continue;
      }
      if (decoded.name !== 'FeedbackSubmitted') continue;
      const row = feedbackRow(decoded.payload, opVersion(message.offset, 0));
      if (row) rows.push(row);
    }
    await this.#retry('find the projects of feedback', () => this.#fillSessions(rows));
    const kept = rows.filter((r) => !(r.session_id && this.#isProjectDeleted(r.tenant_id, r.session_id)));
    await this.#retry('insert feedback', () => this.#ch.insert(this.#tables.feedback, kept));
    projectorRowsWritten.inc({ projector: 'feedback' }, kept.length);
    await commitBatch(batch, this.#logger);
  }

  async #fillSessions(rows: FeedbackRow[]): Promise<void> {
    const missing = rows.filter((r) => r.session_id === null);
    for (let i = 0; i < missing.length; i += 2000) {
      const chunk = missing.slice(i, i + 2000);
      const keys = join(chunk.map((r) => sql`(toUUID(${r.tenant_id}), toUUID(${r.run_id}))`));
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

  #retry(what: string, fn: () => Promise<void>): Promise<void> {
    return retryForever(this.#logger, what, fn, () => this.#stopping);
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#stream?.close().catch(() => {});
    await this.#loop?.catch(() => {});
    await this.#consumer.close(true).catch(() => {});
  }
}
