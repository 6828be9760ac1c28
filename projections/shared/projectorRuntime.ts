// The loop every projector runs, written once; a projector only says what it does with a batch
// of events (a Projection). Per batch: decode each message against the schema registry; keep a
// message that cannot be read (bytes that are not its schema, an event type or schema version
// this release does not know) in the dead-letter topic of its topic, byte for byte, before any
// offset is committed; hand the decoded events to the projection, which writes its rows; then
// commit the batch's offsets. A store that is down is retried (PROJECTOR_STORE_RETRY, until it is
// back: the same batch, nothing committed, nothing lost). A batch the projection refuses (an error
// that escapes its retries: ClickHouse refusing a statement it will always refuse, or the
// projection's own code failing on an event) is halved until the refused events are alone; each
// of those goes to the dead-letter topic with the reason, the rest are projected, and only then
// is the batch committed: every committed event is in the read model or in the dead-letter topic.
// A projection is idempotent, so a batch read again after a crash or a rebalance, or projected
// in halves, changes nothing. Batches and project deletions run one at a time, in order. A
// message stream that fails (a broker gone after a failover) is opened again, with a new consumer,
// from the committed offsets (platform/kafka/keepConsuming.ts).
import { Consumer, MessagesStreamModes } from '@platformatic/kafka';
import { keepConsuming, type ConsumerSession, type KeptConsumer } from '../../platform/kafka/keepConsuming.ts';
import type { Config, EventLogConfig } from '../../platform/config.ts';

/** What the runtime reads: the brokers and topics (and its dead-letter appends), and how it batches. */
export type ProjectorRuntimeConfig = EventLogConfig &
  Pick<Config, 'PROJECTOR_BATCH_EVENTS' | 'PROJECTOR_FLUSH_MS' | 'PROJECTOR_FETCH_WAIT_MS'>;
import type { Logger } from '../../platform/logger.ts';
import { retry, type RetryPolicy } from '../../platform/retry.ts';
import { brokerList, topicName } from '../../platform/kafka/topicAdmin.ts';
import { DEAD_LETTER_TOPICS, type ProjectedTopic } from '../../schemas/topics.ts';
import { EventLog } from '../../platform/kafka/eventLog.ts';
import { projectorBatchSeconds, projectorDeadLetters } from '../../platform/metrics.ts';
import { decodeEvent, type DecodedEvent } from '../../schemas/registry.ts';
import { batches, type RawMessage, type RawMessagesStream } from './consumerBatches.ts';

/** An event of the batch, with where it was in the topic (projections derive row versions from the offset). */
export interface ProjectedEvent {
  event: DecodedEvent;
  partition: number;
  offset: bigint;
}

/**
 * Runs a step against a store until it succeeds; throws when retrying cannot help (the batch is
 * then refused, see above) or the projector stops.
 */
export type Retry = (what: string, step: () => Promise<void>) => Promise<void>;

/** What a projector declares; the runtime does the rest. */
export interface Projection {
  /** `runs`, `feedback`: names the consumer's client id and labels logs and metrics. */
  readonly name: string;
  /** The logical topic it reads; its dead-letter topic is DEAD_LETTER_TOPICS[topic]. */
  readonly topic: ProjectedTopic;
  /** Writes the rows of a batch (events in topic order within each partition); every store call goes through `retry`. */
  project(events: ProjectedEvent[], retry: Retry): Promise<void>;
  /** Deletes a deleted project's rows (after a tombstone), through `retry`. */
  deleteProject(tenantId: string, projectId: string, retry: Retry): Promise<void>;
  /**
   * Drops what it keeps between batches (e.g. rows it caches): after a rebalance another instance
   * may have written rows of partitions it now gets, and a refused batch may have left rows that
   * were never written.
   */
  forgetState?(): void;
}

export interface ProjectorRuntimeOptions {
  groupId: string;
  /** Where a group without committed offsets starts: the beginning (default) or new messages only. */
  fromBeginning?: boolean;
  /** How store calls are retried; PROJECTOR_STORE_RETRY by default. */
  retryPolicy?: RetryPolicy;
}

/**
 * A store call (ClickHouse, object storage, the dead-letter topic) is tried again 200 ms after
 * it fails, then at doubling intervals up to 5 s, for as long as the store is away: events wait
 * safely in Kafka meanwhile.
 */
export const PROJECTOR_STORE_RETRY: RetryPolicy = {
  initialDelayMs: 200,
  backoffCoefficient: 2,
  maxDelayMs: 5000,
  maxAttempts: Infinity,
};

/** The headers as text, for the registry (event-type, schema-version). */
const textHeaders = (message: RawMessage): Map<string, string> =>
  new Map(message.headerEntries.map(([k, v]) => [k?.toString('utf-8') ?? '', v?.toString('utf-8') ?? '']));

