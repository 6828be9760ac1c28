// The agent streaming protocol's events in this process: each protocol run's events, produced
// where the run executes (the run manager hands its graph here: `stream`), kept per thread in a
// bounded log (./runLog.ts), and the subscriptions that read them.
//
// A subscription follows one run: the thread's running run, or, when none is running, the next
// one to start (after replaying the events of the last finished run, which a client that
// reconnects after a run has ended has perhaps not seen). It ends when that run has ended and
// every matching event has been sent, or when the client goes away; the client reconnects for
// the next run, as `@langchain/react`'s transport does.
//
// Replicas: a run's events live in the replica that executes it. That replica announces the run
// to the others (./replicaAnnouncer.ts), so that a subscription on another replica follows it
// there (through `Reach.relay`: the owner's own stream of that run, ./remoteRunEvents.ts).
//
// `seq` grows along a thread, across runs, restarts and replicas: each event's is the larger of
// the thread's previous seq plus one and the time in microseconds (replicas learn a run's last
// seq when it ends).
import type { ThreadKey } from '../../../platform/workspaceThreads.ts';
import { storedThreadId } from '../../../platform/workspaceThreads.ts';
import type { Logger } from '../../../platform/logger.ts';
import { ProtocolEventTranslator, type RawProtocolEvent } from './protocolEvents.ts';
import type { Announcement, ReplicaAnnouncer } from './replicaAnnouncer.ts';
import { RunLog, type Subscription } from './runLog.ts';

/** An event as a subscription sends it: its SSE frame (encoded once), and its seq. */
export interface OutgoingFrame {
  frame: string;
  seq: number;
}

/** A run of the thread that another replica executes, as its announcements tell. */
export interface RemoteRun {
  kind: 'remote';
  runId: string;
  /** Where that replica is reached. */
  url: string;
  ended: boolean;
}
type LocalRun = { kind: 'local'; runId: string; log: RunLog };
type ThreadRun = LocalRun | RemoteRun;

const finished = (run: ThreadRun) => (run.kind === 'local' ? run.log.finished : run.ended);

/** What a subscription may reach beyond this process's memory. */
export interface Reach {
  /** Whether the caller may see the run (its record is there and the caller's scope sees its thread). */
  visible(runId: string): Promise<boolean>;
  /** The events of a run another replica executes; none when absent (one process). */
  relay?(run: RemoteRun, subscription: Subscription, signal: AbortSignal): AsyncIterable<OutgoingFrame>;
}

/** What the run manager hands over to stream a protocol run (runs/runManager.ts). */
export interface ProtocolRun {
  thread: ThreadKey;
  runId: string;
  /** The graph's id, named by the root's lifecycle events. */
  graphName: string;
  /** Where this replica is reached, when it shares its run queue with others. */
  replicaUrl: string | undefined;
}

/** The run manager's side: streams a run's graph as protocol events; resolves with the root's last values. */
export interface ProtocolRunner {
  stream(run: ProtocolRun, graph: unknown, input: unknown, options: Record<string, unknown>): Promise<unknown>;
}

/** A graph that streams protocol events: LangGraph's `streamEvents(…, {version: "v3"})`. */
type ProtocolGraph = {
  streamEvents(input: unknown, options: Record<string, unknown>): Promise<AsyncIterable<RawProtocolEvent>>;
};

export interface ProtocolStreamsOptions {
  logger: Logger;
  /** At most this many events of a run are kept for replay (the oldest go first). */
  maxEventsPerRun: number;
  /** A finished run's events stay replayable this long (unless the thread's next run starts first). */
  finishedTtlMs: number;
  /** Tells other replicas of the runs executed here, and this one of theirs; absent with one process. */
  announcer?: ReplicaAnnouncer;
}

/** How long another replica's run is remembered when its end is never announced (its replica died). */
const REMOTE_RUN_LIMIT_MS = 6 * 3600_000;

class ThreadSession {
  readonly key: ThreadKey;
  current: ThreadRun | undefined;
  /** The newest seq of the thread known here. */
  lastSeq = 0;
  subscribers = 0;
  readonly closed = new AbortController();
  #nextRunWaiters: (() => void)[] = [];
  #releaseTimer: NodeJS.Timeout | undefined;
  /** Called when the session holds nothing any more (no run, no subscriber): the registry forgets it. */
  readonly #onIdle: (session: ThreadSession) => void;

