// Appends events to Kafka: acks from all in-sync replicas, idempotent producer. A 2xx from
// the API is only sent after append() resolves; when Kafka cannot take the write in time,
// append() throws the 503 error (with Retry-After) and nothing is acknowledged.
import { Producer, ProduceAcks } from '@platformatic/kafka';
import type { Config } from '../config.ts';
import { errors } from '../errors.ts';
import { eventsAppended } from '../metrics.ts';
import { encodeEvent, topicOf, type EventName } from '../../../schemas/registry.ts';
import type { EventPayloads } from '../../../schemas/events.generated.ts';
import { brokerList, topicName } from './topics.ts';

export interface EventToAppend<N extends EventName = EventName> {
  name: N;
  key: string;
  payload: EventPayloads[N];
}

/** Builds an event to append, keeping the payload type tied to the event name. */
export const event = <N extends EventName>(name: N, key: string, payload: EventPayloads[N]): EventToAppend<N> => ({ name, key, payload });

/** Keys and headers go as text (events) or as the bytes they were (a message kept in a dead-letter topic). */
type TextOrBytes = string | Buffer;
export type StringKeyProducer = Producer<TextOrBytes, Buffer, TextOrBytes, TextOrBytes>;

const textOrBytes = (data?: TextOrBytes): Buffer | undefined => (typeof data === 'string' ? Buffer.from(data, 'utf-8') : data);

/** The producer every append goes through: acks from all in-sync replicas, idempotent. The ingest benchmark's raw ceiling uses it too. */
export function createEventProducer(config: Config, clientId: string): StringKeyProducer {
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

export class EventLog {
  readonly #config: Config;
  readonly #producer: StringKeyProducer;

  constructor(config: Config, clientId = 'event-log') {
    this.#config = config;
    this.#producer = createEventProducer(config, clientId);
  }

  /** Appends the events in one produce request. Resolves once Kafka has acknowledged all of them. */
  async append(events: readonly EventToAppend[]): Promise<void> {
    if (events.length === 0) return;
    const messages = events.map((e) => {
      const encoded = encodeEvent(e.name, e.payload as never);
      return { topic: topicName(this.#config, topicOf(e.name)), key: e.key, value: encoded.value, headers: encoded.headers };
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no acknowledgement within ${this.#config.KAFKA_APPEND_TIMEOUT_MS} ms`)), this.#config.KAFKA_APPEND_TIMEOUT_MS);
    });
    try {
      await Promise.race([this.#producer.send({ messages }), timeout]);
    } catch (err) {
      throw errors.kafkaUnavailable((err as Error).message);
    } finally {
      clearTimeout(timer);
    }
    for (const e of events) eventsAppended.inc({ topic: topicOf(e.name), event: e.name });
  }

  /**
   * Appends a message as it is, e.g. a poison message to a dead-letter topic: bytes stay bytes
   * (a Map keeps repeated header names, as Kafka does).
   */
  async appendRaw(
    logicalTopic: string,
    message: { key?: TextOrBytes; value?: Buffer; headers: Record<string, TextOrBytes> | Map<TextOrBytes, TextOrBytes> },
  ): Promise<void> {
    try {
      await this.#producer.send({ messages: [{ topic: topicName(this.#config, logicalTopic), ...message }] });
    } catch (err) {
      throw errors.kafkaUnavailable((err as Error).message);
    }
  }

  async close(): Promise<void> {
    await this.#producer.close();
  }
}