export class ProjectorRuntime {
  readonly #config: ProjectorRuntimeConfig;
  readonly #logger: Logger;
  readonly #projection: Projection;
  readonly #groupId: string;
  readonly #deadLetters: EventLog;
  readonly #fromBeginning: boolean;
  readonly #pendingDeletions: Array<{ tenantId: string; projectId: string }> = [];
  readonly #retryPolicy: RetryPolicy;
  /** Aborted by stop(): ends a retry's wait at once. */
  readonly #stopping = new AbortController();
  #consuming: KeptConsumer<RawMessagesStream> | null = null;
  #queue: Promise<void> = Promise.resolve();

  constructor(
    config: ProjectorRuntimeConfig,
    logger: Logger,
    projection: Projection,
    options: ProjectorRuntimeOptions,
  ) {
    this.#config = config;
    this.#logger = logger;
    this.#projection = projection;
    this.#fromBeginning = options.fromBeginning ?? true;
    this.#retryPolicy = options.retryPolicy ?? PROJECTOR_STORE_RETRY;
    this.#deadLetters = new EventLog(config, `${projection.name}-projector-dead-letters`);
    this.#groupId = options.groupId;
  }

  /** A new consumer of the group and its stream, from the committed offsets. */
  async #open(): Promise<ConsumerSession<RawMessagesStream>> {
    // No deserializers: keys, values and headers stay the bytes Kafka holds, so a message that
    // cannot be read is kept exactly as it was.
    const consumer = new Consumer({
      clientId: `${this.#projection.name}-projector`,
      groupId: this.#groupId,
      bootstrapBrokers: brokerList(this.#config),
      // Under load, a fetch per few messages costs more (here and in the broker) than the
      // messages: let the broker gather 256 KiB, or answer after PROJECTOR_FETCH_WAIT_MS,
      // whichever comes first. Each fetch of an idle projector is such a wait: at 50 ms, one idle
      // projector process cost the broker about 16 % of a core; at 200 ms the whole idle default
      // stack cost 3.2 % (its projector 0.7, Kafka 1.5 over its own), at 350 ms (the default) 1.9
      // to 2.8 % over three runs (npm run bench:idle). Longer waits save little more, and at 500 ms a stream of
      // 8,000 runs/s was read later (freshness p99 1.2–1.5 s against 0.9 s at 200 and 350 ms). A
      // trickle's events wait here at most that long and then at most PROJECTOR_FLUSH_MS.
      minBytes: 256 * 1024,
      maxWaitTime: this.#config.PROJECTOR_FETCH_WAIT_MS,
      maxBytes: 64 * 1024 * 1024,
      highWaterMark: 4096,
      retries: true,
      retryDelay: 1000,
    });
    consumer.on('consumer:group:join', () => this.#projection.forgetState?.());
    try {
      const stream = await consumer.consume({
        topics: [topicName(this.#config, this.#projection.topic)],
        mode: MessagesStreamModes.COMMITTED,
        fallbackMode: this.#fromBeginning ? 'earliest' : 'latest',
        autocommit: false,
        // A projector that dies without leaving keeps its partitions until its session times
        // out, and nothing of them is projected meanwhile: 10 s (Kafka's classic default; 30 s
        // measured 32 s before the survivor of two had caught up), with a heartbeat each second.
        // Heartbeats are timers, so a batch that holds the event loop for seconds would be needed
        // to lose a live member; that costs a rebalance and batches read again, nothing else.
        sessionTimeout: 10_000,
        heartbeatInterval: 1_000,
      });
      stream.on('error', (err) => this.#logger.error({ err }, `${this.#projection.name} stream error`));
      return {
        stream,
        close: async () => {
          await stream.close().catch(() => {});
          await consumer.close(true).catch(() => {});
        },
      };
    } catch (err) {
      await consumer.close(true).catch(() => {});
      throw err;
    }
  }

  async #read(stream: RawMessagesStream): Promise<void> {
    for await (const batch of batches(stream, this.#config.PROJECTOR_BATCH_EVENTS, this.#config.PROJECTOR_FLUSH_MS)) {
      if (this.#stopping.signal.aborted) break;
      const timer = projectorBatchSeconds.startTimer({ projector: this.#projection.name });
      await this.#serially(() => this.#project(batch));
      timer();
    }
  }

  async start(): Promise<void> {
    this.#consuming = keepConsuming({
      what: `${this.#projection.name} projector`,
      logger: this.#logger,
      signal: this.#stopping.signal,
      policy: this.#retryPolicy,
      open: () => this.#open(),
      read: (stream) => this.#read(stream),
      // Another instance may have written rows of the partitions the new consumer gets.
      reopening: () => this.#projection.forgetState?.(),
    });
    await this.#consuming.started;
  }

  /**
   * Deletes a project's rows from what this projector writes: now, not with the next batch
   * (there may be none for a long time), and never during one.
   */
  requestProjectDeletion(tenantId: string, projectId: string): void {
    this.#pendingDeletions.push({ tenantId, projectId });
    void this.#serially(() => this.#applyDeletions()).catch((err) =>
      this.#logger.error({ err }, 'project deletion failed'),
    );
  }

  readonly retry: Retry = (what, step) =>
    retry(this.#retryPolicy, step, { what, logger: this.#logger, signal: this.#stopping.signal });

  async #project(batch: RawMessage[]): Promise<void> {
    const events: ProjectedEvent[] = [];
    const messages = new Map<ProjectedEvent, RawMessage>();
    for (const message of batch) {
      try {
        const decoded = decodeEvent(textHeaders(message), message.value);
        const event: ProjectedEvent = { event: decoded, partition: message.partition, offset: message.offset };
        events.push(event);
        messages.set(event, message);
      } catch (err) {
        // Retried, it would block its partition forever; skipped, it would be lost.
        await this.#deadLetter(message, (err as Error).message, 'unreadable');
      }
    }
    await this.#projectOrSetAside(events, messages);
    await this.#commit(batch);
  }

  /**
   * Projects the events; when the projection refuses them, projects each half the same way, so
   * that the refused events end up alone and go to the dead-letter topic, and no other with them.
   */
  async #projectOrSetAside(events: ProjectedEvent[], messages: Map<ProjectedEvent, RawMessage>): Promise<void> {
    try {
      await this.#projection.project(events, this.retry);
    } catch (err) {
      if (this.#stopping.signal.aborted || events.length === 0) throw err;
      // What it cached while merging these events may hold rows that were never written.
      this.#projection.forgetState?.();
      const name = this.#projection.name;
      if (events.length > 1) {
        this.#logger.warn(
          { err, events: events.length },
          `the ${name} projection refused a batch; projecting it in halves`,
        );
        const half = Math.ceil(events.length / 2);
        await this.#projectOrSetAside(events.slice(0, half), messages);
        await this.#projectOrSetAside(events.slice(half), messages);
        return;
      }
      await this.#deadLetter(
        messages.get(events[0]!)!,
        `the ${name} projection refused it: ${(err as Error).message}`,
        'refused',
      );
    }
  }

  async #deadLetter(message: RawMessage, reason: string, why: 'unreadable' | 'refused'): Promise<void> {
    const source = `${message.topic}/${message.partition}/${message.offset}`;
    this.#logger.error({ reason, source }, `${why} ${this.#projection.name} event moved to the dead-letter topic`);
    const headers = new Map<string | Buffer, string | Buffer>(message.headerEntries);
    headers.set('dead-letter-reason', reason.slice(0, 1000));
    headers.set('dead-letter-source', source);
    // Whatever the failure: a message that is neither projected nor kept must not be committed.
    const topic = DEAD_LETTER_TOPICS[this.#projection.topic];
    const append = () => this.#deadLetters.appendRaw(topic, { key: message.key, value: message.value, headers });
    await retry(this.#retryPolicy, append, {
      what: 'dead-letter',
      logger: this.#logger,
      signal: this.#stopping.signal,
      retryIf: () => true,
    });
    projectorDeadLetters.inc({ projector: this.#projection.name });
  }

  /** Commits the last offset of each partition in the batch: only ever after its rows are written. */
  async #commit(batch: RawMessage[]): Promise<void> {
    const last = new Map<number, RawMessage>();
    for (const m of batch) last.set(m.partition, m);
    try {
      await Promise.all([...last.values()].map((m) => m.commit()));
    } catch (err) {
      // After a rebalance the new owner re-reads from the last commit; projecting is idempotent.
      this.#logger.warn({ err }, 'offset commit failed; the batch will be re-read and re-applied idempotently');
    }
  }

  async #applyDeletions(): Promise<void> {
    while (this.#pendingDeletions.length > 0) {
      const { tenantId, projectId } = this.#pendingDeletions[0]!;
      await this.#projection.deleteProject(tenantId, projectId, this.retry);
      this.#pendingDeletions.shift();
      this.#logger.info({ tenantId, projectId }, `deleted the ${this.#projection.name} rows of a deleted project`);
    }
  }

  /** Batches and deletions run one at a time, in the order they were asked for. */
  #serially(task: () => Promise<void>): Promise<void> {
    const next = this.#queue.then(task);
    this.#queue = next.catch(() => {});
    return next;
  }

  async stop(): Promise<void> {
    this.#stopping.abort();
    // The stream first: the batch being projected is finished and committed before the consumer goes.
    await this.#consuming
      ?.current()
      ?.stream.close()
      .catch(() => {});
    await this.#consuming?.ended.catch(() => {});
    await this.#deadLetters.close().catch(() => {});
  }
}
