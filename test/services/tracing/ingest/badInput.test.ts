// Every bad input gets a clear 4xx and leaves nothing behind: this file runs its own stack
// (own topics) and checks that the topics' end offsets did not move.
import { gzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { startTracingStack, topicEndOffsets, type TracingStack } from '../../../support/tracingStack.ts';
import { makeTrace, multipartBody, postParts, type Part, type TestRun } from '../../../support/runFactory.ts';
import { formatDottedTimestamp } from '../../../../platform/time.ts';

const LIMIT = 256 * 1024;
let stack: TracingStack;
let offsets: ReturnType<typeof topicEndOffsets>;

beforeAll(async () => {
  stack = await startTracingStack('badinput', { INGEST_SIZE_LIMIT_BYTES: String(LIMIT) });
  offsets = topicEndOffsets(stack);
});
afterAll(async () => {
  await offsets?.close();
  await stack?.stop();
});

const endOffsets = () => offsets.snapshot();

interface Call {
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
}

async function send(call: Call): Promise<{ status: number; body: any }> {
  const res = await request(stack.url + (call.path ?? '/runs/multipart'), {
    method: (call.method ?? 'POST') as 'POST',
    // Header names are case-insensitive: the call's own X-API-KEY replaces the default key.
    headers: {
      ...(Object.keys(call.headers ?? {}).some((h) => h.toLowerCase() === 'x-api-key')
        ? {}
        : { 'x-api-key': stack.apiKey }),
      ...call.headers,
    },
    body: call.body,
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}

/** Sends the call, expects the status and a message matching `detail`, and that nothing was appended. */
async function rejects(call: Call, status: number, detail: RegExp) {
  const before = await endOffsets();
  const res = await send(call);
  expect(res.status).toBe(status);
  expect(res.body.detail).toMatch(detail);
  expect(typeof res.body.error).toBe('string');
  expect(await endOffsets()).toBe(before);
}

const json = (body: unknown, path = '/runs', method = 'POST'): Call => ({
  path,
  method,
  headers: { 'content-type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const multipart = (parts: Part[], extra: Record<string, string> = {}): Call => {
  const { body, contentType } = multipartBody(parts);
  return { headers: { 'content-type': contentType, ...extra }, body };
};

describe('bad input: JSON routes', () => {
  test('malformed JSON', () => rejects(json('{"id": '), 400, /not valid JSON/));
  // no bytes is no body (whatever Content-Type is named), and a run is required
  test('empty body', () => rejects(json(''), 422, /run must be a JSON object/));
  test('missing name', () => rejects(json({ id: uuidv7(), run_type: 'chain' }), 422, /name is required/));
  test('invalid run_type', () =>
    rejects(json({ id: uuidv7(), name: 'x', run_type: 'banana' }), 422, /run_type.*tool, chain, llm/));
  test('bad UUID', () =>
    rejects(json({ id: 'not-a-uuid', name: 'x', run_type: 'chain' }), 422, /id is not a valid UUID/));
  test('bad parent UUID', () =>
    rejects(
      json({ id: uuidv7(), name: 'x', run_type: 'chain', parent_run_id: 42 }),
      422,
      /parent_run_id must be a UUID/,
    ));
  test('invalid timestamp', () =>
    rejects(
      json({ id: uuidv7(), name: 'x', run_type: 'chain', start_time: 'tuesday' }),
      422,
      /start_time is not an ISO 8601/,
    ));
  test('inputs that are not an object', () =>
    rejects(
      json({ id: uuidv7(), name: 'x', run_type: 'chain', inputs: [1, 2] }),
      422,
      /inputs of run .* must be an object/,
    ));
  test('unknown session_id', () =>
    rejects(
      json({ id: uuidv7(), name: 'x', run_type: 'chain', session_id: uuidv7() }),
      404,
      /project \(session_id\) .* not found/,
    ));
  test('unknown parent on POST /runs', () =>
    rejects(
      json({ id: uuidv7(), name: 'x', run_type: 'chain', parent_run_id: uuidv7() }),
      404,
      /parent run .* not found/,
    ));
  test('patch of an unknown run without trace_id', () =>
    rejects(json({ outputs: {} }, `/runs/${uuidv7()}`, 'PATCH'), 404, /run .* not found/));
  test('patch whose body id differs from the path', () =>
    rejects(json({ id: uuidv7() }, `/runs/${uuidv7()}`, 'PATCH'), 422, /differs/));
  test('wrong content type', () =>
    rejects({ path: '/runs', headers: { 'content-type': 'text/csv' }, body: 'a,b' }, 415, /not accepted here/));
});

describe('bad input: batch consistency', () => {
  const batch = (post: unknown[]) => json({ post }, '/runs/batch');
  test('missing dotted_order', () => {
    const [root] = makeTrace(0);
    return rejects(batch([{ ...root, dotted_order: undefined }]), 422, /trace_id and dotted_order are required/);
  });
  test('a root whose trace_id is not its own id', () => {
    const [root] = makeTrace(0);
    return rejects(batch([{ ...root, trace_id: uuidv7() }]), 422, /starts with run/);
  });
  test("a dotted_order that does not end with the run's own segment", () => {
    const [root, child] = makeTrace(1);
    return rejects(batch([root, { ...child, dotted_order: root!.dotted_order }]), 422, /own segment|no parent/);
  });
  test("a child whose dotted_order does not extend its parent's", () => {
    const [root, child] = makeTrace(1);
    const [otherRoot] = makeTrace(0);
    const wrong = `${root!.dotted_order.slice(0, 22)}${root!.id}X.${child!.dotted_order.split('.')[1]}`;
    return rejects(batch([root, otherRoot, { ...child, dotted_order: wrong }]), 422, /segment|extend/);
  });
  test('one bad run rejects the whole batch', () => {
    const trace = makeTrace(3);
    return rejects(batch([...trace, { ...trace[1], id: uuidv7(), name: undefined }]), 422, /name is required/);
  });
});

describe('bad input: a child against its parent stored by an earlier request (was a 202: the child stored under another root)', () => {
  const batch = (post: unknown[]) => json({ post }, '/runs/batch');
  const taken = async (call: Call) => expect((await send(call)).status).toBe(202);
  const notExtending =
    /dotted_order of run .* does not extend the dotted_order of its parent .*, which an earlier request stored as "\d{8}T/;
  /** The child with another root in front: its trace_id and dotted_order agree with each other, not with its parent's. */
  const underAnotherRoot = (child: TestRun): TestRun => {
    const [otherRoot] = makeTrace(0);
    return { ...child, trace_id: otherRoot!.id, dotted_order: `${otherRoot!.dotted_order}.${child.dotted_order}` };
  };

  test('parent through /runs/batch, child through a later /runs/batch; the right child is then taken', async () => {
    const [root, child] = makeTrace(1);
    await taken(batch([root]));
    await rejects(batch([underAnotherRoot(child!)]), 422, notExtending);
    await taken(batch([child]));
  });
  test('parent through /runs/multipart, grandchild through a later multipart naming its parent with another start time', async () => {
    const [root, child] = makeTrace(1);
    await taken(multipart(postParts([root!, child!])));
    const id = uuidv7();
    const [rootSegment, childSegment] = child!.dotted_order.split('.');
    const moved = `${rootSegment}.${formatDottedTimestamp(Date.now() * 1000 + 5)}${child!.id}.${childSegment!.slice(0, 22)}${id}`;
    const grandchild = { ...child!, id, parent_run_id: child!.id, dotted_order: moved };
    await rejects(multipart(postParts([grandchild])), 422, notExtending);
  });
  test('parent through POST /runs (in the lineage index), child through /runs/batch, and its patch through PATCH /runs/{id}', async () => {
    const [root, child] = makeTrace(1);
    await taken(json(root));
    await rejects(batch([underAnotherRoot(child!)]), 422, notExtending);
    const { id, trace_id, dotted_order } = underAnotherRoot(child!);
    await rejects(
      json({ trace_id, dotted_order, parent_run_id: root!.id, outputs: {} }, `/runs/${id}`, 'PATCH'),
      422,
      notExtending,
    );
  });
  test('a parent this process has not seen is not looked up: the child is taken as sent, and its parent after it', async () => {
    const [root, child] = makeTrace(1);
    await taken(batch([child]));
    await taken(batch([root]));
  });
});

describe('bad input: multipart', () => {
  test('truncated body', () => {
    const { body, contentType } = multipartBody(postParts(makeTrace(2)));
    return rejects(
      { headers: { 'content-type': contentType }, body: body.subarray(0, body.length - 30) },
      400,
      /truncated/,
    );
  });
  test('a part whose declared length is wrong', () => {
    const parts = postParts(makeTrace(1));
    parts[0]!.length = 3;
    return rejects(multipart(parts), 400, /declares a length of 3/);
  });
  test('a part whose Content-Length header is wrong', () => {
    const parts = postParts(makeTrace(1)).map((p) => ({ ...p, length: 'header' as const }));
    const { body, contentType } = multipartBody(parts);
    const tampered = Buffer.from(
      body.toString('latin1').replace(/Content-Length: (\d+)/, (_, n) => `Content-Length: ${Number(n) + 1}`),
      'latin1',
    );
    return rejects({ headers: { 'content-type': contentType }, body: tampered }, 400, /declares a length/);
  });
  test('invalid JSON in a part (the valid parts are not appended either)', () => {
    const parts = postParts(makeTrace(2));
    parts.push({ name: `post.${uuidv7()}`, body: '{"name": ' });
    return rejects(multipart(parts), 400, /part post\..* is not valid JSON/);
  });
  test('unknown part name', () =>
    rejects(
      multipart([...postParts(makeTrace(0)), { name: 'bogus.part', body: '{}' }]),
      400,
      /unknown part name "bogus.part"/,
    ));
  test('a field part without its run part', () =>
    rejects(multipart([{ name: `post.${uuidv7()}.inputs`, body: '{}' }]), 400, /without a post\..* part/));
  test('missing boundary', () =>
    rejects({ headers: { 'content-type': 'multipart/form-data' }, body: 'x' }, 415, /boundary/));
  test('undecodable compression', () => {
    const { body, contentType } = multipartBody(postParts(makeTrace(1)));
    return rejects(
      { headers: { 'content-type': contentType, 'content-encoding': 'zstd' }, body },
      400,
      /could not be decoded as zstd/,
    );
  });
  test('unsupported compression', () => {
    const { body, contentType } = multipartBody(postParts(makeTrace(1)));
    return rejects(
      { headers: { 'content-type': contentType, 'content-encoding': 'br' }, body },
      415,
      /"br" is not supported/,
    );
  });
});

/** JSON nesting objects `depth` levels deep: {"a":{"a":…{"a":1}…}}. */
const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('bad input: JSON nested deeper than the limit (422 naming it, wherever it enters)', () => {
  const tooDeep = /nests objects and arrays deeper than 256 levels/;
  const run = (inputs: string) => {
    const [root] = makeTrace(0);
    return `{"id":"${root!.id}","trace_id":"${root!.trace_id}","dotted_order":"${root!.dotted_order}","name":"deep","run_type":"chain","inputs":${inputs}}`;
  };
  test('inline in POST /runs', () => rejects(json(run(nested(5000))), 422, tooDeep));
  test('inline in /runs/batch', () => rejects(json(`{"post":[${run(nested(5000))}]}`, '/runs/batch'), 422, tooDeep));
  test('inline in POST /sessions (extra)', () =>
    rejects(json(`{"name":"deep-${uuidv7()}","extra":${nested(5000)}}`, '/sessions'), 422, tooDeep));
  test('in a multipart field part (post.<id>.inputs), with the valid runs of the request not appended either', () => {
    const [root] = makeTrace(0);
    const { inputs: _inputs, ...rest } = root!;
    return rejects(
      multipart([
        ...postParts(makeTrace(2)),
        { name: `post.${root!.id}`, body: JSON.stringify(rest) },
        { name: `post.${root!.id}.inputs`, body: nested(5000) },
      ]),
      422,
      /part post\..*\.inputs nests.*deeper than 256 levels/,
    );
  });
  test('just over the limit is refused; at the limit is taken', async () => {
    await rejects(json(run(nested(256))), 422, tooDeep); // the run object itself is one level more
    const ok = await send(json(run(nested(255))));
    expect(ok.status).toBe(202);
  });
});

describe('bad input: times the storage cannot hold (422 naming the field and the range, never clamped)', () => {
  const range = /outside the times runs can be stored with: from 1970-01-01T00:00:00Z up to 2100-01-01T00:00:00Z/;
  const at = (start_time: unknown) => json({ id: uuidv7(), name: 'x', run_type: 'chain', start_time });
  test('year 9999', () => rejects(at('9999-12-31T23:59:59Z'), 422, /start_time is "9999-12-31T23:59:59Z", outside/));
  test('year 0001 (was read back as 1901)', () => rejects(at('0001-01-01T00:00:00Z'), 422, range));
  test('before 1970', () => rejects(at('1969-12-31T23:59:59Z'), 422, range));
  test('epoch milliseconds far in the future', () => rejects(at(1e15), 422, range));
  test('a day that does not exist', () => rejects(at('2024-02-30T00:00:00Z'), 422, /not a valid date/));
  test('end_time in year 9999', () =>
    rejects(
      json({ id: uuidv7(), name: 'x', run_type: 'chain', end_time: '9999-12-31T23:59:59Z' }),
      422,
      /end_time is .*outside/,
    ));
  test('a dotted_order starting in year 2299 (batch)', () => {
    const id = uuidv7();
    const dotted_order = `22990101T000000000000Z${id}`;
    return rejects(
      json(
        {
          post: [{ id, trace_id: id, dotted_order, name: 'x', run_type: 'chain', start_time: '2024-01-01T00:00:00Z' }],
        },
        '/runs/batch',
      ),
      422,
      /dotted_order of run .*segment 1.*outside/,
    );
  });
  test('the last storable microsecond is taken', async () => {
    const ok = await send(at('2099-12-31T23:59:59.999999Z'));
    expect(ok.status).toBe(202);
  });
});

describe('bad input: /runs/multipart without a multipart body (was a 500)', () => {
  test('no body and no Content-Type', () => rejects({ headers: {} }, 422, /has no body.*multipart\/form-data/));
  test('a JSON body', () =>
    rejects(
      { headers: { 'content-type': 'application/json' }, body: '{}' },
      415,
      /application\/json.*multipart\/form-data/,
    ));
  test('an empty multipart body', () =>
    rejects({ headers: { 'content-type': 'multipart/form-data; boundary=xyz' }, body: '' }, 400, /truncated|no parts/));
});

describe('bad input: size limit (413)', () => {
  const big = () => postParts([{ ...makeTrace(0)[0]!, inputs: { blob: 'x'.repeat(LIMIT) } }]);
  test('declared by Content-Length', () => rejects(multipart(big()), 413, /exceeds the limit of 262144 bytes/));
  test('chunked, with no Content-Length', () => {
    const { body, contentType } = multipartBody(big());
    return rejects(
      { headers: { 'content-type': contentType }, body: Readable.from([body.subarray(0, 1000), body.subarray(1000)]) },
      413,
      /exceeds the limit/,
    );
  });
  test('small when compressed, over the limit once decoded', () => {
    const { body, contentType } = multipartBody(big());
    return rejects(
      { headers: { 'content-type': contentType, 'content-encoding': 'gzip' }, body: gzipSync(body) },
      413,
      /exceeds the limit/,
    );
  });
});

describe('bad input: auth', () => {
  const call = (headers: Record<string, string>) => ({
    ...json({ id: uuidv7(), name: 'x', run_type: 'chain' }),
    headers: { 'content-type': 'application/json', ...headers },
  });
  test('missing key', async () => {
    const res = await request(stack.url + '/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(await res.body.text()).detail).toMatch(/X-Api-Key/);
  });
  test('unknown key', () => rejects(call({ 'x-api-key': 'lsk_unknown_key_000000000000000' }), 401, /not valid/));
  test('a key linked to several workspaces needs X-Tenant-Id; a foreign workspace is 403', async () => {
    const { createTenancyForStack } = await import('../../../support/tenancyForStack.ts');
    const { key, workspaceIds, close } = await createTenancyForStack(stack, 2);
    try {
      await rejects(call({ 'x-api-key': key }), 400, /several workspaces.*X-Tenant-Id/);
      await rejects(call({ 'x-api-key': key, 'x-tenant-id': uuidv7() }), 403, /no access to workspace/);
      await rejects(call({ 'X-API-KEY': key, 'X-Tenant-Id': 'nope' }), 422, /not a UUID/);
      const ok = await send(call({ 'X-API-KEY': key, 'X-TENANT-ID': workspaceIds[1]! }));
      expect(ok.status).toBe(202);
    } finally {
      await close();
    }
  });
});
