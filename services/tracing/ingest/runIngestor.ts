// The write side of tracing: validated drafts in, events appended to Kafka out. It checks
// lineage (trace_id / dotted_order / parent), resolves projects, moves big payloads and
// attachments to object storage (claim check), groups operations per trace (one event per
// trace per request, keyed tenant/trace so a trace stays ordered in one partition; several
// when a trace's operations exceed what Kafka takes in one message), and appends everything
// (EventLog: one produce call unless the request is too large for one). It throws before
// appending when anything is wrong, including an operation no Kafka message could hold.
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import type { Config } from '../../../platform/config.ts';

/** What ingestion reads: payloads above this size go to object storage. */
export type RunIngestorConfig = Pick<Config, 'PAYLOAD_OFFLOAD_BYTES'>;
import { errors } from '../../../platform/errors.ts';
import { runsAccepted } from '../../../platform/metrics.ts';
import type { BlobStore } from '../../../platform/blobStore.ts';
import { event, type EventLog, type EventToAppend } from '../../../platform/kafka/eventLog.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { encodedSizeBound } from '../../../schemas/registry.ts';
import type { RunOp, BlobRef } from '../../../schemas/events.generated.ts';
import type { ProjectRegistry } from '../../../projections/projects/projectRegistry.ts';
import type { LineageIndex } from '../lineage/lineageIndex.ts';
import { checkLineage, dottedSegment, extendsDottedOrder, type SegmentCache } from './dottedOrder.ts';
import { RecentDottedOrders } from './recentDottedOrders.ts';
import { nowMicros } from '../../../platform/time.ts';
import { JSON_FIELDS, type RunDraft } from './runDraft.ts';
import type { FeedbackDraft } from './feedbackDraft.ts';
import { feedbackSubmitted } from '../feedback/feedbackEvents.ts';

export type IngestRoute = 'runs' | 'runs_patch' | 'batch' | 'multipart' | 'otel';

/** Routes whose runs the server places: their lineage is recorded, so later children can find their parents. */
const RECORDS_LINEAGE: ReadonlySet<IngestRoute> = new Set(['runs', 'otel']);
/** Routes whose posts this process remembers (RecentDottedOrders), for the children of later requests. */
const REMEMBERS_POSTS: ReadonlySet<IngestRoute> = new Set(['batch', 'multipart']);
/** How many of those it remembers: ~100 bytes each besides the strings they keep. */
const RECENT_POSTS = 100_000;

export const newRunId = (): string => uuidv7();

/** What a RunOpsAppended event holds besides its operations (ids, times, array framing), its key and headers, with room to spare. */
const EVENT_ENVELOPE_BYTES = 1024;

export class RunIngestor {
  readonly #config: RunIngestorConfig;
  readonly #log: EventLog;
  readonly #blobs: BlobStore;
  readonly #projects: ProjectRegistry;
  readonly #lineage: LineageIndex;
  readonly #recentPosts = new RecentDottedOrders(RECENT_POSTS);

  constructor(
    config: RunIngestorConfig,
    log: EventLog,
    blobs: BlobStore,
    projects: ProjectRegistry,
    lineage: LineageIndex,
  ) {
    this.#config = config;
    this.#log = log;
    this.#blobs = blobs;
    this.#projects = projects;
    this.#lineage = lineage;
  }

  /** POST /runs: trace_id and dotted_order are derived from the parent's when absent. */
  async createRun(tenantId: string, draft: RunDraft): Promise<void> {
    draft.startTime ??= nowMicros();
    if (draft.traceId === null || draft.dottedOrder === null) {
      if (draft.parentRunId === null) {
        draft.traceId ??= draft.id;
        draft.dottedOrder ??= dottedSegment(draft.startTime, draft.id);
      } else {
        const parent = await this.#lineage.find(tenantId, draft.parentRunId);
        if (!parent) throw errors.notFound(`parent run ${draft.parentRunId}`);
        draft.traceId ??= parent.traceId;
        draft.dottedOrder ??= `${parent.dottedOrder}.${dottedSegment(draft.startTime, draft.id)}`;
        if (draft.sessionId === null && draft.sessionName === null) draft.sessionId = parent.sessionId;
      }
    }
    await this.ingest(tenantId, [draft], [], 'runs');
  }

