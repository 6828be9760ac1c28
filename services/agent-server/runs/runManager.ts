// Creates and executes runs. One run at a time per thread: a run on a busy thread is rejected
// unless the request asks for another multitask strategy (enqueue after, or interrupt / roll
// back the current one); the run queue (runQueue.ts) keeps that order, in this process or, for
// replicas sharing PostgreSQL, in the database. Each run streams its graph once, in the process
// that executes it; what it yields is kept as stream events on the ActiveRun, which /stream,
// /wait and /join read there. A replica that did not execute a run follows it through the queue
// (its end, its replica's address for a stream) and cancels it through the queue.
import { v4 as uuidv4, v7 as uuidv7 } from 'uuid';
import { Command } from '@langchain/langgraph';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import type { Logger } from '../../../platform/logger.ts';
import { errors } from '../../../platform/errors.ts';
import {
  storedThreadId,
  threadConfig,
  type ThreadKey,
  type WorkspaceCheckpointer,
} from '../../../platform/workspaceThreads.ts';
import type { GraphRegistry, RegisteredGraph, ServableGraph } from '../graphRegistry.ts';
import { Assistants } from '../assistants/assistants.ts';
import { MemoryAssistantStore } from '../assistants/assistantStore.ts';
import type { AgentRecordStore, RunRecord, RunStatus, ThreadRecord } from '../store/agentRecords.ts';
import { toWireValue } from '../wireJson.ts';
import { ANONYMOUS, authConfigurable } from '../auth/customAuth.ts';
import type { Caller } from '../auth/callers.ts';
import { ActiveRun, type CancelAction, type RunAssistant, type RunOutcome, type RunTracer } from './activeRun.ts';
import { LocalRunQueue, type RunQueue } from './runQueue.ts';
import { KeyedWaiters } from './keyedWaiters.ts';
import type { PostgresRunQueue, RunWork, SharedRunExecutor } from './postgresRunQueue.ts';
import { durabilityOf, PROTOCOL_STREAM_MODE, streamModesOf, type RunCreateBody } from './runBody.ts';
import { libraryStreamModes, RunEventTranslator } from './runEvents.ts';
import { newThreadRecord } from '../threads/threadRecords.ts';
import type { TemporaryThreadCheckpointer } from '../store/temporaryThreads.ts';
import type { LongTermStore } from '../longTermStore/store.ts';
import { WorkspaceStore } from '../longTermStore/workspaceStore.ts';
import type { ProtocolRunner } from '../protocol/protocolStreams.ts';
import type { FeedbackTokens } from './runFeedback.ts';
import type { RunWebhooks } from './runWebhooks.ts';

/** One event of LangChain's streamEvents v2: `{event, name, run_id, tags, metadata, data, parent_ids}`. */
interface StreamEventLike {
  event: string;
  run_id: string;
  tags?: string[];
  data?: { chunk?: unknown };
}
/** A compiled LangGraph graph has streamEvents (stream mode `events`). */
type EventsGraph = ServableGraph & {
  streamEvents?(input: unknown, options: Record<string, unknown>): AsyncIterable<StreamEventLike>;
};

/** How long a finished run's events stay joinable. */
const FINISHED_RUN_RETENTION_MS = 60_000;

export interface RunManagerDeps {
  graphs: GraphRegistry;
  /** The assistants runs start on (the config file's and the workspaces' own); the config file's only when absent. */
  assistants?: Assistants;
  store: AgentRecordStore;
  checkpointer: WorkspaceCheckpointer;
  /** Where stateless runs' threads are held in memory, when checkpoints are durable. */
  temporaryThreads?: TemporaryThreadCheckpointer;
  /** The long-term store; each run gets it scoped to its workspace (LangGraph's `store`). */
  longTermStore?: LongTermStore;
  logger: Logger;
  /** The run queue shared with other replicas (PostgreSQL); a queue in this process when absent. */
  sharedQueue?: (executor: SharedRunExecutor) => PostgresRunQueue;
  /** Streams the runs the agent streaming protocol starts (protocol/protocolStreams.ts). */
  protocol?: ProtocolRunner;
  /** Token URLs for `feedback_keys` (runFeedback.ts); absent when runs are not traced. */
  feedbackTokens?: FeedbackTokens;
  /** Runs' `webhook` calls (runWebhooks.ts); absent: not called. */
  webhooks?: RunWebhooks;
}

