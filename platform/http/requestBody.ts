// Streams a request body through its Content-Encoding (gzip, zstd or deflate, whole body) and
// enforces the size limit on the decoded bytes, so a small compressed bomb is still a 413.
// Nothing is buffered by decodedBody: callers consume chunks as they arrive. Every service's
// JSON bodies are read this way (server.ts), and the tracing API's multipart and OTLP bodies.
import { createGunzip, createZstdDecompress, createInflate } from 'node:zlib';
import type { Readable, Transform } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import { AppError, errors } from '../errors.ts';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../json/jsonNesting.ts';

/** The most decoded bytes a body may have, and the setting that sets it (named in the 413). */
export type BodyLimit = number | { bytes: number; setting: string };

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

export async function* decodedBody(
  body: Readable,
  headers: IncomingHttpHeaders,
  bodyLimit: BodyLimit,
): AsyncGenerator<Buffer> {
  const { bytes: limit, setting } =
    typeof bodyLimit === 'number' ? { bytes: bodyLimit, setting: undefined } : bodyLimit;
  const encoding = String(headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    body.resume(); // drain so the connection can answer
    throw errors.bodyTooLarge(limit, setting);
  }
  // Neither a length nor chunks: the request has no body (RFC 9112 §6.3), whatever it names.
  if (headers['transfer-encoding'] === undefined && !(declared > 0)) {
    body.resume();
    return;
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
      if (total > limit) throw errors.bodyTooLarge(limit, setting);
      yield chunk;
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (
      decoder &&
      (code.startsWith('Z_') || code.startsWith('ZSTD_') || code.startsWith('ERR_ZSTD') || code.startsWith('ERR_ZLIB'))
    )
      throw errors.undecodableBody(encoding, (err as Error).message, err);
    if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || /aborted/i.test((err as Error).message))
      throw errors.badRequest('the request body ended early (connection closed before the body was complete)');
    throw err;
  } finally {
    if (decoder) decoder.destroy();
  }
}

export async function readDecodedBody(body: Readable, headers: IncomingHttpHeaders, limit: BodyLimit): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of decodedBody(body, headers, limit)) {
    chunks.push(chunk);
    total += chunk.length;
  }
  // One chunk (the common case for small JSON bodies) is used as it is, not copied.
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
}

/**
 * Reads a JSON request body (decoded, size-limited) and parses it, with a clear 400 on bad JSON
 * and a 422 when it nests deeper than `maxDepth` (an envelope such as OTLP/JSON may allow more,
 * and then checks the values inside it against MAX_JSON_DEPTH itself). An empty body is no body:
 * undefined, as if no Content-Type had been sent (generic clients name one on every request).
 */
export async function readJsonBody(
  body: Readable,
  headers: IncomingHttpHeaders,
  limit: BodyLimit,
  maxDepth = MAX_JSON_DEPTH,
): Promise<unknown> {
  const bytes = await readDecodedBody(body, headers, limit);
  if (bytes.length === 0) return undefined;
  const text = bytes.toString('utf8');
  if (jsonTooDeep(text, maxDepth)) throw errors.jsonTooDeep('the request body', maxDepth);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw errors.invalidJson('the request body', (err as Error).message, err);
  }
}
