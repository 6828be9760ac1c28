// The JSON-RPC 2.0 envelope of the A2A endpoint: reading a request, and the answers, success or
// error. Every A2A failure is an A2aError with a standard JSON-RPC or A2A code and a message that
// says what was wrong; it goes back as `{"jsonrpc":"2.0","id":…,"error":{code,message}}` with
// HTTP 200, as A2A servers do.
import { errors } from '../../../platform/errors.ts';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../../../platform/json/jsonNesting.ts';

export type JsonRpcId = string | number | null;

/** The JSON-RPC codes, and the A2A ones (-32001…-32009) this server uses. */
export const JSON_RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  taskNotFound: -32001,
  unsupportedContent: -32005,
  versionNotSupported: -32009,
} as const;

export class A2aError extends Error {
  readonly code: number;
  readonly data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'A2aError';
    this.code = code;
    this.data = data;
  }
}

export const a2aErrors = {
  parseError: (cause: string) =>
    new A2aError(JSON_RPC_CODES.parseError, `Parse error: the request body is not valid JSON (${cause})`),
  invalidRequest: (why: string) => new A2aError(JSON_RPC_CODES.invalidRequest, `Invalid request: ${why}`),
  methodNotFound: (method: string) => new A2aError(JSON_RPC_CODES.methodNotFound, `Method not found: "${method}"`),
  methodNotSupported: (method: string) =>
    new A2aError(JSON_RPC_CODES.methodNotFound, `Method not found: "${method}" is not supported by this server`),
  invalidParams: (why: string) => new A2aError(JSON_RPC_CODES.invalidParams, `Invalid params: ${why}`),
  assistantNotFound: (id: string) =>
    new A2aError(JSON_RPC_CODES.invalidParams, `Invalid params: assistant "${id}" not found`),
  noMessagesKey: (name: string) =>
    new A2aError(
      JSON_RPC_CODES.invalidParams,
      `Invalid params: assistant "${name}" cannot take text messages over A2A: its state has no "messages" key`,
    ),
  invalidContextId: (value: string) =>
    new A2aError(
      JSON_RPC_CODES.invalidParams,
      `Failed to create run: Invalid thread ID: contextId must be a UUID (it is the thread id), got "${value}"`,
    ),
  runCreateFailed: (why: string) => new A2aError(JSON_RPC_CODES.invalidParams, `Failed to create run: ${why}`),
  taskNotFound: (id: string) => new A2aError(JSON_RPC_CODES.taskNotFound, `Task not found: "${id}"`),
  unsupportedPart: (kind: string) =>
    new A2aError(
      JSON_RPC_CODES.unsupportedContent,
      `Unsupported part: ${kind} parts are not supported; send text or data parts`,
    ),
  versionNotSupported: (version: string) =>
    new A2aError(
      JSON_RPC_CODES.versionNotSupported,
      `A2A version "${version}" is not supported; this server speaks 0.3 and 1.0`,
    ),
  internal: () => new A2aError(JSON_RPC_CODES.internalError, 'Internal error'),
};

export interface JsonRpcRequest {
  id: JsonRpcId;
  method: string;
  params: Record<string, unknown>;
  /** The envelope's own `metadata` (beside `params`), e.g. `{thread_id}` for tracing. */
  metadata: Record<string, unknown>;
}

export type ParsedRequest = { ok: true; request: JsonRpcRequest } | { ok: false; id: JsonRpcId; error: A2aError };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isId = (value: unknown): value is JsonRpcId =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || value === null;

/** Reads a JSON-RPC request from the raw body. A missing id is answered as null. */
export function parseJsonRpcRequest(body: string): ParsedRequest {
  if (jsonTooDeep(body))
    return {
      ok: false,
      id: null,
      error: a2aErrors.invalidRequest(errors.jsonTooDeep('the request', MAX_JSON_DEPTH).message),
    };
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (err) {
    return {
      ok: false,
      id: null,
      error: a2aErrors.parseError(body.trim() === '' ? 'the body is empty' : (err as Error).message),
    };
  }
  if (Array.isArray(raw))
    return {
      ok: false,
      id: null,
      error: a2aErrors.invalidRequest('batch requests are not supported; send one JSON-RPC object'),
    };
  if (!isRecord(raw))
    return { ok: false, id: null, error: a2aErrors.invalidRequest('the body must be a JSON-RPC 2.0 request object') };
  const id = raw.id === undefined ? null : raw.id;
  if (!isId(id))
    return { ok: false, id: null, error: a2aErrors.invalidRequest('"id" must be a string, a number or null') };
  const fail = (why: string): ParsedRequest => ({ ok: false, id, error: a2aErrors.invalidRequest(why) });
  if (raw.jsonrpc !== '2.0') return fail('"jsonrpc" must be "2.0"');
  if (typeof raw.method !== 'string' || raw.method === '') return fail('"method" is required and must be a string');
  if (raw.params !== undefined && !isRecord(raw.params)) return fail('"params" must be an object');
  if (raw.metadata !== undefined && raw.metadata !== null && !isRecord(raw.metadata))
    return fail('"metadata" must be an object');
  return {
    ok: true,
    request: {
      id,
      method: raw.method,
      params: (raw.params as Record<string, unknown> | undefined) ?? {},
      metadata: (raw.metadata as Record<string, unknown> | undefined) ?? {},
    },
  };
}

export function jsonRpcResult(id: JsonRpcId, result: unknown): { jsonrpc: '2.0'; id: JsonRpcId; result: unknown } {
  return { jsonrpc: '2.0', id, result };
}

export function jsonRpcError(
  id: JsonRpcId,
  error: A2aError,
): { jsonrpc: '2.0'; id: JsonRpcId; error: { code: number; message: string; data?: unknown } } {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
  };
}
