// `wrap(runner)`: a Google ADK runner as a LangGraph graph the agent server serves like any other
// (runs, streaming, threads, A2A), named after the runner's app. One node runs one ADK turn:
//
// - input: `messages` (required; the last message's text is the turn's one new message, sent as
//   one text part) and `state_delta` (optional, handed to the runner for this turn);
// - the thread id is the ADK session id; the user id is the authenticated user's, else "anonymous";
// - the ADK session (state and events) is kept in the thread's checkpoint (CheckpointSessionService);
// - partial (SSE) events stream as tokens through `stream_mode=messages`: the turn runs inside a
//   LangChain chat-model call, whose callbacks are what that mode reports;
// - output: one assistant message with the turn's final text (appended with the add-messages
//   reducer), and the agent's `output_key` value when it has one;
// - with LangSmith tracing on, ADK's own OpenTelemetry spans go to the tracing API's OTLP endpoint,
//   in the turn's thread (./adkTracing.ts).
//
// What ADK can do and this wrapper cannot serve is refused with an error that says so: multimodal
// input, several new messages in one turn, live (bidirectional) streaming, non-text output parts,
// and native interrupts (long-running tools, tool confirmation, auth requests).
import { StreamingMode, type Event, type Runner, type Session } from '@google/adk';
import type { Content } from '@google/genai';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import {
  Annotation,
  END,
  MessagesAnnotation,
  START,
  StateGraph,
  type LangGraphRunnableConfig,
} from '@langchain/langgraph';
import { ensureAdkTracing, inTurn } from './adkTracing.ts';
import { CheckpointSessionService } from './checkpointSessionService.ts';

/** What the wrapper refuses, with the reason; the run fails with this message. */
export class UnsupportedAdkInput extends Error {
  override name = 'UnsupportedAdkInput';
}

/** The state channel that keeps the thread's ADK session in its checkpoint. */
export const SESSION_CHANNEL = 'adk_session';

function messageText(message: BaseMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  const nonText = content.filter((part) => part.type !== 'text');
  if (nonText.length > 0)
    throw new UnsupportedAdkInput(
      `multimodal input is not supported: the message has ${nonText.map((p) => `a "${p.type}" part`).join(', ')}; send text only`,
    );
  return content.map((part) => ('text' in part ? String(part.text) : '')).join('');
}

/** The turn's new message: the last one, which must be the only message since the last answer. */
function newMessageOf(messages: BaseMessage[]): string {
  const last = messages.at(-1);
  if (!last) throw new UnsupportedAdkInput('input "messages" is required: a list with the new user message last');
  if (last.getType() !== 'human')
    throw new UnsupportedAdkInput(
      `the last input message must be the user's (a "human" message), not "${last.getType()}"`,
    );
  let fresh = 0;
  for (let i = messages.length - 1; i >= 0 && messages[i]!.getType() === 'human'; i -= 1) fresh += 1;
  if (fresh > 1)
    throw new UnsupportedAdkInput(
      `several new messages in one turn are not supported (${fresh} user messages since the last answer); send one message per turn`,
    );
  return messageText(last);
}

/** Refuses what an ADK event asks that the wrapper cannot serve. */
function checkEvent(event: Event): void {
  if (event.errorCode || event.errorMessage)
    throw new Error(`the ADK agent failed: ${[event.errorCode, event.errorMessage].filter(Boolean).join(': ')}`);
  if (event.longRunningToolIds?.length)
    throw new UnsupportedAdkInput('native interrupts are not supported: a long-running tool paused the turn');
  const actions = event.actions as
    | { requestedAuthConfigs?: Record<string, unknown>; requestedToolConfirmations?: Record<string, unknown> }
    | undefined;
  if (
    Object.keys(actions?.requestedAuthConfigs ?? {}).length ||
    Object.keys(actions?.requestedToolConfirmations ?? {}).length
  )
    throw new UnsupportedAdkInput(
      'native interrupts are not supported: the agent asked for a confirmation or for credentials',
    );
}

/** The text of a final response; refuses non-text output parts. */
function finalTextOf(event: Event): string {
  const parts = event.content?.parts ?? [];
  const text: string[] = [];
  for (const part of parts) {
    if (part.thought) continue;
    if (typeof part.text === 'string') text.push(part.text);
    else if (part.functionCall || part.functionResponse)
      continue; // intermediate steps: not messages of their own
    else
      throw new UnsupportedAdkInput(
        `non-text output parts are not supported: the agent answered with ${Object.keys(part)
          .filter((k) => (part as Record<string, unknown>)[k] !== undefined)
          .join(', ')}`,
      );
  }
  return text.join('');
}