export interface CreateOptions {
  /**
   * Created in the background (POST /runs, /runs/batch): nobody has its events yet, so a stateless
   * one stays joinable (GET /runs/{id}/stream) a while after it ends, as runs on threads do.
   */
  background?: boolean;
  /** Where the run is traced on its caller's behalf (an app that traces with each caller's key). */
  tracer?: RunTracer;
}

function nowIso(): string {
  return new Date().toISOString();
}

/** The assistant's tags, then the run's. */
function mergedTags(assistant: string[] | undefined, run: string[] | undefined): string[] | undefined {
  return assistant?.length ? [...new Set([...assistant, ...(run ?? [])])] : (run ?? undefined);
}

/** The assistant's context, with the run's keys over it. */
function mergedContext(assistant: Record<string, unknown>, run: Record<string, unknown> | null | undefined) {
  const merged = { ...assistant, ...run };
  return Object.keys(merged).length > 0 ? merged : undefined;
}

function errorPayload(err: unknown): { error: string; message: string } {
  return err instanceof Error
    ? { error: err.name, message: err.message }
    : { error: 'Error', message: JSON.stringify(err) };
}

/**
 * Whether a run has ended or is ending: its end is being recorded (its status is final from the
 * moment it ends, `done` once the record is written). Its end is visible to other replicas when
 * the record commits, before this process has read the commit's answer: a cancel that arrives
 * here meanwhile (a client whose join, answered by another replica, ended) is refused like any
 * cancel of an ended run, not taken for a cancel of a running one.
 */
const isEnding = (run: ActiveRun): boolean =>
  run.done || (run.record.status !== 'pending' && run.record.status !== 'running');

export class RunManager implements SharedRunExecutor {
  private readonly deps: RunManagerDeps;
  /** Runs created or executed here: queued, running, or finished within the retention time, by run id. */
  private readonly runs = new Map<string, ActiveRun>();
  /** Waiting for runs this server claimed to be taken in here: see claimedHere. */
  private readonly claims = new KeyedWaiters<void>();
  private readonly queue: RunQueue;
  private readonly shared: PostgresRunQueue | undefined;
  /** Thread streams here waiting for their threads' next runs, by stored thread id. */
  private readonly threadWatchers = new Map<string, Set<(runId: string) => void>>();
  /** Resolves in the current event-loop turn's check phase: see nextTurn. */
  private turn: Promise<void> | undefined;
  private opened = false;

  private readonly assistants: Assistants;

  constructor(deps: RunManagerDeps) {
    this.deps = deps;
    this.assistants = deps.assistants ?? new Assistants(deps.graphs, new MemoryAssistantStore());
    this.shared = deps.sharedQueue?.(this);
    this.queue = this.shared ?? new LocalRunQueue(deps.store, this);
  }

  /** Once the server listens at `url` (where other replicas reach it): takes work from the shared queue. */
  async open(url: string): Promise<void> {
    await this.shared?.open(url);
    this.opened = true;
  }

  /** Ready for work: with a shared queue, once open. */
  get ready(): boolean {
    return !this.shared || this.opened;
  }

  /** Stops taking work from the shared queue; runs still running here are failed there. */
  async close(): Promise<void> {
    await this.queue.close();
  }

  /** This replica's address, when it shares its queue. */
  get url(): string | undefined {
    return this.shared?.url;
  }

