// Consumes the runs topic and keeps the ClickHouse `runs` read model. Per batch, a part of
// ~64k ops at a time: load the current rows of traces it has not cached (one query), merge
// every op (skipping ops already applied: redelivery and replay change nothing), insert the
// changed rows (RowBinary; the part's writes overlap the next part's merge): `runs` and
// `run_locations` first, then once the runs and locations of every part up to it are in, its
// trace rows by hour, their write counts and `traces`: a reader that finds a trace row finds
// every run it counts, and the trace in its project's stats. Once every part is written,
// the runtime (shared/projectorRuntime.ts) commits the offsets. The projector holds the runs and
// composes each read model's writer: the runs model's (runs/runsWriter.ts) and those of the models
// kept from trace rows (traces/tracesWriter.ts, threads/threadsWriter.ts); it writes no table itself.
// ClickHouse down means: retry the same batch, commit nothing, lose nothing. A batch read again
// after a crash between its writes finds its runs written and their ops applied: it writes
// their trace rows and locations again (from the runs as they are), so none is left out.
import type { Config } from '../platform/config.ts';
import type { Logger } from '../platform/logger.ts';
import type { ClickHouseClient } from '../platform/clickhouse/client.ts';
import { TOPICS } from '../schemas/topics.ts';
import { projectorRowsWritten } from '../platform/metrics.ts';
import type { RunOpsAppended } from '../schemas/events.generated.ts';
import type { BlobStore } from '../platform/blobStore.ts';
import {
  ProjectorRuntime,
  type Projection,
  type ProjectedEvent,
  type ProjectorRuntimeConfig,
  type Retry,
} from './shared/projectorRuntime.ts';
import { deleteProjectRows } from './shared/projectRows.ts';
import { allOrFirstFailure } from './shared/allOrFirstFailure.ts';
import { opVersion, ZERO_UUID, type RunRow } from './shared/runRow.ts';
import type { TraceChange, TraceRow, TraceRowsWriter } from './shared/traceRow.ts';
import { emptyRow, mergeRunOp } from './runs/runRow.ts';
import { deriveRunFields, derivationBlobs } from './runs/deriveRun.ts';
import { rollUpUsage } from './runs/usageRollUp.ts';
import { runsTableOutdated } from './runs/runsTable.ts';
import { moves, placeOf, RunsWriter, threadOf, type RunsPart } from './runs/runsWriter.ts';
import { tracePlacement, traceRow } from './traces/traceRow.ts';
import { TracesWriter } from './traces/tracesWriter.ts';
import { ThreadsWriter } from './threads/threadsWriter.ts';
import { LIVE_TABLES, type ReadModelTables } from './readModelTables.ts';

export interface RunsProjectorOptions {
  groupId?: string;
  /** Where to write: the live tables, or a replay's fresh ones. */
  tables?: ReadModelTables;
  /** For payloads kept in object storage that derived fields read (metadata, usage, first token). */
  blobs?: BlobStore;
  /** Projects deleted by a tombstone: their runs are skipped (see docs/read-models.md). */
  isProjectDeleted?: (tenantId: string, projectId: string) => boolean;
  /** Read from the beginning of the topic when the group has no committed offsets (replay). */
  fromBeginning?: boolean;
  /** Ops merged and written at a time within a batch (WRITE_PART_OPS); tests make it small. */
  writePartOps?: number;
}

/** Current rows of recently touched traces, so most batches need no read from ClickHouse. */
class TraceCache {
  readonly #traces = new Map<string, Map<string, RunRow>>();
  #runs = 0;
  readonly #maxRuns: number;
  constructor(maxRuns: number) {
    this.#maxRuns = maxRuns;
  }
  get(traceKey: string): Map<string, RunRow> | undefined {
    const t = this.#traces.get(traceKey);
    if (t) {
      this.#traces.delete(traceKey);
      this.#traces.set(traceKey, t);
    }
    return t;
  }
  set(traceKey: string, runs: Map<string, RunRow>): void {
    this.#runs += runs.size - (this.#traces.get(traceKey)?.size ?? 0);
    this.#traces.delete(traceKey);
    this.#traces.set(traceKey, runs);
  }
  noteGrowth(by: number): void {
    this.#runs += by;
    while (this.#runs > this.#maxRuns && this.#traces.size > 0) {
      const [oldest, runs] = this.#traces.entries().next().value!;
      this.#traces.delete(oldest);
      this.#runs -= runs.size;
    }
  }
  clear(): void {
    this.#traces.clear();
    this.#runs = 0;
  }
}

