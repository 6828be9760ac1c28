// A thread's stream (GET /threads/{thread_id}/stream, the SDKs' threads.joinStream): the thread's
// runs one after another in one SSE stream, its current run first and then each run created on it
// later, on this replica or another, until the client leaves. Each run's events are its own
// stream's (relayed from the replica executing it: replicaProxy.ts), with
// ids `<run id>:<event id>`, and a run that ends is followed by `metadata` `{run_id, status:
// "run_done"}` (id `<run id>:done`). `Last-Event-ID` resumes after such an id: that run's events
// after it, then the later runs; `-` starts from the oldest run this server still holds. Stream
// modes (LangGraph's ThreadStreamMode): `run_modes` (all of the above, the default), `lifecycle`
// (each run's first `metadata` event and its `run_done`), `state_update` (the runs' `values`).
import type { FastifyRequest } from 'fastify';
import type { StreamEvent } from '../../../platform/http/sse.ts';
import type { ThreadKey } from '../../../platform/workspaceThreads.ts';
import type { AgentRecordStore, RecordScope, RunRecord } from '../store/agentRecords.ts';
import { runEventsAnywhere } from './replicaProxy.ts';
import type { RunManager } from './runManager.ts';

export const THREAD_STREAM_MODES = ['run_modes', 'lifecycle', 'state_update'] as const;
export type ThreadStreamMode = (typeof THREAD_STREAM_MODES)[number];

/** Where a client left off: after an event of a run (`done`: after the run), or `start` (`-`). */
export type ThreadCursor = { runId: string; after: string } | 'start' | undefined;

const EVENT_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):(\d+|done)$/i;

/** A Last-Event-ID of a thread's stream; undefined (start with the current run) for one it did not send. */
export function parseThreadEventId(id: string | undefined): ThreadCursor {
  if (id === undefined) return undefined;
  if (id === '-' || id === '0') return 'start';
  const match = EVENT_ID.exec(id.trim());
  return match ? { runId: match[1]!.toLowerCase(), after: match[2]!.toLowerCase() } : undefined;
}

export interface ThreadStreamSources {
  runs: RunManager;
  store: AgentRecordStore;
  /** The client's request: relays to other replicas carry its credentials. */
  request: FastifyRequest;
}

const runDone = (runId: string): StreamEvent => ({
  event: 'metadata',
  data: JSON.stringify({ run_id: runId, status: 'run_done' }),
  id: `${runId}:done`,
});

/** Whether an event of a run goes out in these modes (`first`: the run's first event, its metadata). */
function wanted(modes: ReadonlySet<ThreadStreamMode>, event: string, first: boolean): boolean {
  if (modes.has('run_modes')) return true;
  if (modes.has('lifecycle') && first && event === 'metadata') return true;
  return modes.has('state_update') && event === 'values';
}

/**
 * Opens a thread's stream: once this resolves, every run created on the thread is followed (a
 * client that has the stream's headers may start runs). The events come from `cursor`, in
 * `modes`, until `signal` fires. `scope` is the caller's (its thread was found through it).
 */
export async function openThreadStream(
  sources: ThreadStreamSources,
  thread: ThreadKey,
  scope: RecordScope,
  cursor: ThreadCursor,
  modes: ReadonlySet<ThreadStreamMode>,
  signal: AbortSignal,
): Promise<AsyncGenerator<StreamEvent>> {
  const { runs, store } = sources;
  /** Runs to stream, by id (uuidv7: in the order they were created), with their records when known. */
  const queued = new Map<string, RunRecord | undefined>();
  const streamed = new Set<string>();
  let wake = () => {};
  const add = (runId: string, record?: RunRecord) => {
    if (streamed.has(runId) || (queued.has(runId) && !record)) return;
    queued.set(runId, record);
    wake();
  };
  // Watch first, then look: a run created in between is seen twice, not missed.
  const unwatch = await runs.watchThread(thread, (runId) => add(runId));
  try {
    const resumeFrom = typeof cursor === 'object' ? cursor.runId : undefined;
    for (const record of await runs.unfinished(thread))
      if (resumeFrom === undefined || record.run_id >= resumeFrom) add(record.run_id, record);
    if (cursor === 'start') for (const record of runs.heldOn(thread)) add(record.run_id, record);
    if (resumeFrom !== undefined) {
      // the run it left off in, and those created since (a run that ended meanwhile and is not held
      // here is sent as its run_done alone)
      for (const record of runs.heldOn(thread)) if (record.run_id >= resumeFrom) add(record.run_id, record);
      for (const record of await store.listRuns(scope, thread.threadId, { limit: 100, offset: 0 }))
        if (record.run_id >= resumeFrom) add(record.run_id, record);
    }
  } catch (err) {
    await unwatch();
    throw err;
  }

  async function* events(): AsyncGenerator<StreamEvent> {
    try {
      while (!signal.aborted) {
        const next = [...queued.keys()].sort()[0];
        if (next === undefined) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            signal.addEventListener('abort', () => resolve(), { once: true });
          });
          wake = () => {};
          continue;
        }
        const known = queued.get(next);
        queued.delete(next);
        streamed.add(next);
        const record =
          known ?? runs.get(next, thread.workspaceId)?.record ?? (await store.getRun(scope, thread.threadId, next));
        if (!record || record.thread_id !== thread.threadId) continue; // rolled back, or deleted
        const after = typeof cursor === 'object' && cursor.runId === next ? cursor.after : undefined;
        if (after === 'done') continue;
        const run = await runs.follow(record, thread.workspaceId);
        if (!run) continue;
        let first = after === undefined;
        for await (const event of runEventsAnywhere(runs, sources.request, run, after, signal)) {
          if (wanted(modes, event.event, first)) yield { ...event, id: `${next}:${event.id}` };
          first = false;
        }
        if (signal.aborted) return;
        if (modes.has('run_modes') || modes.has('lifecycle')) yield runDone(next);
      }
    } finally {
      await unwatch();
    }
  }
  return events();
}