interface TurnRequest {
  runner: Runner;
  service: CheckpointSessionService;
  userId: string;
  sessionId: string;
  text: string;
  stateDelta?: Record<string, unknown>;
  stored: Session | null;
  signal?: AbortSignal;
}

interface TurnResult {
  text: string;
  session: Session;
}

/**
 * One ADK turn as a LangChain chat model call: its partial events are the model's streamed
 * tokens (so `stream_mode=messages` shows them, and tracing records the turn as an LLM run), its
 * final text the generation. The turn's session and text are left in `result`.
 */
class AdkTurnModel extends BaseChatModel {
  readonly #turn: TurnRequest;
  result: TurnResult | undefined;

  constructor(turn: TurnRequest) {
    super({});
    this.#turn = turn;
  }

  _llmType(): string {
    return 'google-adk';
  }

  async _generate(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    let text = '';
    for await (const chunk of this._streamResponseChunks(messages, options, runManager)) text += chunk.text;
    return { generations: [{ text, message: new AIMessage({ content: text }) }] };
  }

  /** The turn without a chat-model run around it (nobody listens to its callbacks). */
  turnChunks(): AsyncGenerator<ChatGenerationChunk> {
    return this._streamResponseChunks([], {} as this['ParsedCallOptions']);
  }

  override async *_streamResponseChunks(
    _messages: BaseMessage[],
    _options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const { runner, service, userId, sessionId, text, stateDelta, stored, signal } = this.#turn;
    const key = { appName: runner.appName, userId, sessionId };
    service.stage(key, stored);
    const finals: string[] = [];
    let streamed = '';
    let session: Session | undefined;
    let answer = '';
    try {
      if (!stored) await service.createSession({ appName: runner.appName, userId, sessionId });
      const newMessage: Content = { role: 'user', parts: [{ text }] };
      for await (const event of runner.runAsync({
        userId,
        sessionId,
        newMessage,
        stateDelta,
        runConfig: { streamingMode: StreamingMode.SSE },
        abortSignal: signal,
      })) {
        checkEvent(event);
        if (event.partial) {
          const token = (event.content?.parts ?? [])
            .filter((p) => !p.thought && typeof p.text === 'string')
            .map((p) => p.text)
            .join('');
          if (!token) continue;
          streamed += token;
          const chunk = new ChatGenerationChunk({ text: token, message: new AIMessageChunk({ content: token }) });
          yield chunk;
          await runManager?.handleLLMNewToken(token, undefined, undefined, undefined, undefined, { chunk });
          continue;
        }
        if (event.author === 'user') continue;
        const final = finalTextOf(event);
        if (final) finals.push(final);
      }
      answer = finals.join('') || streamed;
      // A model that did not stream (or a final text beyond what streamed) still reaches the client.
      if (answer.startsWith(streamed) && answer.length > streamed.length) {
        const rest = answer.slice(streamed.length);
        const chunk = new ChatGenerationChunk({ text: rest, message: new AIMessageChunk({ content: rest }) });
        yield chunk;
        await runManager?.handleLLMNewToken(rest, undefined, undefined, undefined, undefined, { chunk });
      }
    } finally {
      // The service forgets the session whatever happened; the checkpoint keeps it.
      session = service.take(key);
    }
    if (!session)
      throw new Error(`the ADK session ${sessionId} disappeared during the turn (was it deleted by the agent?)`);
    this.result = { text: answer, session };
  }
}

/** Whether any callback handler listens to the node's runs (stream_mode=messages, a tracer). */
function hasListeners(config: LangGraphRunnableConfig): boolean {
  const callbacks = config.callbacks as { handlers?: unknown[] } | unknown[] | undefined;
  if (!callbacks) return false;
  return (Array.isArray(callbacks) ? callbacks : (callbacks.handlers ?? [])).length > 0;
}

/** The ADK runner's root agent's `outputKey`, when it is an LlmAgent that has one. */
function outputKeyOf(runner: Runner): string | undefined {
  const key = (runner.agent as { outputKey?: unknown } | undefined)?.outputKey;
  return typeof key === 'string' && key.length > 0 ? key : undefined;
}

