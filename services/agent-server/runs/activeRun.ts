// A run this process is executing or has queued: its record, the stream events it has produced
// (kept so a client can join late or resume after Last-Event-ID), and how it ended.
import type { ThreadKey } from '../../../platform/workspaceThreads.ts';
import type { RunRecord } from '../store/agentRecords.ts';
import type { StreamEvent } from '../../../platform/http/sse.ts';
import { toWireJson } from '../wireJson.ts';
import type { RunCreateBody, StreamMode } from './runBody.ts';
import type { AuthContext } from '../auth/customAuth.ts';

export interface RunOutcome {
  status: 'success' | 'error' | 'interrupted' | 'timeout';
  /** The thread's final values in wire form (what /runs/wait returns), with `__interrupt__` when the graph is waiting for input. */
  values: Record<string, unknown> | null;
  error?: { error: string; message: string };
}

export type CancelAction = 'interrupt' | 'rollback';

/** The assistant a run started on, as it was then (a stored assistant's pinned version): its graph, and the config and context it gives the run. */
export interface RunAssistant {
  assistant_id: string;
  graph_id: string;
  name: string;
  config: Record<string, unknown>;
  context: Record<string, unknown>;
}

/** Where a run is traced on its caller's behalf (an app that traces with each caller's key): its callbacks, and their flush. */
export interface RunTracer {
  callbacks: unknown[];
  /** Resolves once everything traced has been sent. */
  flush(): Promise<void>;
}

export class ActiveRun {
  record: RunRecord;
  readonly body: RunCreateBody;
  readonly streamModes: StreamMode[];
  /** The workspace of the caller that created the run: its thread's. */
  readonly workspaceId: string;
  /** The user as the graph sees it. */
  readonly auth: AuthContext;
  /** A temporary thread (stateless run) is deleted when the run ends, unless on_completion is "keep". */
  readonly temporaryThread: boolean;
  /** Its assistant, resolved when it was created (undefined for a run followed from another replica, or queued by an older version). */
  readonly assistant: RunAssistant | undefined;
  readonly controller = new AbortController();
  cancelAction: CancelAction | undefined;
  /** Set when the run is handed to execution (possibly after `after_seconds`). */
  started = false;
  /** Set when its graph starts streaming. */
  executing = false;
  /** When its graph started (the webhook's run_started_at). */
  startedAt: Date | undefined;
  /** The address of the replica executing it, when that is another (a shared run queue). */
  ownerUrl: string | undefined;
  /** Kept a while after it ends, for those who join it late: false for a stateless run someone already streams or waits on. */
  joinableWhenDone = true;
  /** A checkpoint id taken as the run started: the run's own checkpoints sort after it (for rollback). */
  checkpointMark: string | undefined;
  /** Its own tracer, when its creator gave one (runs executed in the process that created them). */
  tracer: RunTracer | undefined;

  private readonly events: StreamEvent[] = [];
  private readonly waiters = new Set<() => void>();
  private ended = false;
  private resolveOutcome!: (outcome: RunOutcome) => void;
  readonly outcome: Promise<RunOutcome>;

  constructor(
    record: RunRecord,
    body: RunCreateBody,
    streamModes: StreamMode[],
    caller: { workspaceId: string; auth: AuthContext },
    temporaryThread: boolean,
    assistant?: RunAssistant,
  ) {
    this.record = record;
    this.body = body;
    this.streamModes = streamModes;
    this.workspaceId = caller.workspaceId;
    this.auth = caller.auth;
    this.temporaryThread = temporaryThread;
    this.assistant = assistant;
    this.outcome = new Promise((resolve) => (this.resolveOutcome = resolve));
  }

  /** Its thread: the workspace's thread of the record's id. */
  get thread(): ThreadKey {
    return { workspaceId: this.workspaceId, threadId: this.record.thread_id };
  }

  get done(): boolean {
    return this.ended;
  }

  emit(event: string, data: unknown): void {
    this.events.push({ event, data: toWireJson(data), id: String(this.events.length + 1) });
    this.wake();
  }

  finish(outcome: RunOutcome): void {
    if (this.ended) return;
    this.ended = true;
    this.resolveOutcome(outcome);
    this.wake();
  }

  cancel(action: CancelAction): void {
    this.cancelAction ??= action;
    this.controller.abort(new Error(`run cancelled (${action})`));
  }

  /** Every event after `lastEventId` (all when absent), then live ones until the run ends. */
  async *subscribe(lastEventId?: string, signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    let next = lastEventId && /^\d+$/.test(lastEventId) ? Number(lastEventId) : 0;
    while (!signal?.aborted) {
      while (next < this.events.length) yield this.events[next++]!;
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.waiters.delete(wake);
          signal?.removeEventListener('abort', wake);
          resolve();
        };
        this.waiters.add(wake);
        signal?.addEventListener('abort', wake, { once: true });
      });
    }
  }

  private wake(): void {
    for (const wake of [...this.waiters]) wake();
  }
}
