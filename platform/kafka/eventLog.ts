// Appends events to Kafka: acks from all in-sync replicas, idempotent producer. A 2xx from
// the API is only sent after append() resolves; when Kafka cannot take the write in time,
// append() throws the 503 error (with Retry-After) and nothing is acknowledged.
//
// Message sizes: Kafka refuses a record batch larger than the topic's max.message.bytes (which
// defaults to the broker's message.max.bytes), and retrying such a request can never succeed.
// The limits are read from the broker, every event is encoded and measured before anything is
// sent, and an event that could never be taken is a 413 with nothing appended. Events that fit
// one by one but not all together go in several produce requests, one after another (events
// with one key keep their order). A request that fails part-way through such a sequence may
// have appended its first events: every event we append is safe to append again (operations
// are keyed by run id and merge idempotently), so retrying the same request is correct.
//
// One produce request at a time, the rest coalesced: the idempotent producer keeps a single
// request in flight per broker (@platformatic/kafka sets maxInflights to 1), so appends that
// arrive while one is in flight used to wait in the client's queue and then go one request
// each, one round trip after another: a broker hiccup of 40 ms held the next N requests for N
// round trips (bench:ingest at half load: the producer's send() p99 92-168 ms against a broker
// round trip p99 of 27-56 ms). Appends waiting now go together in the next request, as many
// as fit the size limit of one record batch, so a wait is at most the request in flight and
// its own, and the broker handles fewer, larger requests. Nothing lingers: an append with
// nothing in flight is sent at once. One request at a time per EventLog, however many brokers
// it goes to (a send that spans brokers waits for the slowest of them anyway).
import { Admin, ConfigResourceTypes, Producer, ProduceAcks } from '@platformatic/kafka';
import type { EventLogConfig } from '../config.ts';
import { errors } from '../errors.ts';
import { eventsAppended } from '../metrics.ts';
import { encodeEvent, topicOf, type EventName } from '../../schemas/registry.ts';
import type { EventPayloads } from '../../schemas/events.generated.ts';
import { brokerList, topicName } from './topicAdmin.ts';
import { TOPICS } from '../../schemas/topics.ts';

export interface EventToAppend<N extends EventName = EventName> {
  name: N;
  key: string;
  payload: EventPayloads[N];
}

/** Builds an event to append, keeping the payload type tied to the event name. */
export const event = <N extends EventName>(name: N, key: string, payload: EventPayloads[N]): EventToAppend<N> => ({
  name,
  key,
  payload,
});

/** Keys and headers go as text (events) or as the bytes they were (a message kept in a dead-letter topic). */
type TextOrBytes = string | Buffer;
export type StringKeyProducer = Producer<TextOrBytes, Buffer, TextOrBytes, TextOrBytes>;

const textOrBytes = (data?: TextOrBytes): Buffer | undefined =>
  typeof data === 'string' ? Buffer.from(data, 'utf-8') : data;

/** The producer every append goes through: acks from all in-sync replicas, idempotent. The ingest benchmark's raw ceiling uses it too. */
export function createEventProducer(config: EventLogConfig, clientId: string): StringKeyProducer {
  return new Producer({
    clientId,
    bootstrapBrokers: brokerList(config),
    acks: ProduceAcks.ALL,
    idempotent: true,
    retries: 3,
    retryDelay: 250,
    timeout: config.KAFKA_APPEND_TIMEOUT_MS,
    serializers: { key: textOrBytes, headerKey: textOrBytes, headerValue: textOrBytes },
  }) as StringKeyProducer;
}

/** Kafka's own default for message.max.bytes, assumed when the broker does not say. */
const KAFKA_DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;
/** A record batch's header is 61 bytes; the rest is room for the request framing. */
const BATCH_OVERHEAD_BYTES = 256;
/** Per record: length, attributes, timestamp and offset deltas, key and value lengths, header count (varints). */
const RECORD_OVERHEAD_BYTES = 64;

interface Encoded {
  topic: string;
  key: string;
  value: Buffer;
  headers: Record<string, string>;
  /** What the record adds to a record batch. */
  bytes: number;
}

/** Events of one append that go in one produce request, waiting for the request in flight. */
interface Wave {
  events: Encoded[];
  /** What its records add to a record batch. */
  bytes: number;
  /** The smallest max.message.bytes among its topics. */
  limit: number;
  /** Settled once: by the produce request that carried it, or by its timeout. */
  settle: (err: unknown) => void;
  settled: boolean;
}

const recordBytes = (key: string, value: Buffer, headers: Record<string, string>): number => {
  let bytes = RECORD_OVERHEAD_BYTES + Buffer.byteLength(key) + value.length;
  for (const [k, v] of Object.entries(headers)) bytes += Buffer.byteLength(k) + Buffer.byteLength(v) + 10;
  return bytes;
};

