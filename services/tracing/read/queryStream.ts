// A keyset-paged query answered in the form the client asked for (the Accept header): JSON
// (`{items, next_cursor}`, one read), or the stream the langsmith SDKs' `*.streaming.query*`
// and `*_items` helpers read: server-sent events whose data is a list of JSON Patch operations
// on that same page document (the SDKs' QueryPatchEvent):
//   event: data   data: [{"op":"add","path":"","value":{"items":[],"next_cursor":null}}]
//   event: data   data: [{"op":"add","path":"/items/-","value":<item>}, …]        one per read
//   event: data   data: [{"op":"replace","path":"/next_cursor","value":"<cursor>"}] unless last page
//   event: end    data:
// A failure once the stream is open is `event: error` with `{error, detail}`, then the stream
// ends (the SDKs raise it). A stream holds up to the request's page_size items as the SDKs define
// it, read in pages of at most what one read gives, following the cursor here; the SDKs follow
// next_cursor to the next stream. An Accept that admits neither form is a 406 (docs/read-api.md).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../../platform/errors.ts';
import { toAppError } from '../../../platform/http/server.ts';
import { preferredMediaType } from '../../../platform/http/contentNegotiation.ts';
import { openEventStream, type EventStream } from '../../../platform/http/sse.ts';

export interface QueryPage {
  items: unknown[];
  /** The cursor of the next page; null on the last. */
  next: string | null;
}

/** Reads up to `limit` items after `cursor` (undefined: from the start). */
export type PageReader = (cursor: string | undefined, limit: number) => Promise<QueryPage>;

const FORMS = ['application/json', 'text/event-stream'] as const;
export type QueryAnswerForm = 'json' | 'stream';

/** JSON or a stream, as the request's Accept header prefers (JSON without one); 406 when it admits neither. */
export function queryAnswerForm(request: FastifyRequest): QueryAnswerForm {
  const accept = request.headers.accept;
  const form = preferredMediaType(accept, FORMS);
  if (form === null) throw errors.notAcceptable(String(accept), FORMS);
  return form === 'text/event-stream' ? 'stream' : 'json';
}

export interface PagedQuery {
  form: QueryAnswerForm;
  /** The request's cursor. */
  cursor: string | undefined;
  /** Items the request asks for in one answer (page_size as the clients mean it). */
  pageSize: number;
  /** Items one read may return; a JSON answer is one read, a stream reads until it has pageSize items. */
  maxPerRead: number;
  read: PageReader;
}

const dataEvent = (ops: unknown[]) => ({ event: 'data', data: JSON.stringify(ops) });

/**
 * Answers a paged query: returns the JSON page, or streams the items and returns undefined (the
 * reply is then taken over). The first read happens before the stream opens, so bad input and
 * an unavailable read model are still an ordinary error status.
 */
export async function answerPagedQuery(
  request: FastifyRequest,
  reply: FastifyReply,
  q: PagedQuery,
): Promise<{ items: unknown[]; next_cursor: string | null } | undefined> {
  let page = await q.read(q.cursor, Math.min(q.pageSize, q.maxPerRead));
  if (q.form === 'json') return { items: page.items, next_cursor: page.next };

  const stream = openEventStream(reply);
  const closed = () => stream.res.destroyed || stream.res.writableEnded;
  try {
    await stream.send(dataEvent([{ op: 'add', path: '', value: { items: [], next_cursor: null } }]));
    let sent = 0;
    for (;;) {
      const appended = page.items.map((value) => ({ op: 'add', path: '/items/-', value }));
      if (appended.length > 0) await stream.send(dataEvent(appended));
      sent += page.items.length;
      if (closed() || page.next === null || sent >= q.pageSize) break;
      page = await q.read(page.next, Math.min(q.pageSize - sent, q.maxPerRead));
    }
    if (page.next !== null) await stream.send(dataEvent([{ op: 'replace', path: '/next_cursor', value: page.next }]));
    await stream.send({ event: 'end', data: '' });
  } catch (err) {
    await sendError(request, stream, err as Error);
  } finally {
    stream.end();
  }
  return undefined;
}

async function sendError(request: FastifyRequest, stream: EventStream, err: Error): Promise<void> {
  const appErr = toAppError(err);
  if (appErr.code === 'INTERNAL') request.log.error({ err }, 'streamed query failed');
  else request.log.warn({ code: appErr.code, msg: err.message }, 'streamed query failed');
  await stream.send({ event: 'error', data: JSON.stringify({ error: appErr.code, detail: appErr.message }) });
}
