// Threads are per workspace: a client chooses a thread's id, and two workspaces may both have a
// thread of that id, each its own. A LangGraph checkpointer keys checkpoints by thread id alone, so
// the stored id is `<workspace id>/<thread id>` (a workspace id has no "/"). The stored id never
// leaves the server: graphs, and what the API answers, name a thread by the client's id.
//
// WorkspaceCheckpointer does that translation around any checkpointer: every config it is given
// names the workspace beside the thread id (threadConfig puts it under WORKSPACE_KEY, which
// LangGraph passes on through a run, its subgraphs and its state methods, and keeps out of traces
// and serialized stream events as it does every `__` key); it stores under the stored id and
// answers with the client's id and the workspace again. A config without a workspace is refused:
// nothing reads or writes a thread without saying whose it is.
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
} from '@langchain/langgraph-checkpoint';

/** A thread as a request names it: the caller's workspace and the id the client chose. */
export interface ThreadKey {
  workspaceId: string;
  threadId: string;
}

/** The thread's id where it is stored (checkpointer, in-memory maps keyed by thread). */
export const storedThreadId = (key: ThreadKey): string => `${key.workspaceId}/${key.threadId}`;

/** What a workspace's stored thread ids start with. */
export const workspacePrefix = (workspaceId: string): string => `${workspaceId}/`;

/** The configurable key that names a thread's workspace beside its `thread_id`. */
export const WORKSPACE_KEY = '__workspace_id';

/** A config naming a workspace's thread (a RunnableConfig). */
export type ThreadConfig = { configurable: Record<string, unknown> };

/**
 * The config that names a thread of a workspace for a graph (run, state, history, update). The
 * thread and workspace come last: whatever `configurable` a request brings (a `checkpoint` object,
 * a run's config) cannot name another thread, or another workspace's.
 */
export function threadConfig(key: ThreadKey, configurable: Record<string, unknown> = {}): ThreadConfig {
  return { configurable: { ...configurable, thread_id: key.threadId, [WORKSPACE_KEY]: key.workspaceId } };
}

/** A configurable as an API may answer it: the thread named by the client's id, without the workspace key. */
export function answeredConfigurable(configurable: Record<string, unknown> | undefined): Record<string, unknown> {
  const { [WORKSPACE_KEY]: _workspace, ...rest } = configurable ?? {};
  return rest;
}

/** The thread a config names, or an error when it does not name both the thread and its workspace. */
export function threadKeyOf(config: RunnableConfig | undefined): ThreadKey {
  const { thread_id: threadId, [WORKSPACE_KEY]: workspaceId } = config?.configurable ?? {};
  if (typeof threadId !== 'string' || threadId === '' || typeof workspaceId !== 'string' || workspaceId === '') {
    throw new Error(
      `a checkpointer call must name the thread and its workspace (threadConfig); this one names thread ${String(threadId)} of workspace ${String(workspaceId)}`,
    );
  }
  return { workspaceId, threadId };
}

export class WorkspaceCheckpointer extends BaseCheckpointSaver {
  readonly #inner: BaseCheckpointSaver;

  constructor(inner: BaseCheckpointSaver) {
    super(inner.serde);
    this.#inner = inner;
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const key = threadKeyOf(config);
    const tuple = await this.#inner.getTuple(stored(config, key));
    return tuple && shownTuple(tuple, key);
  }

  override async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const key = threadKeyOf(config);
    const before = options?.before && {
      ...options.before,
      configurable: withoutWorkspace(options.before.configurable, key),
    };
    for await (const tuple of this.#inner.list(stored(config, key), { ...options, ...(before ? { before } : {}) }))
      yield shownTuple(tuple, key);
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const key = threadKeyOf(config);
    return shown(await this.#inner.put(stored(config, key), checkpoint, metadata, newVersions), key);
  }

  override putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    return this.#inner.putWrites(stored(config, threadKeyOf(config)), writes, taskId, taskPath);
  }

  override getDeltaChannelHistory(
    options: Parameters<BaseCheckpointSaver['getDeltaChannelHistory']>[0],
  ): ReturnType<BaseCheckpointSaver['getDeltaChannelHistory']> {
    return this.#inner.getDeltaChannelHistory({
      ...options,
      config: stored(options.config, threadKeyOf(options.config)),
    });
  }

  /** Refused: a bare thread id names no workspace. Use deleteThreadOf. */
  override async deleteThread(threadId: string): Promise<void> {
    throw new Error(`deleting thread ${threadId} needs its workspace: deleteThreadOf({ workspaceId, threadId })`);
  }

  /** Deletes the checkpoints of one workspace's thread. */
  deleteThreadOf(key: ThreadKey): Promise<void> {
    return this.#inner.deleteThread(storedThreadId(key));
  }

  override getNextVersion(current: number | undefined): number {
    return this.#inner.getNextVersion(current);
  }
}

/** A configurable without the workspace key, naming the thread by its stored id when it names one. */
function withoutWorkspace(configurable: Record<string, unknown> | undefined, key: ThreadKey): Record<string, unknown> {
  const { [WORKSPACE_KEY]: _workspace, ...rest } = configurable ?? {};
  return rest.thread_id === undefined ? rest : { ...rest, thread_id: storedThreadId(key) };
}

function stored(config: RunnableConfig, key: ThreadKey): RunnableConfig {
  return { ...config, configurable: withoutWorkspace(config.configurable, key) };
}

/** A config the inner saver answered, as the caller names the thread; never another thread's. */
function shown(config: RunnableConfig, key: ThreadKey): RunnableConfig {
  const threadId = config.configurable?.thread_id;
  if (threadId !== storedThreadId(key))
    throw new Error(`the checkpointer answered for thread ${String(threadId)} when asked for ${storedThreadId(key)}`);
  return threadConfig(key, config.configurable);
}

function shownTuple(tuple: CheckpointTuple, key: ThreadKey): CheckpointTuple {
  return {
    ...tuple,
    config: shown(tuple.config, key),
    ...(tuple.parentConfig ? { parentConfig: shown(tuple.parentConfig, key) } : {}),
  };
}
