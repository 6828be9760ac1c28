// Thread and run records in this process's memory: gone when it stops, like the in-memory checkpointer.
import { storedThreadId } from '../../../platform/workspaceThreads.ts';
import { isAuthMatching } from '../auth/authFilters.ts';
import type {
  AgentRecordStore,
  RecordScope,
  RunRecord,
  RunStatus,
  ThreadRecord,
  ThreadSearch,
} from './agentRecords.ts';
import { jsonContains } from './agentRecords.ts';
import { expiresAt } from '../threads/threadRecords.ts';

/** Expired at `now`, and running nothing. */
const isExpired = (thread: ThreadRecord, now: string) => (expiresAt(thread) ?? now) < now && thread.status !== 'busy';

interface StoredThread {
  workspaceId: string;
  thread: ThreadRecord;
  /** Its runs by run id. */
  runs: Map<string, RunRecord>;
}

export class MemoryRecordStore implements AgentRecordStore {
  /** By stored thread id: workspace and thread id. */
  readonly #threads = new Map<string, StoredThread>();

  /** The thread if the scope sees it. */
  #visible(scope: RecordScope, threadId: string): StoredThread | undefined {
    const stored = this.#threads.get(storedThreadId({ workspaceId: scope.workspaceId, threadId }));
    if (!stored || stored.workspaceId !== scope.workspaceId || !isAuthMatching(stored.thread.metadata, scope.filters))
      return undefined;
    return stored;
  }

  async createThread(workspaceId: string, thread: ThreadRecord): Promise<ThreadRecord | undefined> {
    const key = storedThreadId({ workspaceId, threadId: thread.thread_id });
    if (this.#threads.has(key)) return undefined;
    this.#threads.set(key, { workspaceId, thread, runs: new Map() });
    return thread;
  }

  async getThread(scope: RecordScope, threadId: string): Promise<ThreadRecord | undefined> {
    return this.#visible(scope, threadId)?.thread;
  }

  async updateThread(
    scope: RecordScope,
    threadId: string,
    patch: Partial<ThreadRecord>,
  ): Promise<ThreadRecord | undefined> {
    const stored = this.#visible(scope, threadId);
    if (!stored) return undefined;
    stored.thread = { ...stored.thread, ...patch };
    return stored.thread;
  }

  async deleteThread(scope: RecordScope, threadId: string): Promise<boolean> {
    return (
      this.#visible(scope, threadId) !== undefined &&
      this.#threads.delete(storedThreadId({ workspaceId: scope.workspaceId, threadId }))
    );
  }

  async expiredThreads(now: string, limit: number): Promise<{ workspaceId: string; thread: ThreadRecord }[]> {
    return [...this.#threads.values()]
      .filter((s) => isExpired(s.thread, now))
      .sort((a, b) => (expiresAt(a.thread)! < expiresAt(b.thread)! ? -1 : 1))
      .slice(0, limit)
      .map(({ workspaceId, thread }) => ({ workspaceId, thread }));
  }

  async deleteExpiredThread(workspaceId: string, threadId: string, now: string): Promise<boolean> {
    const key = storedThreadId({ workspaceId, threadId });
    const stored = this.#threads.get(key);
    return stored !== undefined && isExpired(stored.thread, now) && this.#threads.delete(key);
  }

  async searchThreads(scope: RecordScope, search: ThreadSearch): Promise<{ threads: ThreadRecord[]; total: number }> {
    const ids = search.ids ? new Set(search.ids) : undefined;
    const matching = [...this.#threads.values()]
      .filter((s) => s.workspaceId === scope.workspaceId && isAuthMatching(s.thread.metadata, scope.filters))
      .map((s) => s.thread)
      .filter(
        (t) =>
          (!ids || ids.has(t.thread_id)) &&
          (!search.status || t.status === search.status) &&
          (!search.metadata || jsonContains(t.metadata, search.metadata)) &&
          (!search.values || jsonContains(t.values ?? {}, search.values)),
      );
    const sign = search.sortOrder === 'asc' ? 1 : -1;
    matching.sort((a, b) =>
      a[search.sortBy] < b[search.sortBy] ? -sign : a[search.sortBy] > b[search.sortBy] ? sign : 0,
    );
    return { threads: matching.slice(search.offset, search.offset + search.limit), total: matching.length };
  }

  async putRun(workspaceId: string, run: RunRecord): Promise<void> {
    this.#visible({ workspaceId }, run.thread_id)?.runs.set(run.run_id, run);
  }

  async getRun(scope: RecordScope, threadId: string, runId: string): Promise<RunRecord | undefined> {
    return this.#visible(scope, threadId)?.runs.get(runId);
  }

  async listRuns(
    scope: RecordScope,
    threadId: string,
    options: { limit: number; offset: number; status?: RunStatus },
  ): Promise<RunRecord[]> {
    const runs = [...(this.#visible(scope, threadId)?.runs.values() ?? [])].filter(
      (r) => !options.status || r.status === options.status,
    );
    runs.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
    return runs.slice(options.offset, options.offset + options.limit);
  }

  async deleteRun(scope: RecordScope, threadId: string, runId: string): Promise<boolean> {
    return this.#visible(scope, threadId)?.runs.delete(runId) ?? false;
  }

  async close(): Promise<void> {}
}
