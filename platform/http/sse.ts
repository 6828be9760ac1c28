// Server-sent events, one writer for every service: `event:`, `data:` (one JSON line) and, when
// given, `id:` for resuming with Last-Event-ID. The LangGraph SDKs read the agent server's run
// streams in this form, and the langsmith SDKs the tracing API's streamed queries.
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

export interface StreamEvent {
  event: string;
  /** Already encoded as wire JSON. */
  data: string;
  id?: string;
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const;

export function sseFrame(event: StreamEvent): string {
  return `event: ${event.event}\ndata: ${event.data}\n${event.id ? `id: ${event.id}\n` : ''}\n`;
}

/** Writes frames with backpressure: resolves once the socket has taken the frame (or closed). */
export function writeFrame(res: ServerResponse, text: string): Promise<void> | void {
  if (res.destroyed || res.writableEnded) return;
  if (res.write(text)) return;
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** A comment line this often keeps idle proxies from closing a stream while a graph works. */
const HEARTBEAT_MS = 15_000;

export interface EventStream {
  res: ServerResponse;
  /** Resolves once the socket has taken the frame (or closed). */
  send(event: StreamEvent): Promise<void> | void;
  end(): void;
}

/** Takes over the reply as an SSE stream: status and headers now, heartbeats until `end`. */
export function openEventStream(reply: FastifyReply, headers: Record<string, string> = {}): EventStream {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { ...SSE_HEADERS, ...headers });
  // Now, not with the first frame: a client that opens a stream and then starts what it streams
  // (the chat app's run.start after its stream) waits for these headers, perhaps until a heartbeat.
  res.flushHeaders();
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
  return {
    res,
    send: (event) => writeFrame(res, sseFrame(event)),
    end: () => {
      clearInterval(heartbeat);
      res.end();
    },
  };
}