/**
 * A batch is merged and written in parts of about this many ops (see project()). Smaller parts
 * overlap sooner but leave ClickHouse more parts to merge: a replay of 1M runs took 52 s with
 * parts of 16k ops, 45 s with 64k, on the 2-core machine.
 */
const WRITE_PART_OPS = 65_536;
/** Parts written at once: one being sent while the next is merged, and one more queued. */
const WRITES_IN_FLIGHT = 2;

interface MergedPart extends RunsPart {
  traceRows: TraceRow[];
  /** The traces the part wrote a row of, with where each was before (the writers' tombstones where they left). */
  traceChanges: TraceChange[];
  /** Runs new to the cache. */
  added: number;
}

/** What a part of a batch does to one trace (RunsProjection's #merge). */
interface TracePart {
  tenantId: string;
  traceId: string;
  /** The trace's runs by id (the cache's map, merged into in place). */
  runs: Map<string, RunRow>;
  /** Where the trace's row was placed before this part (project and start time), for its tombstone if it moves. */
  placedBefore: TraceChange['before'];
  /** Runs the part changed, by id. */
  dirty: Map<string, RunRow>;
  /** Each merged run's row as stored before this part (null: none yet): where it is in `runs`. */
  stored: Map<string, RunRow | null>;
  /** Runs of ops applied before: their locations, places and threads are written again. */
  reapplied: Map<string, RunRow>;
  /** The version of the last op that touched the trace (0: none did: no trace row to write). */
  touchedAt: number;
}

/** Consecutive parts of the events holding about `ops` ops each (an event is never split). */
function* partsOf<T extends { event: RunOpsAppended }>(events: T[], ops: number): Generator<T[]> {
  let part: T[] = [];
  let count = 0;
  for (const e of events) {
    part.push(e);
    count += e.event.ops.length;
    if (count >= ops) {
      yield part;
      part = [];
      count = 0;
    }
  }
  if (part.length > 0 || events.length === 0) yield part;
}

/** The live projector's consumer group; its lag is reported by the API's /metrics. */
export const runsProjectorGroupId = (config: Pick<Config, 'KAFKA_TOPIC_PREFIX'>): string =>
  `${config.KAFKA_TOPIC_PREFIX}runs-projector`;

export class RunsProjector implements Projection {
  readonly name = 'runs';
  readonly topic = TOPICS.runs;
  readonly #ch: ClickHouseClient;
  readonly #logger: Logger;
  readonly #tables: ReadModelTables;
  readonly #runs: RunsWriter;
  readonly #traces: TracesWriter;
  readonly #threads: ThreadsWriter;
  /**
   * The writers of the models kept from trace rows, in the order their rows are written: by
   * thread and the hours' reach first (a thread page that finds a trace by hour finds its
   * thread's row, and no trace of an hour reaches later than the hour's reach says), then by hour
   * and `traces` (traces/tracesWriter.ts).
   */
  readonly #traceWriters: readonly TraceRowsWriter[];
  readonly #blobs: BlobStore | null;
  readonly #isProjectDeleted: (tenantId: string, projectId: string) => boolean;
  readonly #cache: TraceCache;
  readonly #runtime: ProjectorRuntime;
  /** Counts the times the cache was dropped (a batch in progress sees it and waits for its writes). */
  #epoch = 0;
  /** The writes of the batch in progress, and the epoch its cached traces are from (see #tracesOf). */
  #batchWrites: Array<Promise<void>> = [];
  #batchEpoch = 0;
  readonly #writePartOps: number;
  /** Whether `runs` has an older release's key (ordered by trace), and when that was checked. */
  #oldKey: { outdated: boolean; checkedAt: number } | null = null;

