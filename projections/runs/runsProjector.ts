// Consumes the runs topic and keeps the ClickHouse `runs` read model. Per batch: decode the
// events, load the current rows of traces it has not cached (one query), merge every op
// (skipping ops already applied: redelivery and replay change nothing), insert the changed
// rows in one insert, then commit the offsets. ClickHouse down means: retry the same batch,
// commit nothing, lose nothing.
import { Consumer, MessagesStreamModes, stringDeserializer, type Message, type MessagesStream } from '@platformatic/kafka';
import type { Config } from '../../services/common/config.ts';
import type { Logger } from '../../services/common/logger.ts';
import type { ClickHouseClient } from '../../services/common/clickhouse/client.ts';
import { sql, ident, join } from '../../services/common/clickhouse/sql.ts';
import { brokerList, topicName, TOPICS } from '../../services/common/kafka/topics.ts';
import { EventLog } from '../../services/common/kafka/eventLog.ts';
import { projectorBatchSeconds, projectorRowsWritten } from '../../services/common/metrics.ts';
import { decodeEvent } from '../../schemas/registry.ts';
import type { RunOpsAppended } from '../../schemas/events.generated.ts';
import { emptyRow, mergeRunOp, opVersion, rowFromClickHouse, type RunRow } from './runRow.ts';
import { RUNS_TABLE } from './runsTable.ts';

type RunsMessage = Message<string, Buffer, string, string>;