  /** PATCH /runs/{id}: the trace (and so the partition) comes from the body or the lineage index. */
  async updateRun(tenantId: string, draft: RunDraft): Promise<void> {
    if (draft.traceId === null) {
      const known = await this.#lineage.find(tenantId, draft.id);
      if (!known)
        throw errors.notFound(
          `run ${draft.id} (send trace_id with the patch if it was created moments ago through a batch)`,
        );
      draft.traceId = known.traceId;
      draft.dottedOrder ??= known.dottedOrder;
    }
    await this.ingest(tenantId, [draft], [], 'runs_patch');
  }

  async ingest(tenantId: string, drafts: RunDraft[], feedback: FeedbackDraft[], route: IngestRoute): Promise<void> {
    const pendingProjects = new Map<string, EventToAppend>();
    const postedOrders = new Map<string, string>();
    for (const d of drafts) if (d.op === 'post' && d.dottedOrder) postedOrders.set(d.id, d.dottedOrder);
    const segmentCache: SegmentCache = new Map();

    for (const d of drafts) {
      if (d.traceId === null || d.dottedOrder === null)
        throw errors.invalidField(`${d.op} of run ${d.id}: trace_id and dotted_order are required in batch ingestion`);
      const segments = checkLineage(
        { runId: d.id, traceId: d.traceId, parentRunId: d.parentRunId, dottedOrder: d.dottedOrder, op: d.op },
        segmentCache,
      );
      if (d.parentRunId !== null) this.#checkParent(tenantId, d, postedOrders, route);
      if (d.op === 'post') {
        d.startTime ??= segments.at(-1)!.micros;
        d.sessionId = await this.#projects.resolve(tenantId, d.sessionId, d.sessionName, pendingProjects);
      } else if (d.sessionId !== null || d.sessionName !== null) {
        d.sessionId = await this.#projects.resolve(tenantId, d.sessionId, d.sessionName, pendingProjects);
      }
      // Compared per millisecond: the JS client's start_time carries its execution order in the
      // last three microsecond digits while its end_time is whole epoch ms, so a run ending in
      // the millisecond it started has end_time a few µs "before" start_time.
      if (d.endTime !== null && d.startTime !== null && Math.floor(d.endTime / 1000) < Math.floor(d.startTime / 1000))
        throw errors.invalidField(`run ${d.id}: end_time is before start_time`);
    }

    const ops = await Promise.all(drafts.map((d) => this.#toRunOp(tenantId, d)));
    const receivedAt = nowMicros();
    const requestId = randomUUID();
    const byTrace = new Map<string, RunOp[]>();
    drafts.forEach((d, i) => {
      const list = byTrace.get(d.traceId!) ?? [];
      list.push(ops[i]!);
      byTrace.set(d.traceId!, list);
    });

    const events: EventToAppend[] = [...pendingProjects.values()];
    const budget = (await this.#log.maxEventBytes(TOPICS.runs)) - EVENT_ENVELOPE_BYTES;
    for (const [traceId, traceOps] of byTrace)
      for (const chunk of this.#chunksOf(traceOps, budget))
        events.push(
          event('RunOpsAppended', `${tenantId}/${traceId}`, {
            tenant_id: tenantId,
            trace_id: traceId,
            request_id: requestId,
            received_at: receivedAt,
            ops: chunk,
          }),
        );
    for (const f of feedback) {
      // the project of a run posted in the same request is known here; otherwise the projector looks it up
      const sessionId =
        f.sessionId ?? (f.runId ? (drafts.find((d) => d.id === f.runId && d.sessionId)?.sessionId ?? null) : null);
      events.push(feedbackSubmitted(tenantId, { ...f, sessionId }, receivedAt));
    }
    if (RECORDS_LINEAGE.has(route))
      for (const d of drafts)
        for (const runId of [d.id, ...(d.lineageAliases ?? [])])
          events.push(
            event('RunLineageRecorded', `${tenantId}/${runId}`, {
              tenant_id: tenantId,
              run_id: runId,
              trace_id: d.traceId!,
              dotted_order: d.dottedOrder!,
              session_id: d.sessionId!,
            }),
          );

    await this.#log.append(events);
    if (RECORDS_LINEAGE.has(route))
      for (const d of drafts)
        this.#lineage.remember(tenantId, d.id, {
          traceId: d.traceId!,
          dottedOrder: d.dottedOrder!,
          sessionId: d.sessionId!,
        });
    if (REMEMBERS_POSTS.has(route))
      for (const d of drafts) if (d.op === 'post') this.#recentPosts.remember(tenantId, d.id, d.dottedOrder!);
    for (const d of drafts) runsAccepted.inc({ route, op: d.op });
  }

  /**
   * A child's dotted_order must extend its parent's: the parent's as posted in the same request,
   * else as this process knows it from an earlier request (the lineage index's runs, posted
   * through POST /runs or OTLP on any replica; the runs posted here lately through the batch
   * routes). A parent it does not know is not looked up (that would be a read of the read model
   * per run, which may not hold the parent yet either): the child is taken as sent. OTLP places
   * its runs itself, from the lineage it knows, so its requests are not checked again here.
   */
  #checkParent(tenantId: string, d: RunDraft, postedOrders: ReadonlyMap<string, string>, route: IngestRoute): void {
    const parentId = d.parentRunId!;
    const inRequest = postedOrders.get(parentId);
    if (inRequest !== undefined) {
      if (!extendsDottedOrder(d.dottedOrder!, inRequest))
        throw errors.invalidField(
          `dotted_order of run ${d.id} does not extend the dotted_order of its parent ${parentId}`,
        );
      return;
    }
    if (route === 'otel') return;
    const stored = this.#recentPosts.get(tenantId, parentId) ?? this.#lineage.recall(tenantId, parentId)?.dottedOrder;
    if (stored !== undefined && !extendsDottedOrder(d.dottedOrder!, stored))
      throw errors.invalidField(
        `dotted_order of run ${d.id} does not extend the dotted_order of its parent ${parentId}, which an earlier request stored as ` +
          `"${stored.length > 400 ? `${stored.slice(0, 400)}…` : stored}": ` +
          "a child's dotted_order is its parent's, a dot, and its own segment",
      );
  }

  /**
   * A trace's operations, in order, in as few groups as keep each event within what Kafka takes
   * in one message (one group, unless the request is very large). The events share the trace's
   * key, so they land in one partition in this order. One operation that is too large alone
   * (its payloads over PAYLOAD_OFFLOAD_BYTES are in object storage already) is a 413.
   */
  #chunksOf(ops: RunOp[], budget: number): RunOp[][] {
    // Nearly always: a loose bound (no UTF-8 measuring) already shows that the trace fits one event.
    let loose = 0;
    for (const op of ops) loose += encodedSizeBound(op, true);
    if (loose <= budget) return [ops];
    const sizes = ops.map((op) => encodedSizeBound(op));
    if (sizes.reduce((a, b) => a + b, 0) <= budget) return [ops];
    const chunks: RunOp[][] = [];
    let chunk: RunOp[] = [];
    let bytes = 0;
    ops.forEach((op, i) => {
      const size = sizes[i]!;
      if (size > budget)
        throw errors.eventTooLarge(
          `the ${op.op} of run ${op.run_id} takes about ${size} bytes with its payloads over ${this.#config.PAYLOAD_OFFLOAD_BYTES} bytes ` +
            `moved to object storage, more than the event log takes in one message (${budget} bytes, from Kafka's max.message.bytes): ` +
            'its error, tags, name or dotted_order are too large',
        );
      if (chunk.length > 0 && bytes + size > budget) {
        chunks.push(chunk);
        chunk = [];
        bytes = 0;
      }
      chunk.push(op);
      bytes += size;
    });
    chunks.push(chunk);
    return chunks;
  }