  /**
   * The assistant a run starts on, in the caller's workspace, as it is now (a stored assistant's
   * pinned version): what the run keeps, so any replica executes it the same.
   */
  async assistantFor(workspaceId: string, assistantId: string): Promise<RunAssistant> {
    const found = await this.assistants.find(workspaceId, assistantId);
    if (!found) throw errors.notFound(`assistant "${assistantId}"`);
    const { assistant, registered } = found;
    if (!registered)
      throw errors.validation(
        `assistant_id: assistant "${assistantId}" runs graph "${assistant.graph_id}", which this server does not serve`,
      );
    return {
      assistant_id: assistant.assistant_id,
      graph_id: assistant.graph_id,
      name: assistant.name,
      config: assistant.config,
      context: assistant.context,
    };
  }

  /** The graph a run executes: its assistant's. */
  private graphOf(run: ActiveRun): RegisteredGraph {
    const registered = this.deps.graphs.find(run.assistant?.graph_id ?? run.record.assistant_id);
    if (!registered) throw errors.notFound(`graph of assistant "${run.record.assistant_id}"`);
    return registered;
  }

  /**
   * Creates a run on `threadId`, or on a new temporary thread when none is given (stateless runs),
   * in the caller's workspace (thread ids are per workspace: another workspace's thread of that id
   * is not this one). A thread of the workspace the auth module's filter hides is a 404, also with
   * if_not_exists "create" (its id is taken). The auth module may stamp the run's metadata, which a
   * thread the run creates takes too (as on the LangGraph server). `local.tracer` traces the run
   * (when it executes here) on the caller's behalf.
   */
  async create(
    threadId: string | undefined,
    body: RunCreateBody,
    caller: Caller,
    options: CreateOptions = {},
  ): Promise<ActiveRun> {
    const assistant = await this.assistantFor(caller.workspaceId, body.assistant_id);
    const { store } = this.deps;
    if (body.webhook != null) await this.deps.webhooks?.check(body.webhook);
    const temporary = threadId === undefined;
    const tid = threadId ?? uuidv4();
    const runId = uuidv7();
    const strategy = body.multitask_strategy ?? 'reject';
    const ifNotExists = body.if_not_exists ?? 'reject';
    const kwargs = {
      input: body.input ?? null,
      command: body.command ?? null,
      config: body.config ?? {},
      context: body.context ?? {},
      stream_mode: streamModesOf(body),
      interrupt_before: body.interrupt_before ?? null,
      interrupt_after: body.interrupt_after ?? null,
      subgraphs: body.stream_subgraphs ?? false,
      temporary,
    };
    const value = {
      thread_id: threadId,
      assistant_id: assistant.assistant_id,
      run_id: runId,
      status: 'pending' as const,
      metadata: body.metadata ?? {},
      multitask_strategy: strategy,
      if_not_exists: ifNotExists,
      after_seconds: body.after_seconds ?? 0,
      kwargs,
    };
    const scope = await caller.scope('threads:create_run', value);
    const metadata = value.metadata ?? {};
    let thread: ThreadRecord | undefined = temporary ? undefined : await store.getThread(scope, tid);
    if (!thread) {
      if (!temporary && ifNotExists !== 'create') throw errors.notFound(`thread ${tid}`);
      thread = await store.createThread(scope.workspaceId, newThreadRecord(tid, { ...metadata }));
      thread ??= await store.getThread(scope, tid); // created by a concurrent request
      if (!thread) throw errors.notFound(`thread ${tid}`);
    }

    const now = nowIso();
    const record: RunRecord = {
      run_id: runId,
      thread_id: tid,
      assistant_id: assistant.assistant_id,
      created_at: now,
      updated_at: now,
      status: 'pending',
      metadata,
      kwargs,
      multitask_strategy: strategy,
    };
    const run = new ActiveRun(
      record,
      { ...body, metadata },
      streamModesOf(body),
      { workspaceId: scope.workspaceId, auth: caller.auth },
      temporary && body.on_completion !== 'keep',
      assistant,
    );
    run.tracer = options.tracer;
    run.joinableWhenDone = !run.temporaryThread || options.background === true;
    this.runs.set(runId, run);
    try {
      await this.queue.admit(run, strategy, {
        status: 'busy',
        updated_at: now,
        metadata: { ...thread.metadata, graph_id: assistant.graph_id, assistant_id: assistant.assistant_id },
      });
    } catch (err) {
      this.runs.delete(runId);
      throw err;
    }
    // Queued in the shared queue: any replica may claim it; this one learns who, and how it ends.
    if (this.shared && !run.started) void this.followQueued(run);
    if (!temporary) this.threadRunCreated(run.thread, runId);
    return run;
  }