export interface RunsProjectorOptions {
  groupId?: string;
  table?: string;
  /** Read from the beginning of the topic when the group has no committed offsets (replay). */
  fromBeginning?: boolean;
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

/** The live projector's consumer group; its lag is reported by the API's /metrics. */
export const runsProjectorGroupId = (config: Pick<Config, 'KAFKA_TOPIC_PREFIX'>): string => `${config.KAFKA_TOPIC_PREFIX}runs-projector`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class RunsProjector {
  readonly #config: Config;
  readonly #ch: ClickHouseClient;
  readonly #logger: Logger;
  readonly #table: string;
  readonly #topic: string;
  readonly #consumer: Consumer<string, Buffer, string, string>;
  readonly #cache: TraceCache;
  readonly #fromBeginning: boolean;
  readonly #deadLetters: EventLog;
  #stream: MessagesStream<string, Buffer, string, string> | null = null;
  #stopping = false;
  #loop: Promise<void> | null = null;

  constructor(config: Config, ch: ClickHouseClient, logger: Logger, options: RunsProjectorOptions = {}) {
    this.#config = config;
    this.#ch = ch;
    this.#logger = logger;
    this.#table = options.table ?? RUNS_TABLE;
    this.#fromBeginning = options.fromBeginning ?? true;
    this.#topic = topicName(config, TOPICS.runs);
    this.#cache = new TraceCache(config.PROJECTOR_CACHE_RUNS);
    this.#deadLetters = new EventLog(config, 'runs-projector-dead-letters');
    this.#consumer = new Consumer({
      clientId: 'runs-projector',
      groupId: options.groupId ?? runsProjectorGroupId(config),
      bootstrapBrokers: brokerList(config),
      deserializers: { key: stringDeserializer, headerKey: stringDeserializer, headerValue: stringDeserializer },
      // Under load, a fetch per few messages costs more (here and in the broker) than the
      // messages: let the broker gather 256 KiB, or answer after 50 ms, whichever comes first.
      minBytes: 256 * 1024,
      maxWaitTime: 50,
      maxBytes: 64 * 1024 * 1024,
      highWaterMark: 4096,
      retries: true,
      retryDelay: 1000,
    }) as Consumer<string, Buffer, string, string>;
    // Another instance may have written rows for partitions we get after a rebalance.
    this.#consumer.on('consumer:group:join', () => this.#cache.clear());
  }

  async start(): Promise<void> {
    this.#stream = await this.#consumer.consume({
      topics: [this.#topic],
      mode: MessagesStreamModes.COMMITTED,
      fallbackMode: this.#fromBeginning ? 'earliest' : 'latest',
      autocommit: false,
      sessionTimeout: 30_000,
      heartbeatInterval: 3_000,
    });
    this.#stream.on('error', (err) => this.#logger.error({ err }, 'runs stream error'));
    this.#loop = this.#run(this.#stream);
  }

  async #run(stream: MessagesStream<string, Buffer, string, string>): Promise<void> {
    for await (const batch of batches(stream, this.#config.PROJECTOR_BATCH_EVENTS, this.#config.PROJECTOR_FLUSH_MS)) {
      if (this.#stopping) break;
      const timer = projectorBatchSeconds.startTimer({ projector: 'runs' });
      await this.#project(batch);
      timer();
    }
  }

  async #project(batch: RunsMessage[]): Promise<void> {
    const decoded: Array<{ message: RunsMessage; event: RunOpsAppended }> = [];
    for (const message of batch) {
      try {
        const e = decodeEvent(message.headers, message.value);
        if (e.name === 'RunOpsAppended') decoded.push({ message, event: e.payload });
      } catch (err) {
        // A message we cannot read would block its partition forever if retried; it goes to the
        // dead-letter topic byte for byte (before the offset is committed), so nothing is lost.
        this.#logger.error({ err, partition: message.partition, offset: String(message.offset) }, 'undecodable runs event moved to the dead-letter topic');
        await this.#withRetry('dead-letter', () =>
          this.#deadLetters.appendRaw(TOPICS.runsDeadLetter, {
            key: message.key ?? '',
            value: message.value,
            headers: {
              ...Object.fromEntries(message.headers),
              'dead-letter-reason': String((err as Error).message).slice(0, 1000),
              'dead-letter-source': `${message.topic}/${message.partition}/${message.offset}`,
            },
          }),
        );
      }
    }

    let traces = new Map<string, Map<string, RunRow>>();
    await this.#withRetry('load traces', async () => {
      traces = await this.#tracesOf(decoded.map((d) => d.event));
    });

    const dirty = new Map<string, RunRow>();
    let added = 0;
    for (const { message, event } of decoded) {
      const traceKey = `${event.tenant_id}/${event.trace_id}`;
      const runs = traces.get(traceKey)!;
      event.ops.forEach((op, index) => {
        const current = runs.get(op.run_id) ?? emptyRow(event.tenant_id, event.trace_id, op.run_id);
        if (!runs.has(op.run_id)) added++;
        const merged = mergeRunOp(current, op, opVersion(message.offset, index), event.received_at);
        if (!merged) return;
        runs.set(op.run_id, merged);
        dirty.set(`${traceKey}/${op.run_id}`, merged);
      });
    }
    this.#cache.noteGrowth(added); // evicts least recently used traces only now, after the merge

    const rows = [...dirty.values()];
    await this.#withRetry('insert runs', () => this.#ch.insert(this.#table, rows));
    projectorRowsWritten.inc({ projector: 'runs' }, rows.length);
    await this.#commit(batch);
  }

  /**
   * The current rows of every trace in the batch: from the cache, else from ClickHouse. The
   * maps are collected after the last await, so a rebalance clearing the cache meanwhile
   * cannot leave the merge without state (it just loads again).
   */
  async #tracesOf(events: RunOpsAppended[]): Promise<Map<string, Map<string, RunRow>>> {
    for (;;) {
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
      const chunk = pairs.slice(i, i + 2000);
      const tuples = join(chunk.map((p) => sql`(toUUID(${p.tenant}), toUUID(${p.trace}))`));
      // Most traces here are new. Which have rows at all, the primary key answers cheaply; only
      // those are read with FINAL, which costs ClickHouse far more and grows with the table.
      const existing = await this.#ch.query<{ tenant_id: string; trace_id: string }>(
        sql`SELECT DISTINCT tenant_id, trace_id FROM ${ident(this.#table)} WHERE (tenant_id, trace_id) IN (${tuples})`,
      );
      if (existing.length === 0) continue;
      const known = join(existing.map((p) => sql`(toUUID(${p.tenant_id}), toUUID(${p.trace_id}))`));
      const rows = await this.#ch.query(
        sql`SELECT * FROM ${ident(this.#table)} FINAL WHERE (tenant_id, trace_id) IN (${known})`,
      );
      for (const raw of rows) {
        const row = rowFromClickHouse(raw);
        loaded.get(`${row.tenant_id}/${row.trace_id}`)?.set(row.id, row);
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

  async #commit(batch: RunsMessage[]): Promise<void> {
    const last = new Map<number, RunsMessage>();
    for (const m of batch) last.set(m.partition, m);
    try {
      await Promise.all([...last.values()].map((m) => m.commit()));
    } catch (err) {
      // After a rebalance the new owner re-reads from the last commit; projecting is idempotent.
      this.#logger.warn({ err }, 'offset commit failed; the batch will be re-read and re-applied idempotently');
    }
  }

  async #withRetry(what: string, fn: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (this.#stopping) throw err;
        const delay = Math.min(5000, 100 * 2 ** Math.min(attempt, 6));
        this.#logger.warn({ err: (err as Error).message, attempt, delay }, `${what} failed; retrying`);
        await sleep(delay);
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#stream?.close().catch(() => {});
    await this.#loop?.catch(() => {});
    await this.#consumer.close(true).catch(() => {});
    await this.#deadLetters.close().catch(() => {});
  }
}

/** Groups a message stream into batches of up to `maxMessages` events or `flushMs` of waiting. */
async function* batches(stream: MessagesStream<string, Buffer, string, string>, maxMessages: number, flushMs: number): AsyncGenerator<RunsMessage[]> {
  let pending: RunsMessage[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  stream.on('data', (m: RunsMessage) => {
    pending.push(m);
    if (pending.length >= maxMessages) stream.pause();
    if (wake && pending.length >= maxMessages) wake();
  });
  stream.on('close', () => {
    ended = true;
    wake?.();
  });
  while (!ended) {
    if (pending.length < maxMessages) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pending.length ? flushMs : flushMs * 2);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = null;
    }
    if (pending.length === 0) continue;
    const batch = pending;
    pending = [];
    yield batch;
    if (stream.isPaused()) stream.resume();
  }
}
