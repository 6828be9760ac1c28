import type { Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import { errors } from '../../common/errors.ts';
import { readDecodedBody } from './requestBody.ts';

/** Reads a JSON request body (decompressed, size-limited) and parses it with a clear 400 on bad JSON. */
export async function readRequestJson(body: Readable, headers: IncomingHttpHeaders, limit: number): Promise<unknown> {
  const bytes = await readDecodedBody(body, headers, limit);
  if (bytes.length === 0) throw errors.invalidJson('the request body', 'it is empty');
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw errors.invalidJson('the request body', (err as Error).message);
  }
}
