// Between A2A messages and LangGraph state. In: the client's message (v0.3 or v1.0 parts) becomes
// the run's input (text parts one human message appended to `messages`, data parts merged into
// the input) or a resume command for a thread waiting on an interrupt. Out: the thread's
// messages (wire JSON, `{type, content, id, …}`) become A2A history messages.
import { z } from 'zod';
import type { A2aMessage, A2aPart } from './a2aTypes.ts';
import { a2aErrors } from './jsonRpc.ts';

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** An incoming A2A message, checked and in one shape whatever the client's protocol version. */
export interface IncomingMessage {
  messageId: string;
  role: 'user' | 'agent';
  /** The message's parts as v0.3 parts (what history echoes). */
  parts: A2aPart[];
  /** The text parts joined by newlines; undefined when the message has none. */
  text: string | undefined;
  /** The data parts' objects, to merge into the run's input (a `{resume}` part is taken out). */
  data: Json[];
  /** Set when the message asks to resume an interrupted run: `message.command.resume` or a data part `{resume: …}`. */
  resume?: { value: unknown };
  contextId?: string;
  taskId?: string;
  metadata?: Json;
}

const optionalId = z
  .string()
  .nullish()
  .transform((v) => v || undefined); // v1 clients may send "" for unset

const messageSchema = z.looseObject({
  messageId: z.string({ error: 'message.messageId is required' }).min(1, 'message.messageId is required'),
  role: z.string({ error: 'message.role is required' }),
  parts: z.array(z.unknown(), { error: 'message.parts must be an array' }).min(1, 'message.parts must not be empty'),
  contextId: optionalId,
  taskId: optionalId,
  metadata: z.record(z.string(), z.unknown()).nullish(),
  command: z.looseObject({ resume: z.unknown() }).nullish(),
});

function readRole(role: string): 'user' | 'agent' {
  if (role === 'user' || role === 'ROLE_USER') return 'user';
  if (role === 'agent' || role === 'ROLE_AGENT') return 'agent';
  throw a2aErrors.invalidParams(
    `message.role must be "user" or "agent" (v1.0: ROLE_USER or ROLE_AGENT), got "${role}"`,
  );
}

/** One part, v0.3 (`{kind:"text", text}`) or v1.0 (`{text}`), as a v0.3 part. Files are refused. */
function readPart(raw: unknown, index: number): A2aPart {
  const where = `message.parts[${index}]`;
  if (!isRecord(raw)) throw a2aErrors.invalidParams(`${where} must be an object`);
  const metadata = isRecord(raw.metadata) ? { metadata: raw.metadata } : {};
  const kind =
    typeof raw.kind === 'string'
      ? raw.kind
      : 'text' in raw
        ? 'text'
        : 'data' in raw
          ? 'data'
          : 'raw' in raw || 'url' in raw || 'file' in raw
            ? 'file'
            : undefined;
  if (kind === 'text') {
    if (typeof raw.text !== 'string') throw a2aErrors.invalidParams(`${where}.text must be a string`);
    return { kind: 'text', text: raw.text, ...metadata };
  }
  if (kind === 'data') {
    if (!isRecord(raw.data)) throw a2aErrors.invalidParams(`${where}.data must be a JSON object`);
    return { kind: 'data', data: raw.data, ...metadata };
  }
  if (kind === undefined) throw a2aErrors.invalidParams(`${where} has no text or data`);
  throw a2aErrors.unsupportedPart(kind);
}

/** Checks a `message` param and reads it; bad input throws an A2aError saying what is wrong. */
export function readIncomingMessage(raw: unknown): IncomingMessage {
  if (!isRecord(raw)) throw a2aErrors.invalidParams('params.message is required and must be an object');
  const parsed = messageSchema.safeParse(raw);
  if (!parsed.success) throw a2aErrors.invalidParams(parsed.error.issues.map((i) => i.message).join('; '));
  const message = parsed.data;
  const role = readRole(message.role);
  const parts = message.parts.map(readPart);
  const texts = parts.flatMap((p) => (p.kind === 'text' ? [p.text] : []));
  let resume = message.command && 'resume' in message.command ? { value: message.command.resume } : undefined;
  const data: Json[] = [];
  for (const part of parts) {
    if (part.kind !== 'data') continue;
    if ('resume' in part.data && !resume) resume = { value: part.data.resume };
    else data.push(part.data);
  }
  return {
    messageId: message.messageId,
    role,
    parts,
    text: texts.length > 0 ? texts.join('\n') : undefined,
    data,
    resume,
    contextId: message.contextId,
    taskId: message.taskId,
    metadata: message.metadata ?? undefined,
  };
}