export class EventLog {
  readonly #config: EventLogConfig;
  readonly #producer: StringKeyProducer;
  /** max.message.bytes of each (prefixed) topic, read from the broker once it is first needed. */
  #limits: Promise<Map<string, number>> | undefined;
  /** Waves waiting for the produce request in flight, in the order they were appended. */
  readonly #waiting: Wave[] = [];
  #producing = false;

  constructor(config: EventLogConfig, clientId = 'event-log') {
    this.#config = config;
    this.#producer = createEventProducer(config, clientId);
  }

  /**
   * The most one event of this topic may take, key and headers included (its encoded size as
   * the producer counts it): what Kafka takes in one record batch, less the batch's overhead.
   */
  async maxEventBytes(logicalTopic: string): Promise<number> {
    return (await this.#limitOf(topicName(this.#config, logicalTopic))) - BATCH_OVERHEAD_BYTES;
  }

  /**
   * Appends the events, in order, in as few produce requests as Kafka's size limits allow (one,
   * nearly always). Resolves once Kafka has acknowledged all of them. Throws a 413 before
   * appending anything when one event is larger than its topic takes.
   */
  async append(events: readonly EventToAppend[]): Promise<void> {
    if (events.length === 0) return;
    const encoded: Encoded[] = events.map((e) => {
      const { value, headers } = encodeEvent(e.name, e.payload as never);
      return {
        topic: topicName(this.#config, topicOf(e.name)),
        key: e.key,
        value,
        headers,
        bytes: recordBytes(e.key, value, headers),
      };
    });
    const limits = await this.#topicLimits();
    for (const m of encoded) {
      const limit = limits.get(m.topic) ?? KAFKA_DEFAULT_MAX_MESSAGE_BYTES;
      if (m.bytes + BATCH_OVERHEAD_BYTES > limit)
        throw errors.eventTooLarge(
          `an event of ${m.bytes} bytes is more than Kafka takes in one message on ${m.topic} (max.message.bytes = ${limit})`,
        );
    }
    for (const wave of this.#waves(encoded, limits)) await this.#send(wave);
    for (const e of events) eventsAppended.inc({ topic: topicOf(e.name), event: e.name });
  }

  /**
   * The events in order, cut into groups that each fit one record batch of the smallest limit
   * among their topics: whichever partitions the events land in, no batch exceeds its limit.
   */
  #waves(encoded: Encoded[], limits: Map<string, number>): Array<Pick<Wave, 'events' | 'bytes' | 'limit'>> {
    const waves: Array<Pick<Wave, 'events' | 'bytes' | 'limit'>> = [];
    let wave: Encoded[] = [];
    let bytes = 0;
    let budget = Number.POSITIVE_INFINITY;
    for (const m of encoded) {
      const limit = limits.get(m.topic) ?? KAFKA_DEFAULT_MAX_MESSAGE_BYTES;
      if (wave.length > 0 && BATCH_OVERHEAD_BYTES + bytes + m.bytes > Math.min(budget, limit)) {
        waves.push({ events: wave, bytes, limit: budget });
        wave = [];
        bytes = 0;
        budget = Number.POSITIVE_INFINITY;
      }
      wave.push(m);
      bytes += m.bytes;
      budget = Math.min(budget, limit);
    }
    waves.push({ events: wave, bytes, limit: budget });
    return waves;
  }

  /** Resolves when the wave is acknowledged; it goes now, or with the others waiting once the request in flight is answered. */
  #send(wave: Pick<Wave, 'events' | 'bytes' | 'limit'>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        // Still waiting: it is not sent at all. In flight: its request may yet append it, which is safe.
        const at = this.#waiting.indexOf(waiting);
        if (at >= 0) this.#waiting.splice(at, 1);
        waiting.settle(errors.kafkaUnavailable(`no acknowledgement within ${this.#config.KAFKA_APPEND_TIMEOUT_MS} ms`));
      }, this.#config.KAFKA_APPEND_TIMEOUT_MS);
      const waiting: Wave = {
        ...wave,
        settled: false,
        settle: (err) => {
          if (waiting.settled) return;
          waiting.settled = true;
          clearTimeout(timer);
          if (err) reject(err);
          else resolve();
        },
      };
      this.#waiting.push(waiting);
      if (!this.#producing) void this.#produceWaiting();
    });
  }

  /** Sends the waiting waves, as many as fit one record batch per request, one request at a time, until none wait. */
  async #produceWaiting(): Promise<void> {
    this.#producing = true;
    try {
      while (this.#waiting.length > 0) {
        const together = [this.#waiting.shift()!];
        let bytes = BATCH_OVERHEAD_BYTES + together[0]!.bytes;
        let limit = together[0]!.limit;
        while (this.#waiting.length > 0) {
          const next = this.#waiting[0]!;
          if (bytes + next.bytes > Math.min(limit, next.limit)) break;
          together.push(this.#waiting.shift()!);
          bytes += next.bytes;
          limit = Math.min(limit, next.limit);
        }
        const failure = await this.#produce(together.flatMap((w) => w.events));
        const tooLarge = failure !== null && isMessageTooLarge(failure);
        if (tooLarge) this.#limits = undefined; // a topic's limit was lowered since we read it: read it again next time
        if (tooLarge && together.length > 1) {
          // Each wave alone, so that only one that cannot fit now gets the 413.
          for (const wave of together)
            wave.settle(await this.#produce(wave.events).then((err) => err && producerError(err)));
          continue;
        }
        for (const wave of together) wave.settle(failure && producerError(failure));
      }
    } finally {
      this.#producing = false;
    }
  }

  /** One produce request; what it failed with, or null. */
  async #produce(events: Encoded[]): Promise<unknown> {
    try {
      await this.#producer.send({
        messages: events.map(({ topic, key, value, headers }) => ({ topic, key, value, headers })),
      });
      return null;
    } catch (err) {
      return err ?? new Error('the produce request failed');
    }
  }

  /**
   * Appends a message as it is, e.g. a poison message to a dead-letter topic: bytes stay bytes
   * (a Map keeps repeated header names, as Kafka does).
   */
  async appendRaw(
    logicalTopic: string,
    message: {
      key?: TextOrBytes;
      value?: Buffer;
      headers: Record<string, TextOrBytes> | Map<TextOrBytes, TextOrBytes>;
    },
  ): Promise<void> {
    try {
      await this.#producer.send({ messages: [{ topic: topicName(this.#config, logicalTopic), ...message }] });
    } catch (err) {
      throw errors.kafkaUnavailable((err as Error).message, err);
    }
  }

  async close(): Promise<void> {
    await this.#producer.close();
  }

  async #limitOf(topic: string): Promise<number> {
    return (await this.#topicLimits()).get(topic) ?? KAFKA_DEFAULT_MAX_MESSAGE_BYTES;
  }

  /** Read once and kept; a failed read is not kept, so the next append asks again. */
  #topicLimits(): Promise<Map<string, number>> {
    this.#limits ??= readTopicLimits(this.#config).catch((err: Error) => {
      this.#limits = undefined;
      throw errors.kafkaUnavailable(`could not read the topics' size limits: ${err.message}`, err);
    });
    return this.#limits;
  }
}

