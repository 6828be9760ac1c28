// The example chat app (examples/chat-app) as a child process of a test, the way one runs it,
// on a free port; and the protocol calls a plain HTTP client makes to it.
import { freePort, startService, waitFor, type ServiceProcess } from './serviceProcess.ts';
import { sseEvents } from './sseEvents.ts';

export interface ChatAppProcess {
  url: string;
  port: number;
  process: ServiceProcess;
  stop(): Promise<void>;
}

/** `env` adds to or overrides the app's (CHAT_CHECKPOINTER, LANGSMITH_*, …); tokens stream without pauses unless it says otherwise. */
export async function startChatApp(name: string, env: Record<string, string> = {}, port?: number): Promise<ChatAppProcess> {
  const listenOn = port ?? (await freePort());
  const child = startService('examples/chat-app/main.ts', { CHAT_APP_PORT: String(listenOn), CHAT_SCRIPTED_TOKEN_DELAY_MS: '0', LOG_LEVEL: 'warn', ...env }, `chat-app-${name}`);
  const url = `http://127.0.0.1:${listenOn}`;
  await waitFor(`the chat app at ${url}`, async () => {
    if (child.child.exitCode !== null) throw new Error(`the chat app exited with ${child.child.exitCode} (see .local/logs/test/chat-app-${name}.log)`);
    return (await fetch(`${url}/ok`).catch(() => null))?.ok;
  });
  return { url, port: listenOn, process: child, stop: () => child.stop() };
}

export const userMessage = (content: string) => ({ messages: [{ role: 'user', content }] });

/** POSTs a command; the status and the JSON answer. */
export async function sendCommand(url: string, threadId: string, command: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/api/threads/${threadId}/commands`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(command) });
  return { status: res.status, body: await res.json() };
}

/** Starts a run of `deep_agent` with one user message; its run_id. */
export async function startRun(url: string, threadId: string, content: string): Promise<string> {
  const { status, body } = await sendCommand(url, threadId, { id: 1, method: 'run.start', params: { assistant_id: 'deep_agent', input: userMessage(content) } });
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
export function openStream(url: string, threadId: string, subscription: unknown): OpenStream {
  const controller = new AbortController();
  const response = fetch(`${url}/api/threads/${threadId}/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(subscription), signal: controller.signal });
  const text = response.then((res) => res.text()).catch((err: Error) => (err.name === 'AbortError' ? '' : Promise.reject(err)));
  return {
    response,
    events: text.then((t) => sseEvents(t).filter((e) => e.event !== 'error').map((e) => JSON.parse(e.data) as ProtocolEvent)),
    ids: text.then((t) => [...t.matchAll(/^id: (.*)$/gm)].map((m) => m[1]!)),
    abort: () => controller.abort(),
  };
}

/**
 * The events a subscription receives within `ms`, then the connection is dropped: for a stream
 * the server holds open (after a finished run, until the next one).
 */
export async function eventsWithin(url: string, threadId: string, subscription: unknown, ms: number): Promise<ProtocolEvent[]> {
  const controller = new AbortController();
  const res = await fetch(`${url}/api/threads/${threadId}/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(subscription), signal: controller.signal });
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
  return sseEvents(text.slice(0, text.lastIndexOf('\n\n') + 2)).filter((e) => e.event !== 'error').map((e) => JSON.parse(e.data) as ProtocolEvent);
}

/** The streamed text of the AI messages in `events` (of one namespace): each text block's start, then its deltas. */
export const streamedText = (events: ProtocolEvent[]) =>
  events
    .filter((e) => e.method === 'messages')
    .map(({ params: { data } }) => (data.event === 'content-block-start' && data.content?.type === 'text' ? data.content.text : data.event === 'content-block-delta' && data.delta?.type === 'text-delta' ? data.delta.text : ''))
    .join('');
