// One run's protocol events, kept in memory (in the process that executes the run) for replay: a
// bounded, append-only log that any number of subscribers read with their own cursors (a `seq`),
// each waking when the log grows. Each event's SSE frame is encoded once, however many read it.
//
// Bound: at most `maxEvents` events per run; beyond that the oldest are dropped (a subscriber
// that falls that far behind, or resumes from a `since` that old, continues from the oldest kept
// event). A thread keeps only its current run's log, and a finished log is released after the
// buffer's TTL or when the thread's next run starts (./protocolStreams.ts).
import { matchesSubscription } from '@langchain/langgraph/stream';
import type { Namespace } from '@langchain/langgraph/stream';
import { sseFrame } from '../../../platform/http/sse.ts';

/** An event on the wire: `{type:"event", event_id, seq, method, params:{namespace, timestamp, node?, data}}`. */
export interface WireEvent {
  type: 'event';
  event_id: string;
  seq: number;
  method: string;
  params: { namespace: Namespace; timestamp: number; node?: string; data: unknown; [key: string]: unknown };
}

/** An event as logged: with its SSE frame, encoded once however many subscribers it goes to. */
export interface LoggedEvent {
  event: WireEvent;
  frame: string;
}

/** A subscription's filter, as the stream route takes it. */
export interface Subscription {
  channels: string[];
  namespaces?: string[][];
  depth?: number;
  since?: number;
}

export type RunStatus = 'running' | 'completed' | 'failed' | 'interrupted';

export class RunLog {
  readonly runId: string;
  readonly startedAt = Date.now();
  #events: LoggedEvent[] = [];
  #dropped = 0;
  #status: RunStatus = 'running';
  #wake: (() => void)[] = [];
  readonly #maxEvents: number;

  constructor(runId: string, maxEvents: number) {
    this.runId = runId;
    this.#maxEvents = maxEvents;
  }

  get status(): RunStatus {
    return this.#status;
  }

  get finished(): boolean {
    return this.#status !== 'running';
  }

  /** Events dropped from the front of the log so far (over the bound). */
  get dropped(): number {
    return this.#dropped;
  }

  get size(): number {
    return this.#events.length;
  }

  push(event: WireEvent): void {
    this.#events.push({
      event,
      frame: sseFrame({ event: event.method, id: event.event_id, data: JSON.stringify(event) }),
    });
    // Trim in steps of a tenth of the bound, so a full log does not copy itself on every push.
    if (this.#events.length > this.#maxEvents) {
      const excess = this.#events.length - this.#maxEvents + Math.floor(this.#maxEvents / 10);
      this.#events.splice(0, excess);
      this.#dropped += excess;
    }
    this.#notify();
  }

  finish(status: Exclude<RunStatus, 'running'>): void {
    if (this.finished) return;
    this.#status = status;
    this.#notify();
  }

  /** The events after `seq` (all when undefined), in order. */
  after(seq: number | undefined): LoggedEvent[] {
    if (seq === undefined) return this.#events.slice();
    let lo = 0;
    let hi = this.#events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#events[mid]!.event.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return this.#events.slice(lo);
  }

  /** Resolves at the next push or at the end of the run, or when `signal` aborts. */
  changed(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.#wake.push(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /**
   * Every event of this run that matches `subscription` and comes after `since`: first those
   * already logged, then each as it arrives; ends when the run has finished and all are read.
   */
  async *follow(subscription: Subscription, signal: AbortSignal): AsyncGenerator<LoggedEvent> {
    let cursor = subscription.since;
    while (!signal.aborted) {
      const batch = this.after(cursor);
      for (const logged of batch) {
        cursor = logged.event.seq;
        if (matchesSubscription(logged.event as never, subscription as never)) yield logged;
        if (signal.aborted) return;
      }
      if (batch.length === 0) {
        if (this.finished) return;
        await this.changed(signal);
      }
    }
  }

  #notify(): void {
    const waiting = this.#wake;
    this.#wake = [];
    for (const wake of waiting) wake();
  }
}
