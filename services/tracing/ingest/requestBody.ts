// Streams a request body through its Content-Encoding (gzip or zstd, whole body) and
// enforces the size limit on the decoded bytes, so a small compressed bomb is still a 413.
// Nothing is buffered here: callers consume chunks as they arrive.
import { createGunzip, createZstdDecompress, createInflate } from 'node:zlib';
import type { Readable, Transform } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import { AppError, errors } from '../../../platform/errors.ts';

function decoderFor(encoding: string): Transform | null {
  switch (encoding) {
    case '':
    case 'identity':
      return null;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'zstd':
      return createZstdDecompress();
    case 'deflate':
      return createInflate();
    default:
      throw errors.unsupportedEncoding(encoding);
  }
}

export async function* decodedBody(body: Readable, headers: IncomingHttpHeaders, limit: number): AsyncGenerator<Buffer> {
  const encoding = String(headers['content-encoding'] ?? '').trim().toLowerCase();
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    body.resume(); // drain so the connection can answer
    throw errors.bodyTooLarge(limit);
  }
  const decoder = decoderFor(encoding);
  // Not destroyed when reading stops early (over the limit): the server reads and discards the
  // rest after its answer, so that the client reads the answer (platform/http/server.ts).
  let source: AsyncIterable<Buffer> = body.iterator({ destroyOnReturn: false });
  if (decoder) {
    body.on('error', (err) => decoder.destroy(err));
    body.pipe(decoder);
    source = decoder;
  }
  let total = 0;
  try {
    for await (const chunk of source) {
      total += chunk.length;
      if (total > limit) throw errors.bodyTooLarge(limit);
      yield chunk;
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (decoder && (code.startsWith('Z_') || code.startsWith('ZSTD_') || code.startsWith('ERR_ZSTD') || code.startsWith('ERR_ZLIB')))
      throw errors.undecodableBody(encoding, (err as Error).message, err);
    if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || /aborted/i.test((err as Error).message))
      throw errors.badRequest('the request body ended early (connection closed before the body was complete)');
    throw err;
  } finally {
    if (decoder) decoder.destroy();
  }
}

export async function readDecodedBody(body: Readable, headers: IncomingHttpHeaders, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of decodedBody(body, headers, limit)) {
    chunks.push(chunk);
    total += chunk.length;
  }
  // One chunk (the common case for small JSON bodies) is used as it is, not copied.
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}