/** What a run is created with for a message: new input, or a resume command. */
export type RunRequest = { input: Json; command?: undefined } | { command: { resume: unknown }; input?: undefined };

export interface RunRequestContext {
  assistantName: string;
  hasMessagesKey: boolean;
  /** The thread is waiting on an interrupt: text answers it. */
  threadInterrupted: boolean;
}

export function runRequestFor(message: IncomingMessage, context: RunRequestContext): RunRequest {
  if (message.resume) return { command: { resume: message.resume.value } };
  if (context.threadInterrupted && message.text !== undefined && message.data.length === 0)
    return { command: { resume: message.text } };
  const input: Json = message.data.reduce<Json>((merged, data) => ({ ...merged, ...data }), {});
  if (message.text !== undefined) {
    if (!context.hasMessagesKey) throw a2aErrors.noMessagesKey(context.assistantName);
    input.messages = [{ type: message.role === 'user' ? 'human' : 'ai', content: message.text, id: message.messageId }];
  }
  return { input };
}

/** The text of a message in wire form: its string content, or its text blocks joined. */
export function messageText(message: Json): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) =>
      typeof block === 'string' ? block : isRecord(block) && typeof block.text === 'string' ? block.text : '',
    )
    .join('');
}

const isAi = (message: Json) => message.type === 'ai' || message.type === 'AIMessageChunk';

/** The messages of a state's values, in wire form; [] when it has none. */
export function stateMessages(values: unknown): Json[] {
  const messages = isRecord(values) ? values.messages : undefined;
  return Array.isArray(messages) ? messages.filter(isRecord) : [];
}

/** The answer to the latest human message: the last AI message after it, if there is one. */
export function answerMessage(messages: Json[]): { id?: string; text: string } | undefined {
  const lastHuman = messages.findLastIndex((m) => m.type === 'human');
  const answer = messages.slice(lastHuman + 1).findLast((m) => isAi(m) && messageText(m) !== '');
  return answer ? { id: typeof answer.id === 'string' ? answer.id : undefined, text: messageText(answer) } : undefined;
}

/** An AI message of the stream (`messages/partial`), with its id and text so far; undefined for other messages. */
export function partialAiMessage(data: unknown): { id: string; text: string } | undefined {
  const message = Array.isArray(data) ? data[0] : undefined;
  if (!isRecord(message) || !isAi(message) || typeof message.id !== 'string') return undefined;
  return { id: message.id, text: messageText(message) };
}

export function agentMessage(text: string, messageId: string, contextId: string, taskId: string): A2aMessage {
  return { kind: 'message', role: 'agent', parts: [{ kind: 'text', text }], messageId, contextId, taskId };
}

/**
 * A thread message as an A2A message: human → user, AI and tool → agent; tool calls and tool
 * results go as data parts. System messages, and AI messages with nothing to show, are left out.
 */
export function a2aMessageFromWire(
  message: Json,
  fallbackId: string,
  contextId: string,
  taskId: string,
): A2aMessage | undefined {
  const messageId = typeof message.id === 'string' && message.id ? message.id : fallbackId;
  const base = { kind: 'message' as const, messageId, contextId, taskId };
  const text = messageText(message);
  if (message.type === 'human') return { ...base, role: 'user', parts: [{ kind: 'text', text }] };
  if (message.type === 'tool') {
    return {
      ...base,
      role: 'agent',
      parts: [
        {
          kind: 'data',
          data: {
            tool_result: { tool_call_id: message.tool_call_id, name: message.name ?? null, content: message.content },
          },
        },
      ],
    };
  }
  if (!isAi(message)) return undefined;
  const parts: A2aPart[] = text ? [{ kind: 'text', text }] : [];
  if (Array.isArray(message.tool_calls) && message.tool_calls.length > 0)
    parts.push({ kind: 'data', data: { tool_calls: message.tool_calls } });
  return parts.length > 0 ? { ...base, role: 'agent', parts } : undefined;
}

/** A thread's messages as A2A history. */
export function a2aHistory(messages: Json[], contextId: string, taskId: string): A2aMessage[] {
  return messages.flatMap((m, i) => a2aMessageFromWire(m, `${taskId}:${i}`, contextId, taskId) ?? []);
}

/** The client's message as the history's first entry of its task. */
export function echoedMessage(message: IncomingMessage, contextId: string, taskId: string): A2aMessage {
  return {
    kind: 'message',
    role: message.role,
    parts: message.parts,
    messageId: message.messageId,
    contextId,
    taskId,
    ...(message.metadata ? { metadata: message.metadata } : {}),
  };
}
