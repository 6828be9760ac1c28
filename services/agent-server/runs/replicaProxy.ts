// A run's stream events live in the replica that executes it. Another replica asked for them
// (a joined stream, or the stream of a queued run that a third replica claimed) relays the
// owner's own /stream answer, with the caller's credentials: the owner checks them as any
// request's. A relayed request is never relayed again.
import { pipeline } from 'node:stream/promises';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { request as undiciRequest } from 'undici';
import { SSE_HEADERS } from '../../../platform/http/sse.ts';

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

/**
 * Answers with the owner replica's SSE stream of the run, from after `lastEventId`. False when the
 * owner could not give it (gone, or the run ended and was forgotten there): the caller answers itself.
 */
export async function relayRunStream(
  request: FastifyRequest,
  reply: FastifyReply,
  ownerUrl: string,
  run: { thread_id: string; run_id: string },
  headers: Record<string, string>,
  lastEventId: string | undefined,
  onClose?: () => void,
): Promise<boolean> {
  const forwarded: Record<string, string> = { [RELAYED_HEADER]: '1', accept: 'text/event-stream' };
  for (const [name, value] of Object.entries(request.headers)) {
    if (!HOP_HEADERS.has(name) && typeof value === 'string') forwarded[name] = value;
  }
  if (lastEventId) forwarded['last-event-id'] = lastEventId;
  const gone = new AbortController();
  let answer;
  try {
    answer = await undiciRequest(`${ownerUrl}/threads/${run.thread_id}/runs/${run.run_id}/stream`, {
      method: 'GET',
      headers: forwarded,
      signal: gone.signal,
    });
  } catch {
    return false;
  }
  if (answer.statusCode !== 200) {
    await answer.body.dump();
    return false;
  }
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { ...SSE_HEADERS, ...headers });
  res.flushHeaders();
  res.on('close', () => {
    gone.abort();
    if (!res.writableEnded) onClose?.();
  });
  await pipeline(answer.body, res).catch(() => res.destroy());
  return true;
}
