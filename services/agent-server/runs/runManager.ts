// Creates and executes runs. One run at a time per thread: a run on a busy thread is rejected
// unless the request asks for another multitask strategy (enqueue after, or interrupt / roll
// back the current one). Each run streams its graph once; what it yields is kept as stream
// events on the ActiveRun, which /stream, /wait and /join read.
import { v4 as uuidv4, v7 as uuidv7 } from 'uuid';
import { Command, type BaseCheckpointSaver } from '@langchain/langgraph';
import { uuid6 } from '@langchain/langgraph-checkpoint';
import type { Logger } from '../../../platform/logger.ts';
import { errors } from '../../../platform/errors.ts';
import type { GraphRegistry, RegisteredGraph } from '../graphRegistry.ts';
import type { AgentRecordStore, RunRecord, ThreadRecord } from '../store/agentRecords.ts';
import { toWireValue } from '../wireJson.ts';
import { authConfigurable } from '../auth/customAuth.ts';
import type { Caller } from '../auth/callers.ts';
import { ActiveRun, type CancelAction, type RunOutcome } from './activeRun.ts';
import { durabilityOf, streamModesOf, type RunCreateBody } from './runBody.ts';
import { libraryStreamModes, RunEventTranslator } from './runEvents.ts';
import { newThreadRecord } from '../threads/threadRecords.ts';

/** How long a finished run's events stay joinable. */
const FINISHED_RUN_RETENTION_MS = 60_000;

export interface RunManagerDeps {
  graphs: GraphRegistry;
  store: AgentRecordStore;
  checkpointer: BaseCheckpointSaver;
  logger: Logger;
}

function nowIso(): string {
  return new Date().toISOString();
}

function errorPayload(err: unknown): { error: string; message: string } {
  return err instanceof Error ? { error: err.name, message: err.message } : { error: 'Error', message: JSON.stringify(err) };
}

export class RunManager {
  private readonly deps: RunManagerDeps;
  /** Runs queued, running, or finished within the retention time, by run id. */
  private readonly runs = new Map<string, ActiveRun>();
  /** Per thread, its unfinished runs in order: the first one is running. */
  private readonly queues = new Map<string, ActiveRun[]>();
  /** Resolves in the current event-loop turn's check phase: see nextTurn. */
  private turn: Promise<void> | undefined;

  constructor(deps: RunManagerDeps) {
    this.deps = deps;
  }

  assistantFor(assistantId: string): RegisteredGraph {
    const registered = this.deps.graphs.find(assistantId);
    if (!registered) throw errors.notFound(`assistant "${assistantId}"`);
    return registered;
  }

