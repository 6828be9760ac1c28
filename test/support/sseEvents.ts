// Server-sent events split the way the langsmith SDKs split them: blank-line separated blocks of
// `event:` and `data:` fields, comment lines (`:`) ignored. For tests that read a stream's text.

export interface SseEvent {
  event: string | null;
  data: string;
}

export function sseEvents(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const lines = block.split(/\r?\n/).filter((l) => l !== '' && !l.startsWith(':'));
    if (lines.length === 0) continue;
    const field = (name: string) =>
      lines.filter((l) => l.startsWith(`${name}:`)).map((l) => l.slice(name.length + 1).replace(/^ /, ''));
    events.push({ event: field('event')[0] ?? null, data: field('data').join('\n') });
  }
  return events;
}

/** A streamed query page (services/tracing/read/queryStream.ts) rebuilt from its JSON Patch events. */
export function streamedPage(text: string): { items: unknown[]; next_cursor: string | null; events: SseEvent[] } {
  const events = sseEvents(text);
  let page: { items: unknown[]; next_cursor: string | null } = { items: [], next_cursor: null };
  for (const e of events.filter((x) => x.event === 'data')) {
    for (const op of JSON.parse(e.data) as Array<{ op: string; path: string; value: unknown }>) {
      if (op.path === '') page = structuredClone(op.value as typeof page);
      else if (op.path === '/items/-' && op.op === 'add') page.items.push(op.value);
      else if (op.path === '/next_cursor' && op.op === 'replace') page.next_cursor = op.value as string;
      else throw new Error(`unexpected operation ${JSON.stringify(op)}`);
    }
  }
  return { ...page, events };
}

export interface SsePart {
  event: string;
  data: any;
  id?: string;
}

/**
 * Reads a streamed SSE response as it comes (JSON data parsed, ids kept), until `until` says so
 * or the stream ends; then lets go of the connection. For streams that stay open (a thread's).
 */
export async function readSseUntil(res: Response, until: (parts: SsePart[]) => boolean): Promise<SsePart[]> {
  const parts: SsePart[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return parts;
      buffered += value;
      let end = buffered.indexOf('\n\n');
      while (end >= 0) {
        const [event] = sseEvents(buffered.slice(0, end));
        const id = /^id: ?(.*)$/m.exec(buffered.slice(0, end))?.[1];
        buffered = buffered.slice(end + 2);
        end = buffered.indexOf('\n\n');
        if (event?.event) parts.push({ event: event.event, data: JSON.parse(event.data || 'null'), id });
        if (until(parts)) return parts;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
