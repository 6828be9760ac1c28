// Splits a whole multipart body (RFC 2046, RFC 7578) into its parts: each part's headers and
// the bytes of its body, a view into the request's buffer (nothing is copied). Hand-written, as
// the ingest path's hottest code: @mjackson/multipart-parser, used before, built a WHATWG Headers
// object and a Content-Disposition object per part, ~80 % of its cost at ~400 parts a request
// (about 7 of the API's ~60 µs CPU per run). The body is read whole first (its parts were kept
// until the end anyway: nothing is appended before the whole request is valid).
//
// Lenient where RFC 2046 says to be: a preamble before the first boundary and an epilogue after
// the closing one are ignored, as is whitespace after a boundary. Strict where a mistake could
// lose data: a body without its closing boundary is truncated, a part without its blank line
// after the headers is malformed.

import { errors } from '../errors.ts';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../json/jsonNesting.ts';

export class MultipartSyntaxError extends Error {}

export interface RawPart {
  /** Header names in lower case; a repeated header's values joined by ", ". */
  headers: Map<string, string>;
  /** The part's body: a view into the request body. */
  body: Buffer;
}

const CRLF = 0x0a0d; // "\r\n" read as a little-endian uint16
const DASH_DASH = 0x2d2d; // "--"
const MAX_HEADER_BYTES = 16 * 1024;

/** The boundary parameter of a multipart Content-Type, or null. */
export function multipartBoundary(contentType: string): string | null {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match ? (match[1] ?? match[2]!) : null;
}

/** Every part of `body`, in order; throws MultipartSyntaxError when the body is not well formed. */
export function splitMultipart(body: Buffer, boundary: string): RawPart[] {
  const delimiter = Buffer.from(`\r\n--${boundary}`, 'latin1');
  // The first boundary may open the body (no CRLF before it) or follow a preamble.
  let at = body.subarray(0, delimiter.length - 2).equals(delimiter.subarray(2))
    ? delimiter.length - 2
    : body.indexOf(delimiter);
  if (at < 0)
    throw new MultipartSyntaxError(
      body.length === 0
        ? 'the multipart body is empty: it has no parts'
        : `the multipart body has no boundary line (--${boundary}): it is truncated, or its Content-Type names another boundary`,
    );
  if (at !== delimiter.length - 2) at += delimiter.length;
  const parts: RawPart[] = [];
  for (;;) {
    // After a boundary: "--" closes the body; otherwise optional whitespace, then CRLF.
    if (at + 2 > body.length)
      throw new MultipartSyntaxError('the multipart body is truncated: it ends right after a boundary');
    if (body.readUInt16LE(at) === DASH_DASH) return parts;
    while (at < body.length && (body[at] === 0x20 || body[at] === 0x09)) at++;
    if (at + 2 > body.length)
      throw new MultipartSyntaxError('the multipart body is truncated: it ends right after a boundary');
    if (body.readUInt16LE(at) !== CRLF)
      throw new MultipartSyntaxError('the multipart body is malformed: a boundary line goes on after the boundary');
    at += 2;
    // Headers, up to a blank line (none at all: the blank line comes at once).
    let headerEnd: number;
    if (at + 2 <= body.length && body.readUInt16LE(at) === CRLF) headerEnd = at - 2;
    else {
      headerEnd = body.indexOf('\r\n\r\n', at, 'latin1');
      if (headerEnd < 0 || headerEnd - at > MAX_HEADER_BYTES) {
        if (headerEnd < 0 && body.length - at <= MAX_HEADER_BYTES)
          throw new MultipartSyntaxError('the multipart body is truncated: it ends in the headers of a part');
        throw new MultipartSyntaxError(
          `the multipart body is malformed: a part's headers are longer than ${MAX_HEADER_BYTES} bytes (or not ended by a blank line)`,
        );
      }
    }
    const headers = headerEnd < at ? new Map<string, string>() : parseHeaderLines(body.toString('utf8', at, headerEnd));
    const start = headerEnd + 4;
    const end = body.indexOf(delimiter, start);
    if (end < 0) throw new MultipartSyntaxError('the multipart body is truncated: it ends before the closing boundary');
    parts.push({ headers, body: body.subarray(start, end) });
    at = end + delimiter.length;
  }
}

