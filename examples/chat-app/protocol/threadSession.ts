// The agent streaming protocol's per-thread session, process-local: it starts runs of the agent
// (`run.start`), numbers their events (`seq`, `event_id`), keeps the current run's events in a
// bounded log (./runLog.ts) and serves subscriptions over it.
//
// A subscription follows one run: the thread's running run, or, when none is running, the next
// one to start (after replaying the events of the last finished run, which a client that
// reconnects after a run has ended has perhaps not seen). It ends when that run has finished and
// every matching event has been sent, or when the client goes away or the thread is deleted.
import { BaseMessage } from '@langchain/core/messages';
import type { Logger } from '../../../platform/logger.ts';
import { storedThreadId, type ThreadKey } from '../threadKey.ts';
import type { RunTracer } from '../runTracing.ts';
import { RunLog, type LoggedEvent, type Subscription, type WireEvent } from './runLog.ts';
import { ToolCallDeltaRewriter } from './toolCallDeltas.ts';

/** What the session needs of the agent: LangGraph's protocol event stream (`streamEvents` v3). */
export interface ProtocolGraph {
  streamEvents(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<RawProtocolEvent>>;
}

interface RawProtocolEvent {
  method: string;
  params: { namespace: string[]; timestamp?: number; node?: string; data: unknown; [key: string]: unknown };
  [key: string]: unknown;
}

export interface RunRequest {
  input: unknown;
  config?: { configurable?: Record<string, unknown>; recursion_limit?: number; tags?: string[] };
  metadata?: Record<string, unknown>;
  /** Where the run is traced, on behalf of its caller (../runTracing.ts); not traced without. */
  tracer?: RunTracer;
}

export class ThreadBusyError extends Error {
  constructor(threadId: string, runId: string) {
    super(
      `thread ${threadId} already has a run in progress (run_id ${runId}); wait for it to finish, then start the next`,
    );
  }
}

/**
 * Replaces LangChain message instances (in `values`, `updates`, tool outputs) with the plain,
 * role-keyed dicts the clients read; other class instances by their JSON form. With `thread`,
 * the thread's stored id (which LangGraph copies into checkpoint configs and metadata) becomes
 * the id the client chose: no answer names the workspace a thread is kept under.
 */
export function plainJson(value: unknown, thread?: ThreadKey): unknown {
  return toPlain(value, thread ? { stored: storedThreadId(thread), shown: thread.threadId } : undefined);
}

function toPlain(value: unknown, rename: { stored: string; shown: string } | undefined): unknown {
  if (BaseMessage.isInstance(value)) {
    const { type, data } = value.toDict();
    return toPlain({ ...data, type }, rename);
  }
  if (Array.isArray(value)) return value.map((item) => toPlain(item, rename));
  if (value !== null && typeof value === 'object') {
    const json = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof json === 'function' && !(value instanceof Date)) {
      const converted = json.call(value);
      if (converted !== value) return toPlain(converted, rename);
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = toPlain(item, rename);
    return out;
  }
  return rename && value === rename.stored ? rename.shown : value;
}

export interface SessionOptions {
  graph: ProtocolGraph;
  logger: Logger;
  maxEventsPerRun: number;
  /** A finished run's log is released this long after its end. */
  finishedTtlMs: number;
  /** Named on every traced run (the tracing API groups a conversation by `thread_id`). */
  graphName: string;
}

export class ThreadSession {
  /** The thread's id as the client chose it (in its workspace). */
  readonly threadId: string;
  readonly #key: ThreadKey;
  /** Its id in the checkpointer: the workspace's and the client's. */
  readonly #storedId: string;
  readonly #options: SessionOptions;
  /** Thread-wide and increasing across runs and restarts: microseconds since the epoch at the session's start, then +1 per event. */
  #nextSeq = Date.now() * 1000;
  #current: RunLog | undefined;
  #abort: AbortController | undefined;
  #running: Promise<void> | undefined;
  #nextRunWaiters: (() => void)[] = [];
  #releaseTimer: NodeJS.Timeout | undefined;
  #subscribers = 0;
  /** Called when the session holds nothing any more (no run log, no subscriber): the registry forgets it. */
  onIdle: ((session: ThreadSession) => void) | undefined;
  #closed = new AbortController();

  constructor(key: ThreadKey, options: SessionOptions) {
    this.threadId = key.threadId;
    this.#key = key;
    this.#storedId = storedThreadId(key);
    this.#options = options;
  }

  get currentRun(): RunLog | undefined {
    return this.#current;
  }

