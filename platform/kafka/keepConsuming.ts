// Keeps a consumer's work going across failures of its message stream, written once for the
// projectors and the folded topics. @platformatic/kafka retries a failed fetch, but a failure its
// retries do not cover ends the stream for good: after a broker dies and its partitions move,
// its metadata may still name the dead node ("Cannot find broker with node id 3"), and the stream
// is destroyed. Left alone, a projector then stops projecting and an API stops folding keys,
// with the process still up. Here, when a stream ends while the owner is not stopping, its
// consumer is closed and a new one opened (after a wait that grows, as a store call's retries
// do), and the owner reads on from where its new stream starts: the committed offsets for a
// projector, the topic's beginning for a fold that skips what it already has.
import type { Logger } from '../logger.ts';
import { retry, type RetryPolicy } from '../retry.ts';

/** A consumer and its stream, as the owner opened them. */
export interface ConsumerSession<S> {
  stream: S;
  /** Closes the stream and its consumer (leaving the group). */
  close(): Promise<void>;
}

export interface KeepConsumingOptions<S> {
  /** For the log: "runs projector", "state of tenancy.events". */
  what: string;
  logger: Pick<Logger, 'warn' | 'error'>;
  /** Stops the work: the current stream is closed by the owner, and no other is opened. */
  signal: AbortSignal;
  /** The wait between a stream that ended and the next attempt to open one. */
  policy: RetryPolicy;
  /** Opens a new consumer and its stream. */
  open(): Promise<ConsumerSession<S>>;
  /** Reads a stream until it ends (closed or failed); may throw. */
  read(stream: S): Promise<void>;
  /** Runs after a stream ended unexpectedly, before the next is opened (drop what may be stale). */
  reopening?(): Promise<void> | void;
}

export interface KeptConsumer<S> {
  /** Resolves once the first stream is open; rejects with the first open's error (nothing is retried then). */
  started: Promise<void>;
  /** Resolves once the work has stopped (after the signal, when the last stream has ended). */
  ended: Promise<void>;
  /** The session being read, to close it on stop. */
  current(): ConsumerSession<S> | undefined;
}

export function keepConsuming<S>(options: KeepConsumingOptions<S>): KeptConsumer<S> {
  const { what, logger, signal } = options;
  let session: ConsumerSession<S> | undefined;
  let markStarted!: (err?: unknown) => void;
  const started = new Promise<void>((resolve, reject) => {
    markStarted = (err) => (err === undefined ? resolve() : reject(err));
  });
  const ended = (async () => {
    try {
      session = await options.open();
    } catch (err) {
      markStarted(err);
      return;
    }
    markStarted();
    for (;;) {
      try {
        await options.read(session.stream);
      } catch (err) {
        if (!signal.aborted) logger.error({ err }, `${what}: reading its stream failed`);
      }
      await session.close().catch(() => undefined);
      if (signal.aborted) return;
      logger.warn({}, `${what}: its stream ended; opening a new consumer`);
      await options.reopening?.();
      try {
        session = await retry(options.policy, () => options.open(), {
          what: `${what}: open a consumer`,
          logger,
          signal,
          retryIf: () => true,
        });
      } catch (err) {
        if (signal.aborted) return;
        throw err;
      }
      if (signal.aborted) {
        await session.close().catch(() => undefined);
        return;
      }
    }
  })();
  return { started, ended, current: () => session };
}
