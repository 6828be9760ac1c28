// Deleting a thread, wherever a route does it (DELETE /threads/{id}, POST /threads/prune,
// DELETE /assistants/{id}?delete_threads): its runs cancelled first, then its record (and its
// runs' records), then its checkpoints.
import type { ThreadKey, WorkspaceCheckpointer } from '../../../platform/workspaceThreads.ts';
import type { RunManager } from '../runs/runManager.ts';
import type { AgentRecordStore, RecordScope } from '../store/agentRecords.ts';

export async function deleteThread(
  deps: { runs: RunManager; store: AgentRecordStore; checkpointer: WorkspaceCheckpointer },
  scope: RecordScope,
  key: ThreadKey,
): Promise<boolean> {
  await deps.runs.cancelThread(key);
  const deleted = await deps.store.deleteThread(scope, key.threadId);
  await deps.checkpointer.deleteThreadOf(key);
  return deleted;
}
