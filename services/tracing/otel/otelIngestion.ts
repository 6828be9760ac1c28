// OTLP spans in, runs out, through the same command path as POST /runs/batch: each span becomes
// a validated post draft (complete: it has its end time), placed in its trace tree
// (traceAssembly.ts), and the drafts go to RunIngestor, which appends the same RunOpsAppended
// events every ingestion route appends. After the append, runs placed provisionally before
// (by this or another replica) whose parents are now known are grafted with patches.
import type { KafkaConfig } from '../../../platform/config.ts';
import { errors } from '../../../platform/errors.ts';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../../../platform/json/jsonNesting.ts';
import type { Logger } from '../../../platform/logger.ts';
import { toRunDraft, type RunDraft } from '../ingest/runDraft.ts';
import { checkLineage } from '../ingest/dottedOrder.ts';
import type { RunIngestor } from '../ingest/runIngestor.ts';
import type { LineageIndex } from '../lineage/lineageIndex.ts';
import type { OtelSpan, SpanRejection } from './otlpSpans.ts';
import { spanIdentity, isSpanRunId } from './spanIdentity.ts';
import { spanFields } from './spanFields.ts';
import { OtelLineage } from './otelLineage.ts';
import { graftsFor, placeSpans, refKey, refsOutside, type Located, type SpanToPlace } from './traceAssembly.ts';

interface Candidate {
  span: OtelSpan;
  place: SpanToPlace;
  draft: RunDraft;
}

export class OtelIngestion {
  readonly #ingestor: RunIngestor;
  readonly #runLineage: LineageIndex;
  readonly #lineage: OtelLineage;
  readonly #logger: Logger;

  constructor(config: KafkaConfig, logger: Logger, ingestor: RunIngestor, runLineage: LineageIndex) {
    this.#ingestor = ingestor;
    this.#runLineage = runLineage;
    this.#lineage = new OtelLineage(config, logger);
    this.#logger = logger;
  }

  start(): Promise<void> {
    return this.#lineage.start();
  }

  close(): Promise<void> {
    return this.#lineage.close();
  }

  /**
   * Ingests the spans of one request for a workspace. Spans that cannot become runs are returned
   * (OTLP partial success); an error thrown means nothing was appended.
   * `defaultProject` is the request's Langsmith-Project header.
   */
  async ingest(tenantId: string, spans: OtelSpan[], defaultProject: string | null): Promise<SpanRejection[]> {
    const rejected: SpanRejection[] = [];
    const candidates: Candidate[] = [];
    const runIds = new Set<string>();
    for (const span of spans) {
      try {
        const identity = spanIdentity(span);
        if (runIds.has(identity.runId)) throw new Error(`another span of this request is run ${identity.runId} too`);
        const draft = toRunDraft(
          { ...spanFields(span, defaultProject), id: identity.runId },
          { op: 'post', where: `span ${span.spanId}` },
        );
        // Attribute values are bounded as they are read; the mapping wraps them a level or two deeper.
        for (const [field, text] of Object.entries(draft.json))
          if (jsonTooDeep(text)) throw errors.jsonTooDeep(`the run's ${field}`, MAX_JSON_DEPTH);
        runIds.add(identity.runId);
        candidates.push({ span, place: { ...identity, startMicros: span.startMicros }, draft });
      } catch (err) {
        rejected.push({ spanId: span.spanId, reason: (err as Error).message });
      }
    }

    const known = await this.#knownParents(
      tenantId,
      candidates.map((c) => c.place),
    );
    const placements = placeSpans(
      candidates.map((c) => c.place),
      known,
    );
    const placedOrders = new Map([...placements.values()].map((p) => [p.runId, p.dottedOrder]));
    const accepted: RunDraft[] = [];
    for (const c of candidates) {
      const p = placements.get(c.place)!;
      Object.assign(c.draft, { traceId: p.traceId, parentRunId: p.parentRunId, dottedOrder: p.dottedOrder });
      if (c.place.spanRunId !== p.runId) c.draft.lineageAliases = [c.place.spanRunId];
      try {
        // What RunIngestor would reject for the whole request, rejected here for this span alone.
        checkLineage({
          runId: p.runId,
          traceId: p.traceId,
          parentRunId: p.parentRunId,
          dottedOrder: p.dottedOrder,
          op: 'post',
        });
        if (p.parentRunId !== null && p.runId === p.traceId)
          throw new Error(`run ${p.runId} has a parent, so it cannot have the id of its trace`);
        const parentOrder = p.parentRunId === null ? undefined : placedOrders.get(p.parentRunId);
        if (parentOrder !== undefined && !p.dottedOrder.startsWith(parentOrder + '.'))
          throw new Error(
            `langsmith.span.dotted_order does not extend the dotted order of the parent run ${p.parentRunId}`,
          );
        accepted.push(c.draft);
      } catch (err) {
        rejected.push({ spanId: c.span.spanId, reason: (err as Error).message });
      }
    }
    if (accepted.length === 0) return rejected;

    await this.#ingestor.ingest(tenantId, accepted, [], 'otel');
    await this.#graft(tenantId, new Set(accepted.map((d) => d.traceId!))).catch((err: Error) =>
      // The spans are stored; the next request of the trace tries again.
      this.#logger.warn({ err: err.message, tenantId }, 'could not graft provisionally placed OTel runs'),
    );
    return rejected;
  }

  /**
   * Where the parents named outside the request are. Span-derived ids: the folded lineage as it
   * stands (a parent stored a moment ago through another replica is caught by the graft after
   * the append, so no wait here). Run ids (a run of another route, e.g. the langsmith SDK's):
   * the run lineage index, which catches up and falls back to ClickHouse.
   */
  async #knownParents(tenantId: string, spans: SpanToPlace[]): Promise<Map<string, Located>> {
    const known = new Map<string, Located>();
    await Promise.all(
      refsOutside(spans).map(async ({ traceId, ref }) => {
        const found = this.#lineage.find(tenantId, traceId, ref);
        if (found) known.set(refKey(traceId, ref), found);
        else if (!isSpanRunId(ref)) {
          const run = await this.#runLineage.find(tenantId, ref).catch(() => null); // unknown or unreadable: placed provisionally
          if (run) known.set(refKey(traceId, ref), { runId: ref, dottedOrder: run.dottedOrder });
        }
      }),
    );
    return known;
  }

  /** Patches the runs of these traces that are not yet where their (now known) parents put them. */
  async #graft(tenantId: string, traceIds: Set<string>): Promise<void> {
    await this.#lineage.catchUp(); // sees what other replicas appended meanwhile, so no orphan is missed
    const patches: RunDraft[] = [];
    for (const traceId of traceIds) {
      const { runs, resolve, aliasesOf } = this.#lineage.traceRuns(tenantId, traceId);
      for (const g of graftsFor(runs, resolve))
        patches.push({
          op: 'patch',
          id: g.runId,
          traceId,
          dottedOrder: g.dottedOrder,
          parentRunId: g.parentRunId,
          sessionId: g.sessionId,
          sessionName: null,
          name: null,
          runType: null,
          startTime: null,
          endTime: null,
          json: {},
          error: null,
          tags: null,
          referenceExampleId: null,
          attachments: [],
          lineageAliases: aliasesOf(g.runId),
        });
    }
    if (patches.length > 0) await this.#ingestor.ingest(tenantId, patches, [], 'otel');
  }
}