  /**
   * Creates a run on `threadId`, or on a new temporary thread when none is given (stateless runs),
   * in the caller's workspace. A thread the caller does not see is a 404, also with if_not_exists
   * "create" (its id is taken). The auth module may stamp the run's metadata, which a thread the
   * run creates takes too (as on the LangGraph server).
   */
  async create(threadId: string | undefined, body: RunCreateBody, caller: Caller): Promise<ActiveRun> {
    const { assistant } = this.assistantFor(body.assistant_id);
    const { store } = this.deps;
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

    const queue = this.queues.get(tid) ?? [];
    if (queue.length > 0) {
      if (strategy === 'reject') throw errors.threadBusy();
      if (strategy === 'interrupt' || strategy === 'rollback') for (const other of queue) this.cancelActive(other, strategy);
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
    const run = new ActiveRun(record, { ...body, metadata }, streamModesOf(body), { workspaceId: scope.workspaceId, auth: caller.auth }, temporary && body.on_completion !== 'keep');
    await store.putRun(scope.workspaceId, record);
    await store.updateThread(scope, tid, {
      status: 'busy',
      updated_at: now,
      metadata: { ...thread.metadata, graph_id: assistant.graph_id, assistant_id: assistant.assistant_id },
    });
    this.runs.set(record.run_id, run);
    const live = this.queues.get(tid) ?? [];
    live.push(run);
    this.queues.set(tid, live);
    if (live.length === 1) this.startSoon(run);
    return run;
  }

  get(runId: string): ActiveRun | undefined {
    return this.runs.get(runId);
  }

  /** Unfinished runs of a thread, the running one first. */
  unfinished(threadId: string): ActiveRun[] {
    return [...(this.queues.get(threadId) ?? [])];
  }

  /** Cancels a run; false when it is not running or queued here. */
  cancel(runId: string, action: CancelAction): boolean {
    const run = this.runs.get(runId);
    if (!run || run.done) return false;
    this.cancelActive(run, action);
    return true;
  }

  /** Cancels a thread's runs and waits for them to end (before the thread is deleted). */
  async cancelThread(threadId: string): Promise<void> {
    const runs = this.unfinished(threadId);
    for (const run of runs) this.cancelActive(run, 'interrupt');
    await Promise.all(runs.map((r) => r.outcome));
  }

  private cancelActive(run: ActiveRun, action: CancelAction): void {
    const queue = this.queues.get(run.record.thread_id) ?? [];
    run.cancel(action);
    // A run whose graph has not started (queued, or waiting out after_seconds) ends here; a
    // running one ends when its graph stops.
    if (!run.executing && queue.includes(run)) void this.finish(run, { status: 'interrupted', values: null });
  }

  private startSoon(run: ActiveRun): void {
    run.started = true;
    const delayMs = (run.body.after_seconds ?? 0) * 1000;
    const start = () => void this.execute(run).then((outcome) => this.finish(run, outcome));
    if (delayMs > 0) setTimeout(start, delayMs);
    else start();
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
    const { assistant, graph } = this.assistantFor(record.assistant_id);
    record.status = 'running';
    record.updated_at = nowIso();
    await this.nextTurn();
    await this.deps.store.putRun(run.workspaceId, record);

    const translator = new RunEventTranslator(run.streamModes);
    const subgraphs = body.stream_subgraphs ?? false;
    run.emit('metadata', { run_id: record.run_id, attempt: 1 });
    const checkpointId = body.checkpoint_id ?? body.checkpoint?.checkpoint_id;
    const configurable = {
      ...(assistant.config.configurable as Record<string, unknown> | undefined),
      ...body.config?.configurable,
      ...authConfigurable(run.auth),
      thread_id: record.thread_id,
      run_id: record.run_id,
      assistant_id: assistant.assistant_id,
      graph_id: assistant.graph_id,
      ...(checkpointId ? { checkpoint_id: checkpointId } : {}),
    };
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
    const input = body.command ? new Command(body.command as ConstructorParameters<typeof Command>[0]) : (body.input ?? null);
    try {
      const stream = await graph.stream(input, {
        configurable,
        metadata,
        tags: body.config?.tags,
        recursionLimit: body.config?.recursion_limit,
        runName: assistant.name,
        runId: record.run_id,
        context: body.context ?? undefined,
        interruptBefore: body.interrupt_before ?? undefined,
        interruptAfter: body.interrupt_after ?? undefined,
        streamMode: libraryStreamModes(run.streamModes),
        subgraphs,
        durability: durabilityOf(body),
        signal: run.controller.signal,
      });
      for await (const item of stream) translator.translate(item, subgraphs, (event, data) => run.emit(event, data));
      return { status: 'success', values: await this.finalValues(run, translator.lastValues) };
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
   * The thread's state after the run, as the graph outputs it (the channels of its output schema,
   * when it declares one narrower than its state, as LangGraph's `values` do), with the pending
   * interrupts under `__interrupt__`.
   */
  private async finalValues(run: ActiveRun, lastValues: unknown): Promise<Record<string, unknown> | null> {
    const { graph } = this.assistantFor(run.record.assistant_id);
    const snapshot = await graph.getState({ configurable: { thread_id: run.record.thread_id } });
    let values = toWireValue<Record<string, unknown> | null>(snapshot.values ?? lastValues ?? null);
    const output = graph.outputChannels;
    if (values && Array.isArray(output)) values = Object.fromEntries(Object.entries(values).filter(([key]) => output.includes(key)));
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
    const { graph } = this.assistantFor(run.record.assistant_id);
    const tid = run.record.thread_id;
    let touched = false;
    for await (const snapshot of graph.getStateHistory({ configurable: { thread_id: tid } })) {
      if (String(snapshot.config.configurable?.checkpoint_id) > mark) {
        touched = true;
        continue;
      }
      if (touched) await graph.updateState(snapshot.config, undefined);
      return toWireValue<Record<string, unknown> | null>(snapshot.values ?? null);
    }
    if (touched) await this.deps.checkpointer.deleteThread(tid);
    return null;
  }

  private async finish(run: ActiveRun, outcome: RunOutcome): Promise<void> {
    if (run.done) return;
    const { store, checkpointer } = this.deps;
    const { record } = run;
    const tid = record.thread_id;
    // The thread's live queue (not a copy): a run enqueued while this one's end is being written
    // joins it, and is started below once this run is out of it.
    const queue = this.queues.get(tid) ?? [];
    const others = () => queue.filter((r) => r !== run);
    // The server's own bookkeeping of the caller's run: in its workspace, whatever the auth module filters.
    const scope = { workspaceId: run.workspaceId };
    try {
      record.status = outcome.status;
      record.updated_at = nowIso();
      if (run.cancelAction === 'rollback') {
        await store.deleteRun(scope, tid, record.run_id);
        if (!run.temporaryThread) outcome = { ...outcome, values: await this.rollBack(run) };
      } else {
        await store.putRun(run.workspaceId, record);
      }
      if (run.temporaryThread) {
        await store.deleteThread(scope, tid);
        await checkpointer.deleteThread(tid);
      } else if (outcome.status !== 'interrupted' || others().length === 0) {
        const { __interrupt__: interrupts, ...values } = outcome.values ?? {};
        const waiting = Array.isArray(interrupts) && interrupts.length > 0;
        const now = nowIso();
        await store.updateThread(scope, tid, {
          status: others().length > 0 ? 'busy' : outcome.status === 'error' ? 'error' : waiting ? 'interrupted' : 'idle',
          updated_at: now,
          ...(outcome.values ? { values, state_updated_at: now } : {}),
          interrupts: waiting ? { [record.run_id]: interrupts as unknown[] } : {},
          ...(outcome.error ? { error: outcome.error } : {}),
        });
      }
    } catch (err) {
      this.deps.logger.error({ run_id: record.run_id, err: (err as Error).message }, 'could not record the end of a run');
    } finally {
      run.finish(outcome);
      if (queue.includes(run)) queue.splice(queue.indexOf(run), 1);
      if (queue.length === 0 && this.queues.get(tid) === queue) this.queues.delete(tid);
      const next = queue[0];
      if (next && !next.started && !next.done) this.startSoon(next);
      // A rolled-back run is gone at once, and so is a run whose temporary thread went with it
      // (every route to a run goes through its thread): at a thousand stateless runs a second,
      // keeping those a minute held ~60,000 runs' events for nobody, and the GC paid for them.
      // Others stay joinable a while.
      if (run.cancelAction === 'rollback' || run.temporaryThread) this.runs.delete(record.run_id);
      else setTimeout(() => this.runs.delete(record.run_id), FINISHED_RUN_RETENTION_MS).unref();
    }
  }
}