  /**
   * Calls `onRun` with the id of each run created on the thread from now on, here or (with a
   * shared queue) on any replica; the returned function stops it. A thread's stream follows its
   * runs with this.
   */
  async watchThread(thread: ThreadKey, onRun: (runId: string) => void): Promise<() => Promise<void>> {
    const key = storedThreadId(thread);
    let watchers = this.threadWatchers.get(key);
    if (!watchers) this.threadWatchers.set(key, (watchers = new Set()));
    watchers.add(onRun);
    if (watchers.size === 1) await this.shared?.watchThread(thread);
    return async () => {
      watchers.delete(onRun);
      if (watchers.size > 0 || this.threadWatchers.get(key) !== watchers) return;
      this.threadWatchers.delete(key);
      await this.shared?.unwatchThread(thread);
    };
  }

  /** A run was created on a thread (here, or on another replica: the shared queue's notice). */
  threadRunCreated(thread: ThreadKey, runId: string): void {
    const watchers = this.threadWatchers.get(storedThreadId(thread));
    if (watchers) for (const onRun of [...watchers]) onRun(runId);
  }

  /** The runs of a thread this server holds the events of (executing, queued, or finished a while ago). */
  heldOn(thread: ThreadKey): RunRecord[] {
    const held: RunRecord[] = [];
    for (const run of this.runs.values())
      if (run.workspaceId === thread.workspaceId && run.record.thread_id === thread.threadId) held.push(run.record);
    return held;
  }

  private async followQueued(run: ActiveRun): Promise<void> {
    const followed = await this.shared!.follow(run.record.run_id);
    if ('owner' in followed) run.ownerUrl = followed.owner;
    const outcome = await followed.ended;
    if (run.started || run.done) return; // claimed here: it ends here
    this.endFollowed(run, outcome);
  }

  private endFollowed(run: ActiveRun, outcome: RunOutcome | null): void {
    const ended = outcome ?? { status: 'interrupted' as const, values: null };
    run.record = { ...run.record, status: ended.status, updated_at: nowIso() };
    run.finish(ended);
    if (this.runs.get(run.record.run_id) === run) this.runs.delete(run.record.run_id);
  }

  /** A run created or executed here, if it is the workspace's. */
  get(runId: string, workspaceId: string): ActiveRun | undefined {
    const run = this.runs.get(runId);
    return run?.workspaceId === workspaceId ? run : undefined;
  }

  /**
   * A run to wait on or stream: the one here, or, with a shared queue, one that follows the run
   * where it executes (finished at once when it has ended). Undefined when it is not known here
   * and, with a shared queue, has no recorded end.
   */
  async follow(record: RunRecord, workspaceId: string): Promise<ActiveRun | undefined> {
    const here = this.runs.get(record.run_id);
    if (here || !this.shared) return here;
    const followed = await this.shared.follow(record.run_id);
    if ('owner' in followed && followed.owner === this.url) {
      const mine = await this.claimedHere(record.run_id, followed.ended);
      if (mine) return mine;
    }
    const run = new ActiveRun(
      { ...record },
      { assistant_id: record.assistant_id },
      [],
      { workspaceId, auth: ANONYMOUS },
      false,
    );
    if (!('owner' in followed)) {
      if (!followed.ended) return undefined;
      this.endFollowed(run, followed.ended);
      return run;
    }
    run.ownerUrl = followed.owner;
    void followed.ended.then((outcome) => this.endFollowed(run, outcome));
    return run;
  }

