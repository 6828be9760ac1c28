// The multipart reader on its own: however the body is cut into chunks, the same batch comes out.
import { Readable } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { readMultipartBatch } from '../../../../services/tracing/ingest/multipartBatch.ts';
import { makeTrace, multipartBody, postParts } from '../../../support/runFactory.ts';

// Sent in chunks, as a client streaming its body does (a request naming neither a length nor
// chunks has no body: platform/http/requestBody.ts).
const read = (chunks: Buffer[], contentType: string) =>
  readMultipartBatch(
    Readable.from(chunks),
    { 'content-type': contentType, 'transfer-encoding': 'chunked' },
    1024 * 1024,
  );

describe('readMultipartBatch', () => {
  const trace = makeTrace(2);
  const { body, contentType } = multipartBody(postParts(trace));

  test('the closing CRLF in a chunk of its own (an epilogue) is ignored', async () => {
    const batch = await read([body.subarray(0, body.length - 2), body.subarray(body.length - 2)], contentType);
    expect(batch.runs.map((r) => r.id)).toEqual(trace.map((r) => r.id));
  });

  test('every split point gives the same runs', async () => {
    const expected = (await read([body], contentType)).runs;
    for (let cut = 1; cut < body.length; cut += 7) {
      const batch = await read([body.subarray(0, cut), body.subarray(cut)], contentType);
      expect(batch.runs).toEqual(expected);
    }
  });

  test('a body cut before its closing boundary is still rejected as truncated', async () => {
    await expect(read([body.subarray(0, body.length - 10)], contentType)).rejects.toThrow(/truncated/);
  });
});