function parseHeaderLines(text: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0)
      throw new MultipartSyntaxError(
        `the multipart body is malformed: a part's header line is not "name: value": "${line.slice(0, 100)}"`,
      );
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const earlier = headers.get(name);
    headers.set(name, earlier === undefined ? value : `${earlier}, ${value}`);
  }
  return headers;
}

// One parameter of a header value: `; key=token` or `; key="quoted \"string\""`.
const PARAM = /;\s*([^=;\s]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;

/** The parameter `key` (lower case; matched case-insensitively) of a header value such as `form-data; name="x"`, unquoted; null when absent. */
export function headerParam(value: string, key: string): string | null {
  // Nearly always `...; key="text"` or `...; key=token` as clients write it: found without the
  // regex, when nothing before it is quoted (it is then a parameter, not text inside another's quotes).
  const at = value.indexOf(`; ${key}=`);
  if (at > 0 && value.lastIndexOf('"', at) < 0) {
    const start = at + key.length + 3;
    if (value.charCodeAt(start) === 34) {
      const end = value.indexOf('"', start + 1);
      const escape = value.indexOf('\\', start + 1);
      if (end > 0 && (escape < 0 || escape > end)) return value.slice(start + 1, end);
    } else {
      const end = value.indexOf(';', start);
      const token = (end < 0 ? value.slice(start) : value.slice(start, end)).trim();
      if (!token.includes('"')) return token;
    }
  }
  PARAM.lastIndex = 0;
  for (let m = PARAM.exec(value); m !== null; m = PARAM.exec(value)) {
    if (m[1]!.toLowerCase() !== key) continue;
    if (m[3] !== undefined) return m[3].trim();
    return m[2]!.includes('\\') ? m[2]!.replace(/\\(.)/g, '$1') : m[2]!;
  }
  return null;
}

/** The part's name (Content-Disposition `name`); a 400 when it has none. */
export function partName(part: RawPart): string {
  const disposition = part.headers.get('content-disposition');
  const name = disposition === undefined ? null : headerParam(disposition, 'name');
  if (!name) throw errors.invalidMultipart('a part has no name in its Content-Disposition header');
  return name;
}

/** The length a part declares (Content-Length, or a `length` parameter of its Content-Type), or null. */
export function declaredLength(part: RawPart): number | null {
  const header = part.headers.get('content-length');
  if (header !== undefined) return Number(header);
  const param = headerParam(part.headers.get('content-type') ?? '', 'length');
  return param !== null && /^\d+$/.test(param) ? Number(param) : null;
}

/** A 400 when the part declares a length other than the bytes it carries. */
export function checkDeclaredLength(part: RawPart, name: string): void {
  const declared = declaredLength(part);
  if (declared !== null && (!Number.isInteger(declared) || declared !== part.body.length))
    throw errors.invalidMultipart(
      `part ${name} declares a length of ${declared} bytes but carries ${part.body.length}`,
    );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The part's text (decoded once) and its JSON value; JSON nested deeper than MAX_JSON_DEPTH is refused. */
export function parseJsonPart(part: RawPart, name: string): { text: string; value: unknown } {
  let text: string;
  let value: unknown;
  try {
    text = utf8.decode(part.body);
    value = JSON.parse(text);
  } catch (err) {
    throw errors.invalidJson(`part ${name}`, (err as Error).message, err);
  }
  // Checked after parsing (a stack overflow is not possible there) so that invalid JSON gets its own message.
  if (jsonTooDeep(text)) throw errors.jsonTooDeep(`part ${name}`, MAX_JSON_DEPTH);
  return { text, value };
}