  /**
   * The run this server claimed from the queue, once taken in here. The claim's notice, and its
   * row, reach other replicas as the claim commits, so a stream one of them relays here can
   * arrive before the claim's answer has: it waits for it, not a stream of no events.
   * Undefined when the run ends first.
   */
  async claimedHere(runId: string, ended: Promise<unknown>): Promise<ActiveRun | undefined> {
    if (this.runs.has(runId)) return this.runs.get(runId);
    const gaveUp = new AbortController();
    await Promise.race([this.claims.wait(runId, gaveUp.signal), ended.catch(() => undefined)]);
    gaveUp.abort();
    return this.runs.get(runId);
  }

  /** A run of the workspace by its id alone: one here (queued, running, or finished a while ago), else one the shared queue records. */
  async locate(runId: string, workspaceId: string): Promise<RunRecord | undefined> {
    return this.get(runId, workspaceId)?.record ?? (await this.queue.locate(workspaceId, runId));
  }

  /** The workspace's unfinished runs in these statuses (of one thread, when given), wherever they run. */
  unfinishedIn(workspaceId: string, statuses: RunStatus[], threadId?: string): Promise<RunRecord[]> {
    return this.queue.unfinishedIn(workspaceId, statuses, threadId);
  }

  /** True when the run executes (or executed) here, so its events are here. */
  executesHere(run: ActiveRun): boolean {
    return !this.shared || run.started || run.done;
  }

  /** The address of the replica executing a run that does not execute here, once one claims it; undefined if it ends first. */
  async ownerOf(run: ActiveRun, signal: AbortSignal): Promise<string | undefined> {
    if (run.ownerUrl) return run.ownerUrl;
    if (!this.shared) return undefined;
    return Promise.race([this.shared.claimedBy(run.record.run_id, signal), run.outcome.then(() => undefined)]);
  }

  /** The thread's unfinished runs, the running one first. */
  unfinished(thread: ThreadKey): Promise<RunRecord[]> {
    return this.queue.unfinished(thread);
  }

  /** Cancels a run, wherever it runs; the run to wait on, or undefined when it is not pending or running. */
  async cancel(record: RunRecord, workspaceId: string, action: CancelAction): Promise<ActiveRun | undefined> {
    const here = this.runs.get(record.run_id);
    if (here && isEnding(here)) return undefined;
    if (here && this.executesHere(here)) {
      this.cancelHere(record.run_id, action);
      return here;
    }
    if (!this.shared) return undefined;
    const following = here ?? (await this.follow(record, workspaceId));
    if (!following || following.done || !(await this.shared.cancelElsewhere(record.run_id, action))) return undefined;
    return following;
  }

  /** Cancels a thread's runs and waits for them to end (before the thread is deleted). */
  async cancelThread(thread: ThreadKey): Promise<void> {
    const stopping: Promise<RunOutcome>[] = [];
    for (const record of await this.unfinished(thread)) {
      // one ending here is waited for too: its end is still being written
      const here = this.runs.get(record.run_id);
      const run = here && isEnding(here) ? here : await this.cancel(record, thread.workspaceId, 'interrupt');
      if (run) stopping.push(run.outcome);
    }
    await Promise.all(stopping);
  }

  /** Cancels a run executing (or queued, with a local queue) here; false when there is none. */
  cancelHere(runId: string, action: CancelAction): boolean {
    const run = this.runs.get(runId);
    if (!run || isEnding(run) || !this.executesHere(run)) return false;
    run.cancel(action);
    // A run whose graph has not started (queued, or waiting out after_seconds) ends here; a
    // running one ends when its graph stops.
    if (!run.executing) void this.finish(run, { status: 'interrupted', values: null });
    return true;
  }

