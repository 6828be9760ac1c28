// Feedback through the API (POST /feedback, GET/PATCH/DELETE /feedback/{id}, GET /feedback): every
// change is an event on the feedback topic, projected into the same `feedback` read model as
// multipart feedback. Reads (and the existence checks of changes) first wait, briefly, for the
// feedback projector to have projected everything appended before them, so a client that creates
// and then reads at once finds what it wrote; after the wait they answer from what is there.
// Presigned tokens (POST /feedback/tokens) are events too, projected into `feedback_tokens`; using
// one (/feedback/tokens/{id}, no API key) submits feedback in the token's workspace, as POST /feedback.
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import type { Config } from '../../../platform/config.ts';
import { errors } from '../../../platform/errors.ts';
import type { EventLog } from '../../../platform/kafka/eventLog.ts';
import type { ConsumerLagMonitor } from '../../../platform/kafka/consumerLag.ts';
import type { Logger } from '../../../platform/logger.ts';
import type { ReadModelTables } from '../../../projections/readModelTables.ts';
import {
  feedbackByIdQuery,
  feedbackListQuery,
  feedbackTokenQuery,
  runPlacesQuery,
  type FeedbackFilter,
} from '../../../projections/feedback/feedbackQueries.ts';
import { feedbackRow, updatedRow, type FeedbackRow } from '../../../projections/feedback/feedbackRow.ts';
import { ZERO_UUID } from '../../../projections/shared/runRow.ts';
import type { ProjectRegistry } from '../../../projections/projects/projectRegistry.ts';
import { feedbackScore, jsonObjectOrNull, optionalText, toFeedbackDraft } from '../ingest/feedbackDraft.ts';
import { formatIsoMicros, nowMicros, STORABLE_TIME_RANGE, storableTimestampMicros } from '../../../platform/time.ts';
import { optionalUuid, requireUuid } from '../../../platform/ids.ts';
import {
  feedbackDeleted,
  feedbackSubmitted,
  feedbackTokenCreated,
  feedbackUpdated,
  type FeedbackChanges,
} from './feedbackEvents.ts';
import { feedbackResponse } from './feedbackResponse.ts';

export interface FeedbackDeps {
  config: Config;
  ch: ClickHouseClient;
  eventLog: EventLog;
  projects: ProjectRegistry;
  tables: Pick<ReadModelTables, 'feedback' | 'feedbackTokens' | 'runLocations'>;
  /** How far the feedback projector is: reads wait on it (read-your-writes). */
  projection: Pick<ConsumerLagMonitor, 'caughtUp'>;
  logger: Logger;
}

/** The fields PATCH /feedback/{id} changes, as the clients' updateFeedback / update_feedback send them. */
export const UPDATABLE_FIELDS = ['score', 'value', 'comment', 'correction', 'feedback_config'] as const;

type Json = Record<string, unknown>;

export class FeedbackCommands {
  readonly #deps: FeedbackDeps;
  /** How long a read waits for the projector; as long as an append may take. */
  readonly #catchUpMs: number;

  constructor(deps: FeedbackDeps) {
    this.#deps = deps;
    this.#catchUpMs = Math.max(deps.config.KAFKA_APPEND_TIMEOUT_MS, 2000);
  }

