// Folds a small topic (workspaces and keys, projects, run lineage) into memory in every
// process that needs it. catchUp() gives read-your-writes across API replicas: it waits
// until everything appended before the call has been folded in. A stream that fails (a broker
// gone after a failover) is opened again with a new consumer, from the topic's beginning, and
// what was already folded is skipped (keepConsuming.ts).
import { randomUUID } from 'node:crypto';
import { Consumer, MessagesStreamModes, stringDeserializer } from '@platformatic/kafka';
import type { EventLogConfig, KafkaConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { decodeEvent, type DecodedEvent } from '../../schemas/registry.ts';
import { errors } from '../errors.ts';
import { brokerList, topicName } from './topicAdmin.ts';
import { keepConsuming, type ConsumerSession, type KeptConsumer } from './keepConsuming.ts';

/** Between a failed stream and the next consumer: 0.5 s, doubling up to 5 s, until Kafka answers. */
const REOPEN_POLICY = { initialDelayMs: 500, backoffCoefficient: 2, maxDelayMs: 5000, maxAttempts: Infinity };

type StringHeaderConsumer = Consumer<string, Buffer, string, string>;
type StateStream = Awaited<ReturnType<StringHeaderConsumer['consume']>>;

export class TopicState {
  readonly #topic: string;
  readonly #logicalTopic: string;
  readonly #config: KafkaConfig;
  readonly #apply: (event: DecodedEvent) => void;
  readonly #logger: Logger;
  readonly #nextOffset = new Map<number, bigint>();
  readonly #stopping = new AbortController();
  /** Offsets are listed with it (the folding consumers come and go). */
  readonly #offsets: StringHeaderConsumer;
  #waiters: Array<() => void> = [];
  #started: Promise<void> | null = null;
  #consuming: KeptConsumer<StateStream> | null = null;

  constructor(config: KafkaConfig, logicalTopic: string, apply: (event: DecodedEvent) => void, logger: Logger) {
    this.#topic = topicName(config, logicalTopic);
    this.#logicalTopic = logicalTopic;
    this.#config = config;
    this.#apply = apply;
    this.#logger = logger;
    this.#offsets = this.#newConsumer();
  }

  #newConsumer(): StringHeaderConsumer {
    return new Consumer({
      clientId: `state-${this.#logicalTopic}`,
      // A group of our own: this process reads every partition and never commits.
      groupId: `state-${this.#logicalTopic}-${randomUUID()}`,
      bootstrapBrokers: brokerList(this.#config),
      deserializers: { key: stringDeserializer, headerKey: stringDeserializer, headerValue: stringDeserializer },
      // The broker answers a fetch as soon as there is a byte to give (minBytes 1), so a long
      // wait costs no latency; at 100 ms, the five folded topics of an idle API process cost it
      // 3 % of a core and the broker several more.
      maxWaitTime: 5000,
      retries: true,
      retryDelay: 500,
    }) as StringHeaderConsumer;
  }

  /** A new consumer reading the topic from its beginning. */
  async #open(): Promise<ConsumerSession<StateStream>> {
    const consumer = this.#newConsumer();
    try {
      const stream = await consumer.consume({
        topics: [this.#topic],
        mode: MessagesStreamModes.EARLIEST,
        autocommit: false,
        sessionTimeout: 30000,
        heartbeatInterval: 3000,
      });
      stream.on('error', (err) => this.#logger.error({ err, topic: this.#topic }, 'state stream error'));
      return {
        stream,
        close: async () => {
          await stream.close().catch(() => undefined);
          await consumer.close(true).catch(() => undefined);
        },
      };
    } catch (err) {
      await consumer.close(true).catch(() => undefined);
      throw err;
    }
  }

  /** Folds the stream's messages in until it closes; those folded before (a stream opened again) are skipped. */
  #read(stream: StateStream): Promise<void> {
    return new Promise((resolve) => {
      stream.on('data', (message) => {
        if (message.offset < (this.#nextOffset.get(message.partition) ?? 0n)) return;
        try {
          this.#apply(decodeEvent(message.headers, message.value));
        } catch (err) {
          this.#logger.error({ err, topic: this.#topic, offset: String(message.offset) }, 'could not fold event');
        }
        this.#nextOffset.set(message.partition, message.offset + 1n);
        if (this.#waiters.length) {
          const waiters = this.#waiters;
          this.#waiters = [];
          for (const w of waiters) w();
        }
      });
      stream.once('close', () => resolve());
    });
  }

  /** Starts folding and resolves once the state has caught up with the topic. */
  start(): Promise<void> {
    this.#started ??= (async () => {
      this.#consuming = keepConsuming({
        what: `state of ${this.#topic}`,
        logger: this.#logger,
        signal: this.#stopping.signal,
        policy: REOPEN_POLICY,
        open: () => this.#open(),
        read: (stream) => this.#read(stream),
      });
      await this.#consuming.started;
      await this.catchUp();
    })();
    return this.#started;
  }

  /** Resolves when every event appended to the topic before this call has been applied. */
  async catchUp(timeoutMs = 10_000): Promise<void> {
    const ends = (await this.#offsets.listOffsets({ topics: [this.#topic] })).get(this.#topic) ?? [];
    const deadline = Date.now() + timeoutMs;
    const caughtUp = () => ends.every((end, partition) => (this.#nextOffset.get(partition) ?? 0n) >= end);
    while (!caughtUp()) {
      if (Date.now() > deadline) throw new Error(`state of ${this.#topic} did not catch up within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 50);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /**
   * catchUp() for a request: read-your-writes after an append, and across replicas. Throws the
   * 503 error when Kafka does not answer within `timeoutMs` (listing offsets may hang while it is away).
   */
  async catchUpOrUnavailable(what: string, timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      await Promise.race([this.catchUp(timeoutMs), timeout]);
    } catch (err) {
      throw errors.kafkaUnavailable(`${what} could not be brought up to date: ${(err as Error).message}`, err);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    this.#stopping.abort();
    await this.#consuming?.current()?.close();
    await this.#consuming?.ended.catch(() => undefined);
    await this.#offsets.close(true);
  }
}

/**
 * The in-memory read model of one small topic, as a command side holds it (projects, bulk
 * exports, deployments): a subclass declares `apply` (one event into its maps) and its reads;
 * this owns the folding lifecycle. start() folds from the beginning and resolves once caught up;
 * catchUp() is read-your-writes after an append and across replicas (the 503 error when Kafka
 * does not answer within the append timeout, at least 2 s); close() stops folding.
 */
export abstract class FoldedTopic {
  readonly #topicState: TopicState;
  readonly #what: string;
  readonly #catchUpTimeoutMs: number;

  /** `what`: the read model's name in the 503 a catchUp() without Kafka answers ("deployments"). */
  protected constructor(config: EventLogConfig, logicalTopic: string, what: string, logger: Logger) {
    this.#what = what;
    this.#catchUpTimeoutMs = Math.max(config.KAFKA_APPEND_TIMEOUT_MS, 2000);
    this.#topicState = new TopicState(config, logicalTopic, (e) => this.apply(e), logger);
  }

  /** Folds one event in (also called directly by tests, with events made by hand). */
  abstract readonly apply: (event: DecodedEvent) => void;

  /** Folds the topic from the start; resolves once caught up with it. */
  start(): Promise<void> {
    return this.#topicState.start();
  }

  /** Resolves once everything appended before the call is folded; the 503 error when Kafka does not answer. */
  catchUp(): Promise<void> {
    return this.#topicState.catchUpOrUnavailable(this.#what, this.#catchUpTimeoutMs);
  }

  close(): Promise<void> {
    return this.#topicState.close();
  }
}
