// The agent streaming protocol on a thread, whatever carries it (the agent server's routes,
// ./protocolRoutes.ts, or an app that mounts them under its own paths, as the example chat app
// does): commands, and the subscriptions to the thread's events.
//
// Runs are the run manager's (runs/runManager.ts), in the caller's workspace, like every run of
// the server: `run.start` creates one on the thread (the thread too, when it has none), streaming
// protocol events (./protocolStreams.ts). On a thread that waits for input, `run.start` resumes
// it with its input, as the protocol says, and `input.respond` resumes the interrupts it names
// (LangGraph's `Command({resume: {<interrupt id>: <response>}})`). `state.fork` runs the thread's
// graph again from one of its checkpoints.
//
// Commands on a thread the caller's workspace does not have (never made, deleted, another
// workspace's, hidden by the auth module's filter) answer 404 NOT_FOUND, as every route; `run.start`
// makes the workspace's own thread of that id.
import { AppError, errors } from '../../../platform/errors.ts';
import { threadConfig, type ThreadKey } from '../../../platform/workspaceThreads.ts';
import type { Caller } from '../auth/callers.ts';
import type { GraphRegistry, RegisteredGraph, StateSnapshotLike } from '../graphRegistry.ts';
import type { RunTracer } from '../runs/activeRun.ts';
import { PROTOCOL_STREAM_MODE, type RunCreateBody } from '../runs/runBody.ts';
import type { RunManager } from '../runs/runManager.ts';
import type { AgentRecordStore, MultitaskStrategy, RecordScope, ThreadRecord } from '../store/agentRecords.ts';
import { toWireValue } from '../wireJson.ts';
import {
  errorResponse,
  errorStatus,
  parseCommand,
  type ErrorResponse,
  type ParsedCommand,
  type ProtocolRunConfig,
  type ServedParams,
  type SuccessResponse,
} from './protocolCommands.ts';
import type { OutgoingFrame, ProtocolStreams, RemoteRun } from './protocolStreams.ts';
import type { Subscription } from './runLog.ts';

export interface ProtocolServiceDeps {
  runs: RunManager;
  store: AgentRecordStore;
  graphs: GraphRegistry;
  streams: ProtocolStreams;
}

/** A command's answer: its HTTP status and body (the protocol's success or error). */
export interface CommandAnswer {
  status: number;
  body: SuccessResponse | ErrorResponse;
}

export interface SubscribeOptions {
  /** Another replica's run, followed there (the agent server's routes); absent with one process. */
  relay?(run: RemoteRun, subscription: Subscription, signal: AbortSignal): AsyncIterable<OutgoingFrame>;
}

type Interrupt = { id: string; value?: unknown };
type Json = Record<string, unknown>;

const isErrorResponse = (answer: Json | ErrorResponse): answer is ErrorResponse =>
  (answer as ErrorResponse).type === 'error';
const refused = (response: ErrorResponse): CommandAnswer => ({ status: errorStatus(response), body: response });

/** The run config the run manager takes, from a command's. */
const runConfigOf = (config: ProtocolRunConfig | undefined): RunCreateBody['config'] =>
  config && {
    ...(config.configurable ? { configurable: config.configurable } : {}),
    ...(config.tags ? { tags: config.tags } : {}),
    ...(config.recursion_limit ? { recursion_limit: config.recursion_limit } : {}),
  };

/** A run on a busy thread: answered with the protocol's error, as a 409. */
class BusyThread extends Error {
  readonly response: ErrorResponse;
  constructor(response: ErrorResponse) {
    super(response.message);
    this.response = response;
  }
}

export class ProtocolService {
  readonly #deps: ProtocolServiceDeps;

  constructor(deps: ProtocolServiceDeps) {
    this.#deps = deps;
  }