  constructor(
    config: ProjectorRuntimeConfig & Pick<Config, 'PROJECTOR_CACHE_RUNS'>,
    ch: ClickHouseClient,
    logger: Logger,
    options: RunsProjectorOptions = {},
  ) {
    this.#ch = ch;
    this.#logger = logger;
    this.#tables = options.tables ?? LIVE_TABLES;
    this.#runs = new RunsWriter(ch, this.#tables);
    this.#traces = new TracesWriter(ch, this.#tables);
    this.#threads = new ThreadsWriter(ch, this.#tables);
    this.#traceWriters = [this.#threads, this.#traces];
    this.#blobs = options.blobs ?? null;
    this.#isProjectDeleted = options.isProjectDeleted ?? (() => false);
    this.#cache = new TraceCache(config.PROJECTOR_CACHE_RUNS);
    this.#writePartOps = options.writePartOps ?? WRITE_PART_OPS;
    this.#runtime = new ProjectorRuntime(config, logger, this, {
      groupId: options.groupId ?? runsProjectorGroupId(config),
      fromBeginning: options.fromBeginning ?? true,
    });
  }

  start(): Promise<void> {
    return this.#runtime.start();
  }

  stop(): Promise<void> {
    return this.#runtime.stop();
  }

  /** Deletes a project's rows from every read model this projector writes (after a tombstone). */
  requestProjectDeletion(tenantId: string, projectId: string): void {
    this.#runtime.requestProjectDeletion(tenantId, projectId);
  }

  /** After a rebalance (another instance may have written rows of our new partitions) or a refused batch. */
  forgetState(): void {
    this.#cache.clear();
    this.#epoch++;
  }

  async project(events: ProjectedEvent[], retry: Retry): Promise<void> {
    const decoded: Array<{ offset: bigint; event: RunOpsAppended }> = [];
    for (const { event, offset } of events)
      if (event.name === 'RunOpsAppended') decoded.push({ offset, event: event.payload });

    // The batch is merged a part at a time, in order, and each part's rows are sent while the
    // next part is merged: ClickHouse takes in one part on the other core while this one works
    // on the next (a replay's batches are the whole topic, a few large ones). A part's trace rows
    // wait for the runs and locations of every part up to it: a trace row sums runs of earlier
    // parts too. The runtime commits the batch only once every write of it is done; a failed
    // write fails the batch once all its writes have settled.
    const writes: Array<Promise<void>> = [];
    this.#batchWrites = writes;
    this.#batchEpoch = this.#epoch;
    let rowsWritten: Promise<void> = Promise.resolve();
    let added = 0;
    let failure: { err: unknown } | null = null;
    try {
      for (const part of partsOf(decoded, this.#writePartOps)) {
        const merged = await this.#merge(part, retry);
        added += merged.added;
        if (writes.length >= WRITES_IN_FLIGHT) await writes[writes.length - WRITES_IN_FLIGHT];
        const rows = this.#writeRows(merged, retry);
        const upToHere = Promise.all([rowsWritten, rows]).then(() => {});
        rowsWritten = upToHere;
        const traces = upToHere.then(() => this.#writeTraces(merged.traceRows, retry));
        const write = allOrFirstFailure([rows, traces]);
        write.catch(() => {}); // awaited below; a rejection before then is not unhandled
        writes.push(write);
      }
    } catch (err) {
      failure = { err };
    }
    const settled = await Promise.allSettled(writes);
    this.#batchWrites = [];
    // Evicts least recently used traces only now: a part's traces stay cached until written.
    this.#cache.noteGrowth(added);
    if (failure) throw failure.err;
    for (const s of settled) if (s.status === 'rejected') throw s.reason;
  }

  /** Merges one part of a batch into the cached traces: the rows it changes. */
  async #merge(decoded: Array<{ offset: bigint; event: RunOpsAppended }>, retry: Retry): Promise<MergedPart> {
    let traces = new Map<string, Map<string, RunRow>>();
    await retry('load traces', async () => {
      traces = await this.#tracesOf(decoded.map((d) => d.event));
    });
    let blobTexts = new Map<string, string>();
    await retry('read payloads for derived fields', async () => {
      blobTexts = await this.#derivationTexts(decoded.map((d) => d.event));
    });

    // What the part does to each trace, its runs keyed by run id (per trace, so no key is built
    // from tenant, trace and run for every op).
    const part = new Map<string, TracePart>();
    let added = 0;
    for (const { offset, event } of decoded) {
      const tenantId = event.tenant_id;
      const traceKey = `${tenantId}/${event.trace_id}`;
      let trace = part.get(traceKey);
      if (!trace) {
        const runs = traces.get(traceKey)!;
        trace = {
          tenantId,
          traceId: event.trace_id,
          runs,
          placedBefore: tracePlacement(event.trace_id, runs),
          dirty: new Map(),
          stored: new Map(),
          reapplied: new Map(),
          touchedAt: 0,
        };
        part.set(traceKey, trace);
      }
      const { runs, dirty, stored } = trace;
      const ops = event.ops;
      for (let index = 0; index < ops.length; index++) {
        const op = ops[index]!;
        const runId = op.run_id;
        const known = runs.get(runId);
        const version = opVersion(offset, index);
        const merged = mergeRunOp(known ?? emptyRow(tenantId, event.trace_id, runId), op, version, event.received_at);
        if (!merged) {
          // Applied before: the batch is read again (after a crash, a rebalance, a refused batch).
          // Its runs may be written and its trace row or locations not (they are written after
          // or beside runs): both are written again from the runs as they are. Idempotent.
          if (known && !(known.session_id !== ZERO_UUID && this.#isProjectDeleted(tenantId, known.session_id))) {
            trace.reapplied.set(runId, known);
            trace.touchedAt = version;
          }
          continue;
        }
        if (merged.session_id !== ZERO_UUID && this.#isProjectDeleted(tenantId, merged.session_id)) continue;
        deriveRunFields(merged, op, blobTexts, known ?? null);
        if (!known) added++;
        if (!stored.has(runId)) stored.set(runId, known ?? null);
        runs.set(runId, merged);
        dirty.set(runId, merged);
        trace.touchedAt = version;
      }
    }

    const rows: RunRow[] = [];
    const places: MergedPart['places'] = [];
    const tombstones: RunRow[] = [];
    const threads: MergedPart['threads'] = [];
    // Where each written run lives, with every write of it: a replacing table keeps one row per
    // run, and a location can never be missing for a run that is there.
    const located: MergedPart['located'] = [];
    const traceRows: TraceRow[] = [];
    const traceChanges: TraceChange[] = [];
    for (const {
      tenantId,
      traceId,
      runs,
      placedBefore: before,
      dirty,
      stored,
      reapplied,
      touchedAt,
    } of part.values()) {
      if (touchedAt === 0) continue;
      for (const row of rollUpUsage(runs, touchedAt)) dirty.set(row.id, row);
      const trace = traceRow(tenantId, traceId, runs);
      if (trace) {
        traceRows.push(trace);
        traceChanges.push({ row: trace, before });
      }
      const moved = moves(dirty, stored);
      for (const p of moved.places) places.push(p);
      for (const t of moved.tombstones) tombstones.push(t);
      for (const t of moved.threads) threads.push(t);
      for (const r of dirty.values()) {
        rows.push(r);
        if (r.has_post)
          located.push({ tenant_id: r.tenant_id, id: r.id, trace_id: r.trace_id, session_id: r.session_id });
      }
      // A reapplied run's place and thread rows too: a replay's catch-up finds in the new `runs`
      // the rows a live projector wrote there just after the swap, while that batch's run_keys
      // and run_threads rows went to the tables swapped out a moment before (replay.ts).
      for (const [runId, r] of reapplied)
        if (r.has_post && !dirty.has(runId)) {
          located.push({ tenant_id: r.tenant_id, id: r.id, trace_id: r.trace_id, session_id: r.session_id });
          places.push(placeOf(r));
          if (r.thread_id !== '') threads.push(threadOf(r));
        }
    }
    return { rows, places, tombstones, threads, located, traceRows, traceChanges, added };
  }

  /**
   * Writes a merged part's runs and their locations. Before its trace rows (#writeTraces): a
   * reader that finds a trace row goes on to its runs (a trace tree, a thread's turns with their
   * inputs, GET /runs/{id} through run_locations).
   */
  async #writeRows(part: MergedPart, retry: Retry): Promise<void> {
    // A trace's tombstones where it was (by hour, counted, and by thread), before the runs that
    // move it: once the runs are in, the trace reloaded from them would not know where it had
    // been (traces/hourStats.ts, threads/threadTables.ts).
    await allOrFirstFailure(this.#traceWriters.map((w) => w.writeLeft(part.traceChanges, retry)));
    await this.#runs.write(part, retry);
    projectorRowsWritten.inc({ projector: 'runs' }, part.rows.length);
  }

  /**
   * Writes a part's trace rows (by thread with their hours' reach, by hour, counted, then
   * `traces`: see #traceWriters), once the runs and locations of every part up to it are written.
   */
  async #writeTraces(traceRows: TraceRow[], retry: Retry): Promise<void> {
    for (const writer of this.#traceWriters) await writer.write(traceRows, retry);
  }

  /** Texts of the payloads in object storage that this batch's derivations read. */
  async #derivationTexts(events: RunOpsAppended[]): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    const blobs = this.#blobs;
    if (!blobs) return texts;
    const refs = events.flatMap((e) => e.ops.flatMap(derivationBlobs));
    await Promise.all(refs.map(async (ref) => texts.set(ref.key, await blobs.getText(ref))));
    return texts;
  }

  async deleteProject(tenantId: string, projectId: string, retry: Retry): Promise<void> {
    await retry("delete a project's rows", async () => {
      for (const table of [...this.#runs.tables, ...this.#traces.tables, ...this.#threads.tables])
        await deleteProjectRows(this.#ch, table, tenantId, projectId);
    });
    this.#cache.clear();
  }

  /**
   * The current rows of every trace in the batch: from the cache, else from ClickHouse. The
   * maps are collected after the last await, so a rebalance clearing the cache meanwhile
   * cannot leave the merge without state (it just loads again).
   */
  async #tracesOf(events: RunOpsAppended[]): Promise<Map<string, Map<string, RunRow>>> {
    for (;;) {
      // The cache was dropped during the batch (a rebalance): the rows of earlier parts still
      // being written are in it no more, and must be in ClickHouse before traces load from there.
      if (this.#epoch !== this.#batchEpoch) {
        const epoch = this.#epoch;
        await Promise.allSettled(this.#batchWrites);
        this.#batchEpoch = epoch;
      }
      await this.#loadMissing(events);
      const traces = new Map<string, Map<string, RunRow>>();
      for (const e of events) {
        const key = `${e.tenant_id}/${e.trace_id}`;
        const runs = this.#cache.get(key);
        if (!runs) break;
        traces.set(key, runs);
      }
      if (events.every((e) => traces.has(`${e.tenant_id}/${e.trace_id}`))) return traces;
    }
  }

  /** See #oldKey; checked again at most every OLD_KEY_RECHECK_MS while old (a replay swaps a new table in once). */
  async #runsKeyOutdated(): Promise<boolean> {
    const known = this.#oldKey;
    if (known && (!known.outdated || Date.now() - known.checkedAt < OLD_KEY_RECHECK_MS)) return known.outdated;
    this.#oldKey = { outdated: (await runsTableOutdated(this.#ch, this.#tables.runs)).outdated, checkedAt: Date.now() };
    return this.#oldKey.outdated;
  }

  async #loadMissing(events: RunOpsAppended[]): Promise<void> {
    const missing = new Map<string, { tenant: string; trace: string }>();
    for (const e of events) {
      const key = `${e.tenant_id}/${e.trace_id}`;
      if (!this.#cache.get(key)) missing.set(key, { tenant: e.tenant_id, trace: e.trace_id });
    }
    if (missing.size === 0) return;
    const loaded = new Map<string, Map<string, RunRow>>([...missing.keys()].map((k) => [k, new Map()]));
    const pairs = [...missing.values()];
    for (let i = 0; i < pairs.length; i += 2000) {
      // All versions, the newest of each run kept here (what FINAL would do, for less).
      for (const row of await this.#runs.storedRuns(pairs.slice(i, i + 2000), await this.#runsKeyOutdated())) {
        const runs = loaded.get(`${row.tenant_id}/${row.trace_id}`);
        const seen = runs?.get(row.id);
        if (runs && (!seen || row.version > seen.version)) runs.set(row.id, row);
      }
    }
    let count = 0;
    for (const [key, runs] of loaded) {
      this.#cache.set(key, runs);
      count += runs.size;
    }
    // No eviction here: the batch about to be merged needs every trace just loaded.
    if (count) this.#logger.debug({ traces: loaded.size, runs: count }, 'loaded trace state from ClickHouse');
  }
}

const OLD_KEY_RECHECK_MS = 60_000;
