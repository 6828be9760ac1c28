// The control plane answers invalid input the way its reference (a FastAPI service) does, which
// the official clients read: 422 with `{detail: [{loc, msg, type, input?, ctx?}]}` (HTTPValidationError),
// `loc` starting with where the value was (path, query, body). Local to the deployments plugin:
// the rest of the platform keeps its `{error, detail}` shape.
import type { FastifyError, FastifyRequest, FastifySchemaValidationError } from 'fastify';

export interface ValidationDetail {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** A request refused for its input: a 422 with FastAPI's body. */
export class RequestValidationError extends Error {
  readonly statusCode = 422;
  readonly detail: ValidationDetail[];
  constructor(detail: ValidationDetail[]) {
    super(detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
    this.name = 'RequestValidationError';
    this.detail = detail;
  }
}

/** HTTPValidationError, for the route schemas (422). */
export const httpValidationErrorSchema = {
  type: 'object',
  description: 'A parameter or the body is invalid (FastAPI HTTPValidationError)',
  required: ['detail'],
  properties: {
    detail: {
      type: 'array',
      items: {
        type: 'object',
        required: ['loc', 'msg', 'type'],
        properties: {
          loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
          msg: { type: 'string' },
          type: { type: 'string' },
          input: {},
          ctx: { type: 'object', additionalProperties: true },
        },
      },
    },
  },
} as const;

const PART: Record<string, string> = { params: 'path', querystring: 'query', body: 'body', headers: 'header' };

const quoted = (values: unknown[]) => {
  const texts = values.filter((v) => v !== null).map((v) => `'${String(v)}'`);
  return texts.length <= 1 ? (texts[0] ?? '') : `${texts.slice(0, -1).join(', ')} or ${texts.at(-1)}`;
};

const TYPE_NAMES: Record<string, [string, string]> = {
  string: ['string_type', 'Input should be a valid string'],
  integer: ['int_type', 'Input should be a valid integer'],
  number: ['float_type', 'Input should be a valid number'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  object: ['dict_type', 'Input should be a valid dictionary or object'],
  array: ['list_type', 'Input should be a valid list'],
};

function valueAt(data: unknown, pointer: string): unknown {
  let value = data;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

/** One schema violation (as fastify reports it) in FastAPI's words. */
function detailOf(e: FastifySchemaValidationError, part: string, data: unknown): ValidationDetail {
  const path = e.instancePath
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replaceAll('~1', '/').replaceAll('~0', '~')));
  const loc: (string | number)[] = [PART[part] ?? part, ...path];
  const input = valueAt(data, e.instancePath);
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { loc: [...loc, String(p.missingProperty)], msg: 'Field required', type: 'missing', input };
    case 'additionalProperties':
      return {
        loc: [...loc, String(p.additionalProperty)],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
        input: (input as Record<string, unknown>)?.[String(p.additionalProperty)],
      };
    case 'format':
      if (p.format === 'uuid') return { loc, msg: 'Input should be a valid UUID', type: 'uuid_parsing', input };
      if (p.format === 'date-time')
        return { loc, msg: 'Input should be a valid datetime', type: 'datetime_parsing', input };
      break;
    case 'enum': {
      const expected = quoted(p.allowedValues as unknown[]);
      return { loc, msg: `Input should be ${expected}`, type: 'enum', input, ctx: { expected } };
    }
    case 'type': {
      // A query value that did not read as its type (platform/http/queryParameters.ts), in pydantic's words.
      if (part === 'querystring' && typeof input === 'string' && p.type === 'boolean')
        return { loc, msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing', input };
      if (part === 'querystring' && typeof input === 'string' && p.type === 'integer')
        return {
          loc,
          msg: 'Input should be a valid integer, unable to parse string as an integer',
          type: 'int_parsing',
          input,
        };
      const [type, msg] = TYPE_NAMES[String(p.type).split(',')[0]!] ?? [
        'type_error',
        `Input should be of type ${String(p.type)}`,
      ];
      return { loc, msg, type, input };
    }
    case 'minimum':
      return {
        loc,
        msg: `Input should be greater than or equal to ${String(p.limit)}`,
        type: 'greater_than_equal',
        input,
        ctx: { ge: p.limit },
      };
    case 'maximum':
      return {
        loc,
        msg: `Input should be less than or equal to ${String(p.limit)}`,
        type: 'less_than_equal',
        input,
        ctx: { le: p.limit },
      };
    case 'pattern':
      return {
        loc,
        msg: `String should match pattern '${String(p.pattern)}'`,
        type: 'string_pattern_mismatch',
        input,
        ctx: { pattern: p.pattern },
      };
    case 'minLength':
      return {
        loc,
        msg: `String should have at least ${String(p.limit)} characters`,
        type: 'string_too_short',
        input,
        ctx: { min_length: p.limit },
      };
    case 'maxLength':
      return {
        loc,
        msg: `String should have at most ${String(p.limit)} characters`,
        type: 'string_too_long',
        input,
        ctx: { max_length: p.limit },
      };
    case 'maxItems':
      return {
        loc,
        msg: `List should have at most ${String(p.limit)} items`,
        type: 'too_long',
        input,
        ctx: { max_length: p.limit },
      };
  }
  return { loc, msg: e.message ?? 'Input is invalid', type: 'value_error', input };
}

/**
 * The 422 for an error fastify raised before the handler ran: a schema violation of the path,
 * query or body, or a body that is not JSON; null for anything else (the caller passes it on).
 */
export function validationErrorOf(err: FastifyError, request: FastifyRequest): RequestValidationError | null {
  if (err instanceof RequestValidationError) return err;
  if (err.validation && err.validationContext) {
    const part = err.validationContext;
    const data =
      part === 'params'
        ? request.params
        : part === 'querystring'
          ? request.query
          : part === 'body'
            ? request.body
            : request.headers;
    return new RequestValidationError(err.validation.map((e) => detailOf(e, part, data)));
  }
  if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY')
    return new RequestValidationError([
      { loc: ['body'], msg: `JSON decode error: ${err.message}`, type: 'json_invalid' },
    ]);
  return null;
}

/** Query booleans as FastAPI reads them (true/false, 1/0, yes/no, on/off, t/f, y/n, any case), or as a typed query schema read them already. */
export function queryBool(query: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = query[name];
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string')
    throw new RequestValidationError([
      { loc: ['query', name], msg: 'Input should be a valid boolean', type: 'bool_type', input: value },
    ]);
  const v = value.toLowerCase();
  if (['true', '1', 'yes', 'on', 't', 'y'].includes(v)) return true;
  if (['false', '0', 'no', 'off', 'f', 'n'].includes(v)) return false;
  throw new RequestValidationError([
    {
      loc: ['query', name],
      msg: 'Input should be a valid boolean, unable to interpret input',
      type: 'bool_parsing',
      input: value,
    },
  ]);
}

/** A query integer within [min, max] (FastAPI's int_parsing, greater_than_equal, less_than_equal), from text or as a typed query schema read it already. */
export function queryInt(
  query: Record<string, unknown>,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const value = query[name];
  if (value === undefined) return fallback;
  const n =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && /^[+-]?\d+$/.test(value.trim())
        ? Number(value)
        : NaN;
  const loc = ['query', name];
  if (!Number.isSafeInteger(n))
    throw new RequestValidationError([
      {
        loc,
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
        input: value,
      },
    ]);
  if (n < min)
    throw new RequestValidationError([
      {
        loc,
        msg: `Input should be greater than or equal to ${min}`,
        type: 'greater_than_equal',
        input: value,
        ctx: { ge: min },
      },
    ]);
  if (n > max)
    throw new RequestValidationError([
      {
        loc,
        msg: `Input should be less than or equal to ${max}`,
        type: 'less_than_equal',
        input: value,
        ctx: { le: max },
      },
    ]);
  return n;
}
