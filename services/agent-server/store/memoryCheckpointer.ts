// LangGraph's in-memory checkpointer, with a thread deleted in time proportional to that
// thread's own writes. MemorySaver.deleteThread parses the key of every write of every thread,
// so each stateless run (which deletes its temporary thread) got slower the more threads the
// server held: ~9 ms a run after a few thousand conversations, against ~1 ms.
import { MemorySaver } from '@langchain/langgraph';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { PendingWrite } from '@langchain/langgraph-checkpoint';

export class MemoryCheckpointer extends MemorySaver {
  /** Per thread, the keys of its entries in `this.writes`. */
  private readonly writeKeys = new Map<string, Set<string>>();

  override async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    await super.putWrites(config, writes, taskId, taskPath);
    const { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpointId } = config.configurable ?? {};
    // The key MemorySaver files these writes under.
    const key = JSON.stringify([threadId, namespace, checkpointId]);
    let keys = this.writeKeys.get(threadId);
    if (!keys) this.writeKeys.set(threadId, (keys = new Set()));
    keys.add(key);
  }

  override async deleteThread(threadId: string): Promise<void> {
    delete this.storage[threadId];
    for (const key of this.writeKeys.get(threadId) ?? []) delete this.writes[key];
    this.writeKeys.delete(threadId);
  }
}
