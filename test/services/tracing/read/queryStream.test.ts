// A paged query in both forms, over a reader of numbered items (pure paging logic; the routes
// that use it are tested over real ClickHouse in test/services/tracing/traces/readRoutes.test.ts and
// test/services/tracing/query/runsQueryRoute.test.ts, and with the official clients in test/e2e/streamedReads.test.ts).
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { AppError, errors } from '../../../../platform/errors.ts';
import { answerPagedQuery, queryAnswerForm, type PageReader } from '../../../../services/tracing/read/queryStream.ts';
import { sseEvents as events } from '../../../support/sseEvents.ts';

const TOTAL = 23;
const reads: Array<{ cursor: string | undefined; limit: number }> = [];

/** Items 0…22, `limit` at a time after the cursor (the last index read); `fail` makes the read after the first one fail. */
const numbered =
  (fail: boolean): PageReader =>
  async (cursor, limit) => {
    reads.push({ cursor, limit });
    if (fail && reads.length > 1) throw new Error('the read model went away');
    if (cursor === 'bad') throw errors.badRequest('cursor is not a next_cursor this API returned');
    const from = cursor === undefined ? 0 : Number(cursor) + 1;
    const items = Array.from({ length: Math.max(0, Math.min(limit, TOTAL - from)) }, (_, i) => ({ n: from + i }));
    return { items, next: from + items.length < TOTAL ? String(from + items.length - 1) : null };
  };

let app: FastifyInstance;
beforeAll(async () => {
  app = Fastify();
  app.setErrorHandler((err: Error, _request, reply) =>
    err instanceof AppError
      ? reply.code(err.statusCode).send({ error: err.code, detail: err.message })
      : reply.code(500).send({ error: 'INTERNAL' }),
  );
  app.post<{ Body: { cursor?: string; page_size: number; fail?: boolean } }>('/query', async (request, reply) => {
    const form = queryAnswerForm(request);
    return answerPagedQuery(request, reply, {
      form,
      cursor: request.body.cursor,
      pageSize: request.body.page_size,
      maxPerRead: 5,
      read: numbered(request.body.fail ?? false),
    });
  });
  await app.ready();
});
afterAll(() => app.close());

async function post(body: object, accept?: string) {
  reads.length = 0;
  const res = await app.inject({
    method: 'POST',
    url: '/query',
    payload: body,
    headers: accept === undefined ? {} : { accept },
  });
  return { status: res.statusCode, type: String(res.headers['content-type']), text: res.body };
}

describe('streamed (Accept: text/event-stream)', () => {
  test('the page document, then its items appended per read, then next_cursor, then end', async () => {
    const res = await post({ page_size: 12 }, 'text/event-stream');
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/event-stream/);
    const got = events(res.text);
    expect(got.map((e) => e.event)).toEqual(['data', 'data', 'data', 'data', 'data', 'end']);
    expect(JSON.parse(got[0]!.data)).toEqual([{ op: 'add', path: '', value: { items: [], next_cursor: null } }]);
    const appended = got
      .slice(1, 4)
      .map((e) => JSON.parse(e.data) as Array<{ op: string; path: string; value: { n: number } }>);
    expect(
      appended.map((ops) => ops.length),
      'reads of at most 5, up to page_size',
    ).toEqual([5, 5, 2]);
    expect(appended.flat().every((op) => op.op === 'add' && op.path === '/items/-')).toBe(true);
    expect(appended.flat().map((op) => op.value.n)).toEqual([...Array(12).keys()]);
    expect(JSON.parse(got[4]!.data)).toEqual([{ op: 'replace', path: '/next_cursor', value: '11' }]);
    expect(reads).toEqual([
      { cursor: undefined, limit: 5 },
      { cursor: '4', limit: 5 },
      { cursor: '9', limit: 2 },
    ]);
  });

  test('the last page has no next_cursor operation; the stream holds the same items as the JSON pages', async () => {
    const streamed: number[] = [];
    let cursor: string | undefined;
    for (let pages = 1; ; pages++) {
      const got = events((await post({ page_size: 10, ...(cursor ? { cursor } : {}) }, 'text/event-stream')).text);
      const ops = got
        .filter((e) => e.event === 'data')
        .flatMap((e) => JSON.parse(e.data) as Array<{ path: string; value: unknown }>);
      streamed.push(...ops.filter((op) => op.path === '/items/-').map((op) => (op.value as { n: number }).n));
      cursor = ops.find((op) => op.path === '/next_cursor')?.value as string | undefined;
      expect(got.at(-1)!.event).toBe('end');
      if (!cursor) {
        expect(pages).toBe(3);
        break;
      }
    }
    const json: number[] = [];
    cursor = undefined;
    do {
      const page = JSON.parse((await post({ page_size: 10, ...(cursor ? { cursor } : {}) })).text) as {
        items: Array<{ n: number }>;
        next_cursor: string | null;
      };
      json.push(...page.items.map((i) => i.n));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(streamed).toEqual([...Array(TOTAL).keys()]);
    expect(json).toEqual(streamed);
  });

  test('a failure after the stream opened is an error event with {error, detail}, and the stream ends', async () => {
    const res = await post({ page_size: 12, fail: true }, 'text/event-stream');
    const got = events(res.text);
    expect(got.map((e) => e.event)).toEqual(['data', 'data', 'error']);
    expect(JSON.parse(got[2]!.data)).toEqual({ error: 'INTERNAL', detail: 'internal server error' });
  });

  test('a failure of the first read is an ordinary error status, before any stream', async () => {
    const res = await post({ page_size: 12, cursor: 'bad' }, 'text/event-stream');
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toMatchObject({ error: 'BAD_REQUEST' });
  });
});

describe('JSON', () => {
  test('one read of at most maxPerRead items, with next_cursor', async () => {
    const res = await post({ page_size: 12 }, 'application/json');
    expect(res.type).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toEqual({ items: [0, 1, 2, 3, 4].map((n) => ({ n })), next_cursor: '4' });
    expect(reads).toHaveLength(1);
  });

  // A tie (both named, same quality) goes to JSON, the default form.
  test.each([
    undefined,
    '',
    '*/*',
    'application/*',
    'text/event-stream;q=0.5, application/json',
    'text/html, application/json;q=0.1',
    'text/event-stream, application/json',
  ])('Accept %j gets JSON', async (accept) => {
    const res = await post({ page_size: 3 }, accept);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^application\/json/);
  });

  test.each([
    'text/event-stream',
    'text/*',
    'application/json;q=0.5, text/event-stream',
    'text/event-stream, */*',
    'TEXT/Event-Stream; charset=utf-8',
  ])('Accept %j gets the stream', async (accept) => {
    const res = await post({ page_size: 3 }, accept);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/event-stream/);
  });

  test.each(['text/html', 'application/xml, text/plain', 'application/json;q=0, text/event-stream;q=0', 'image/*'])(
    'Accept %j is a 406',
    async (accept) => {
      const res = await post({ page_size: 3 }, accept);
      expect(res.status).toBe(406);
      expect(JSON.parse(res.text)).toEqual({
        error: 'NOT_ACCEPTABLE',
        detail: `Accept "${accept}" admits none of the forms this route answers in: application/json, text/event-stream`,
      });
      expect(reads).toEqual([]);
    },
  );
});
