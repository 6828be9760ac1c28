// The A2A methods, on top of the run manager: a message starts a run on the thread named by its
// contextId (a new thread when it has none) and the task is that run. message/send waits for
// the run; message/stream streams it; tasks/get reads the run and its thread; tasks/cancel
// cancels the run. Bad input throws A2aErrors; the routes turn them into JSON-RPC errors.
import { v4 as uuidv4, validate as isUuid } from 'uuid';
import { z } from 'zod';
import { AppError } from '../../../platform/errors.ts';
import { threadConfig } from '../../../platform/workspaceThreads.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import type { Caller } from '../auth/callers.ts';
import type { RegisteredGraph } from '../graphRegistry.ts';
import type { ActiveRun, RunOutcome } from '../runs/activeRun.ts';
import type { RunCreateBody } from '../runs/runBody.ts';
import type { RecordScope, RunRecord } from '../store/agentRecords.ts';
import { toWireValue } from '../wireJson.ts';
import type { A2aMessage, A2aStreamEvent, Task, TaskStatus } from './a2aTypes.ts';
import { asInterrupts, parseTaskId, splitInterrupts, taskIdsOf, taskOfRun, type TaskIds } from './a2aTasks.ts';
import { a2aErrors } from './jsonRpc.ts';
import {
  agentMessage,
  echoedMessage,
  partialAiMessage,
  readIncomingMessage,
  runRequestFor,
  type IncomingMessage,
} from './messageMapping.ts';

type Json = Record<string, unknown>;

/** tasks/get returns at most this many history messages (as the LangGraph server does). */
const MAX_GET_HISTORY = 10;

/** Who calls, about which assistant. */
export interface A2aCall {
  registered: RegisteredGraph;
  /** Tasks are runs of the caller's threads: another workspace's task is as unknown as one that never was. */
  caller: Caller;
  /** The JSON-RPC envelope's `metadata`: its `thread_id`, when given, is the trace's thread id. */
  requestMetadata: Json;
}

const json = z.record(z.string(), z.unknown());
const optionalId = z
  .string()
  .nullish()
  .transform((v) => v || undefined);

const sendParams = z.looseObject({
  message: z.unknown().optional(), // readIncomingMessage says what is wrong with it
  configuration: z
    .looseObject({
      historyLength: z.number().int().min(0).nullish(),
      blocking: z.boolean().nullish(), // v0.3: false answers at once
      returnImmediately: z.boolean().nullish(), // v1.0: true answers at once
    })
    .nullish(),
  metadata: json.nullish(),
  /** The run's context (LangGraph `context`), as the LangGraph server accepts it. */
  context: json.nullish(),
});

const getParams = z.looseObject({
  id: z.string({ error: 'id (the task id) is required' }).min(1, 'id (the task id) is required'),
  historyLength: z
    .number()
    .int()
    .min(0)
    .max(MAX_GET_HISTORY, `historyLength must be at most ${MAX_GET_HISTORY}`)
    .nullish(),
  contextId: optionalId,
});

const cancelParams = z.looseObject({
  id: z.string({ error: 'id (the task id) is required' }).min(1, 'id (the task id) is required'),
  contextId: optionalId,
});

function parseParams<S extends z.ZodType>(schema: S, params: Json): z.infer<S> {
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  throw a2aErrors.invalidParams(
    parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; '),
  );
}

const now = () => new Date().toISOString();

/** The envelope's `metadata.thread_id` (one conversation across agents: docs/cross-agent-tracing.md), if given. */
function traceThreadIdOf(metadata: Json): string | undefined {
  const threadId = metadata.thread_id;
  if (threadId === undefined || threadId === null) return undefined;
  if (typeof threadId !== 'string' || threadId === '')
    throw a2aErrors.invalidParams('metadata.thread_id must be a non-empty string');
  return threadId;
}

interface FoundRun {
  /** What the caller sees: the run's thread is in it. */
  scope: RecordScope;
  record: RunRecord;
  active?: ActiveRun;
}

interface StartedRun {
  run: ActiveRun;
  ids: TaskIds;
  /** The client's message as the task's first history entry. */
  echoed: A2aMessage;
}

export class A2aHandlers {
  private readonly deps: AgentServerDeps;

  constructor(deps: AgentServerDeps) {
    this.deps = deps;
  }

  /** message/send: runs the message and answers with the finished task (or at once, if asked). */
  async send(call: A2aCall, params: Json): Promise<Task> {
    const p = parseParams(sendParams, params);
    const started = await this.startRun(call, readIncomingMessage(p.message), p, false);
    if (p.configuration?.returnImmediately === true || p.configuration?.blocking === false)
      return this.submittedTask(started);
    return this.taskOfOutcome(started.ids, await started.run.outcome, {
      historyLength: p.configuration?.historyLength ?? undefined,
      fallback: [started.echoed],
    });
  }

