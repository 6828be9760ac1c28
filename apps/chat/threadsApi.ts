// The chat app's own routes (the key's workspaces; threads: list, bootstrap, delete) as plain
// fetch calls, signed with the person's API key (../shared/credentials.ts), and the one place
// that turns a failure, ours or the stream client's, into a sentence for the person. The
// protocol itself (commands, stream, state) goes through `@langchain/react` (ChatApp.tsx).
// The server answers errors as `{error, detail}`; a command the protocol refuses, `{type:"error", message}`.
import { authHeaders, type Credentials, type Workspace } from '../shared/credentials.ts';

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

/** The server does not take the key (401): the person signs in again. */
export class KeyRefusedError extends ApiError {}

/** Who calls: the person's key (and workspace), or nobody when the app takes no keys (CHAT_APP_AUTH=none). */
export type Caller = Credentials | null;

/** What a refusal says: the platform's `detail`, a protocol error's `message`, else the status. */
async function reasonOf(response: Response): Promise<string> {
  const body = (await response.json().catch(() => null)) as { detail?: unknown; message?: unknown } | null;
  if (typeof body?.detail === 'string') return body.detail;
  if (typeof body?.message === 'string') return body.message;
  return response.statusText || 'no reason given';
}

async function call(caller: Caller, path: string, init: RequestInit, what: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(`${apiUrl()}${path}`, {
      cache: 'no-store',
      ...init,
      headers: { ...(caller ? authHeaders(caller) : {}), ...(init.headers as Record<string, string> | undefined) },
    });
  } catch {
    throw new ApiError(`Could not ${what}: the chat server did not answer. Is it running?`);
  }
  if (!response.ok) {
    const reason = await reasonOf(response);
    if (response.status === 401)
      throw new KeyRefusedError(
        `The chat server does not accept the API key kept in this browser (${reason}). Sign in again.`,
      );
    throw new ApiError(`Could not ${what}: ${reason} (HTTP ${response.status}).`);
  }
  return response;
}

/**
 * Whether the app lets callers in without a key (CHAT_APP_AUTH=none): its thread list answers
 * without one. A 401 means it takes API keys; the page then asks for one.
 */
export async function opensWithoutKey(): Promise<boolean> {
  try {
    await call(null, '/threads', {}, 'reach the chat server');
    return true;
  } catch (err) {
    if (err instanceof KeyRefusedError) return false;
    throw err;
  }
}

/** The key's workspaces (for the sign-in and the switcher); refused in words when the key is not valid. */
export async function listWorkspaces(apiKey: string): Promise<Workspace[]> {
  let response: Response;
  try {
    response = await fetch(`${apiUrl()}/workspaces`, { cache: 'no-store', headers: { 'x-api-key': apiKey } });
  } catch {
    throw new ApiError('The chat server did not answer. Is it running?');
  }
  if (response.status === 401)
    throw new ApiError(`This key was refused: ${await reasonOf(response)}. Check that you pasted the whole key.`);
  if (!response.ok)
    throw new ApiError(`Could not check the key: ${await reasonOf(response)} (HTTP ${response.status}).`);
  return (await response.json()) as Workspace[];
}

export async function listThreads(caller: Caller): Promise<ThreadSummary[]> {
  return (await (await call(caller, '/threads', {}, 'load the conversations')).json()) as ThreadSummary[];
}

/** Mints a thread id and gives it its first (empty) checkpoint, so the sidebar lists it. */
export async function createThread(caller: Caller): Promise<string> {
  const id = crypto.randomUUID();
  await call(
    caller,
    `/threads/${id}/state`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ values: { messages: [] } }),
    },
    'start a new conversation',
  );
  return id;
}

export async function deleteThread(caller: Caller, id: string): Promise<void> {
  await call(caller, `/threads/${encodeURIComponent(id)}`, { method: 'DELETE' }, 'delete the conversation');
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
    if (status === '409')
      return `The agent is still answering in this conversation: ${detail ?? 'wait for it to finish'}.`;
    if (status === '401')
      return `The chat server does not accept your API key${detail ? ` (${detail})` : ''}: sign out, then sign in with a valid one.`;
    return `The chat server refused the request (HTTP ${status})${detail ? `: ${detail}` : '.'}`;
  }
  if (error instanceof TypeError || /fetch|network|closed by the server/i.test(message))
    return 'Lost the connection to the chat server. Check that it is running, then try again.';
  const state = /^Thread state request failed: (\d+) ?(.*)$/.exec(message);
  if (state?.[1] === '401')
    return 'The chat server does not accept your API key: sign out, then sign in with a valid one.';
  if (state)
    return `Could not load this conversation: the chat server answered HTTP ${state[1]}${state[2] ? ` (${state[2]})` : ''}.`;
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
