// Reads the spans out of an ExportTraceServiceRequest, decoded from protobuf (otlpProto.ts) or
// parsed from OTLP/JSON: both have the same shape, except that ids are bytes in one and hex
// strings in the other. A malformed request is a 400; a malformed span is rejected on its own
// (OTLP partial success) so the rest of the batch is still taken.
import { errors } from '../../../platform/errors.ts';
import { MAX_JSON_DEPTH } from '../../../platform/json/jsonNesting.ts';

export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };
export type Attributes = Record<string, AttributeValue>;

export interface OtelEvent {
  name: string;
  timeMicros: number;
  attributes: Attributes;
}

export interface OtelSpan {
  /** 32 lowercase hex digits. */
  traceId: string;
  /** 16 lowercase hex digits. */
  spanId: string;
  parentSpanId: string | null;
  name: string;
  /** SpanKind number: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startMicros: number;
  endMicros: number | null;
  attributes: Attributes;
  events: OtelEvent[];
  /** StatusCode number: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  resource: Attributes;
  scope: { name: string; version: string };
}

export interface SpanRejection {
  spanId: string;
  reason: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);

/** A field by its OTLP/JSON name (lowerCamelCase), or its proto name, which proto3 JSON parsers accept too. */
function field(obj: Json, camel: string): unknown {
  if (obj[camel] !== undefined) return obj[camel];
  return obj[camel.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())];
}

function list(obj: Json, camel: string, where: string): unknown[] {
  const v = field(obj, camel);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw errors.badRequest(`${where}.${camel} must be an array`);
  return v;
}

const HEX = /^[0-9a-f]*$/;

/** An id as lowercase hex: bytes from protobuf, a hex string from OTLP/JSON. Empty means absent. */
function idHex(value: unknown, bytes: number, what: string): string | null {
  let hex: string;
  if (value === undefined || value === null || value === '') return null;
  if (value instanceof Uint8Array) hex = Buffer.from(value).toString('hex');
  else if (typeof value === 'string') hex = value.toLowerCase();
  else throw new Error(`${what} must be ${bytes * 2} hex digits`);
  if (hex.length === 0) return null;
  if (hex.length !== bytes * 2 || !HEX.test(hex))
    throw new Error(
      `${what} must be ${bytes * 2} hex digits (OTLP/JSON encodes ids as hex), got "${hex.slice(0, 40)}"`,
    );
  if (/^0+$/.test(hex)) throw new Error(`${what} is all zeros, which OTLP defines as invalid`);
  return hex;
}

/** Unix nanoseconds (a decimal string or a number) to microseconds, keeping every microsecond digit. */
function nanosToMicros(value: unknown, what: string): number | null {
  if (value === undefined || value === null || value === '' || value === '0' || value === 0) return null;
  let nanos: bigint;
  try {
    nanos = typeof value === 'number' ? BigInt(Math.round(value)) : BigInt(String(value));
  } catch {
    throw new Error(`${what} must be unix nanoseconds, got ${JSON.stringify(value).slice(0, 40)}`);
  }
  if (nanos < 0n) throw new Error(`${what} must not be negative`);
  return Number(nanos / 1000n);
}

const STATUS_NAMES: Record<string, number> = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };
const KIND_NAMES: Record<string, number> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};

/** OTLP/JSON sends enums as numbers; their names are accepted too. */
function enumValue(value: unknown, names: Record<string, number>): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return names[value] ?? (Number.isInteger(Number(value)) ? Number(value) : 0);
  return 0;
}

/**
 * An AnyValue as a plain JSON value. int64 stays a string when it does not fit a double exactly.
 * Arrays and key-value lists nest at most MAX_JSON_DEPTH levels, the limit of all JSON taken in.
 */
export function anyValue(value: unknown, depth = 1): AttributeValue {
  if (!isObject(value)) return null;
  const s = field(value, 'stringValue');
  if (s !== undefined && s !== null) return String(s);
  const b = field(value, 'boolValue');
  if (b !== undefined && b !== null) return Boolean(b);
  const i = field(value, 'intValue');
  if (i !== undefined && i !== null) {
    const n = Number(i);
    return Number.isSafeInteger(n) ? n : String(i);
  }
  const d = field(value, 'doubleValue');
  if (d !== undefined && d !== null) return Number(d);
  const arr = field(value, 'arrayValue');
  const kv = field(value, 'kvlistValue');
  if ((isObject(arr) || isObject(kv)) && depth > MAX_JSON_DEPTH)
    throw errors.jsonTooDeep('an attribute value', MAX_JSON_DEPTH);
  if (isObject(arr)) return list(arr, 'values', 'arrayValue').map((v) => anyValue(v, depth + 1));
  if (isObject(kv)) return keyValues(list(kv, 'values', 'kvlistValue'), depth + 1);
  const bytes = field(value, 'bytesValue');
  if (bytes instanceof Uint8Array) return Buffer.from(bytes).toString('base64');
  if (typeof bytes === 'string') return bytes;
  return null;
}

