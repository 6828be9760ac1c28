// The example chat app (examples/chat-app) as a child process of a test, the way one runs it,
// on a free port; and the protocol calls a plain HTTP client makes to it. The app takes the API
// keys of the shared tracing stack (it reads the stack's tenancy topic), so `headers` (the stack's
// bootstrap key, the default workspace) or a key of createWorkspaces() (`as(app, workspace)`)
// opens it, unless the test turns keys off (CHAT_APP_AUTH=none).
import { sharedTenancyEnv } from './agentServer.ts';
import { freePort, startService, waitFor, type ServiceProcess } from './serviceProcess.ts';
import { sseEvents } from './sseEvents.ts';

/** Where a client calls the app, and the headers that sign it in (the API key, X-Tenant-Id). */
export interface ChatCaller {
  url: string;
  headers: Record<string, string>;
}

export interface ChatAppProcess extends ChatCaller {
  port: number;
  /** A key of the default workspace (the shared stack's bootstrap key); empty with CHAT_APP_AUTH=none. */
  apiKey: string;
  process: ServiceProcess;
  stop(): Promise<void>;
}

/** The same app, called with another key (and, for a key of several workspaces, the workspace it acts in). */
export const as = (app: { url: string }, who: { apiKey: string; id?: string }, tenant = false): ChatCaller => ({
  url: app.url,
  headers: { 'x-api-key': who.apiKey, ...(tenant && who.id ? { 'x-tenant-id': who.id } : {}) },
});

/** `env` adds to or overrides the app's (CHAT_CHECKPOINTER, LANGSMITH_*, …); tokens stream without pauses unless it says otherwise. */
export async function startChatApp(
  name: string,
  env: Record<string, string> = {},
  port?: number,
): Promise<ChatAppProcess> {
  const listenOn = port ?? (await freePort());
  const tenancy = env.CHAT_APP_AUTH === 'none' ? { env: {}, apiKey: '' } : sharedTenancyEnv();
  const child = startService(
    'examples/chat-app/main.ts',
    { ...tenancy.env, CHAT_APP_PORT: String(listenOn), CHAT_SCRIPTED_TOKEN_DELAY_MS: '0', LOG_LEVEL: 'warn', ...env },
    `chat-app-${name}`,
  );
  const url = `http://127.0.0.1:${listenOn}`;
  await waitFor(`the chat app at ${url}`, async () => {
    if (child.child.exitCode !== null)
      throw new Error(`the chat app exited with ${child.child.exitCode} (see .local/logs/test/chat-app-${name}.log)`);
    return (await fetch(`${url}/ok`).catch(() => null))?.ok;
  });
  const headers: Record<string, string> = tenancy.apiKey ? { 'x-api-key': tenancy.apiKey } : {};
  return { url, port: listenOn, apiKey: tenancy.apiKey, headers, process: child, stop: () => child.stop() };
}

/** A request to the app's API as `caller`; the status and the JSON answer (null when there is none). */
export async function chatCall(
  caller: ChatCaller,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${caller.url}${path}`, {
    method,
    headers: { ...caller.headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export const userMessage = (content: string) => ({ messages: [{ role: 'user', content }] });

/** POSTs a command; the status and the JSON answer. */
export async function sendCommand(
  caller: ChatCaller,
  threadId: string,
  command: unknown,
): Promise<{ status: number; body: any }> {
  return chatCall(caller, 'POST', `/api/threads/${threadId}/commands`, command);
}

/** Starts a run of `deep_agent` with one user message; its run_id. */
export async function startRun(caller: ChatCaller, threadId: string, content: string): Promise<string> {
  const { status, body } = await sendCommand(caller, threadId, {
    id: 1,
    method: 'run.start',
    params: { assistant_id: 'deep_agent', input: userMessage(content) },
  });
  if (status !== 200) throw new Error(`run.start answered ${status}: ${JSON.stringify(body)}`);
  return body.result.run_id;
}

export interface ProtocolEvent {
  type: 'event';
  event_id: string;
  seq: number;
  method: string;
  params: { namespace: string[]; timestamp: number; node?: string; data: any };
}

export interface OpenStream {
  /** The response's status and headers, once they have arrived. */
  response: Promise<Response>;
  /** Every event, once the server has ended the stream. */
  events: Promise<ProtocolEvent[]>;
  /** The SSE frames' `id:` fields, in order. */
  ids: Promise<string[]>;
  abort(): void;
}

/** Opens a subscription; its events are read until the server ends the stream (or `abort`). */
export function openStream(caller: ChatCaller, threadId: string, subscription: unknown): OpenStream {
  const controller = new AbortController();
  const response = fetch(`${caller.url}/api/threads/${threadId}/stream`, {
    method: 'POST',
    headers: { ...caller.headers, 'content-type': 'application/json' },
    body: JSON.stringify(subscription),
    signal: controller.signal,
  });
  const text = response
    .then((res) => res.text())
    .catch((err: Error) => (err.name === 'AbortError' ? '' : Promise.reject(err)));
  return {
    response,
    events: text.then((t) =>
      sseEvents(t)
        .filter((e) => e.event !== 'error')
        .map((e) => JSON.parse(e.data) as ProtocolEvent),
    ),
    ids: text.then((t) => [...t.matchAll(/^id: (.*)$/gm)].map((m) => m[1]!)),
    abort: () => controller.abort(),
  };
}

/**
 * The events a subscription receives within `ms`, then the connection is dropped: for a stream
 * the server holds open (after a finished run, until the next one).
 */
export async function eventsWithin(
  caller: ChatCaller,
  threadId: string,
  subscription: unknown,
  ms: number,
): Promise<ProtocolEvent[]> {
  const controller = new AbortController();
  const res = await fetch(`${caller.url}/api/threads/${threadId}/stream`, {
    method: 'POST',
    headers: { ...caller.headers, 'content-type': 'application/json' },
    body: JSON.stringify(subscription),
    signal: controller.signal,
  });
  const reader = res.body!.getReader();
  const timer = setTimeout(() => controller.abort(), ms);
  let text = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
  } catch (err) {
    if ((err as Error).name !== 'AbortError') throw err;
  } finally {
    clearTimeout(timer);
  }
  return sseEvents(text.slice(0, text.lastIndexOf('\n\n') + 2))
    .filter((e) => e.event !== 'error')
    .map((e) => JSON.parse(e.data) as ProtocolEvent);
}

/** The streamed text of the AI messages in `events` (of one namespace): each text block's start, then its deltas. */
export const streamedText = (events: ProtocolEvent[]) =>
  events
    .filter((e) => e.method === 'messages')
    .map(({ params: { data } }) =>
      data.event === 'content-block-start' && data.content?.type === 'text'
        ? data.content.text
        : data.event === 'content-block-delta' && data.delta?.type === 'text-delta'
          ? data.delta.text
          : '',
    )
    .join('');
