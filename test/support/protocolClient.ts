// The agent streaming protocol over plain HTTP, as a test calls the agent server's routes
// (POST /threads/{id}/commands, POST /threads/{id}/stream/events): a command and its answer, and a
// subscription read until the server ends it (the run it follows has ended) or the test stops it.
import { waitFor } from './serviceProcess.ts';
import { sseEvents } from './sseEvents.ts';

/** Where a client calls the server, and the headers that sign it in. */
export interface ProtocolCaller {
  url: string;
  headers: Record<string, string>;
}

export interface ProtocolEvent {
  type: 'event';
  event_id: string;
  seq: number;
  method: string;
  params: { namespace: string[]; timestamp: number; node?: string; data: any };
}

/** POSTs a command to the thread; the status and the JSON answer. */
export async function command(
  caller: ProtocolCaller,
  threadId: string,
  body: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${caller.url}/threads/${threadId}/commands`, {
    method: 'POST',
    headers: { ...caller.headers, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Starts a run of `assistant` on the thread (made if new); its run id. */
export async function startRun(
  caller: ProtocolCaller,
  threadId: string,
  assistant: string,
  input: unknown,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const { status, body } = await command(caller, threadId, {
    id: 1,
    method: 'run.start',
    params: { assistant_id: assistant, input, ...extra },
  });
  if (status !== 200) throw new Error(`run.start answered ${status}: ${JSON.stringify(body)}`);
  return body.result.run_id;
}

export const human = (content: string) => ({ messages: [{ type: 'human', content }] });

export interface OpenStream {
  /** The response's status and headers, once they have arrived. */
  response: Promise<Response>;
  /** Every event, once the server has ended the stream (or `stop` was called). */
  events: Promise<ProtocolEvent[]>;
  /** The SSE frames' `event:` and `id:` fields, in order. */
  frames: Promise<{ event: string | null; id: string | undefined }[]>;
  /** The events received so far (whole frames only). */
  received(): ProtocolEvent[];
  /** Drops the connection: `events` then holds what had arrived. */
  stop(): void;
}

const parse = (text: string) =>
  sseEvents(text.slice(0, text.lastIndexOf('\n\n') + 2))
    .filter((e) => e.event !== 'error')
    .map((e) => JSON.parse(e.data) as ProtocolEvent);

/** Opens a subscription; its events are read until the server ends the stream, or `stop`. */
export function openStream(caller: ProtocolCaller, threadId: string, subscription: unknown): OpenStream {
  const controller = new AbortController();
  let text = '';
  const response = fetch(`${caller.url}/threads/${threadId}/stream/events`, {
    method: 'POST',
    headers: { ...caller.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(subscription),
    signal: controller.signal,
  });
  const read = response.then(async (res) => {
    // an error's body is the test's to read
    if (!res.body || res.status !== 200) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) text += decoder.decode(chunk, { stream: true });
    } catch (err) {
      if ((err as Error).name !== 'AbortError') throw err;
    }
  });
  read.catch(() => undefined);
  const whole = read.then(() => text.slice(0, text.lastIndexOf('\n\n') + 2));
  return {
    response,
    events: whole.then(parse),
    frames: whole.then((t) =>
      t
        .split('\n\n')
        .filter((block) => /^(event|data|id):/m.test(block))
        .map((block) => ({
          event: /^event: (.*)$/m.exec(block)?.[1] ?? null,
          id: /^id: (.*)$/m.exec(block)?.[1],
        })),
    ),
    received: () => parse(text),
    stop: () => controller.abort(),
  };
}

/**
 * What a subscription opened now replays of a run that has ended (it then waits for the next
 * run, so it is dropped once the replay has reached the run's end, or `count` events).
 */
export async function replay(
  caller: ProtocolCaller,
  threadId: string,
  subscription: unknown,
  done: (events: ProtocolEvent[]) => boolean = (events) => events.some(isRootTerminal),
): Promise<ProtocolEvent[]> {
  const stream = openStream(caller, threadId, subscription);
  const res = await stream.response;
  if (res.status !== 200) throw new Error(`the stream answered ${res.status}: ${await res.text()}`);
  await waitFor('the replay', async () => done(stream.received()), 60_000, 20);
  stream.stop();
  return stream.events;
}

/** The root's terminal lifecycle event. */
export const isRootTerminal = (e: ProtocolEvent) =>
  e.method === 'lifecycle' &&
  e.params.namespace.length === 0 &&
  ['completed', 'failed', 'interrupted'].includes(e.params.data.event);
