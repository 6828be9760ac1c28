// Groups a projector's Kafka message stream into batches, by size or by time: the one job of
// this file. The loop that consumes the batches is projections/projectorRuntime.ts.
import type { Message, MessagesStream } from '@platformatic/kafka';

/** A message as projectors consume it: key, value and headers as the bytes Kafka holds. */
export type RawMessage = Message<Buffer, Buffer, Buffer, Buffer>;
export type RawMessagesStream = MessagesStream<Buffer, Buffer, Buffer, Buffer>;

/** Groups a message stream into batches of up to `maxMessages` events or `flushMs` of waiting. */
export async function* batches(stream: RawMessagesStream, maxMessages: number, flushMs: number): AsyncGenerator<RawMessage[]> {
  let pending: RawMessage[] = [];
  let wake: (() => void) | null = null;
  let ended = false;
  stream.on('data', (m: RawMessage) => {
    pending.push(m);
    if (pending.length >= maxMessages) stream.pause();
    if (wake && pending.length >= maxMessages) wake();
  });
  // A stream that fails is destroyed and closes too; its messages not yet yielded are not committed.
  const end = () => {
    ended = true;
    wake?.();
  };
  stream.on('close', end);
  stream.on('error', end);
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