  constructor(key: ThreadKey, onIdle: (session: ThreadSession) => void) {
    this.key = key;
    this.#onIdle = onIdle;
  }

  nextSeq(): number {
    this.lastSeq = Math.max(this.lastSeq + 1, Date.now() * 1000);
    return this.lastSeq;
  }

  begin(run: ThreadRun): void {
    clearTimeout(this.#releaseTimer);
    this.current = run;
    if (run.kind === 'remote') this.#releaseAfter(run, REMOTE_RUN_LIMIT_MS);
    const waiting = this.#nextRunWaiters;
    this.#nextRunWaiters = [];
    for (const wake of waiting) wake();
  }

  /** The run has ended: its events stay for `ttlMs`, unless the next run replaces them first. */
  ended(run: ThreadRun, ttlMs: number): void {
    if (this.current !== run) return;
    this.#releaseAfter(run, ttlMs);
  }

  #releaseAfter(run: ThreadRun, ms: number): void {
    clearTimeout(this.#releaseTimer);
    this.#releaseTimer = setTimeout(() => {
      if (this.current !== run) return;
      this.current = undefined;
      this.idleCheck();
    }, ms);
    this.#releaseTimer.unref();
  }

  idleCheck(): void {
    if (this.subscribers === 0 && this.current === undefined) this.#onIdle(this);
  }

  /** Resolves once a run other than `after` has begun (undefined if `signal` aborts first). */
  nextRun(after: ThreadRun | undefined, signal: AbortSignal): Promise<ThreadRun | undefined> {
    return new Promise((resolve) => {
      const check = () => {
        if (this.current && this.current !== after) return resolve(this.current);
        if (signal.aborted) return resolve(undefined);
        this.#nextRunWaiters.push(check);
      };
      signal.addEventListener('abort', () => resolve(undefined), { once: true });
      check();
    });
  }

  close(): void {
    clearTimeout(this.#releaseTimer);
    this.closed.abort();
  }
}

export class ProtocolStreams implements ProtocolRunner {
  readonly #sessions = new Map<string, ThreadSession>();
  readonly #options: ProtocolStreamsOptions;

