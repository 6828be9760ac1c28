// The chat app's offline models: deterministic scripts that behave like a reasoning model with
// tools, so the whole app runs and is tested without a key. Each streams what a provider would:
// reasoning summaries (`{type:"reasoning"}` content blocks), tool calls as argument chunks, and
// the answer token by token, with token usage on the last chunk.
//
// - The coordinator reads the newest human message: arithmetic goes to "math-whiz", anything
//   else worth looking up to "researcher" (both when it has both), a greeting is answered
//   directly; once the `task` results are back it combines them into the final answer.
// - A subagent calls its one tool (search_web or calculator) with its task, then reports.
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BaseChatModelParams,
  type BindToolsInput,
} from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage, type ToolMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import type { Runnable } from '@langchain/core/runnables';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';

export type ScriptRole = 'coordinator' | 'researcher' | 'math-whiz';

/** One model turn of the script: reasoning first, then either tool calls or the answer. */
export interface ScriptedTurn {
  reasoning: string;
  toolCalls: { name: string; args: Record<string, unknown> }[];
  text: string;
}

export function textOf(message: BaseMessage | undefined): string {
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((part) => (part.type === 'text' && 'text' in part ? String(part.text) : '')).join('');
}

/** The first arithmetic expression in a text (at least one operator between numbers), if any. */
export function arithmeticIn(text: string): string | null {
  const match = /[-(]*\d+(?:\.\d+)?(?:\s*[-+*/×÷^%]\s*[-(]*\d+(?:\.\d+)?\)*)+/.exec(text);
  return match ? match[0].trim() : null;
}

const GREETING = /^\s*(hi|hello|hey|thanks|thank you|good (morning|afternoon|evening))\b[\s!.?]*$/i;

/** What is left of a request once its arithmetic is taken out: the part to research, if any. */
function researchPart(text: string, expression: string | null): string | null {
  const rest = (expression ? text.replace(expression, ' ') : text)
    .replace(
      /\b(and|also|then|please|what is|what's|calculate|compute|research|look up|find out about|search for|tell me about)\b/gi,
      ' ',
    )
    .replace(/[?!.,;:]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return rest.split(' ').filter((w) => w.length > 2).length >= 2 ? rest : null;
}

function lastHumanIndex(messages: BaseMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i -= 1) if (messages[i]!.getType() === 'human') return i;
  return -1;
}

/** The script: what `role` says next, given the conversation so far. */
export function scriptedTurn(role: ScriptRole, messages: BaseMessage[]): ScriptedTurn {
  const humanAt = lastHumanIndex(messages);
  const request = textOf(messages[humanAt]).trim();
  const results = messages.slice(humanAt + 1).filter((m): m is ToolMessage => m.getType() === 'tool');

  if (role === 'researcher') {
    if (results.length === 0)
      return {
        reasoning: `I should look this up before answering: "${request}".`,
        toolCalls: [{ name: 'search_web', args: { query: request } }],
        text: '',
      };
    return {
      reasoning: 'The search returned a result; I will summarise it.',
      toolCalls: [],
      text: `Findings on "${request}": ${summaryOf(textOf(results[0]))}`,
    };
  }
  if (role === 'math-whiz') {
    const expression = arithmeticIn(request) ?? request;
    if (results.length === 0)
      return {
        reasoning: `I will evaluate ${expression} with the calculator.`,
        toolCalls: [{ name: 'calculator', args: { expression } }],
        text: '',
      };
    return {
      reasoning: 'The calculator answered; I will state the result.',
      toolCalls: [],
      text: `${expression} = ${textOf(results[0])}`,
    };
  }

  // The coordinator.
  if (results.length > 0) {
    const lines = results.map((r) => `- ${r.name === 'task' ? '' : `${r.name}: `}${textOf(r)}`);
    return {
      reasoning: `The ${results.length === 1 ? 'subagent has' : `${results.length} subagents have`} answered; I will combine ${results.length === 1 ? 'its result' : 'their results'}.`,
      toolCalls: [],
      text: `Here is what I found:\n${lines.join('\n')}`,
    };
  }
  if (GREETING.test(request) || request === '')
    return {
      reasoning: 'A greeting: nothing to look up or calculate.',
      toolCalls: [],
      text: 'Hello! Ask me to look something up or to calculate something, and I will ask my subagents.',
    };
  const expression = arithmeticIn(request);
  const research = researchPart(request, expression);
  const toolCalls: ScriptedTurn['toolCalls'] = [];
  if (research || !expression)
    toolCalls.push({ name: 'task', args: { description: research ?? request, subagent_type: 'researcher' } });
  if (expression)
    toolCalls.push({ name: 'task', args: { description: `Calculate ${expression}`, subagent_type: 'math-whiz' } });
  const who = toolCalls.map((c) => c.args.subagent_type).join(' and ');
  return { reasoning: `The request "${request}" needs ${who}; I will delegate it.`, toolCalls, text: '' };
}

function summaryOf(searchResult: string): string {
  try {
    const parsed = JSON.parse(searchResult) as { results?: { title?: string; snippet?: string }[] };
    return parsed.results?.map((r) => r.snippet).join(' ') || searchResult;
  } catch {
    return searchResult;
  }
}

/** Words, each with its trailing whitespace: what the model streams as tokens. */
export function tokensOf(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

function usageOf(messages: BaseMessage[], turn: ScriptedTurn) {
  const words = (s: string) => s.split(/\s+/).filter(Boolean).length;
  const input_tokens = messages.reduce((n, m) => n + words(textOf(m)), 0);
  const output_tokens =
    words(turn.reasoning) + words(turn.text) + turn.toolCalls.reduce((n, c) => n + words(JSON.stringify(c.args)), 0);
  return { input_tokens, output_tokens, total_tokens: input_tokens + output_tokens };
}

export interface ScriptedModelFields extends BaseChatModelParams {
  role: ScriptRole;
  /** Pause between streamed tokens, to make streaming visible in a browser (default 0). */
  tokenDelayMs?: number;
}

export class ScriptedReasoningModel extends BaseChatModel {
  readonly role: ScriptRole;
  readonly tokenDelayMs: number;
  #calls = 0;

  constructor(fields: ScriptedModelFields) {
    super(fields);
    this.role = fields.role;
    this.tokenDelayMs = fields.tokenDelayMs ?? 0;
  }

  _llmType(): string {
    return `scripted-${this.role}`;
  }

  /** The script decides which tools it calls, so binding only records nothing. */
  override bindTools(
    _tools: BindToolsInput[],
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, BaseChatModelCallOptions> {
    return this as unknown as Runnable<BaseLanguageModelInput, AIMessageChunk, BaseChatModelCallOptions>;
  }

  #toolCallId(): string {
    this.#calls += 1;
    return `call_${this.role.replace('-', '_')}_${Date.now().toString(36)}_${this.#calls}`;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const turn = scriptedTurn(this.role, messages);
    const message = new AIMessage({
      content: [
        { type: 'reasoning', reasoning: turn.reasoning },
        ...(turn.text ? [{ type: 'text' as const, text: turn.text }] : []),
      ],
      tool_calls: turn.toolCalls.map((c) => ({ ...c, id: this.#toolCallId(), type: 'tool_call' as const })),
      usage_metadata: usageOf(messages, turn),
    });
    return { generations: [{ text: turn.text, message }] };
  }

  override async *_streamResponseChunks(
    messages: BaseMessage[],
    _options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    const turn = scriptedTurn(this.role, messages);
    const id = `msg_${this.role.replace('-', '_')}_${crypto.randomUUID()}`;
    const pause = () => (this.tokenDelayMs > 0 ? new Promise((r) => setTimeout(r, this.tokenDelayMs)) : undefined);
    const emit = async function* (message: AIMessageChunk, token: string) {
      const chunk = new ChatGenerationChunk({ text: token, message });
      yield chunk;
      await runManager?.handleLLMNewToken(token, undefined, undefined, undefined, undefined, { chunk });
      await pause();
    };
    for (const token of tokensOf(turn.reasoning))
      yield* emit(new AIMessageChunk({ id, content: [{ type: 'reasoning', reasoning: token, index: 0 }] }), '');
    for (const token of tokensOf(turn.text))
      yield* emit(new AIMessageChunk({ id, content: [{ type: 'text', text: token, index: 1 }] }), token);
    for (const [index, call] of turn.toolCalls.entries()) {
      const args = JSON.stringify(call.args);
      const callId = this.#toolCallId();
      // The name and id first, then the arguments in two pieces, as providers stream them. Tool
      // calls are content blocks too: their indexes follow the reasoning block (0) and the text
      // block (1) when there is text, without a gap, as providers number them (a gap leaves a
      // hole in the client's block array: @langchain/react 1.1.0 then fails on that message).
      const cut = Math.ceil(args.length / 2);
      const block = (turn.text ? 2 : 1) + index;
      yield* emit(
        new AIMessageChunk({
          id,
          content: '',
          tool_call_chunks: [
            { type: 'tool_call_chunk', index: block, id: callId, name: call.name, args: args.slice(0, cut) },
          ],
        }),
        '',
      );
      yield* emit(
        new AIMessageChunk({
          id,
          content: '',
          tool_call_chunks: [{ type: 'tool_call_chunk', index: block, args: args.slice(cut) }],
        }),
        '',
      );
    }
    yield* emit(new AIMessageChunk({ id, content: '', usage_metadata: usageOf(messages, turn) }), '');
  }
}
