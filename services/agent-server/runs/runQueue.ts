// Where a thread's runs wait their turn and who runs them. One run at a time per thread: the run
// manager (runManager.ts) executes runs; a RunQueue admits them under their multitask strategy,
// records their ends with the thread's status, and says which run may start next.
//
// Two kinds: LocalRunQueue keeps the queues in this process (memory persistence: one server owns
// its threads); PostgresRunQueue (postgresRunQueue.ts) keeps them in PostgreSQL, so that any
// number of agent-server replicas on one database share the work.
import { errors } from '../../../platform/errors.ts';
import { storedThreadId, type ThreadKey } from '../../../platform/workspaceThreads.ts';
import type {
  AgentRecordStore,
  MultitaskStrategy,
  RecordScope,
  RunRecord,
  RunStatus,
  ThreadRecord,
} from '../store/agentRecords.ts';
import type { ActiveRun, CancelAction, RunOutcome } from './activeRun.ts';

/** What the thread becomes when a run is admitted: busy, with the graph that runs on it. */
export type ThreadAdmission = Pick<ThreadRecord, 'status' | 'updated_at' | 'metadata'>;

/**
 * The thread's fields after a run ended, when `others` runs of it are still queued or running
 * (undefined: leave the thread as it is — an interrupted run makes way for the next).
 */
export function threadAfterRun(
  runId: string,
  outcome: RunOutcome,
  others: number,
  now: string,
): Partial<ThreadRecord> | undefined {
  if (outcome.status === 'interrupted' && others > 0) return undefined;
  const { __interrupt__: interrupts, ...values } = outcome.values ?? {};
  const waiting = Array.isArray(interrupts) && interrupts.length > 0;
  return {
    status: others > 0 ? 'busy' : outcome.status === 'error' ? 'error' : waiting ? 'interrupted' : 'idle',
    updated_at: now,
    ...(outcome.values ? { values, state_updated_at: now } : {}),
    interrupts: waiting ? { [runId]: interrupts as unknown[] } : {},
    ...(outcome.error ? { error: outcome.error } : {}),
  };
}

/** What the run manager does for a queue: start a run here, or cancel one running here. */
export interface RunExecutor {
  /** Starts executing `run` in this process, now. */
  startHere(run: ActiveRun): void;
  /** Cancels a run being executed here; false when it is not. */
  cancelHere(runId: string, action: CancelAction): boolean;
}

export interface RunQueue {
  /** True when runs may execute in other processes (a shared queue). */
  readonly shared: boolean;
  /**
   * Records a new run under its thread's multitask strategy, and the thread as busy: refuses it
   * (THREAD_BUSY) under "reject" when the thread has unfinished runs, cancels them under
   * "interrupt" and "rollback". Starts it through the executor when it may start now, here.
   */
  admit(run: ActiveRun, strategy: MultitaskStrategy, thread: ThreadAdmission): Promise<void>;
  /** The run began executing here. */
  markRunning(run: ActiveRun): Promise<void>;
  /**
   * Records the end of a run executed here (or of one that never started): its record (deleted
   * under rollback), its thread's status, the temporary thread gone, and hands the thread to its
   * next run. Returns false when the run was no longer this process's (a shared queue that took it
   * back from a process thought dead).
   */
  recordEnd(run: ActiveRun, outcome: RunOutcome): Promise<boolean>;
  /** The thread's unfinished runs, in order, the running one first. */
  unfinished(thread: ThreadKey): Promise<RunRecord[]>;
  /** The workspace's unfinished runs in these statuses (of one thread, when given), in order. */
  unfinishedIn(workspaceId: string, statuses: RunStatus[], threadId?: string): Promise<RunRecord[]>;
  /** A run of the workspace by its id alone, as recorded where the queue keeps runs (a shared queue: also finished ones on kept threads). */
  locate(workspaceId: string, runId: string): Promise<RunRecord | undefined>;
  close(): Promise<void>;
}

