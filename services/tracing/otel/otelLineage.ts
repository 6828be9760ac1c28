// The run lineage of OTel traces, per trace: what traceAssembly.ts needs to place a span under
// a parent sent earlier and to find runs placed provisionally. Folded from the run-lineage
// topic (every API replica folds it; catchUp() gives read-your-writes across replicas), like
// LineageIndex, but grouped by trace and only for traces with span-derived run ids.
//
// A record whose run id is not the last id of its dotted_order is an alias: the span-derived id
// of a run that has another id (a trace's root, or a span with langsmith.span.id). Children
// name their parent by span id, so aliases lead them to the run.
import type { KafkaConfig } from '../../../platform/config.ts';
import type { Logger } from '../../../platform/logger.ts';
import { TopicState } from '../../../platform/kafka/topicState.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import type { DecodedEvent } from '../../../schemas/registry.ts';
import { toUuid } from '../../../platform/ids.ts';
import { isSpanRunId } from './spanIdentity.ts';
import type { Located, RecordedRun } from './traceAssembly.ts';

interface TraceLineage {
  /** Recorded runs by id. `shadow`: known only from an alias record (the run's own record was not kept). */
  runs: Map<string, RecordedRun & { shadow: boolean }>;
  /** Span-derived id -> the id of the run it names. */
  aliases: Map<string, string>;
}

export class OtelLineage {
  readonly #traces = new Map<string, TraceLineage>();
  readonly #topicState: TopicState;
  readonly #maxEntries: number;
  #entries = 0;

  constructor(config: KafkaConfig, logger: Logger, maxEntries = 500_000) {
    this.#maxEntries = maxEntries;
    this.#topicState = new TopicState(config, TOPICS.runLineage, this.apply, logger);
  }

  start(): Promise<void> {
    return this.#topicState.start();
  }

  /** Waits until every lineage record appended before the call is folded in (503 when Kafka does not answer). */
  catchUp(): Promise<void> {
    return this.#topicState.catchUpOrUnavailable('the run lineage', 10_000);
  }

  apply = (e: DecodedEvent): void => {
    if (e.name !== 'RunLineageRecorded') return;
    const p = e.payload;
    this.#record(p.tenant_id, p.trace_id, p.run_id, p.dotted_order, p.session_id);
  };

  #record(tenantId: string, traceId: string, runId: string, dottedOrder: string, sessionId: string): void {
    const key = `${tenantId}/${traceId}`;
    let trace = this.#traces.get(key);
    if (trace)
      this.#traces.delete(key); // re-inserted below: most recently used last
    else if (!isSpanRunId(runId))
      return; // not an OTel trace (as far as we know yet)
    else trace = { runs: new Map(), aliases: new Map() };
    this.#traces.set(key, trace);

    const before = trace.runs.size + trace.aliases.size;
    const last = dottedOrder.slice(dottedOrder.lastIndexOf('.') + 1);
    const lastId = toUuid(last.slice(22)) ?? last.slice(22);
    if (lastId === runId) {
      trace.runs.set(runId, { runId, dottedOrder, sessionId, shadow: false });
    } else {
      trace.aliases.set(runId, lastId);
      const own = trace.runs.get(lastId);
      if (!own || own.shadow) trace.runs.set(lastId, { runId: lastId, dottedOrder, sessionId, shadow: true });
    }
    this.#entries += trace.runs.size + trace.aliases.size - before;
    while (this.#entries > this.#maxEntries && this.#traces.size > 1) {
      const [oldestKey, oldest] = this.#traces.entries().next().value!;
      this.#traces.delete(oldestKey);
      this.#entries -= oldest.runs.size + oldest.aliases.size;
    }
  }

  /** The run `ref` names in the trace (a run id or a span-derived alias), or null. */
  find(tenantId: string, traceId: string, ref: string): Located | null {
    const trace = this.#traces.get(`${tenantId}/${traceId}`);
    const run = trace?.runs.get(trace.aliases.get(ref) ?? ref);
    return run ? { runId: run.runId, dottedOrder: run.dottedOrder } : null;
  }

  /** The trace's recorded runs, its aliases of each run, and alias resolution (for graftsFor). */
  traceRuns(
    tenantId: string,
    traceId: string,
  ): {
    runs: ReadonlyMap<string, RecordedRun>;
    aliasesOf: (runId: string) => string[];
    resolve: (ref: string) => string | null;
  } {
    const trace = this.#traces.get(`${tenantId}/${traceId}`) ?? { runs: new Map(), aliases: new Map() };
    return {
      runs: trace.runs,
      aliasesOf: (runId) => [...trace.aliases].filter(([, target]) => target === runId).map(([alias]) => alias),
      resolve: (ref) => {
        const id = trace.aliases.get(ref) ?? ref;
        return trace.runs.has(id) ? id : null;
      },
    };
  }

  close(): Promise<void> {
    return this.#topicState.close();
  }
}
