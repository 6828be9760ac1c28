// Thread records and the thread state the LangGraph API returns, built from a graph's state snapshot.
import type { StateSnapshotLike } from '../graphRegistry.ts';
import type { ThreadRecord } from '../store/agentRecords.ts';
import { toWireValue } from '../wireJson.ts';

export function newThreadRecord(threadId: string, metadata: Record<string, unknown>): ThreadRecord {
  const now = new Date().toISOString();
  return {
    thread_id: threadId,
    created_at: now,
    updated_at: now,
    state_updated_at: now,
    metadata,
    status: 'idle',
    config: {},
    values: null,
    interrupts: {},
  };
}

/** When the thread expires if nothing happens to it (undefined: it has no TTL). */
export function expiresAt(thread: ThreadRecord): string | undefined {
  if (!thread.ttl) return undefined;
  return new Date(Date.parse(thread.updated_at) + thread.ttl.ttl_minutes * 60_000).toISOString();
}

/** A thread as the API returns it: `values` is `{}` rather than null before any run. */
export function threadResponse(thread: ThreadRecord): ThreadRecord {
  const { ttl, ...rest } = thread;
  return { ...rest, values: thread.values ?? {}, ...(ttl ? { ttl: { ...ttl, expires_at: expiresAt(thread) } } : {}) };
}

export interface CheckpointRef {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  checkpoint_map: Record<string, unknown> | null;
}

function checkpointRef(config: StateSnapshotLike['config'] | undefined): CheckpointRef | null {
  const c = config?.configurable;
  if (!c?.checkpoint_id) return null;
  return {
    thread_id: String(c.thread_id),
    checkpoint_ns: String(c.checkpoint_ns ?? ''),
    checkpoint_id: String(c.checkpoint_id),
    checkpoint_map: (c.checkpoint_map as Record<string, unknown> | undefined) ?? null,
  };
}

export interface ThreadStateResponse {
  values: Record<string, unknown>;
  next: string[];
  tasks: unknown[];
  metadata: Record<string, unknown>;
  created_at: string | null;
  checkpoint: CheckpointRef;
  parent_checkpoint: CheckpointRef | null;
  interrupts: unknown[];
}

/** A graph's StateSnapshot in the API's ThreadState shape. */
export function threadState(snapshot: StateSnapshotLike, threadId: string): ThreadStateResponse {
  const tasks = snapshot.tasks.map((t) => ({
    id: t.id,
    name: t.name,
    path: t.path ?? [],
    error: t.error ?? null,
    interrupts: t.interrupts ?? [],
    checkpoint: null,
    state: null,
    result: t.result ?? null,
  }));
  return toWireValue<ThreadStateResponse>({
    values: snapshot.values ?? {},
    next: snapshot.next ?? [],
    tasks,
    metadata: snapshot.metadata ?? {},
    created_at: snapshot.createdAt ?? null,
    checkpoint: checkpointRef(snapshot.config) ?? {
      thread_id: threadId,
      checkpoint_ns: '',
      checkpoint_id: null,
      checkpoint_map: null,
    },
    parent_checkpoint: checkpointRef(snapshot.parentConfig),
    interrupts: tasks.flatMap((t) => t.interrupts),
  });
}