/** The queues in this process's memory: what one server with in-memory persistence needs. */
export class LocalRunQueue implements RunQueue {
  readonly shared = false;
  readonly #store: AgentRecordStore;
  readonly #executor: RunExecutor;
  /** Per thread (by stored id: workspace and thread id), its unfinished runs in order: the first one is running. */
  readonly #queues = new Map<string, ActiveRun[]>();

  constructor(store: AgentRecordStore, executor: RunExecutor) {
    this.#store = store;
    this.#executor = executor;
  }

  async admit(run: ActiveRun, strategy: MultitaskStrategy, thread: ThreadAdmission): Promise<void> {
    const tid = run.record.thread_id;
    const queueKey = storedThreadId(run.thread);
    const queued = this.#queues.get(queueKey) ?? [];
    if (queued.length > 0) {
      if (strategy === 'reject') throw errors.threadBusy();
      if (strategy === 'interrupt' || strategy === 'rollback')
        for (const other of queued) this.#executor.cancelHere(other.record.run_id, strategy);
    }
    await this.#store.putRun(run.workspaceId, run.record);
    await this.#store.updateThread({ workspaceId: run.workspaceId }, tid, thread);
    const live = this.#queues.get(queueKey) ?? [];
    live.push(run);
    this.#queues.set(queueKey, live);
    if (live.length === 1) this.#start(run);
  }

  /** Starts a run at the head of its thread's queue, after its after_seconds. */
  #start(run: ActiveRun): void {
    run.started = true;
    const delayMs = (run.body.after_seconds ?? 0) * 1000;
    if (delayMs > 0) setTimeout(() => this.#executor.startHere(run), delayMs);
    else this.#executor.startHere(run);
  }

  async markRunning(run: ActiveRun): Promise<void> {
    await this.#store.putRun(run.workspaceId, run.record);
  }

  async recordEnd(run: ActiveRun, outcome: RunOutcome): Promise<boolean> {
    const { record } = run;
    const tid = record.thread_id;
    const queueKey = storedThreadId(run.thread);
    // The thread's live queue (not a copy): a run enqueued while this one's end is being written
    // joins it, and is started once this run is out of it.
    const queue = this.#queues.get(queueKey) ?? [];
    const scope: RecordScope = { workspaceId: run.workspaceId };
    try {
      if (run.cancelAction === 'rollback') await this.#store.deleteRun(scope, tid, record.run_id);
      else await this.#store.putRun(run.workspaceId, record);
      if (run.temporaryThread) {
        await this.#store.deleteThread(scope, tid);
      } else {
        const patch = threadAfterRun(record.run_id, outcome, queue.filter((r) => r !== run).length, record.updated_at);
        if (patch) await this.#store.updateThread(scope, tid, patch);
      }
    } finally {
      if (queue.includes(run)) queue.splice(queue.indexOf(run), 1);
      if (queue.length === 0 && this.#queues.get(queueKey) === queue) this.#queues.delete(queueKey);
      const next = queue[0];
      if (next && !next.started && !next.done) this.#start(next);
    }
    return true;
  }

  async unfinished(thread: ThreadKey): Promise<RunRecord[]> {
    return (this.#queues.get(storedThreadId(thread)) ?? []).map((r) => r.record);
  }

  async unfinishedIn(workspaceId: string, statuses: RunStatus[], threadId?: string): Promise<RunRecord[]> {
    const found: RunRecord[] = [];
    for (const queue of this.#queues.values())
      for (const run of queue)
        if (
          run.workspaceId === workspaceId &&
          (threadId === undefined || run.record.thread_id === threadId) &&
          statuses.includes(run.record.status)
        )
          found.push(run.record);
    return found.sort((a, b) => (a.run_id < b.run_id ? -1 : 1));
  }

  async locate(workspaceId: string, runId: string): Promise<RunRecord | undefined> {
    for (const queue of this.#queues.values())
      for (const run of queue) if (run.workspaceId === workspaceId && run.record.run_id === runId) return run.record;
    return undefined;
  }

  async close(): Promise<void> {}
}
