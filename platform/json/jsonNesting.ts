// The one nesting limit for JSON this product takes in, and the two tools around it: a scan
// that measures a JSON text's nesting without parsing it (so an ingest path can refuse a value
// before it is stored), and a parse for read paths that never fails on depth (so a value stored
// before the limit existed, or under a larger one, is shown cut short instead of taking a whole
// page of runs down with a stack overflow).
//
// Why 256: the Python client serialises with orjson, which refuses more than 254 levels, so no
// Python trace is ever refused; V8's JSON.stringify overflows its stack somewhere past a few
// thousand levels, depending on how deep the caller already is, so 256 keeps every read path,
// projector and exporter far from that edge.

/** The deepest nesting of objects and arrays accepted anywhere JSON enters the product. */
export const MAX_JSON_DEPTH = 256;

/** What a container nested deeper than the limit becomes on a read path. */
export const TRUNCATED_MARKER = `[truncated: nested deeper than ${MAX_JSON_DEPTH} levels]`;

const QUOTE = 34; // "
const BACKSLASH = 92; // \
const OPEN_BRACE = 123; // {
const OPEN_BRACKET = 91; // [
const CLOSE_BRACE = 125; // }
const CLOSE_BRACKET = 93; // ]

/** Index of the quote that ends the string whose opening quote is at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  let i = open;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i < 0) return -1;
    let backslashes = 0;
    for (let j = i - 1; text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return i;
  }
}

/**
 * The nesting depth of a JSON text (`1` for `{"a":1}`, `0` for a scalar), counting only brackets
 * outside strings. Stops early and returns `limit + 1` as soon as the text goes deeper than
 * `limit`. The text need not be valid JSON: the caller's parser judges that.
 */
export function jsonDepth(text: string, limit = Number.MAX_SAFE_INTEGER): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) break;
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return limit + 1;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return max;
}

/**
 * Whether the text holds more than `n` opening brackets, in strings or not (so at most that
 * depth when it does not): found by indexOf, native, a step per bracket, not per character.
 */
function bracketsMoreThan(text: string, n: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) if (++count > n) return true;
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1)) if (++count > n) return true;
  return false;
}

/**
 * True when the JSON text nests objects and arrays deeper than `limit` levels (a text of n
 * characters nests at most n/2, and at most as deep as it has opening brackets: most texts are
 * settled by those two counts, without the scan character by character).
 */
export const jsonTooDeep = (text: string, limit = MAX_JSON_DEPTH): boolean =>
  text.length > 2 * limit && bracketsMoreThan(text, limit) && jsonDepth(text, limit) > limit;

/** The nesting depth of a parsed value, without recursion; stops at `limit + 1`. */
export function valueDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    const depth = d + 1;
    if (depth > max) {
      max = depth;
      if (max > limit) return limit + 1;
    }
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (typeof child === 'object' && child !== null) stack.push([child, depth]);
  }
  return max;
}

/**
 * The JSON text with every container nested deeper than `limit` replaced by the string
 * TRUNCATED_MARKER, so it parses and re-serialises safely. Texts within the limit come back as
 * they are.
 */
export function truncateJsonDepth(text: string, limit = MAX_JSON_DEPTH): string {
  if (!jsonTooDeep(text, limit)) return text;
  const parts: string[] = [];
  let copiedTo = 0;
  let depth = 0;
  let cutStart = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) break;
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth === limit + 1) cutStart = i;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (depth-- === limit + 1) {
        parts.push(text.slice(copiedTo, cutStart), JSON.stringify(TRUNCATED_MARKER));
        copiedTo = i + 1;
        cutStart = -1;
      }
    }
  }
  // An unbalanced text (not valid JSON anyway) keeps its tail; the parser will refuse it.
  parts.push(cutStart >= 0 ? text.slice(copiedTo, cutStart) + JSON.stringify(TRUNCATED_MARKER) : text.slice(copiedTo));
  return parts.join('');
}

/** JSON.parse for stored values: containers nested deeper than the limit come back as TRUNCATED_MARKER. */
export function parseStoredJson(text: string, limit = MAX_JSON_DEPTH): unknown {
  return JSON.parse(truncateJsonDepth(text, limit));
}
