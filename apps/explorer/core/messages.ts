// Chat messages inside a run's inputs or outputs, in the shapes the clients send them: OpenAI-style
// dicts ({role, content, tool_calls}), LangChain dicts ({type: 'human' | 'ai' | …, content}) and
// serialised LangChain messages ({lc: 1, id: [..., 'AIMessage'], kwargs}), found under `messages`
// (a list, or a list of lists), LangChain `generations`, OpenAI `choices`, or as the value itself.
// Null when the value holds no messages: the page then shows JSON only. Also a retriever's
// documents ({page_content, metadata}, under `documents` or as the value itself), and a payload's
// one-line preview. The one reader of the trace view's run detail and the threads view's turns.

export interface ToolCall {
  id: string | null;
  name: string;
  /** The arguments as an object when they parse, else their text. */
  args: unknown;
}

export interface ChatMessage {
  role: string;
  /** The text (a list of parts reads as their texts; other parts as [type]). */
  content: string;
  name: string | null;
  toolCalls: ToolCall[];
  /** For a tool result: the call it answers. */
  toolCallId: string | null;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** LangChain's message types and class names, as chat roles. */
const ROLES: Record<string, string> = {
  human: 'user',
  HumanMessage: 'user',
  HumanMessageChunk: 'user',
  user: 'user',
  ai: 'assistant',
  AIMessage: 'assistant',
  AIMessageChunk: 'assistant',
  assistant: 'assistant',
  system: 'system',
  SystemMessage: 'system',
  developer: 'system',
  tool: 'tool',
  ToolMessage: 'tool',
  function: 'tool',
  FunctionMessage: 'tool',
  chat: 'chat',
  ChatMessage: 'chat',
};
/** The role a message type or class names; nothing for any other text (`constructor` included). */
const roleFor = (name: string): string | undefined => (Object.hasOwn(ROLES, name) ? ROLES[name] : undefined);

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content, null, 2);
  return content
    .map((part) =>
      typeof part === 'string' ? part : isObject(part) ? (text(part.text) ?? `[${String(part.type ?? 'part')}]`) : '',
    )
    .filter(Boolean)
    .join('\n');
}

function parseArgs(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

function toolCallsOf(m: Json): ToolCall[] {
  const additional = isObject(m.additional_kwargs) ? m.additional_kwargs : {};
  const calls =
    Array.isArray(m.tool_calls) && m.tool_calls.length
      ? m.tool_calls
      : Array.isArray(additional.tool_calls)
        ? additional.tool_calls
        : [];
  const out: ToolCall[] = [];
  for (const c of calls) {
    if (!isObject(c)) continue;
    // OpenAI: {id, type: 'function', function: {name, arguments}}; LangChain: {id, name, args}.
    const fn = isObject(c.function) ? c.function : null;
    const name = text(fn?.name) ?? text(c.name);
    if (name) out.push({ id: text(c.id), name, args: parseArgs(fn ? fn.arguments : c.args) });
  }
  const legacy = isObject(m.function_call)
    ? m.function_call
    : isObject(additional.function_call)
      ? additional.function_call
      : null;
  if (legacy && text(legacy.name))
    out.push({ id: null, name: legacy.name as string, args: parseArgs(legacy.arguments) });
  return out;
}

/** One message, or null when the value is not one. */
export function asMessage(value: unknown): ChatMessage | null {
  if (!isObject(value)) return null;
  let m: Json = value;
  let role: string | undefined;
  // Serialised LangChain message: {lc: 1, type: 'constructor', id: [..., 'AIMessage'], kwargs: {...}}.
  if (value.lc === 1 && Array.isArray(value.id) && isObject(value.kwargs)) {
    role = roleFor(String(value.id.at(-1)));
    m = value.kwargs;
    if (role === 'chat') role = text(m.role) ?? 'chat';
  } else if (typeof value.role === 'string') {
    role = roleFor(value.role) ?? value.role;
  } else if (typeof value.type === 'string' && roleFor(value.type)) {
    role = roleFor(value.type);
    if (role === 'chat') role = text(value.role) ?? 'chat';
  }
  if (!role) return null;
  const toolCalls = toolCallsOf(m);
  if (!('content' in m) && toolCalls.length === 0) return null;
  return { role, content: contentText(m.content), name: text(m.name), toolCalls, toolCallId: text(m.tool_call_id) };
}

/** Every item a message (a list of lists read flat), or null. */
function messageList(value: unknown): ChatMessage[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const flat = value.every(Array.isArray) ? value.flat() : value;
  const out: ChatMessage[] = [];
  for (const item of flat) {
    const m = asMessage(item);
    if (!m) return null;
    out.push(m);
  }
  return out.length ? out : null;
}

/** The messages a run's inputs or outputs hold, or null. */
export function findMessages(value: unknown): ChatMessage[] | null {
  const single = asMessage(value);
  if (single) return [single];
  if (!isObject(value)) return messageList(value);
  const direct = messageList(value.messages);
  if (direct) return direct;
  // LangChain LLM results: generations: [[{text, message}]].
  if (Array.isArray(value.generations)) {
    const generations = value.generations.flat();
    const out = generations.map((g) =>
      isObject(g)
        ? (asMessage(g.message) ??
          (typeof g.text === 'string'
            ? { role: 'assistant', content: g.text, name: null, toolCalls: [], toolCallId: null }
            : null))
        : null,
    );
    if (out.length && out.every((m) => m !== null)) return out as ChatMessage[];
  }
  // OpenAI chat completions: choices: [{message}].
  if (Array.isArray(value.choices)) {
    const out = value.choices.map((c) => (isObject(c) ? asMessage(c.message) : null));
    if (out.length && out.every((m) => m !== null)) return out as ChatMessage[];
  }
  // A chain's output of one message (e.g. {output: AIMessage}).
  for (const key of ['output', 'message']) {
    const m = asMessage(value[key]);
    if (m) return [m];
  }
  return null;
}

export interface RetrievedDocument {
  content: string;
  metadata: Record<string, unknown> | null;
}

/** A retriever's documents (LangChain Document dicts or serialised Documents), or null. */
export function findDocuments(value: unknown): RetrievedDocument[] | null {
  const list = isObject(value) ? value.documents : value;
  if (!Array.isArray(list) || list.length === 0) return null;
  const out: RetrievedDocument[] = [];
  for (const item of list) {
    const d = isObject(item) && item.lc === 1 && isObject(item.kwargs) ? item.kwargs : item;
    if (!isObject(d) || typeof d.page_content !== 'string') return null;
    out.push({ content: d.page_content, metadata: isObject(d.metadata) ? d.metadata : null });
  }
  return out;
}

/** The one string of a payload like {question: "…"} or {output: "…"} (or the string itself); null otherwise. */
export function soleText(payload: unknown): string | null {
  if (typeof payload === 'string') return payload;
  if (!isObject(payload)) return null;
  const values = Object.values(payload);
  return values.length === 1 && typeof values[0] === 'string' ? values[0] : null;
}

/** A one-line preview: the last message's text (or the sole string, or the JSON), shortened. */
export function previewOf(payload: unknown, max = 120): string {
  if (payload === undefined || payload === null) return '';
  const messages = findMessages(payload);
  const last = messages?.at(-1);
  const text = last
    ? last.content || last.toolCalls.map((c) => `${c.name}(…)`).join(' ')
    : (soleText(payload) ?? JSON.stringify(payload));
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
