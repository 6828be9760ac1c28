// Stateless runs' checkpoints in memory, whatever the durable checkpointer. A stateless run's
// temporary thread exists only while the run does (it is deleted when the run ends, unless the
// run asked on_completion "keep") and the run lives only in the replica that executes it (a
// replica that dies fails its runs; none is resumed elsewhere). Written to PostgreSQL, its
// checkpoints were 28 of the 34 queries of a stateless run, for rows deleted a moment later.
// Held threads go to memory; every other thread to the durable checkpointer.
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
} from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { MemoryCheckpointer } from './memoryCheckpointer.ts';

export class TemporaryThreadCheckpointer extends BaseCheckpointSaver {
  readonly #durable: BaseCheckpointSaver;
  readonly #memory = new MemoryCheckpointer();
  readonly #held = new Set<string>();

  constructor(durable: BaseCheckpointSaver) {
    super(durable.serde);
    this.#durable = durable;
  }

  /** Keeps a temporary thread's checkpoints in memory until the thread is deleted (`threadId` as stored: workspaceThreads.ts). */
  hold(threadId: string): void {
    this.#held.add(threadId);
  }

  #saverOf(threadId: unknown): BaseCheckpointSaver {
    return typeof threadId === 'string' && this.#held.has(threadId) ? this.#memory : this.#durable;
  }

  #saver(config: RunnableConfig): BaseCheckpointSaver {
    return this.#saverOf(config.configurable?.thread_id);
  }

  override getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    return this.#saver(config).getTuple(config);
  }

  override list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    return this.#saver(config).list(config, options);
  }

  override put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    return this.#saver(config).put(config, checkpoint, metadata, newVersions);
  }

  override putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    return this.#saver(config).putWrites(config, writes, taskId, taskPath);
  }

  override async deleteThread(threadId: string): Promise<void> {
    await this.#saverOf(threadId).deleteThread(threadId);
    this.#held.delete(threadId);
  }

  override getNextVersion(current: number | undefined): number {
    return this.#durable.getNextVersion(current);
  }
}
