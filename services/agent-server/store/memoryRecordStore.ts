// Thread and run records in this process's memory: gone when it stops, like the in-memory checkpointer.
import type { AgentRecordStore, RunRecord, RunStatus, ThreadRecord, ThreadSearch } from './agentRecords.ts';
import { jsonContains } from './agentRecords.ts';

export class MemoryRecordStore implements AgentRecordStore {
  private readonly threads = new Map<string, ThreadRecord>();
  private readonly runs = new Map<string, Map<string, RunRecord>>();

  async createThread(thread: ThreadRecord): Promise<ThreadRecord | undefined> {
    if (this.threads.has(thread.thread_id)) return undefined;
    this.threads.set(thread.thread_id, thread);
    return thread;
  }

  async getThread(threadId: string): Promise<ThreadRecord | undefined> {
    return this.threads.get(threadId);
  }

  async updateThread(threadId: string, patch: Partial<ThreadRecord>): Promise<ThreadRecord | undefined> {
    const thread = this.threads.get(threadId);
    if (!thread) return undefined;
    const updated = { ...thread, ...patch };
    this.threads.set(threadId, updated);
    return updated;
  }

  async deleteThread(threadId: string): Promise<boolean> {
    this.runs.delete(threadId);
    return this.threads.delete(threadId);
  }

  async searchThreads(search: ThreadSearch): Promise<{ threads: ThreadRecord[]; total: number }> {
    const ids = search.ids ? new Set(search.ids) : undefined;
    const matching = [...this.threads.values()].filter(
      (t) =>
        (!ids || ids.has(t.thread_id)) &&
        (!search.status || t.status === search.status) &&
        (!search.metadata || jsonContains(t.metadata, search.metadata)) &&
        (!search.values || jsonContains(t.values ?? {}, search.values)),
    );
    const sign = search.sortOrder === 'asc' ? 1 : -1;
    matching.sort((a, b) => (a[search.sortBy] < b[search.sortBy] ? -sign : a[search.sortBy] > b[search.sortBy] ? sign : 0));
    return { threads: matching.slice(search.offset, search.offset + search.limit), total: matching.length };
  }

  async putRun(run: RunRecord): Promise<void> {
    let runs = this.runs.get(run.thread_id);
    if (!runs) this.runs.set(run.thread_id, (runs = new Map()));
    runs.set(run.run_id, run);
  }

  async getRun(threadId: string, runId: string): Promise<RunRecord | undefined> {
    return this.runs.get(threadId)?.get(runId);
  }

  async listRuns(threadId: string, options: { limit: number; offset: number; status?: RunStatus }): Promise<RunRecord[]> {
    const runs = [...(this.runs.get(threadId)?.values() ?? [])].filter((r) => !options.status || r.status === options.status);
    runs.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
    return runs.slice(options.offset, options.offset + options.limit);
  }

  async deleteRun(threadId: string, runId: string): Promise<boolean> {
    return this.runs.get(threadId)?.delete(runId) ?? false;
  }

  async failUnfinishedRuns(): Promise<number> {
    return 0; // nothing survives a restart in memory
  }

  async close(): Promise<void> {}
}