  /** Carries out a command on the caller's thread `threadId`; a run it starts is traced with `tracer`, when given. */
  async command(caller: Caller, threadId: string, body: unknown, tracer?: RunTracer): Promise<CommandAnswer> {
    const command = parseCommand(body);
    if ('type' in command) return refused(command);
    const thread: ThreadKey = { workspaceId: caller.workspaceId, threadId };
    let answer: Json | ErrorResponse;
    try {
      answer = await this.#carryOut(caller, thread, command, tracer);
    } catch (err) {
      if (err instanceof BusyThread) return { status: 409, body: err.response };
      throw err;
    }
    if (isErrorResponse(answer)) return refused(answer);
    const success: SuccessResponse = {
      type: 'success',
      id: command.id,
      result: answer,
      meta: { thread_id: threadId, applied_through_seq: this.#deps.streams.lastSeq(thread) },
    };
    return { status: 200, body: success };
  }

  #carryOut(
    caller: Caller,
    thread: ThreadKey,
    command: ParsedCommand,
    tracer: RunTracer | undefined,
  ): Promise<Json | ErrorResponse> {
    switch (command.method) {
      case 'run.start':
        return this.#runStart(caller, thread, command.id, command.params, tracer);
      case 'input.respond':
        return this.#inputRespond(caller, thread, command.id, command.params, tracer);
      case 'state.get':
        return this.#stateGet(caller, thread, command.id, command.params);
      case 'state.listCheckpoints':
        return this.#listCheckpoints(caller, thread, command.id, command.params);
      case 'state.fork':
        return this.#fork(caller, thread, command.id, command.params, tracer);
    }
  }

