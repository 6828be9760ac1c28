import type { Readable } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import { errors } from '../../../platform/errors.ts';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../../../platform/json/jsonNesting.ts';
import { readDecodedBody } from './requestBody.ts';

/**
 * Reads a JSON request body (decompressed, size-limited) and parses it with a clear 400 on bad
 * JSON and a 422 when it nests deeper than `maxDepth` (an envelope such as OTLP/JSON may allow
 * more, and then checks the values inside it against MAX_JSON_DEPTH itself).
 */
export async function readRequestJson(body: Readable, headers: IncomingHttpHeaders, limit: number, maxDepth = MAX_JSON_DEPTH): Promise<unknown> {
  const bytes = await readDecodedBody(body, headers, limit);
  if (bytes.length === 0) throw errors.invalidJson('the request body', 'it is empty');
  const text = bytes.toString('utf8');
  if (jsonTooDeep(text, maxDepth)) throw errors.jsonTooDeep('the request body', maxDepth);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw errors.invalidJson('the request body', (err as Error).message, err);
  }
}