  /**
   * message/stream: starts the run (bad input throws here, before any event) and gives its
   * events: the submitted task, `working` updates (the answer so far, per token), then the
   * artifacts and a final status update. Ends early, leaving the run to finish, when `signal` aborts.
   */
  async stream(call: A2aCall, params: Json, signal: AbortSignal): Promise<AsyncGenerator<A2aStreamEvent>> {
    const p = parseParams(sendParams, params);
    const started = await this.startRun(call, readIncomingMessage(p.message), p, true);
    return this.streamEvents(started, p.configuration?.historyLength ?? undefined, signal);
  }

  /** tasks/get: the task of a run, from the run and its thread. */
  async getTask(call: A2aCall, params: Json): Promise<Task> {
    const p = parseParams(getParams, params);
    const found = await this.findRun(call, p.id, p.contextId, 'read');
    return this.taskOfRecord(call, found, { historyLength: p.historyLength ?? undefined });
  }

  /** tasks/cancel: cancels a pending or running run and answers when it has stopped; a finished task is answered as it is. */
  async cancelTask(call: A2aCall, params: Json): Promise<Task> {
    const p = parseParams(cancelParams, params);
    const found = await this.findRun(call, p.id, p.contextId, 'update');
    const stopping = await this.deps.runs.cancel(found.record, found.scope.workspaceId, 'interrupt');
    if (stopping) {
      await stopping.outcome;
      return this.taskOfRecord(call, { ...found, record: stopping.record }, {});
    }
    const task = await this.taskOfRecord(call, found, {});
    return this.withNote(task, `Task cancel acknowledged (was: ${task.status.state})`);
  }

  private async startRun(
    call: A2aCall,
    message: IncomingMessage,
    p: z.infer<typeof sendParams>,
    streaming: boolean,
  ): Promise<StartedRun> {
    const { assistant, stateKeys } = call.registered;
    const contextId = this.contextIdOf(message);
    const thread = contextId
      ? await this.deps.store.getThread(await call.caller.scope('threads:read', { thread_id: contextId }), contextId)
      : undefined;
    if (message.resume && thread?.status !== 'interrupted') {
      throw a2aErrors.invalidParams(
        'a resume needs the contextId (and taskId) of a conversation that is waiting for input',
      );
    }
    const request = runRequestFor(message, {
      assistantName: assistant.name,
      hasMessagesKey: stateKeys.includes('messages'),
      threadInterrupted: thread?.status === 'interrupted',
    });
    const threadId = contextId ?? uuidv4();
    const traceThreadId = traceThreadIdOf(call.requestMetadata) ?? threadId;
    const body: RunCreateBody = {
      assistant_id: assistant.assistant_id,
      ...request,
      if_not_exists: 'create',
      stream_mode: streaming ? ['messages', 'values'] : ['values'],
      // The run manager puts run metadata into the trace: the conversation is one tracing thread.
      metadata: { thread_id: traceThreadId },
      ...(p.context ? { context: p.context } : {}),
    };
    let run: ActiveRun;
    try {
      run = await this.deps.runs.create(threadId, body, call.caller);
    } catch (err) {
      if (err instanceof AppError && err.statusCode < 500) throw a2aErrors.runCreateFailed(err.message);
      throw err;
    }
    const ids = taskIdsOf(threadId, run.record.run_id, assistant.assistant_id);
    return { run, ids, echoed: echoedMessage(message, ids.contextId, ids.taskId) };
  }

  /** The thread a message continues: its contextId (a UUID: it is the thread id), else the one its taskId names. */
  private contextIdOf(message: IncomingMessage): string | undefined {
    const { contextId, taskId } = message;
    if (contextId !== undefined && !isUuid(contextId)) throw a2aErrors.invalidContextId(contextId);
    const taskContext = taskId?.includes(':') ? taskId.split(':')[0] : undefined;
    if (taskContext !== undefined && contextId !== undefined && taskContext.toLowerCase() !== contextId.toLowerCase()) {
      throw a2aErrors.invalidParams(
        `taskId "${taskId}" belongs to context ${taskContext}, not to contextId ${contextId}`,
      );
    }
    const id = contextId ?? taskContext;
    if (id !== undefined && !isUuid(id)) throw a2aErrors.invalidContextId(id);
    return id?.toLowerCase();
  }

  private submittedTask({ ids, echoed }: StartedRun): Task {
    return {
      kind: 'task',
      id: ids.taskId,
      contextId: ids.contextId,
      status: { state: 'submitted', timestamp: now() },
      history: [echoed],
    };
  }

