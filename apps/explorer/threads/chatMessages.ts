// The chat messages a run's inputs or outputs hold (OpenAI-style {role, content}, LangChain's
// serialised or plain {type, content}, `choices[].message`), and a one-line preview of a payload.
// (The trace view reads a run's messages too; one reader for both would be better once both
// views have landed.)

export interface ChatMessage {
  role: string;
  text: string;
}

const ROLE_OF_TYPE: Record<string, string> = { human: 'user', ai: 'assistant', HumanMessage: 'user', AIMessage: 'assistant', SystemMessage: 'system', ToolMessage: 'tool' };

function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts = content.map((p) => (typeof p === 'string' ? p : p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : null));
    return parts.every((p) => p !== null) ? parts.join('') : null;
  }
  return null;
}

function messageOf(value: unknown): ChatMessage | null {
  if (!value || typeof value !== 'object') return null;
  const m = value as Record<string, unknown>;
  // LangChain's serialised form: {lc: 1, type: 'constructor', id: [..., 'HumanMessage'], kwargs: {content}}
  if (m.lc && Array.isArray(m.id) && m.kwargs && typeof m.kwargs === 'object') {
    const cls = String(m.id[m.id.length - 1]);
    const text = textOf((m.kwargs as { content?: unknown }).content);
    return text === null ? null : { role: ROLE_OF_TYPE[cls] ?? cls.replace(/Message(Chunk)?$/, '').toLowerCase(), text };
  }
  const role = typeof m.role === 'string' ? m.role : typeof m.type === 'string' ? (ROLE_OF_TYPE[m.type] ?? m.type) : null;
  const text = textOf(m.content);
  return role && text !== null ? { role, text } : null;
}

/** The messages a payload holds, or null when it holds none. */
export function messagesOf(payload: unknown): ChatMessage[] | null {
  if (!payload || typeof payload !== 'object') return null;
  const p = payload as Record<string, unknown>;
  const single = messageOf(p);
  if (single) return [single];
  const lists: unknown[] = [];
  if (Array.isArray(p.messages)) lists.push(...(Array.isArray(p.messages[0]) ? (p.messages as unknown[][]).flat() : p.messages));
  if (Array.isArray(p.choices)) lists.push(...p.choices.map((c) => (c as { message?: unknown })?.message));
  for (const key of ['output', 'message']) if (p[key] && typeof p[key] === 'object' && !Array.isArray(p[key])) lists.push(p[key]);
  const messages = lists.map(messageOf);
  return messages.length > 0 && messages.every((m) => m !== null) ? (messages as ChatMessage[]) : null;
}

/** The one string of a payload like {question: "…"} or {output: "…"}; null otherwise. */
export function soleText(payload: unknown): string | null {
  if (typeof payload === 'string') return payload;
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return null;
  const values = Object.values(payload);
  return values.length === 1 && typeof values[0] === 'string' ? values[0] : null;
}

/** A one-line preview: the last message's text (or the sole string, or the JSON), shortened. */
export function previewOf(payload: unknown, max = 120): string {
  if (payload === undefined || payload === null) return '';
  const messages = messagesOf(payload);
  const text = messages ? messages[messages.length - 1]!.text : (soleText(payload) ?? JSON.stringify(payload));
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