/** max.message.bytes of every topic we declare, as the broker reports it (the topic's own value or the broker's default). */
async function readTopicLimits(config: EventLogConfig): Promise<Map<string, number>> {
  const admin = new Admin({
    clientId: 'event-log-limits',
    bootstrapBrokers: brokerList(config),
    retries: 2,
    retryDelay: 250,
    timeout: config.KAFKA_APPEND_TIMEOUT_MS,
  });
  try {
    const names = Object.values(TOPICS).map((t) => topicName(config, t));
    const described = await admin.describeConfigs({
      resources: names.map((resourceName) => ({
        resourceType: ConfigResourceTypes.TOPIC,
        resourceName,
        configurationKeys: ['max.message.bytes'],
      })),
    });
    const limits = new Map<string, number>();
    for (const d of described) {
      const value = Number(d.configs.find((c) => c.name === 'max.message.bytes')?.value);
      if (Number.isInteger(value) && value > 0) limits.set(d.resourceName, value);
    }
    return limits;
  } finally {
    await admin.close();
  }
}

/** What an append throws when its produce request failed: a 413 when Kafka says it is too large, else a 503. */
function producerError(err: unknown): Error {
  if (isMessageTooLarge(err))
    return errors.eventTooLarge(
      `Kafka refused the events as too large for one message (${(err as Error).message})`,
      err,
    );
  return errors.kafkaUnavailable((err as Error).message, err);
}

function isMessageTooLarge(err: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (e: unknown): boolean => {
    if (!e || typeof e !== 'object' || seen.has(e)) return false;
    seen.add(e);
    const o = e as { apiId?: unknown; errors?: unknown[]; cause?: unknown };
    if (o.apiId === 'MESSAGE_TOO_LARGE' || o.apiId === 'RECORD_LIST_TOO_LARGE') return true;
    return (Array.isArray(o.errors) && o.errors.some(visit)) || visit(o.cause);
  };
  return visit(err);
}