  private async *streamEvents(
    started: StartedRun,
    historyLength: number | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<A2aStreamEvent> {
    const { run, ids } = started;
    const update = (status: TaskStatus, final = false) => ({
      kind: 'status-update' as const,
      taskId: ids.taskId,
      contextId: ids.contextId,
      status,
      final,
    });
    yield this.submittedTask(started);
    yield update({ state: 'working', timestamp: now() });
    const sent = new Map<string, string>();
    for await (const event of run.subscribe(undefined, signal)) {
      if (event.event !== 'messages/partial') continue;
      const partial = partialAiMessage(JSON.parse(event.data));
      if (!partial || partial.text === '' || sent.get(partial.id) === partial.text) continue;
      sent.set(partial.id, partial.text);
      yield update({
        state: 'working',
        message: agentMessage(partial.text, partial.id, ids.contextId, ids.taskId),
        timestamp: now(),
      });
    }
    if (signal.aborted) return;
    const task = this.taskOfOutcome(ids, await run.outcome, { historyLength, fallback: [started.echoed] });
    for (const artifact of task.artifacts ?? [])
      yield { kind: 'artifact-update', taskId: ids.taskId, contextId: ids.contextId, artifact, lastChunk: true };
    yield update(task.status, true);
  }

  private taskOfOutcome(
    ids: TaskIds,
    outcome: RunOutcome,
    options: { historyLength?: number; fallback: A2aMessage[] },
  ): Task {
    const { values, interrupts } = splitInterrupts(outcome.values);
    return taskOfRun(
      ids,
      { status: outcome.status, values, interrupts, error: outcome.error?.message },
      { timestamp: now(), historyLength: options.historyLength, fallbackHistory: options.fallback },
    );
  }

  /**
   * The run a task id names, if it is one of this assistant's on a thread the caller may read
   * (tasks/get) or update (tasks/cancel); else the task is not found.
   */
  private async findRun(
    call: A2aCall,
    taskId: string,
    contextParam: string | undefined,
    action: 'read' | 'update',
  ): Promise<FoundRun> {
    const { contextId, runId } = parseTaskId(taskId, contextParam);
    const active = this.deps.runs.get(runId, call.caller.workspaceId);
    // A bare run id names no thread: the run in memory does.
    const threadId = contextId ?? active?.record.thread_id;
    if (threadId === undefined) throw a2aErrors.taskNotFound(taskId);
    const scope = await call.caller.scope(action === 'read' ? 'threads:read' : 'threads:update', {
      thread_id: threadId,
    });
    if (!(await this.deps.store.getThread(scope, threadId))) throw a2aErrors.taskNotFound(taskId);
    let record: RunRecord | undefined;
    if (active && active.record.thread_id === threadId) record = active.record;
    else record = await this.deps.store.getRun(scope, threadId, runId);
    if (!record || record.assistant_id !== call.registered.assistant.assistant_id) throw a2aErrors.taskNotFound(taskId);
    return { scope, record, active: record === active?.record ? active : undefined };
  }

  private async taskOfRecord(
    call: A2aCall,
    { scope, record }: Pick<FoundRun, 'scope' | 'record'>,
    options: { historyLength?: number },
  ): Promise<Task> {
    const ids = taskIdsOf(record.thread_id, record.run_id, call.registered.assistant.assistant_id);
    const thread = await this.deps.store.getThread(scope, record.thread_id);
    // Pending interrupts stay on the thread, under the run that raised them, until a later run ends.
    const interrupts = asInterrupts(thread?.interrupts[record.run_id]);
    const active = this.deps.runs.get(record.run_id, scope.workspaceId);
    const outcome = active?.done ? await active.outcome : undefined;
    const values = outcome
      ? splitInterrupts(outcome.values).values
      : await this.valuesAtEnd(call.registered, record, scope.workspaceId);
    const threadError = (thread?.error as { message?: unknown } | undefined)?.message;
    const error = outcome?.error?.message ?? (typeof threadError === 'string' ? threadError : undefined);
    return taskOfRun(
      ids,
      { status: record.status, values, interrupts, error },
      { timestamp: record.updated_at, historyLength: options.historyLength },
    );
  }

  /** The thread's values when the run ended (now, for a run not yet ended), from the checkpoints. */
  private async valuesAtEnd({ graph }: RegisteredGraph, record: RunRecord, workspaceId: string): Promise<Json | null> {
    const config = threadConfig({ workspaceId, threadId: record.thread_id });
    if (record.status === 'pending' || record.status === 'running')
      return toWireValue<Json | null>((await graph.getState(config)).values ?? null);
    // One run at a time per thread: the newest checkpoint written before the run ended is its last.
    const end = Date.parse(record.updated_at);
    for await (const snapshot of graph.getStateHistory(config)) {
      if (!snapshot.createdAt || Date.parse(snapshot.createdAt) <= end)
        return toWireValue<Json | null>(snapshot.values ?? null);
    }
    return null;
  }

  private withNote(task: Task, note: string): Task {
    const message = agentMessage(note, `${task.id}-cancel`, task.contextId, task.id);
    return { ...task, status: { ...task.status, message } };
  }
}