  /** Starts a run in the background and returns its id; refuses while one is running. */
  startRun(request: RunRequest): string {
    if (this.#current && !this.#current.finished) throw new ThreadBusyError(this.threadId, this.#current.runId);
    const runId = crypto.randomUUID();
    clearTimeout(this.#releaseTimer);
    const log = new RunLog(runId, this.#options.maxEventsPerRun);
    this.#current = log;
    this.#abort = new AbortController();
    this.#running = this.#execute(log, request, this.#abort.signal);
    const waiting = this.#nextRunWaiters;
    this.#nextRunWaiters = [];
    for (const wake of waiting) wake();
    return runId;
  }

  /** The events of the run this subscription follows (see the top of this file). */
  async *subscribe(subscription: Subscription, signal: AbortSignal): AsyncGenerator<LoggedEvent> {
    const stop = AbortSignal.any([signal, this.#closed.signal]);
    this.#subscribers += 1;
    try {
      let run = this.#current;
      if (!run || run.finished) {
        if (run) yield* run.follow(subscription, stop);
        run = await this.#nextRun(run, stop);
        if (!run) return;
      }
      yield* run.follow(subscription, stop);
    } finally {
      this.#subscribers -= 1;
      this.#idleCheck();
    }
  }

  #idleCheck(): void {
    if (this.#subscribers === 0 && this.#current === undefined) this.onIdle?.(this);
  }

  /** Resolves once a run other than `after` has started (undefined if `signal` aborts first). */
  #nextRun(after: RunLog | undefined, signal: AbortSignal): Promise<RunLog | undefined> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.#current !== after && this.#current) return resolve(this.#current);
        if (signal.aborted) return resolve(undefined);
        this.#nextRunWaiters.push(check);
      };
      signal.addEventListener('abort', () => resolve(undefined), { once: true });
      check();
    });
  }

  /** Stops the running run (if any), ends every subscription, and waits for the run to wind down. */
  async close(): Promise<void> {
    this.#closed.abort();
    this.#abort?.abort(new Error('the thread was deleted'));
    clearTimeout(this.#releaseTimer);
    await this.#running;
  }

  #publish(log: RunLog, raw: RawProtocolEvent, deltas?: ToolCallDeltaRewriter): WireEvent {
    const seq = this.#nextSeq++;
    const namespace = raw.params.namespace ?? [];
    const data = plainJson(raw.params.data, this.#key);
    const event: WireEvent = {
      type: 'event',
      event_id: `${log.runId}.${seq}`,
      seq,
      method: raw.method,
      params: {
        ...raw.params,
        namespace,
        timestamp: raw.params.timestamp ?? Date.now(),
        data: deltas ? deltas.rewrite(raw.method, namespace, raw.params.node, data) : data,
      },
    };
    log.push(event);
    return event;
  }

  async #execute(log: RunLog, request: RunRequest, signal: AbortSignal): Promise<void> {
    const { graph, logger, graphName } = this.#options;
    let terminal: 'completed' | 'failed' | 'interrupted' | undefined;
    try {
      const stream = await graph.streamEvents(request.input, {
        version: 'v3',
        configurable: { ...request.config?.configurable, thread_id: this.#storedId },
        ...(request.config?.recursion_limit ? { recursionLimit: request.config.recursion_limit } : {}),
        tags: request.config?.tags,
        // The traced root run has the protocol's run id, in the thread of this chat thread.
        runId: log.runId,
        runName: graphName,
        metadata: { ...request.metadata, thread_id: this.threadId, run_id: log.runId },
        ...(request.tracer ? { callbacks: request.tracer.callbacks } : {}),
        signal,
      });
      const deltas = new ToolCallDeltaRewriter();
      for await (const raw of stream) {
        const event = this.#publish(log, raw, deltas);
        if (event.method === 'lifecycle' && event.params.namespace.length === 0) {
          const state = (event.params.data as { event?: string }).event;
          if (state === 'completed' || state === 'failed' || state === 'interrupted') terminal = state;
        }
      }
      terminal ??= 'completed';
    } catch (err) {
      const message = signal.aborted
        ? `the run was cancelled: ${(signal.reason as Error)?.message ?? 'aborted'}`
        : (err as Error).message;
      if (!signal.aborted) logger.warn({ err, threadId: this.threadId, runId: log.runId }, 'run failed');
      // A failure the graph's stream did not report itself still reaches the client: a root `failed`.
      if (terminal === undefined)
        this.#publish(log, {
          method: 'lifecycle',
          params: {
            namespace: [],
            timestamp: Date.now(),
            data: { event: 'failed', graph_name: graphName, error: message },
          },
        });
      terminal = 'failed';
    } finally {
      log.finish(terminal ?? 'failed');
      request.tracer
        ?.flush()
        .catch((err: unknown) =>
          logger.warn({ err, threadId: this.threadId, runId: log.runId }, 'the run could not be traced'),
        );
      // Release the finished log after the TTL, unless the next run has replaced it by then.
      this.#releaseTimer = setTimeout(() => {
        if (this.#current !== log) return;
        this.#current = undefined;
        this.#idleCheck();
      }, this.#options.finishedTtlMs);
      this.#releaseTimer.unref();
    }
  }
}

/** Every thread's session in this process, made on first use; each workspace's apart. */
export class SessionRegistry {
  readonly #sessions = new Map<string, ThreadSession>();
  readonly #options: SessionOptions;

  constructor(options: SessionOptions) {
    this.#options = options;
  }

  get(key: ThreadKey): ThreadSession {
    const id = storedThreadId(key);
    let session = this.#sessions.get(id);
    if (!session) {
      session = new ThreadSession(key, this.#options);
      // A thread whose run log has been released and that nobody follows costs nothing to forget
      // (its next session numbers events from a later time, so `seq` keeps growing).
      session.onIdle = (idle) => {
        if (this.#sessions.get(id) === idle) this.#sessions.delete(id);
      };
      this.#sessions.set(id, session);
    }
    return session;
  }

  peek(key: ThreadKey): ThreadSession | undefined {
    return this.#sessions.get(storedThreadId(key));
  }

  /** Ends the thread's session: its run is cancelled and its streams end. */
  async delete(key: ThreadKey): Promise<void> {
    await this.#end(storedThreadId(key));
  }

  async #end(id: string): Promise<void> {
    const session = this.#sessions.get(id);
    this.#sessions.delete(id);
    await session?.close();
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.#sessions.keys()].map((id) => this.#end(id)));
  }
}
