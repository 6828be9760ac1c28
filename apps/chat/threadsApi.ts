// The chat app's own thread routes (list, bootstrap, delete) as plain fetch calls, and the one
// place that turns a failure, ours or the stream client's, into a sentence for the person.
// The protocol itself (commands, stream, state) goes through `@langchain/react` (ChatApp.tsx).

/** A thread in the sidebar, as GET /api/threads answers (examples/chat-app/threads.ts ThreadSummary). */
export interface ThreadSummary {
  id: string;
  title: string;
  updatedAt: string | null;
}

/** The assistant the chat app serves; run.start names it. */
export const ASSISTANT_ID = 'deep_agent';

export const apiUrl = (): string => `${location.origin}/api`;

/** A failure already worded for the person. */
export class ApiError extends Error {}

async function call(path: string, init: RequestInit, what: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`${apiUrl()}${path}`, { cache: 'no-store', ...init });
  } catch {
    throw new ApiError(`Could not ${what}: the chat server did not answer. Is it running?`);
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { message?: unknown } | null;
    const reason = typeof body?.message === 'string' ? body.message : response.statusText || 'no reason given';
    throw new ApiError(`Could not ${what}: ${reason} (HTTP ${response.status}).`);
  }
  return response;
}

export async function listThreads(): Promise<ThreadSummary[]> {
  return (await (await call('/threads', {}, 'load the conversations')).json()) as ThreadSummary[];
}

/** Mints a thread id and gives it its first (empty) checkpoint, so the sidebar lists it. */
export async function createThread(): Promise<string> {
  const id = crypto.randomUUID();
  await call(`/threads/${id}/state`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ values: { messages: [] } }) }, 'start a new conversation');
  return id;
}

export async function deleteThread(id: string): Promise<void> {
  await call(`/threads/${encodeURIComponent(id)}`, { method: 'DELETE' }, 'delete the conversation');
}

/**
 * A sentence for any error the page meets. The stream client reports refused requests as
 * "Protocol request failed: <status> <text> — <server message>" and a lost server as a TypeError.
 */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  const refused = /^Protocol request failed: (\d+)[^—]*(?:— (.*))?$/s.exec(message);
  if (refused) {
    const [, status, detail] = refused;
    if (status === '409') return `The agent is still answering in this conversation: ${detail ?? 'wait for it to finish'}.`;
    return `The chat server refused the request (HTTP ${status})${detail ? `: ${detail}` : '.'}`;
  }
  if (error instanceof TypeError || /fetch|network|closed by the server/i.test(message))
    return 'Lost the connection to the chat server. Check that it is running, then try again.';
  const state = /^Thread state request failed: (\d+) ?(.*)$/.exec(message);
  if (state) return `Could not load this conversation: the chat server answered HTTP ${state[1]}${state[2] ? ` (${state[2]})` : ''}.`;
  return message ? `Something went wrong: ${message}` : 'Something went wrong, and the server did not say what.';
}

/** "just now", "5 min ago", "yesterday", or a date: when a thread last changed. */
export function relativeTime(iso: string | null, now: number): string {
  if (!iso) return '';
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return '';
  const seconds = Math.round((then - now) / 1000);
  if (Math.abs(seconds) < 45) return 'just now';
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
  const minutes = Math.round(seconds / 60);
  if (Math.abs(minutes) < 60) return format.format(minutes, 'minute');
  const hours = Math.round(minutes / 60);
  if (Math.abs(hours) < 24) return format.format(hours, 'hour');
  const days = Math.round(hours / 24);
  if (Math.abs(days) < 7) return format.format(days, 'day');
  return new Date(then).toLocaleDateString(undefined, { month: 'short', day: 'numeric', year: 'numeric' });
}
