// Server-sent events as the LangGraph SDKs read them: `event:`, `data:` (one JSON line) and,
// when given, `id:` for resuming with Last-Event-ID.
import type { ServerResponse } from 'node:http';

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
