// A run's stream events live in the replica that executes it. Another replica asked for them
// (a joined stream, a thread's stream, or the stream of a queued run that a third replica
// claimed) relays the owner's own /stream answer event by event, with the caller's credentials:
// the owner checks them as any request's. A relayed request is never relayed again.
import type { FastifyRequest } from 'fastify';
import { request as undiciRequest } from 'undici';
import type { StreamEvent } from '../../../platform/http/sse.ts';
import type { ActiveRun } from './activeRun.ts';
import type { RunManager } from './runManager.ts';

export const RELAYED_HEADER = 'x-agent-server-relayed';

/** Headers that describe this hop, not the caller. */
const HOP_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'content-type',
  'transfer-encoding',
  'accept-encoding',
  'keep-alive',
  'upgrade',
  'last-event-id',
]);

export function isRelayed(request: FastifyRequest): boolean {
  return request.headers[RELAYED_HEADER] !== undefined;
}

/** The caller's own headers (its credentials among them), for a request relayed on its behalf. */
export function callerHeaders(request: FastifyRequest): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (!HOP_HEADERS.has(name) && typeof value === 'string') forwarded[name] = value;
  }
  return forwarded;
}

/** Until the signal fires; never rejects. */
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

/**
 * A run's events after `after`, wherever it executes: here, or relayed from the replica that
 * does (once one has claimed a queued run). A run that ends before any replica streams it, or
 * whose replica cannot answer, gives the events held here (none, for one followed from here),
 * ending when the run does. Ends early when `signal` fires.
 */
export async function* runEventsAnywhere(
  runs: RunManager,
  request: FastifyRequest,
  run: ActiveRun,
  after: string | undefined,
  signal: AbortSignal,
): AsyncGenerator<StreamEvent> {
  if (!runs.executesHere(run) && !isRelayed(request)) {
    const owner = await runs.ownerOf(run, signal);
    if (owner && owner !== runs.url) {
      const relayed = await relayedRunEvents(request, owner, run.record, after, signal);
      if (relayed) {
        try {
          yield* relayed;
        } catch {
          // the owner went away mid-stream: the run's end still comes (its replica taken for dead)
        }
        await Promise.race([run.outcome, aborted(signal)]);
        return;
      }
    }
    // claimed here meanwhile: its events are in the run this server executes
    if (owner === runs.url) run = (await runs.claimedHere(run.record.run_id, run.outcome)) ?? run;
  }
  yield* run.subscribe(after, signal);
}

/**
 * The events of the owner replica's stream of a run, from after `lastEventId`, one by one (a
 * thread's stream re-labels them): undefined when the owner could not give it (gone, or the run
 * ended and was forgotten there). Ends when the owner's stream does or `signal` fires.
 */
export async function relayedRunEvents(
  request: FastifyRequest,
  ownerUrl: string,
  run: { thread_id: string; run_id: string; kwargs?: { temporary?: unknown } },
  lastEventId: string | undefined,
  signal: AbortSignal,
): Promise<AsyncGenerator<StreamEvent> | undefined> {
  const forwarded: Record<string, string> = {
    [RELAYED_HEADER]: '1',
    accept: 'text/event-stream',
    ...callerHeaders(request),
  };
  if (lastEventId) forwarded['last-event-id'] = lastEventId;
  const path = run.kwargs?.temporary
    ? `/runs/${run.run_id}/stream`
    : `/threads/${run.thread_id}/runs/${run.run_id}/stream`;
  let answer;
  try {
    answer = await undiciRequest(`${ownerUrl}${path}`, { method: 'GET', headers: forwarded, signal });
  } catch {
    return undefined;
  }
  if (answer.statusCode !== 200) {
    await answer.body.dump();
    return undefined;
  }
  return parseEventStream(answer.body, signal);
}

/** SSE frames (`event:`, `data:`, `id:`; comments skipped) as the agent server writes them. */
export async function* parseEventStream(
  body: AsyncIterable<Buffer | string>,
  signal?: AbortSignal,
): AsyncGenerator<StreamEvent> {
  let buffered = '';
  let frame: Partial<StreamEvent> = {};
  const decoder = new TextDecoder();
  try {
    for await (const chunk of body) {
      buffered += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline).replace(/\r$/, '');
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
        if (line === '') {
          if (frame.event !== undefined && frame.data !== undefined) yield frame as StreamEvent;
          frame = {};
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') frame.event = value;
          else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
          else if (field === 'id') frame.id = value;
        }
      }
    }
  } catch (err) {
    if (!signal?.aborted) throw err;
  }
}