  async #runStart(
    caller: Caller,
    thread: ThreadKey,
    id: number,
    params: ServedParams['run.start'],
    tracer: RunTracer | undefined,
  ): Promise<Json | ErrorResponse> {
    // the config file's assistants and the caller's workspace's own
    const known = await this.#deps.runs.assistantFor(caller.workspaceId, params.assistant_id).then(
      () => true,
      () => false,
    );
    if (!known)
      return errorResponse(
        id,
        'invalid_argument',
        `run.start: unknown assistant "${params.assistant_id}"; this server's graphs are ${this.#deps.graphs
          .all()
          .map((g) => `"${g.assistant.graph_id}"`)
          .join(', ')}`,
      );
    // A thread waiting for input is resumed with it (the protocol's run.start on an interrupted run).
    const existing = await this.#visibleThread(caller, thread.threadId);
    const waiting =
      params.input !== undefined && params.input !== null && existing
        ? await this.#pendingInterrupts(existing.record, thread)
        : [];
    const input = params.input ?? null;
    if (waiting.length === 0 && (typeof input !== 'object' || Array.isArray(input)))
      return errorResponse(id, 'invalid_argument', 'run.start: "input" must be an object (or null)');
    const run = await this.#start(
      caller,
      thread,
      id,
      {
        assistant_id: params.assistant_id,
        ...(waiting.length > 0 ? { command: { resume: input } } : { input }),
        config: runConfigOf(params.config),
        metadata: params.metadata,
        multitask_strategy: params.multitaskStrategy ?? params.multitask_strategy ?? 'reject',
      },
      tracer,
    );
    return 'type' in run ? run : { run_id: run.runId };
  }

  async #inputRespond(
    caller: Caller,
    thread: ThreadKey,
    id: number,
    params: ServedParams['input.respond'],
    tracer: RunTracer | undefined,
  ): Promise<Json | ErrorResponse> {
    const { record } = await this.#requireThread(caller, thread.threadId);
    const waiting = await this.#pendingInterrupts(record, thread);
    if (waiting.length === 0)
      return errorResponse(id, 'no_such_run', `thread ${thread.threadId} has no interrupted run to resume`);
    const responses =
      'responses' in params ? params.responses : [{ interrupt_id: params.interrupt_id, response: params.response }];
    const resume: Json = {};
    for (const { interrupt_id, response } of responses) {
      if (!waiting.some((interrupt) => interrupt.id === interrupt_id))
        return errorResponse(
          id,
          'no_such_interrupt',
          `thread ${thread.threadId} does not wait on interrupt "${interrupt_id}"; it waits on ${waiting.map((i) => `"${i.id}"`).join(', ')}`,
        );
      resume[interrupt_id] = response;
    }
    const run = await this.#start(
      caller,
      thread,
      id,
      {
        assistant_id: assistantOf(record) ?? '',
        command: {
          resume,
          ...(params.update ? { update: params.update } : {}),
          ...(params.goto !== undefined ? { goto: params.goto } : {}),
        },
        config: runConfigOf(params.config),
        metadata: params.metadata,
        multitask_strategy: 'reject',
      },
      tracer,
    );
    return 'type' in run ? run : { run_id: run.runId };
  }

  async #stateGet(
    caller: Caller,
    thread: ThreadKey,
    id: number,
    params: ServedParams['state.get'],
  ): Promise<Json | ErrorResponse> {
    const { record } = await this.#requireThread(caller, thread.threadId);
    if (params.namespace?.length) return notAtNamespace(id, 'state.get');
    const snapshot = await this.#graphOf(record)?.graph.getState(threadConfig(thread));
    const values = toWireValue<Json>(snapshot?.values ?? {}) ?? {};
    const keys = params.keys;
    const checkpoint = checkpointOf(snapshot);
    return {
      values: keys ? Object.fromEntries(Object.entries(values).filter(([key]) => keys.includes(key))) : values,
      ...(checkpoint ? { checkpoint } : {}),
    };
  }

  async #listCheckpoints(
    caller: Caller,
    thread: ThreadKey,
    id: number,
    params: ServedParams['state.listCheckpoints'],
  ): Promise<Json | ErrorResponse> {
    const { record } = await this.#requireThread(caller, thread.threadId);
    if (params.namespace?.length) return notAtNamespace(id, 'state.listCheckpoints');
    const registered = this.#graphOf(record);
    const checkpoints: Json[] = [];
    if (registered)
      for await (const snapshot of registered.graph.getStateHistory(threadConfig(thread), {
        limit: params.limit ?? 10,
        ...(params.before ? { before: { configurable: { checkpoint_id: params.before } } } : {}),
      })) {
        const metadata = toWireValue<Json>(snapshot.metadata ?? {});
        const writes = metadata.writes;
        const node = writes && typeof writes === 'object' ? Object.keys(writes)[0] : undefined;
        checkpoints.push({
          id: checkpointOf(snapshot)?.id,
          timestamp: snapshot.createdAt ?? null,
          step: typeof metadata.step === 'number' ? metadata.step : -1,
          ...(node ? { node_name: node } : {}),
          metadata,
        });
      }
    return { checkpoints };
  }

  async #fork(
    caller: Caller,
    thread: ThreadKey,
    id: number,
    params: ServedParams['state.fork'],
    tracer: RunTracer | undefined,
  ): Promise<Json | ErrorResponse> {
    const { record } = await this.#requireThread(caller, thread.threadId);
    const registered = this.#graphOf(record);
    const at = registered
      ? await registered.graph.getState(threadConfig(thread, { checkpoint_id: params.checkpoint_id }))
      : undefined;
    // (LangGraph answers a checkpoint it does not have with an empty state of no date)
    if (at?.createdAt === undefined || checkpointOf(at)?.id !== params.checkpoint_id)
      return errorResponse(
        id,
        'no_such_checkpoint',
        `thread ${thread.threadId} has no checkpoint ${params.checkpoint_id} (state.listCheckpoints lists them)`,
      );
    const run = await this.#start(
      caller,
      thread,
      id,
      {
        assistant_id: assistantOf(record) ?? '',
        input: params.input ?? null,
        checkpoint_id: params.checkpoint_id,
        config: runConfigOf(params.config),
        metadata: params.metadata,
        multitask_strategy: 'reject',
      },
      tracer,
    );
    return 'type' in run ? run : { run_id: run.runId, thread_id: thread.threadId };
  }

  /** Creates the run (and the thread, when it has none), streaming protocol events; a busy thread is a 409 naming its run. */
  async #start(
    caller: Caller,
    thread: ThreadKey,
    id: number,
    body: Omit<RunCreateBody, 'multitask_strategy'> & { multitask_strategy: MultitaskStrategy },
    tracer: RunTracer | undefined,
  ): Promise<{ runId: string } | ErrorResponse> {
    try {
      const run = await this.#deps.runs.create(
        thread.threadId,
        { ...body, if_not_exists: 'create', stream_mode: [PROTOCOL_STREAM_MODE] },
        caller,
        { tracer },
      );
      return { runId: run.record.run_id };
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'THREAD_BUSY') throw err;
      const running = (await this.#deps.runs.unfinished(thread))[0];
      throw new BusyThread(
        errorResponse(
          id,
          'invalid_argument',
          `thread ${thread.threadId} already has a run in progress${running ? ` (run_id ${running.run_id})` : ''}; wait for it to finish, or start this one with multitaskStrategy "enqueue", "interrupt" or "rollback"`,
        ),
      );
    }
  }

  /** The caller's thread `threadId`, when its workspace has it and the auth module lets it read it. */
  async #visibleThread(
    caller: Caller,
    threadId: string,
  ): Promise<{ scope: RecordScope; record: ThreadRecord } | undefined> {
    const scope = await caller.scope('threads:read', { thread_id: threadId });
    const record = await this.#deps.store.getThread(scope, threadId);
    return record && { scope, record };
  }

  async #requireThread(caller: Caller, threadId: string): Promise<{ scope: RecordScope; record: ThreadRecord }> {
    const found = await this.#visibleThread(caller, threadId);
    if (!found) throw errors.notFound(`thread ${threadId}`);
    return found;
  }

  /** The graph that runs on the thread (named in its metadata by its first run), if any yet. */
  #graphOf(record: ThreadRecord): RegisteredGraph | undefined {
    const graphId = record.metadata.graph_id;
    return typeof graphId === 'string' ? this.#deps.graphs.find(graphId) : undefined;
  }

  /** The interrupts the thread waits on, at its latest checkpoint. */
  async #pendingInterrupts(record: ThreadRecord, thread: ThreadKey): Promise<Interrupt[]> {
    const registered = this.#graphOf(record);
    if (!registered) return [];
    const snapshot = await registered.graph.getState(threadConfig(thread));
    return snapshot.tasks.flatMap((task) =>
      (task.interrupts ?? []).filter(
        (i): i is Interrupt => typeof i === 'object' && i !== null && typeof (i as Interrupt).id === 'string',
      ),
    );
  }

  /**
   * Checks a subscription may be opened: with `mustExist`, the caller's workspace has the thread
   * (404 NOT_FOUND otherwise). Then the thread's events, as ProtocolStreams.follow sends them.
   */
  async subscription(
    caller: Caller,
    threadId: string,
    mustExist: boolean,
  ): Promise<
    (subscription: Subscription, signal: AbortSignal, options?: SubscribeOptions) => AsyncIterable<OutgoingFrame>
  > {
    const scope = await caller.scope('threads:read', { thread_id: threadId });
    const { store, streams } = this.#deps;
    if (mustExist && !(await store.getThread(scope, threadId))) throw errors.notFound(`thread ${threadId}`);
    const thread: ThreadKey = { workspaceId: scope.workspaceId, threadId };
    return (subscription, signal, options = {}) =>
      streams.follow(thread, subscription, signal, {
        // A run's events go to those who see its record: not after its thread is deleted, nor to a user the auth module hides the thread from.
        visible: async (runId) => (await store.getRun(scope, threadId, runId)) !== undefined,
        ...(options.relay ? { relay: options.relay } : {}),
      });
  }
}

const assistantOf = (record: ThreadRecord): string | undefined => {
  const id = record.metadata.assistant_id ?? record.metadata.graph_id;
  return typeof id === 'string' ? id : undefined;
};

const notAtNamespace = (id: number, method: string): ErrorResponse =>
  errorResponse(id, 'not_supported', `${method} reads the root graph's state: "namespace" must be [] or absent`);

function checkpointOf(snapshot: StateSnapshotLike | undefined): { id: string; ns?: string } | undefined {
  const configurable = snapshot?.config?.configurable;
  if (typeof configurable?.checkpoint_id !== 'string' || configurable.checkpoint_id === '') return undefined;
  return {
    id: configurable.checkpoint_id,
    ...(typeof configurable.checkpoint_ns === 'string' ? { ns: configurable.checkpoint_ns } : {}),
  };
}