  constructor(options: ProtocolStreamsOptions) {
    this.#options = options;
    options.announcer?.listen((announcement) => this.#heard(announcement));
  }

  #session(key: ThreadKey): ThreadSession {
    const id = storedThreadId(key);
    let session = this.#sessions.get(id);
    if (!session) {
      // A thread whose run has been released and that nobody follows costs nothing to forget
      // (its next session numbers events from a later time, so seq keeps growing).
      session = new ThreadSession(key, (idle) => {
        if (this.#sessions.get(id) === idle) this.#sessions.delete(id);
      });
      this.#sessions.set(id, session);
    }
    return session;
  }

  /** The newest seq of the thread known here (0: none): what a command's answer was applied through. */
  lastSeq(thread: ThreadKey): number {
    return this.#sessions.get(storedThreadId(thread))?.lastSeq ?? 0;
  }

  /** The number of threads held in memory (tests). */
  get size(): number {
    return this.#sessions.size;
  }

  async stream(run: ProtocolRun, graph: unknown, input: unknown, options: Record<string, unknown>): Promise<unknown> {
    const { logger, maxEventsPerRun, finishedTtlMs, announcer } = this.#options;
    const session = this.#session(run.thread);
    const log = new RunLog(run.runId, maxEventsPerRun);
    const current: LocalRun = { kind: 'local', runId: run.runId, log };
    session.begin(current);
    if (run.replicaUrl)
      announcer?.announce({ kind: 'started', thread: run.thread, runId: run.runId, url: run.replicaUrl });
    const translator = new ProtocolEventTranslator(run.runId, run.graphName, () => session.nextSeq());
    const signal = options.signal as AbortSignal | undefined;
    try {
      const streamEvents = (graph as Partial<ProtocolGraph>).streamEvents;
      if (typeof streamEvents !== 'function')
        throw new Error(`graph "${run.graphName}" cannot stream protocol events: it has no streamEvents`);
      // Only what is set: an option given as undefined would override the graph's own (its recursion limit).
      const defined = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
      const stream = await streamEvents.call(graph, input, { ...defined, version: 'v3' });
      for await (const raw of stream) for (const event of translator.translate(raw)) log.push(event);
      return translator.lastValues;
    } catch (err) {
      // A failure the graph's stream did not report itself still reaches the client: a root `failed`.
      if (translator.terminal === undefined) {
        const message = signal?.aborted
          ? `the run was cancelled: ${(signal.reason as Error | undefined)?.message ?? 'aborted'}`
          : (err as Error).message;
        log.push(translator.failed(message));
      }
      if (!signal?.aborted)
        logger.debug({ err, thread_id: run.thread.threadId, run_id: run.runId }, 'protocol run failed');
      throw err;
    } finally {
      log.finish(translator.terminal ?? 'completed');
      session.ended(current, finishedTtlMs);
      if (run.replicaUrl)
        announcer?.announce({
          kind: 'ended',
          thread: run.thread,
          runId: run.runId,
          url: run.replicaUrl,
          lastSeq: session.lastSeq,
        });
    }
  }

  /** Another replica's run began or ended. */
  #heard(announcement: Announcement): void {
    if (announcement.kind === 'started') {
      const session = this.#session(announcement.thread);
      session.begin({ kind: 'remote', runId: announcement.runId, url: announcement.url, ended: false });
      return;
    }
    const session = this.#session(announcement.thread);
    session.lastSeq = Math.max(session.lastSeq, announcement.lastSeq);
    let run = session.current;
    // A run whose start went unheard (this server started after it) is known from its end, unless
    // a newer run is known already (notices of two servers may arrive in either order).
    if (run === undefined) {
      run = { kind: 'remote', runId: announcement.runId, url: announcement.url, ended: true };
      session.begin(run);
    }
    if (run.kind === 'remote' && run.runId === announcement.runId) {
      run.ended = true;
      session.ended(run, this.#options.finishedTtlMs);
    } else session.idleCheck();
  }

  /** The events of the run this subscription follows (see the top of this file). */
  async *follow(
    thread: ThreadKey,
    subscription: Subscription,
    signal: AbortSignal,
    reach: Reach,
  ): AsyncGenerator<OutgoingFrame> {
    const session = this.#session(thread);
    const stop = AbortSignal.any([signal, session.closed.signal]);
    session.subscribers += 1;
    try {
      let run = session.current;
      if (!run || finished(run)) {
        if (run && (await reach.visible(run.runId))) yield* this.#events(run, subscription, stop, reach);
        run = await session.nextRun(run, stop);
        if (!run) return;
      }
      if (await reach.visible(run.runId)) yield* this.#events(run, subscription, stop, reach);
    } finally {
      session.subscribers -= 1;
      session.idleCheck();
    }
  }

  /** The events of one run executed here (what another replica relays); none when it is not here. */
  async *followRun(
    thread: ThreadKey,
    runId: string,
    subscription: Subscription,
    signal: AbortSignal,
  ): AsyncGenerator<OutgoingFrame> {
    const run = this.#sessions.get(storedThreadId(thread))?.current;
    if (run?.kind !== 'local' || run.runId !== runId) return;
    yield* this.#events(run, subscription, signal, { visible: async () => true });
  }

  async *#events(run: ThreadRun, subscription: Subscription, signal: AbortSignal, reach: Reach) {
    if (run.kind === 'remote') {
      if (reach.relay) yield* reach.relay(run, subscription, signal);
      return;
    }
    for await (const { event, frame } of run.log.follow(subscription, signal)) yield { frame, seq: event.seq };
  }

  /** Ends the thread's subscriptions and forgets its events (the thread is deleted; its runs are cancelled by the run manager). */
  forget(thread: ThreadKey): void {
    const id = storedThreadId(thread);
    this.#sessions.get(id)?.close();
    this.#sessions.delete(id);
  }

  async close(): Promise<void> {
    for (const session of this.#sessions.values()) session.close();
    this.#sessions.clear();
    await this.#options.announcer?.close();
  }
}
