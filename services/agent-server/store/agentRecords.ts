// The records the agent server keeps besides checkpoints: threads and runs, in the shapes the
// LangGraph API returns. Values are kept in wire form (plain JSON). Each thread and run belongs to
// one workspace, kept beside the record (never in what the API returns); every read and write
// names the workspace it acts in, and a record of another workspace is as absent as an unknown one.
// Thread ids are per workspace (a thread is its workspace and its id: platform/workspaceThreads.ts),
// so two workspaces may each have a thread of one id; run ids are the server's, unique everywhere.
import type { AuthFilters } from '../auth/authFilters.ts';

export type ThreadStatus = 'idle' | 'busy' | 'interrupted' | 'error';
export type RunStatus = 'pending' | 'running' | 'error' | 'success' | 'timeout' | 'interrupted';
export type MultitaskStrategy = 'reject' | 'rollback' | 'interrupt' | 'enqueue';

export type Json = Record<string, unknown>;

/**
 * A thread's time to live: when nothing has happened to it (created, changed, a run started or
 * ended: its `updated_at`) for `ttl_minutes`, the sweeper deletes it (`delete`) or its checkpoints
 * but the latest (`keep_latest`). The API shows it with `expires_at`, `updated_at` + the TTL.
 */
export interface ThreadTtl {
  strategy: 'delete' | 'keep_latest';
  ttl_minutes: number;
  /** In responses only (threads/threadRecords.ts threadResponse). */
  expires_at?: string;
}

export interface ThreadRecord {
  thread_id: string;
  created_at: string;
  updated_at: string;
  state_updated_at: string;
  metadata: Json;
  status: ThreadStatus;
  config: Json;
  values: Json | null;
  interrupts: Record<string, unknown[]>;
  error?: unknown;
  ttl?: ThreadTtl | null;
}

export interface RunRecord {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: string;
  updated_at: string;
  status: RunStatus;
  metadata: Json;
  kwargs: Json;
  multitask_strategy: MultitaskStrategy;
}

export interface ThreadSearch {
  ids?: string[];
  metadata?: Json;
  values?: Json;
  status?: ThreadStatus;
  limit: number;
  offset: number;
  sortBy: 'thread_id' | 'status' | 'created_at' | 'updated_at';
  sortOrder: 'asc' | 'desc';
}

/**
 * What one action may see: the caller's workspace, narrowed, when the config file's auth module
 * returned a filter for the action, to threads whose metadata matches it (auth/authFilters.ts).
 * A run is seen through its thread.
 */
export interface RecordScope {
  workspaceId: string;
  filters?: AuthFilters;
}

/** Where thread and run records live: memory by default, PostgreSQL when checkpoints are durable. */
export interface AgentRecordStore {
  /** Creates the thread in the workspace, or returns undefined when the workspace has a thread with that id. */
  createThread(workspaceId: string, thread: ThreadRecord): Promise<ThreadRecord | undefined>;
  getThread(scope: RecordScope, threadId: string): Promise<ThreadRecord | undefined>;
  updateThread(
    scope: RecordScope,
    threadId: string,
    patch: Partial<Omit<ThreadRecord, 'thread_id' | 'created_at'>>,
  ): Promise<ThreadRecord | undefined>;
  /** Deletes the thread and its runs. */
  deleteThread(scope: RecordScope, threadId: string): Promise<boolean>;
  searchThreads(scope: RecordScope, search: ThreadSearch): Promise<{ threads: ThreadRecord[]; total: number }>;
  /** Threads of every workspace whose TTL expired before `now` and that run nothing, soonest expired first. */
  expiredThreads(now: string, limit: number): Promise<{ workspaceId: string; thread: ThreadRecord }[]>;
  /** Deletes the thread (and its runs) if it is still expired at `now` and runs nothing. */
  deleteExpiredThread(workspaceId: string, threadId: string, now: string): Promise<boolean>;

  /** Creates or replaces a run of a thread of the workspace. */
  putRun(workspaceId: string, run: RunRecord): Promise<void>;
  getRun(scope: RecordScope, threadId: string, runId: string): Promise<RunRecord | undefined>;
  listRuns(
    scope: RecordScope,
    threadId: string,
    options: { limit: number; offset: number; status?: RunStatus },
  ): Promise<RunRecord[]>;
  deleteRun(scope: RecordScope, threadId: string, runId: string): Promise<boolean>;
  close(): Promise<void>;
}

/** JSON containment, as PostgreSQL's `@>` does it: every key of `pattern` matches in `value`. */
export function jsonContains(value: unknown, pattern: unknown): boolean {
  if (pattern === null || typeof pattern !== 'object') return value === pattern;
  if (Array.isArray(pattern))
    return Array.isArray(value) && pattern.every((p) => value.some((v) => jsonContains(v, p)));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.entries(pattern).every(([k, p]) => jsonContains((value as Json)[k], p));
}