  /**
   * POST /feedback. The run's trace and project come from the run when it has been projected;
   * feedback on a run not seen yet is accepted (as multipart feedback is: a client often sends
   * it right after the run) and takes its place when the run arrives.
   */
  async create(tenantId: string, body: Json): Promise<Json> {
    const draft = toFeedbackDraft(body, body.id == null ? uuidv7() : (body.id as string), 'body');
    draft.runId ??= draft.traceId; // feedback on a trace is feedback on its root run (the Python client does the same)
    if (!draft.runId && !draft.sessionId)
      throw errors.invalidField('body: one of run_id, trace_id or session_id is required');
    // 404 for a project that is not the workspace's
    if (draft.sessionId) await this.#deps.projects.resolve(tenantId, draft.sessionId, null, new Map());
    if (draft.runId) {
      const places = await runPlacesQuery(this.#deps.ch, this.#deps.tables.runLocations, tenantId, [draft.runId]);
      const place = places.get(draft.runId);
      draft.traceId ??= place?.traceId ?? null;
      draft.sessionId ??= place?.sessionId ?? null;
    }
    const submitted = feedbackSubmitted(tenantId, draft, nowMicros());
    await this.#deps.eventLog.append([submitted]);
    return feedbackResponse(feedbackRow(submitted.payload, 0)!);
  }

  async read(tenantId: string, id: string): Promise<Json> {
    await this.#upToDate();
    return (await this.#respond(tenantId, [await this.#existing(tenantId, id)]))[0]!;
  }

  async list(tenantId: string, filter: FeedbackFilter, offset: number, limit: number): Promise<Json[]> {
    await this.#upToDate();
    const rows = await feedbackListQuery(this.#deps.ch, this.#deps.tables, tenantId, filter, offset, limit);
    return this.#respond(tenantId, rows);
  }

  /** PATCH /feedback/{id}: the fields present in the body change (null clears); the others stay. */
  async update(tenantId: string, id: string, body: Json): Promise<Json> {
    const changes: FeedbackChanges = {
      fields: [],
      score: null,
      value: null,
      comment: null,
      correction: null,
      feedback_config: null,
    };
    const set = <F extends (typeof UPDATABLE_FIELDS)[number]>(field: F, value: FeedbackChanges[F]) => {
      changes.fields.push(field);
      changes[field] = value;
    };
    if ('score' in body) set('score', feedbackScore(body.score, 'body: '));
    if ('value' in body) set('value', body.value == null ? null : JSON.stringify(body.value));
    if ('comment' in body) set('comment', optionalText(body.comment, 'body: comment'));
    if ('correction' in body) set('correction', body.correction == null ? null : JSON.stringify(body.correction));
    const configField =
      'feedback_config' in body ? 'feedback_config' : 'feedbackConfig' in body ? 'feedbackConfig' : null;
    if (configField) set('feedback_config', jsonObjectOrNull(body[configField], 'body: feedback_config'));

    await this.#upToDate();
    const current = await this.#existing(tenantId, id);
    if (changes.fields.length === 0) return (await this.#respond(tenantId, [current]))[0]!;
    const updated = feedbackUpdated(tenantId, id, current.run_id, changes, nowMicros());
    await this.#deps.eventLog.append([updated]);
    return (await this.#respond(tenantId, [updatedRow(current, updated.payload, current.version + 1)]))[0]!;
  }

  async delete(tenantId: string, id: string): Promise<void> {
    await this.#upToDate();
    const current = await this.#existing(tenantId, id);
    await this.#deps.eventLog.append([feedbackDeleted(tenantId, id, current.run_id, nowMicros())]);
  }

  /**
   * POST /feedback/tokens: a presigned token per item (`{run_id, feedback_key, feedback_config?,
   * id?, expires_in? | expires_at?}`), each `{id, url, expires_at}`, the URL under `baseUrl` (where
   * the caller reached this API). The run need not have arrived yet: its feedback will join it.
   */
  async createTokens(tenantId: string, items: Json[], baseUrl: string): Promise<Json[]> {
    const now = nowMicros();
    const events = items.map((item, i) => {
      const at = items.length > 1 ? `body/${i}: ` : 'body: ';
      if (typeof item.feedback_key !== 'string' || item.feedback_key === '')
        throw errors.invalidField(`${at}feedback_key is required`);
      return feedbackTokenCreated(tenantId, {
        tokenId: randomUUID(), // the token is the credential: 122 random bits
        runId: requireUuid(item.run_id, `${at}run_id`),
        feedbackKey: item.feedback_key,
        feedbackId: optionalUuid(item.id, `${at}id`),
        feedbackConfig: jsonObjectOrNull(item.feedback_config ?? item.feedbackConfig, `${at}feedback_config`),
        expiresAt: tokenExpiry(item, now, at),
        createdAt: now,
      });
    });
    await this.#deps.eventLog.append(events);
    return events.map(({ payload }) => ({
      id: payload.token_id,
      url: `${baseUrl}/feedback/tokens/${payload.token_id}`,
      expires_at: formatIsoMicros(payload.expires_at),
    }));
  }

  /**
   * /feedback/tokens/{id}: the token's feedback (its key, on its run, in its workspace) with the
   * score, value, comment, correction and metadata given. An unknown token and an expired one
   * are both a 404: the answer tells nothing about tokens the caller does not hold.
   */
  async submitWithToken(tokenId: string, given: Json): Promise<Json> {
    await this.#upToDate();
    const token = await feedbackTokenQuery(this.#deps.ch, this.#deps.tables.feedbackTokens, tokenId);
    if (!token || token.expires_at <= nowMicros())
      throw errors.notFound(`feedback token ${tokenId} (or it has expired)`);
    const metadata = given.metadata === undefined || given.metadata === null ? {} : given.metadata;
    return this.create(token.tenant_id, {
      id: token.feedback_id ?? uuidv7(),
      run_id: token.run_id,
      key: token.feedback_key,
      score: given.score,
      value: given.value,
      comment: given.comment,
      correction: given.correction,
      feedback_source: { type: 'app', metadata: { ...(metadata as Json), feedback_token_id: tokenId } },
      feedback_config: token.feedback_config ? JSON.parse(token.feedback_config) : null,
    });
  }

  async #existing(tenantId: string, id: string): Promise<FeedbackRow> {
    const row = await feedbackByIdQuery(this.#deps.ch, this.#deps.tables.feedback, tenantId, id);
    if (!row) throw errors.notFound(`feedback ${id}`);
    return row;
  }

  async #upToDate(): Promise<void> {
    if (!(await this.#deps.projection.caughtUp(this.#catchUpMs)))
      this.#deps.logger.warn({ waitedMs: this.#catchUpMs }, 'feedback served before the projector caught up');
  }

  /** Responses, with the trace and project of items whose row does not hold them yet (feedback that came before its run). */
  async #respond(tenantId: string, rows: FeedbackRow[]): Promise<Json[]> {
    const unplaced = rows.filter((r) => r.session_id === null && r.run_id !== ZERO_UUID).map((r) => r.run_id);
    const places = await runPlacesQuery(this.#deps.ch, this.#deps.tables.runLocations, tenantId, [
      ...new Set(unplaced),
    ]);
    return rows.map((r) => feedbackResponse(r, places.get(r.run_id)));
  }
}

/** The clients' default when they name none: three hours. */
const DEFAULT_TOKEN_LIFE_MICROS = 3 * 3600 * 1_000_000;

/**
 * When a token expires: `expires_at`, or now + `expires_in` ({days, hours, minutes}; until 2100 at
 * the latest), else in three hours (what the clients send when told nothing). A time already
 * past makes a token that records nothing.
 */
function tokenExpiry(item: Json, now: number, at: string): number {
  if (item.expires_at !== undefined && item.expires_at !== null)
    return storableTimestampMicros(item.expires_at, `${at}expires_at`)!;
  if (item.expires_in === undefined || item.expires_in === null) return now + DEFAULT_TOKEN_LIFE_MICROS;
  const span = item.expires_in;
  if (typeof span !== 'object' || Array.isArray(span))
    throw errors.invalidField(`${at}expires_in must be {days, hours, minutes}`);
  const part = (name: string) => {
    const v = (span as Json)[name] ?? 0;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw errors.invalidField(`${at}expires_in.${name} must be a number >= 0`);
    return v;
  };
  const micros = ((part('days') * 24 + part('hours')) * 60 + part('minutes')) * 60 * 1_000_000;
  return Math.min(now + Math.round(micros), STORABLE_TIME_RANGE.maxMicrosExclusive - 1);
}