  startHere(run: ActiveRun): void {
    run.started = true;
    void this.execute(run).then((outcome) => this.finish(run, outcome));
  }

  adopt(record: RunRecord, work: RunWork, workspaceId: string): ActiveRun {
    const mine = this.runs.get(record.run_id);
    if (mine) return mine;
    const run = new ActiveRun(
      record,
      work.body,
      work.streamModes,
      { workspaceId, auth: work.auth },
      work.temporary,
      work.assistant,
    );
    this.runs.set(record.run_id, run);
    this.claims.settle(record.run_id, undefined);
    return run;
  }

  async forgetThread(thread: ThreadKey): Promise<void> {
    await this.deps.checkpointer.deleteThreadOf(thread);
  }

  /**
   * Resolves once the event loop has taken in this turn's I/O (setImmediate), one promise for
   * every run started in the turn. The runs of the requests read in one turn then go through the
   * graph together, step by step in one microtask drain, instead of each request's run start to
   * end in its own callback: the same code runs many times in a row, hot in the CPU's caches. At
   * 16 concurrent clients that took a no-op graph's run from ~1,000 to ~650 µs of CPU.
   */
  private nextTurn(): Promise<void> {
    return (this.turn ??= new Promise((resolve) =>
      setImmediate(() => {
        this.turn = undefined;
        resolve();
      }),
    ));
  }

  private async execute(run: ActiveRun): Promise<RunOutcome> {
    const { record, body } = run;
    if (run.done || run.controller.signal.aborted) return { status: 'interrupted', values: null };
    run.executing = true;
    run.startedAt = new Date();
    const { assistant: system, graph } = this.graphOf(run);
    // Runs queued by a version that did not keep their assistant ran the config file's.
    const assistant: RunAssistant = run.assistant ?? system;
    const assistantConfig = assistant.config as NonNullable<RunCreateBody['config']>;
    if (run.temporaryThread) this.deps.temporaryThreads?.hold(storedThreadId(run.thread));
    record.status = 'running';
    record.updated_at = nowIso();
    await this.nextTurn();
    await this.queue.markRunning(run);

    const translator = new RunEventTranslator(run.streamModes);
    const subgraphs = body.stream_subgraphs ?? false;
    run.emit('metadata', { run_id: record.run_id, attempt: 1 });
    const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id;
    // The thread (and its workspace) last: a run's config cannot name another.
    const { configurable } = threadConfig(run.thread, {
      ...assistantConfig.configurable,
      ...body.config?.configurable,
      ...authConfigurable(run.auth),
      run_id: record.run_id,
      assistant_id: assistant.assistant_id,
      graph_id: assistant.graph_id,
      ...(checkpointId ? { checkpoint_id: checkpointId } : {}),
    });
    // Trace metadata: `thread_id` groups the traces of a conversation; a caller's own
    // metadata.thread_id (e.g. one shared across agents) wins over the LangGraph thread.
    const metadata: Record<string, unknown> = {
      graph_id: assistant.graph_id,
      assistant_id: assistant.assistant_id,
      run_id: record.run_id,
      ...(run.temporaryThread ? {} : { thread_id: record.thread_id }),
      ...body.metadata,
    };
    // Checkpoint ids are uuid6 from one monotonic generator: every id made after this one sorts after it.
    run.checkpointMark = uuid6(0);
    const input = body.command
      ? new Command(body.command as ConstructorParameters<typeof Command>[0])
      : (body.input ?? null);
    const options = {
      configurable,
      metadata,
      tags: mergedTags(assistantConfig.tags, body.config?.tags),
      recursionLimit: body.config?.recursion_limit ?? assistantConfig.recursion_limit,
      runName: assistant.name,
      runId: record.run_id,
      context: mergedContext(assistant.context, body.context),
      interruptBefore: body.interrupt_before ?? undefined,
      interruptAfter: body.interrupt_after ?? undefined,
      durability: durabilityOf(body),
      signal: run.controller.signal,
      ...(run.tracer ? { callbacks: run.tracer.callbacks } : {}),
      // the run's workspace's items only: never a store shared by the graph across workspaces
      ...(this.deps.longTermStore ? { store: new WorkspaceStore(this.deps.longTermStore, run.workspaceId) } : {}),
    };
    try {
      if (this.deps.protocol && run.streamModes.includes(PROTOCOL_STREAM_MODE)) {
        const protocolRun = {
          thread: run.thread,
          runId: record.run_id,
          graphName: assistant.graph_id,
          replicaUrl: this.url,
        };
        const lastValues = await this.deps.protocol.stream(protocolRun, graph, input, options);
        return { status: 'success', values: await this.finalValues(run, lastValues) };
      }
      const streamOptions = { ...options, streamMode: libraryStreamModes(run.streamModes), subgraphs };
      const emit = (event: string, data: unknown) => run.emit(event, data);
      if (run.streamModes.includes('events')) await this.streamEvents(run, graph, input, streamOptions, translator);
      else
        for await (const item of await graph.stream(input, streamOptions)) translator.translate(item, subgraphs, emit);
      const values = await this.finalValues(run, translator.lastValues);
      if (body.feedback_keys?.length) await this.feedbackUrls(run, body.feedback_keys);
      return { status: 'success', values };
    } catch (err) {
      const values = toWireValue<Record<string, unknown> | null>(translator.lastValues ?? null);
      if (run.controller.signal.aborted) return { status: 'interrupted', values };
      const error = errorPayload(err);
      this.deps.logger.warn({ run_id: record.run_id, thread_id: record.thread_id, err: error.message }, 'run failed');
      run.emit('error', error);
      return { status: 'error', values, error };
    }
  }