/**
 * The graph that serves `runner` on the agent server. Throws TypeError unless the runner keeps
 * its sessions in a CheckpointSessionService (any other service would keep them apart from the
 * thread: lost with an in-memory one, or split from the checkpoint with a database or cloud one).
 */
export function wrap(runner: Runner) {
  if (!(runner.sessionService instanceof CheckpointSessionService))
    throw new TypeError(
      `wrap(runner) needs a runner whose sessionService is a CheckpointSessionService (sessions kept in the thread's checkpoint); this runner's is ${runner.sessionService?.constructor?.name ?? String(runner.sessionService)}`,
    );
  const service = runner.sessionService;
  const outputKey = outputKeyOf(runner);
  ensureAdkTracing();
  if (outputKey === 'messages' || outputKey === SESSION_CHANNEL || outputKey === 'state_delta')
    throw new TypeError(`the agent's output_key "${outputKey}" collides with a channel of the wrapped graph`);

  const channels = {
    ...MessagesAnnotation.spec,
    /** Input only: state changes for this turn, handed to the runner. */
    state_delta: Annotation<Record<string, unknown> | null>({
      reducer: (_old, next) => next ?? null,
      default: () => null,
    }),
    [SESSION_CHANNEL]: Annotation<Session | null>({ reducer: (_old, next) => next, default: () => null }),
    ...(outputKey ? { [outputKey]: Annotation<unknown>() } : {}),
  };
  const State = Annotation.Root(channels);
  const Input = Annotation.Root({ messages: MessagesAnnotation.spec.messages, state_delta: channels.state_delta });
  const Output = Annotation.Root({
    messages: MessagesAnnotation.spec.messages,
    ...(outputKey ? { [outputKey]: Annotation<unknown>() } : {}),
  });

  async function turn(state: typeof State.State, config: LangGraphRunnableConfig) {
    const configurable = config.configurable ?? {};
    const sessionId = configurable.thread_id;
    if (typeof sessionId !== 'string' || !sessionId)
      throw new UnsupportedAdkInput('an ADK turn needs a thread: the thread id is its session id');
    const user = configurable.langgraph_auth_user as { is_authenticated?: boolean } | undefined;
    const userId =
      typeof configurable.langgraph_auth_user_id === 'string' && user?.is_authenticated !== false
        ? configurable.langgraph_auth_user_id
        : 'anonymous';
    const text = newMessageOf(state.messages);
    const model = new AdkTurnModel({
      runner,
      service,
      userId,
      sessionId,
      text,
      stateDelta: state.state_delta ?? undefined,
      stored: (state as Record<string, unknown>)[SESSION_CHANNEL] as Session | null,
      signal: config.signal,
    });
    // Streamed, so that the partial events reach `stream_mode=messages` as they come.
    const runId = configurable.run_id ?? config.metadata?.run_id;
    const answer = await service.turn(() =>
      inTurn({ threadId: sessionId, runId: typeof runId === 'string' ? runId : undefined }, async () => {
        let streamed: AIMessageChunk | undefined;
        // Through LangChain's chat-model machinery only when a callback listens (stream_mode=messages,
        // a tracer): without one it would cost a run's bookkeeping for nothing.
        const chunks = hasListeners(config)
          ? await model.stream([new HumanMessage(text)], { ...config, runName: runner.appName })
          : model.turnChunks();
        for await (const chunk of chunks) {
          const message = chunk instanceof ChatGenerationChunk ? (chunk.message as AIMessageChunk) : chunk;
          streamed = streamed ? streamed.concat(message) : message;
        }
        return streamed;
      }),
    );
    const result = model.result!;
    const reply = new AIMessage({ content: result.text, id: answer?.id ?? crypto.randomUUID(), name: runner.appName });
    return {
      messages: [reply],
      [SESSION_CHANNEL]: result.session,
      state_delta: null,
      ...(outputKey ? { [outputKey]: result.session.state[outputKey] ?? null } : {}),
    };
  }

  return new StateGraph({ stateSchema: State, input: Input, output: Output })
    .addNode('adk_turn', turn as never)
    .addEdge(START, 'adk_turn')
    .addEdge('adk_turn', END)
    .compile({ name: runner.appName });
}
