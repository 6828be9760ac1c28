// What the thread routes do to a thread's checkpoints beyond LangGraph's own use of them: copy
// them to another thread (`POST /threads/{id}/copy`), keep only the latest (`POST /threads/prune`
// with `keep_latest`, and a thread TTL's `keep_latest` strategy), and merge metadata into the
// latest (`PATCH /threads/{id}/state`). Copies and metadata go through the checkpointer's own
// `list`/`put`/`putWrites`, so they work on every saver; keeping the latest is one transaction on
// PostgreSQL (LangGraph's PostgresSaver tables), so a failure half-way loses nothing.
import type pg from 'pg';
import type { CheckpointTuple, PendingWrite } from '@langchain/langgraph-checkpoint';
import { inTransaction } from '../../../platform/postgres.ts';
import {
  storedThreadId,
  threadConfig,
  type ThreadKey,
  type WorkspaceCheckpointer,
} from '../../../platform/workspaceThreads.ts';

export interface CheckpointMaintenance {
  /** Copies every checkpoint of `from` (every namespace, with their pending writes) to `to`, which has none. */
  copy(from: ThreadKey, to: ThreadKey): Promise<void>;
  /** Deletes every checkpoint of the thread but the latest of each namespace, which keeps its pending writes. */
  keepLatest(key: ThreadKey): Promise<void>;
  /** Merges `metadata` into the metadata of the thread's latest (root) checkpoint; false when it has none. */
  patchLatestMetadata(key: ThreadKey, metadata: Record<string, unknown>): Promise<boolean>;
}

/** Every checkpoint of a thread, oldest first (parents before children). */
async function allCheckpoints(checkpointer: WorkspaceCheckpointer, key: ThreadKey): Promise<CheckpointTuple[]> {
  const tuples: CheckpointTuple[] = [];
  for await (const tuple of checkpointer.list(threadConfig(key))) tuples.push(tuple);
  return tuples.reverse();
}

async function putTuple(
  checkpointer: WorkspaceCheckpointer,
  key: ThreadKey,
  tuple: CheckpointTuple,
  parentId: string | undefined,
): Promise<void> {
  const namespace = (tuple.config.configurable?.checkpoint_ns as string | undefined) ?? '';
  const saved = await checkpointer.put(
    threadConfig(key, { checkpoint_ns: namespace, ...(parentId ? { checkpoint_id: parentId } : {}) }),
    tuple.checkpoint,
    tuple.metadata ?? { source: 'update', step: -1, parents: {} },
    // every channel at its version: a saver that keeps values apart (PostgresSaver) writes them all
    tuple.checkpoint.channel_versions,
  );
  const byTask = new Map<string, PendingWrite[]>();
  for (const [taskId, channel, value] of tuple.pendingWrites ?? []) {
    const writes = byTask.get(taskId) ?? [];
    writes.push([channel, value]);
    byTask.set(taskId, writes);
  }
  for (const [taskId, writes] of byTask) await checkpointer.putWrites(saved, writes, taskId);
}

const parentOf = (tuple: CheckpointTuple) => tuple.parentConfig?.configurable?.checkpoint_id as string | undefined;

/** Through the checkpointer's API (memory mode; and copies and metadata on PostgreSQL). */
export class SaverCheckpointMaintenance implements CheckpointMaintenance {
  protected readonly checkpointer: WorkspaceCheckpointer;

  constructor(checkpointer: WorkspaceCheckpointer) {
    this.checkpointer = checkpointer;
  }

  async copy(from: ThreadKey, to: ThreadKey): Promise<void> {
    for (const tuple of await allCheckpoints(this.checkpointer, from))
      await putTuple(this.checkpointer, to, tuple, parentOf(tuple));
  }

  async keepLatest(key: ThreadKey): Promise<void> {
    const latest = new Map<string, CheckpointTuple>();
    for (const tuple of (await allCheckpoints(this.checkpointer, key)).reverse()) {
      const namespace = (tuple.config.configurable?.checkpoint_ns as string | undefined) ?? '';
      if (!latest.has(namespace)) latest.set(namespace, tuple);
    }
    if (latest.size === 0) return;
    await this.checkpointer.deleteThreadOf(key);
    for (const tuple of latest.values()) await putTuple(this.checkpointer, key, tuple, undefined);
  }

  async patchLatestMetadata(key: ThreadKey, metadata: Record<string, unknown>): Promise<boolean> {
    const latest = await this.checkpointer.getTuple(threadConfig(key));
    if (!latest) return false;
    await this.checkpointer.put(
      threadConfig(key, { checkpoint_ns: '', ...(parentOf(latest) ? { checkpoint_id: parentOf(latest) } : {}) }),
      latest.checkpoint,
      { ...latest.metadata, ...metadata } as CheckpointTuple['metadata'] & object,
      {}, // the same checkpoint: its values are stored already
    );
    return true;
  }
}

/** On LangGraph's PostgresSaver tables (in the pool's database, `public` schema). */
export class PostgresCheckpointMaintenance extends SaverCheckpointMaintenance {
  private readonly pool: pg.Pool;

  constructor(checkpointer: WorkspaceCheckpointer, pool: pg.Pool) {
    super(checkpointer);
    this.pool = pool;
  }

  /** One transaction: the latest checkpoint of each namespace stays (its parent link dropped), with its writes and the values it reads. */
  override async keepLatest(key: ThreadKey): Promise<void> {
    const thread = storedThreadId(key);
    await inTransaction(this.pool, async (client) => {
      await client.query(
        `DELETE FROM checkpoints c WHERE c.thread_id = $1 AND c.checkpoint_id <> (
           SELECT max(l.checkpoint_id) FROM checkpoints l WHERE l.thread_id = c.thread_id AND l.checkpoint_ns = c.checkpoint_ns)`,
        [thread],
      );
      await client.query('UPDATE checkpoints SET parent_checkpoint_id = NULL WHERE thread_id = $1', [thread]);
      await client.query(
        `DELETE FROM checkpoint_writes w WHERE w.thread_id = $1 AND NOT EXISTS (
           SELECT 1 FROM checkpoints c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)`,
        [thread],
      );
      await client.query(
        `DELETE FROM checkpoint_blobs b WHERE b.thread_id = $1 AND NOT EXISTS (
           SELECT 1 FROM checkpoints c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns
             AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)`,
        [thread],
      );
    });
  }
}