  /**
   * Stream mode `events`: the graph runs through LangChain's streamEvents (v2), as on LangGraph's
   * server. The root run's `on_chain_stream` events carry what `graph.stream` would have yielded
   * in the other modes (translated as usual); every other event goes out as an `events` event.
   * Only runs that ask for `events` pay for the callback events.
   */
  private async streamEvents(
    run: ActiveRun,
    graph: EventsGraph,
    input: unknown,
    options: Record<string, unknown> & { subgraphs: boolean },
    translator: RunEventTranslator,
  ): Promise<void> {
    const emit = (event: string, data: unknown) => run.emit(event, data);
    if (!graph.streamEvents)
      throw errors.invalidField(`stream_mode: "events" is not served for this assistant's graph`);
    for await (const event of graph.streamEvents(input, { ...options, version: 'v2' })) {
      if (event.event === 'on_chain_stream' && event.run_id === run.record.run_id)
        translator.translate(event.data?.chunk, options.subgraphs, emit);
      else if (!event.tags?.includes('langsmith:hidden')) {
        try {
          emit('events', event);
        } catch {
          // a value JSON cannot hold (a cycle): the event goes without its data
          emit('events', { ...event, data: {} });
        }
      }
    }
  }

  /** `feedback_keys`: the `feedback` event, a token URL per key. A run is not failed for want of them. */
  private async feedbackUrls(run: ActiveRun, keys: string[]): Promise<void> {
    const { feedbackTokens, logger } = this.deps;
    const log = { run_id: run.record.run_id, feedback_keys: keys };
    if (!feedbackTokens) {
      logger.warn(
        log,
        'feedback_keys asked for, but this server does not trace its runs (LANGSMITH_TRACING): no feedback event',
      );
      return;
    }
    try {
      run.emit('feedback', await feedbackTokens.urls(run.record.run_id, keys));
    } catch (err) {
      logger.warn({ ...log, err: (err as Error).message }, 'could not make the feedback tokens of a run');
    }
  }