  async #toRunOp(tenantId: string, d: RunDraft): Promise<RunOp> {
    const limit = this.#config.PAYLOAD_OFFLOAD_BYTES;
    const payload = async (field: (typeof JSON_FIELDS)[number]): Promise<string | BlobRef | null> => {
      const text = d.json[field];
      if (text === undefined) return null;
      if (text.length <= limit && Buffer.byteLength(text) <= limit) return text;
      return this.#blobs.put(tenantId, field, Buffer.from(text), 'application/json');
    };
    const [inputs, outputs, events, extra, serialized, attachments] = await Promise.all([
      payload('inputs'),
      payload('outputs'),
      payload('events'),
      payload('extra'),
      payload('serialized'),
      Promise.all(
        d.attachments.map(async (a) => ({
          name: a.name,
          blob: await this.#blobs.put(tenantId, 'attachments', a.bytes, a.contentType),
        })),
      ),
    ]);
    return {
      op: d.op,
      run_id: d.id,
      session_id: d.sessionId,
      parent_run_id: d.parentRunId,
      dotted_order: d.dottedOrder,
      name: d.name,
      run_type: d.runType,
      start_time: d.startTime,
      end_time: d.endTime,
      inputs,
      outputs,
      events,
      extra,
      serialized,
      error: d.error,
      tags: d.tags,
      reference_example_id: d.referenceExampleId,
      attachments,
    };
  }
}
