// Threads as the checkpointer holds them: state (read, bootstrap, update), history and the list
// the page shows, each in the caller's workspace (./threadKey.ts). The wire shape is the LangGraph
// SDK's ThreadState. The graph's checkpointer keeps each workspace's threads apart
// (platform/workspaceThreads.ts): every config here names the workspace beside the thread id.
import { BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { MemorySaver, type BaseCheckpointSaver, type StateSnapshot } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import { inTransaction } from '../../platform/postgres.ts';
import { threadConfig as workspaceThreadConfig } from '../../platform/workspaceThreads.ts';
import { workspacePrefix, type ThreadKey } from './threadKey.ts';

/** What thread routes need of the graph. */
export interface StatefulGraph {
  getState(config: RunnableConfig): Promise<StateSnapshot>;
  getStateHistory(
    config: RunnableConfig,
    options?: { limit?: number; before?: RunnableConfig; filter?: Record<string, unknown> },
  ): AsyncIterableIterator<StateSnapshot>;
  updateState(config: RunnableConfig, values: Record<string, unknown>, asNode?: string): Promise<RunnableConfig>;
}

/** A thread that has no checkpoint in the caller's workspace: never made there, deleted, or another workspace's. */
export class ThreadNotFoundError extends Error {
  constructor(threadId: string) {
    super(
      `thread ${threadId} not found: it has no checkpoint in this workspace (a new thread is bootstrapped with POST /api/threads/${threadId}/state)`,
    );
  }
}

export interface ThreadSummary {
  id: string;
  title: string;
  updatedAt: string | null;
}

export const UNTITLED = 'New conversation';

/** The checkpointer, and how to enumerate a workspace's threads (newest first). */
export interface ThreadStore {
  checkpointer: BaseCheckpointSaver;
  kind: 'memory' | 'postgres';
  /** The ids (as the client chose them) of the workspace's threads, newest first. */
  threadIds(workspaceId: string, limit: number): Promise<string[]>;
  close(): Promise<void>;
}

export function memoryStore(): ThreadStore {
  const saver = new MemorySaver();
  return {
    checkpointer: saver,
    kind: 'memory',
    // MemorySaver keeps `storage[thread_id][checkpoint_ns][checkpoint_id]`; checkpoint ids are time-ordered (uuid6).
    threadIds: async (workspaceId, limit) => {
      const prefix = workspacePrefix(workspaceId);
      return Object.entries(saver.storage)
        .filter(([id]) => id.startsWith(prefix))
        .map(([id, namespaces]) => ({
          id: id.slice(prefix.length),
          last:
            Object.keys(namespaces[''] ?? {})
              .sort()
              .at(-1) ?? '',
        }))
        .sort((a, b) => b.last.localeCompare(a.last))
        .slice(0, limit)
        .map((t) => t.id);
    },
    close: async () => {},
  };
}

/** The tables of LangGraph's PostgresSaver that name a thread. */
const CHECKPOINT_TABLES = ['checkpoints', 'checkpoint_blobs', 'checkpoint_writes'] as const;

/**
 * Checkpoints in PostgreSQL, schema `chat_app` (apart from the agent server's tables). Threads
 * kept by a release without workspaces (their stored id has no "/") are moved to `legacyWorkspaceId`,
 * the default workspace, where the key `npm start` prints acts.
 */
export async function postgresStore(url: string, legacyWorkspaceId: string): Promise<ThreadStore> {
  const schema = 'chat_app';
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  const saver = new PostgresSaver(pool, undefined, { schema });
  await saver.setup();
  // Idempotent, and safe with replicas starting together: an id with its "/" no longer matches.
  await inTransaction(pool, async (client) => {
    for (const table of CHECKPOINT_TABLES)
      await client.query(
        `UPDATE ${schema}.${table} SET thread_id = $1 || '/' || thread_id WHERE strpos(thread_id, '/') = 0`,
        [legacyWorkspaceId],
      );
  });
  return {
    checkpointer: saver,
    kind: 'postgres',
    threadIds: async (workspaceId, limit) => {
      const prefix = workspacePrefix(workspaceId);
      const { rows } = await pool.query<{ thread_id: string }>(
        `SELECT thread_id FROM ${schema}.checkpoints WHERE checkpoint_ns = '' AND left(thread_id, length($1)) = $1 GROUP BY thread_id ORDER BY max(checkpoint_id) DESC LIMIT $2`,
        [prefix, limit],
      );
      return rows.map((r) => r.thread_id.slice(prefix.length));
    },
    close: () => pool.end(),
  };
}

const threadConfig = (key: ThreadKey, extra: Record<string, unknown> = {}): RunnableConfig =>
  workspaceThreadConfig(key, extra);

/**
 * Replaces LangChain message instances (in values, metadata) with the plain, role-keyed dicts the
 * clients read; other class instances by their JSON form.
 */
export function plainJson(value: unknown): unknown {
  if (BaseMessage.isInstance(value)) {
    const { type, data } = value.toDict();
    return plainJson({ ...data, type });
  }
  if (Array.isArray(value)) return value.map(plainJson);
  if (value !== null && typeof value === 'object') {
    const json = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof json === 'function' && !(value instanceof Date)) {
      const converted = json.call(value);
      if (converted !== value) return plainJson(converted);
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = plainJson(item);
    return out;
  }
  return value;
}

function hasCheckpoint(snapshot: StateSnapshot): boolean {
  const id = snapshot.config?.configurable?.checkpoint_id;
  return typeof id === 'string' && id.length > 0;
}

function checkpointOf(config: RunnableConfig | undefined, threadId: string): Record<string, unknown> | null {
  const c = config?.configurable;
  if (!c || typeof c.checkpoint_id !== 'string') return null;
  return {
    thread_id: threadId,
    checkpoint_id: c.checkpoint_id,
    checkpoint_ns: typeof c.checkpoint_ns === 'string' ? c.checkpoint_ns : '',
    checkpoint_map: c.checkpoint_map ?? null,
  };
}

/** A LangGraph snapshot as the SDK's ThreadState, naming the thread as the client does. */
export function threadState(snapshot: StateSnapshot, key: ThreadKey): Record<string, unknown> {
  const threadId = key.threadId;
  return {
    values: plainJson(snapshot.values ?? {}),
    next: [...(snapshot.next ?? [])],
    tasks: (snapshot.tasks ?? []).map((task) => ({
      id: task.id,
      name: task.name,
      error: task.error == null ? null : task.error instanceof Error ? task.error.message : String(task.error),
      interrupts: plainJson(task.interrupts ?? []),
      path: task.path ?? null,
      checkpoint: null,
      state: null,
      result: task.result == null ? null : plainJson(task.result),
    })),
    checkpoint: checkpointOf(snapshot.config, threadId),
    metadata: plainJson(snapshot.metadata ?? {}),
    created_at: snapshot.createdAt ?? null,
    parent_checkpoint: checkpointOf(snapshot.parentConfig, threadId),
  };
}

export async function getThreadState(graph: StatefulGraph, key: ThreadKey): Promise<Record<string, unknown>> {
  const snapshot = await graph.getState(threadConfig(key));
  if (!hasCheckpoint(snapshot)) throw new ThreadNotFoundError(key.threadId);
  return threadState(snapshot, key);
}

/** Whether the thread has a checkpoint in the caller's workspace. */
export async function threadExists(graph: StatefulGraph, key: ThreadKey): Promise<boolean> {
  return hasCheckpoint(await graph.getState(threadConfig(key)));
}

export class InvalidStateUpdateError extends Error {}

/**
 * `POST …/state`: bootstraps a thread (`{values:{messages:[]}}` on a thread without a checkpoint)
 * or applies an update as `as_node` (default: the model node once the thread has messages).
 */
export async function updateThreadState(
  graph: StatefulGraph,
  key: ThreadKey,
  update: { values?: Record<string, unknown> | null; checkpoint?: Record<string, unknown> | null; as_node?: string },
  knownChannels: ReadonlySet<string>,
): Promise<Record<string, unknown>> {
  const values = update.values ?? { messages: [] };
  const unknown = Object.keys(values).filter((key) => !knownChannels.has(key));
  if (unknown.length > 0)
    throw new InvalidStateUpdateError(
      `unknown state key${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; the state has ${[...knownChannels].join(', ')}`,
    );
  if ('messages' in values && !Array.isArray(values.messages))
    throw new InvalidStateUpdateError('"messages" must be a list of messages');
  const checkpointId =
    typeof update.checkpoint?.checkpoint_id === 'string' ? update.checkpoint.checkpoint_id : undefined;
  const config = threadConfig(key, checkpointId ? { checkpoint_id: checkpointId } : {});
  const current = await graph.getState(config);
  if (checkpointId && !hasCheckpoint(current))
    throw new InvalidStateUpdateError(`thread ${key.threadId} has no checkpoint ${checkpointId}`);
  const messages = Array.isArray(values.messages) ? values.messages : [];
  const asNode = update.as_node ?? (!hasCheckpoint(current) || messages.length === 0 ? '__start__' : 'model_request');
  try {
    await graph.updateState(config, values, asNode);
  } catch (err) {
    throw new InvalidStateUpdateError((err as Error).message);
  }
  return threadState(await graph.getState(threadConfig(key)), key);
}

export interface HistoryRequest {
  limit: number;
  before?: string | { checkpoint_id?: string } | null;
  metadata?: Record<string, unknown>;
  checkpoint?: Record<string, unknown> | null;
}

/** `POST …/history`: checkpoints newest first, `limit` at a time, `before` a checkpoint (id or object). */
export async function getThreadHistory(
  graph: StatefulGraph,
  key: ThreadKey,
  request: HistoryRequest,
): Promise<Record<string, unknown>[]> {
  await getThreadState(graph, key);
  const beforeId = typeof request.before === 'string' ? request.before : request.before?.checkpoint_id;
  const history: Record<string, unknown>[] = [];
  // threadConfig sets thread_id last: a `checkpoint` object in the request cannot name another thread.
  const snapshots = graph.getStateHistory(threadConfig(key, { checkpoint_ns: '', ...(request.checkpoint ?? {}) }), {
    limit: request.limit,
    ...(beforeId ? { before: threadConfig(key, { checkpoint_id: beforeId }) } : {}),
    ...(request.metadata ? { filter: request.metadata } : {}),
  });
  for await (const snapshot of snapshots) history.push(threadState(snapshot, key));
  return history;
}

/** A sidebar title: the first human message, shortened. */
export function titleOf(values: unknown): string {
  const messages = (values as { messages?: unknown[] } | null)?.messages;
  if (!Array.isArray(messages)) return UNTITLED;
  for (const message of messages as { type?: string; role?: string; content?: unknown }[]) {
    if (message?.type !== 'human' && message?.role !== 'user') continue;
    const content = message.content;
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((b) => (typeof b?.text === 'string' ? b.text : '')).join('')
          : '';
    const trimmed = text.trim().replace(/\s+/g, ' ');
    if (trimmed) return trimmed.length > 80 ? `${trimmed.slice(0, 79)}…` : trimmed;
  }
  return UNTITLED;
}

export async function listThreads(
  graph: StatefulGraph,
  store: ThreadStore,
  workspaceId: string,
  limit = 200,
): Promise<ThreadSummary[]> {
  const ids = await store.threadIds(workspaceId, limit);
  const summaries = await Promise.all(
    ids.map(async (id) => {
      const snapshot = await graph.getState(threadConfig({ workspaceId, threadId: id }));
      if (!hasCheckpoint(snapshot)) return null;
      return { id, title: titleOf(plainJson(snapshot.values)), updatedAt: snapshot.createdAt ?? null };
    }),
  );
  return summaries
    .filter((s): s is ThreadSummary => s !== null)
    .sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
}