function keyValues(items: unknown[], depth = 1): Attributes {
  const out: Attributes = {};
  for (const item of items) {
    if (!isObject(item) || typeof item.key !== 'string') continue;
    out[item.key] = anyValue(item.value, depth);
  }
  return out;
}

function readSpan(raw: unknown, resource: Attributes, scope: OtelSpan['scope']): OtelSpan {
  if (!isObject(raw)) throw new Error('a span must be an object');
  const traceId = idHex(field(raw, 'traceId'), 16, 'traceId');
  const spanId = idHex(field(raw, 'spanId'), 8, 'spanId');
  if (!traceId) throw new Error('traceId is missing');
  if (!spanId) throw new Error('spanId is missing');
  const startMicros = nanosToMicros(field(raw, 'startTimeUnixNano'), 'startTimeUnixNano');
  if (startMicros === null) throw new Error('startTimeUnixNano is missing');
  const endMicros = nanosToMicros(field(raw, 'endTimeUnixNano'), 'endTimeUnixNano');
  if (endMicros !== null && endMicros < startMicros) throw new Error('endTimeUnixNano is before startTimeUnixNano');
  const status = isObject(raw.status) ? raw.status : {};
  const name = field(raw, 'name');
  return {
    traceId,
    spanId,
    parentSpanId: idHex(field(raw, 'parentSpanId'), 8, 'parentSpanId'),
    name: typeof name === 'string' ? name : '',
    kind: enumValue(raw.kind, KIND_NAMES),
    startMicros,
    endMicros,
    attributes: keyValues(list(raw, 'attributes', 'span')),
    events: list(raw, 'events', 'span')
      .filter(isObject)
      .map((e) => ({
        name: typeof e.name === 'string' ? e.name : '',
        timeMicros: nanosToMicros(field(e, 'timeUnixNano'), 'event timeUnixNano') ?? startMicros,
        attributes: keyValues(list(e, 'attributes', 'event')),
      })),
    status: {
      code: enumValue(status.code, STATUS_NAMES),
      message: typeof status.message === 'string' ? status.message : '',
    },
    resource,
    scope,
  };
}

/** Every span of the request, with the resource and scope it was sent under; bad spans are listed apart. */
export function spansOfRequest(body: unknown): { spans: OtelSpan[]; rejected: SpanRejection[] } {
  if (!isObject(body))
    throw errors.badRequest('the body must be an OTLP ExportTraceServiceRequest (an object with resourceSpans)');
  const spans: OtelSpan[] = [];
  const rejected: SpanRejection[] = [];
  for (const rs of list(body, 'resourceSpans', 'request')) {
    if (!isObject(rs)) throw errors.badRequest('each resourceSpans entry must be an object');
    const res = field(rs, 'resource');
    const resource = isObject(res) ? keyValues(list(res, 'attributes', 'resource')) : {};
    for (const ss of list(rs, 'scopeSpans', 'resourceSpans')) {
      if (!isObject(ss)) throw errors.badRequest('each scopeSpans entry must be an object');
      const sc = isObject(ss.scope) ? ss.scope : {};
      const scope = {
        name: typeof sc.name === 'string' ? sc.name : '',
        version: typeof sc.version === 'string' ? sc.version : '',
      };
      for (const raw of list(ss, 'spans', 'scopeSpans')) {
        try {
          spans.push(readSpan(raw, resource, scope));
        } catch (err) {
          const id = isObject(raw) ? field(raw, 'spanId') : undefined;
          const spanId =
            id instanceof Uint8Array ? Buffer.from(id).toString('hex') : typeof id === 'string' ? id : '(no id)';
          rejected.push({ spanId, reason: (err as Error).message });
        }
      }
    }
  }
  return { spans, rejected };
}