  /**
   * The thread's state after the run, as the graph outputs it (the channels of its output schema,
   * when it declares one narrower than its state, as LangGraph's `values` do), with the pending
   * interrupts under `__interrupt__`.
   */
  private async finalValues(run: ActiveRun, lastValues: unknown): Promise<Record<string, unknown> | null> {
    const { graph } = this.graphOf(run);
    const snapshot = await graph.getState(threadConfig(run.thread));
    let values = toWireValue<Record<string, unknown> | null>(snapshot.values ?? lastValues ?? null);
    const output = graph.outputChannels;
    if (values && Array.isArray(output))
      values = Object.fromEntries(Object.entries(values).filter(([key]) => output.includes(key)));
    const interrupts = snapshot.tasks.flatMap((t) => t.interrupts ?? []);
    if (interrupts.length > 0) return { ...(values ?? {}), __interrupt__: toWireValue(interrupts) };
    return values;
  }

  /**
   * Puts a thread back as it was before a rolled-back run: the newest checkpoint of an earlier
   * run becomes the latest again (copied forward, as LangGraph forks a checkpoint), or the thread
   * loses its checkpoints if the run was its first. The run's checkpoints are those whose
   * (time-ordered) ids sort after the mark taken when it started.
   */
  private async rollBack(run: ActiveRun): Promise<Record<string, unknown> | null> {
    const mark = run.checkpointMark;
    if (!mark) return null; // never started: wrote nothing
    const { graph } = this.graphOf(run);
    let touched = false;
    for await (const snapshot of graph.getStateHistory(threadConfig(run.thread))) {
      if (String(snapshot.config.configurable?.checkpoint_id) > mark) {
        touched = true;
        continue;
      }
      if (touched) await graph.updateState(threadConfig(run.thread, snapshot.config.configurable), undefined);
      return toWireValue<Record<string, unknown> | null>(snapshot.values ?? null);
    }
    if (touched) await this.deps.checkpointer.deleteThreadOf(run.thread);
    return null;
  }

  private async finish(run: ActiveRun, outcome: RunOutcome): Promise<void> {
    if (run.done) return;
    const { record } = run;
    try {
      record.status = outcome.status;
      record.updated_at = nowIso();
      // before the thread is handed to its next run
      if (run.cancelAction === 'rollback' && !run.temporaryThread)
        outcome = { ...outcome, values: await this.rollBack(run) };
      const recorded = await this.queue.recordEnd(run, outcome);
      run.tracer
        ?.flush()
        .catch((err: unknown) => this.deps.logger.warn({ run_id: record.run_id, err }, 'the run could not be traced'));
      if (run.temporaryThread) await this.deps.checkpointer.deleteThreadOf(run.thread);
      if (!recorded)
        this.deps.logger.warn(
          { run_id: record.run_id },
          'a run ended here after another replica had failed it (this one was taken for dead)',
        );
    } catch (err) {
      this.deps.logger.error(
        { run_id: record.run_id, err: (err as Error).message },
        'could not record the end of a run',
      );
    } finally {
      run.finish(outcome);
      this.deps.webhooks?.runEnded(record, run.body.webhook, outcome, run.startedAt);
      // A rolled-back run is gone at once, and so is a stateless run whose temporary thread went
      // with it, unless it was made in the background (GET /runs/{id}/stream joins those): its
      // client streamed or waited on it already, and at a thousand stateless runs a second,
      // keeping those a minute held ~60,000 runs' events for nobody, and the GC paid for them.
      // Others stay joinable a while.
      if (run.cancelAction === 'rollback' || !run.joinableWhenDone) this.runs.delete(record.run_id);
      else setTimeout(() => this.runs.delete(record.run_id), FINISHED_RUN_RETENTION_MS).unref();
    }
  }
}
