// Every error the services answer with is defined here once: a stable code, its HTTP status,
// and whether sending the same request again can succeed (`retryable`, which the retry policy
// in ./retry.ts obeys). Route code throws these; the HTTP layer turns them into
// `{ "error": <code>, "detail": <message> }` with the status. docs/errors.md explains every
// code and what to do about it; test/platform/errors.test.ts keeps the page and this file in step.

/**
 * The catalogue: each code's HTTP status ('varies': the thrower sets it, see the code's factory)
 * and whether retrying the same request can help.
 */
export const ERROR_CODES = {
  BAD_REQUEST: { status: 400, retryable: false },
  INVALID_FILTER: { status: 400, retryable: false },
  INVALID_JSON: { status: 400, retryable: false },
  INVALID_MULTIPART: { status: 400, retryable: false },
  UNDECODABLE_BODY: { status: 400, retryable: false },
  DESTINATION_CHECK_FAILED: { status: 400, retryable: false },
  TENANT_ID_REQUIRED: { status: 400, retryable: false },
  MISSING_API_KEY: { status: 401, retryable: false },
  INVALID_API_KEY: { status: 401, retryable: false },
  INVALID_TOKEN: { status: 401, retryable: false },
  TOKEN_EXPIRED: { status: 401, retryable: false },
  TOKEN_REVOKED: { status: 401, retryable: false },
  UNAUTHORIZED: { status: 401, retryable: false },
  WORKSPACE_FORBIDDEN: { status: 403, retryable: false },
  FORBIDDEN: { status: 403, retryable: false },
  REFUSED_BY_AUTH_HANDLER: { status: 'varies', retryable: false },
  NOT_FOUND: { status: 404, retryable: false },
  METHOD_NOT_ALLOWED: { status: 405, retryable: false },
  NOT_ACCEPTABLE: { status: 406, retryable: false },
  CONFLICT: { status: 409, retryable: false },
  BODY_TOO_LARGE: { status: 413, retryable: false },
  EVENT_TOO_LARGE: { status: 413, retryable: false },
  URI_TOO_LONG: { status: 414, retryable: false },
  UNSUPPORTED_CONTENT_ENCODING: { status: 415, retryable: false },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, retryable: false },
  INVALID_FIELD: { status: 422, retryable: false },
  INVALID_TENANT_ID: { status: 422, retryable: false },
  JSON_TOO_DEEP: { status: 422, retryable: false },
  VALIDATION_ERROR: { status: 422, retryable: false },
  THREAD_BUSY: { status: 422, retryable: true },
  RATE_LIMITED: { status: 429, retryable: true },
  INTERNAL: { status: 500, retryable: false },
  NOT_CONFIGURED: { status: 503, retryable: false },
  READ_MODEL_UNAVAILABLE: { status: 503, retryable: true },
  EVENT_LOG_UNAVAILABLE: { status: 503, retryable: true },
  STORAGE_UNAVAILABLE: { status: 503, retryable: true },
  DEPLOYMENT_UNAVAILABLE: { status: 503, retryable: true },
  CONTROL_PLANE_UNAVAILABLE: { status: 503, retryable: true },
  AUTH_UNAVAILABLE: { status: 503, retryable: true },
} as const satisfies Record<string, { status: number | 'varies'; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface AppErrorOptions {
  /** Required for a code whose status varies; ignored otherwise. */
  status?: number;
  headers?: Record<string, string>;
  /** The failure this error stands for: kept for the logs, never sent to the client. */
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  /** Whether sending the same request again can succeed. */
  readonly retryable: boolean;
  readonly headers: Record<string, string>;
  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    const entry = ERROR_CODES[code];
    this.name = 'AppError';
    this.code = code;
    this.statusCode = entry.status === 'varies' ? (options.status ?? 500) : entry.status;
    this.retryable = entry.retryable;
    this.headers = options.headers ?? {};
  }
}

const retryAfter = { 'retry-after': '2' };
/** Retry-After of storageNotReady. */
export const STORAGE_NOT_READY_RETRY_AFTER_S = 5;

export const errors = {
  badRequest: (message: string) => new AppError('BAD_REQUEST', message),
  invalidFilter: (message: string) => new AppError('INVALID_FILTER', message),
  invalidJson: (where: string, reason: string, cause?: unknown) =>
    new AppError('INVALID_JSON', `${where} is not valid JSON: ${reason}`, { cause }),
  invalidField: (message: string) => new AppError('INVALID_FIELD', message),
  /** JSON nested deeper than MAX_JSON_DEPTH (platform/json/jsonNesting.ts), wherever it enters. */
  jsonTooDeep: (where: string, limit: number) =>
    new AppError(
      'JSON_TOO_DEEP',
      `${where} nests objects and arrays deeper than ${limit} levels, the limit for JSON sent to this service`,
    ),
  invalidMultipart: (message: string) => new AppError('INVALID_MULTIPART', message),
  unsupportedEncoding: (encoding: string) =>
    new AppError(
      'UNSUPPORTED_CONTENT_ENCODING',
      `Content-Encoding "${encoding}" is not supported; use gzip, zstd or deflate (or none)`,
    ),
  undecodableBody: (encoding: string, reason: string, cause?: unknown) =>
    new AppError('UNDECODABLE_BODY', `the body could not be decoded as ${encoding}: ${reason}`, { cause }),
  unsupportedMediaType: (type: string, expected: string) =>
    new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type "${type}" is not accepted here; send ${expected}`),
  /** The Accept header admits none of the forms a route answers in. */
  notAcceptable: (accept: string, offered: readonly string[]) =>
    new AppError(
      'NOT_ACCEPTABLE',
      `Accept "${accept}" admits none of the forms this route answers in: ${offered.join(', ')}`,
    ),
  bodyTooLarge: (limit: number, setting = 'batch_ingest_config.size_limit_bytes') =>
    new AppError('BODY_TOO_LARGE', `the request body exceeds the limit of ${limit} bytes (${setting})`),
  /** A path parameter longer than the server reads. */
  uriTooLong: (message: string) => new AppError('URI_TOO_LONG', message),
  notFound: (what: string) => new AppError('NOT_FOUND', `${what} not found`),
  /** No route answers this method and path. */
  /** A route of an API we mirror that this server deliberately does not serve: 404, saying what is not supported. */
  notSupported: (what: string) => new AppError('NOT_FOUND', what),
  noRoute: (method: string, path: string) => new AppError('NOT_FOUND', `no route for ${method} ${path}`),
  /** The path is served, but not for this method: `allowed` are the methods it answers (the Allow header). */
  methodNotAllowed: (method: string, path: string, allowed: readonly string[]) =>
    new AppError('METHOD_NOT_ALLOWED', `${path} does not take ${method}; it answers ${allowed.join(', ')}`, {
      headers: { allow: allowed.join(', ') },
    }),
  conflict: (message: string) => new AppError('CONFLICT', message),
  /** An agent-server run asked for a thread that is running one, with multitask_strategy "reject". */
  threadBusy: () =>
    new AppError(
      'THREAD_BUSY',
      'Thread is already running a task. Wait for it to finish or choose a different multitask strategy.',
    ),
  /** A bulk-export destination's test write failed; `message` says why (never with secrets). */
  destinationCheckFailed: (message: string) => new AppError('DESTINATION_CHECK_FAILED', message),

  missingApiKey: () => new AppError('MISSING_API_KEY', 'an API key is required in the X-Api-Key header'),
  /** Where a bearer token is the alternative to an API key (the control plane, the tracing API). */
  missingCredentials: () =>
    new AppError(
      'MISSING_API_KEY',
      'credentials are required: an API key in the X-Api-Key header, or a token in the Authorization header (Bearer <token>)',
    ),
  unknownApiKey: () => new AppError('INVALID_API_KEY', 'the API key is not valid'),
  malformedToken: (reason: string) => new AppError('INVALID_TOKEN', `the bearer token is malformed: ${reason}`),
  badTokenSignature: () =>
    new AppError(
      'INVALID_TOKEN',
      "the bearer token's signature does not verify: it was altered, or issued by a server with another key; issue a new one",
    ),
  /** A token whose signature verifies, issued with an API key this server's tenancy fold does not hold. */
  unknownTokenKey: () =>
    new AppError('INVALID_TOKEN', 'the API key this bearer token was issued with is not known to this server'),
  tokenExpired: (expiredAt: Date) =>
    new AppError(
      'TOKEN_EXPIRED',
      `the bearer token expired at ${expiredAt.toISOString()}; issue a new one (npm run admin -- issue-token)`,
    ),
  /** The token's API key was unlinked from the token's workspace after the token was issued. */
  tokenRevoked: (workspaceId: string) =>
    new AppError(
      'TOKEN_REVOKED',
      `the API key this bearer token was issued with no longer has access to workspace ${workspaceId}`,
    ),
  tenantRequired: () =>
    new AppError(
      'TENANT_ID_REQUIRED',
      'this API key is linked to several workspaces: send the workspace id in the X-Tenant-Id header',
    ),
  invalidTenantId: (value: string) => new AppError('INVALID_TENANT_ID', `X-Tenant-Id "${value}" is not a UUID`),
  workspaceForbidden: (workspaceId: string) =>
    new AppError('WORKSPACE_FORBIDDEN', `this API key has no access to workspace ${workspaceId}`),
  /** A deployed agent server serves its deployment's workspace only (LANGSMITH_TENANT_ID). */
  deploymentWorkspaceForbidden: () =>
    new AppError(
      'WORKSPACE_FORBIDDEN',
      "this API key does not act in this deployment's workspace: use a key of the workspace that deployed it",
    ),
  tokenForOtherWorkspace: (tokenWorkspaceId: string, wanted: string) =>
    new AppError(
      'WORKSPACE_FORBIDDEN',
      `this bearer token acts in workspace ${tokenWorkspaceId} only, not in ${wanted} (X-Tenant-Id)`,
    ),
  /**
   * The agent server's custom auth module (langgraph.json `auth.path`) refused the request: its
   * `authenticate` or `auth.on(…)` handler threw an HTTPException (its status, message and headers)
   * or returned false (403).
   */
  refusedByAuthHandler: (status: number, message: string, headers: Record<string, string> = {}) =>
    new AppError(status === 401 ? 'UNAUTHORIZED' : status === 403 ? 'FORBIDDEN' : 'REFUSED_BY_AUTH_HANDLER', message, {
      status,
      headers,
    }),

  /** Over a rate limit; `limit` says which (its value, its settings, what it applies to), Retry-After when a request would be taken again. */
  rateLimited: (limit: string, retryAfterSeconds: number) =>
    new AppError('RATE_LIMITED', `${limit}; retry after ${retryAfterSeconds} s`, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    }),
  validation: (message: string) => new AppError('VALIDATION_ERROR', message),
  readModelUnavailable: (cause?: unknown) =>
    new AppError('READ_MODEL_UNAVAILABLE', 'the read model (ClickHouse) is unavailable; retry shortly', {
      headers: retryAfter,
      cause,
    }),
  internal: (cause?: unknown) => new AppError('INTERNAL', 'internal server error', { cause }),
  notConfigured: (message: string) => new AppError('NOT_CONFIGURED', message),

  kafkaUnavailable: (reason: string, cause?: unknown) =>
    new AppError('EVENT_LOG_UNAVAILABLE', `the event log (Kafka) cannot take writes right now: ${reason}`, {
      headers: retryAfter,
      cause,
    }),
  /** Kafka could never take it (larger than its max.message.bytes): retrying cannot help, so not a 503. */
  eventTooLarge: (message: string, cause?: unknown) => new AppError('EVENT_TOO_LARGE', message, { cause }),
  /** A deployment's URL when no agent server of it can answer (none deployed yet, or down). */
  deploymentUnavailable: (deploymentId: string, reason: string, cause?: unknown) =>
    new AppError('DEPLOYMENT_UNAVAILABLE', `deployment ${deploymentId} cannot serve requests: ${reason}`, {
      headers: retryAfter,
      cause,
    }),
  /** The explorer page's deployments, forwarded by the tracing API, when the control plane does not answer. */
  controlPlaneUnavailable: (url: string, reason: string, cause?: unknown) =>
    new AppError(
      'CONTROL_PLANE_UNAVAILABLE',
      `the control plane is not running at ${url} (${reason}): \`npm start\` starts it with the tracing API, or run \`node services/processes/controlPlaneMain.ts\`; CONTROL_PLANE_PUBLIC_URL or CONTROL_PLANE_PORT says where it is`,
      { headers: retryAfter, cause },
    ),
  /** A deployed agent server could not have a caller's key verified by the platform (LANGSMITH_AUTH_ENDPOINT). */
  authUnavailable: (url: string, reason: string, cause?: unknown) =>
    new AppError(
      'AUTH_UNAVAILABLE',
      `the platform that verifies API keys did not answer at ${url} (${reason}); retry shortly`,
      { headers: retryAfter, cause },
    ),
  storageUnavailable: (what: string, reason: string, cause?: unknown) =>
    new AppError('STORAGE_UNAVAILABLE', `${what} is unavailable: ${reason}`, { headers: retryAfter, cause }),
  /**
   * Object storage has not answered since this process started (a first `npm start` serves tracing while it
   * builds the local MinIO): `needs` names what waits for it. A longer Retry-After: it takes minutes, not seconds.
   */
  storageNotReady: (needs: string, endpoint: string, reason: string, cause?: unknown) =>
    new AppError(
      'STORAGE_UNAVAILABLE',
      `${needs} needs object storage (S3 at ${endpoint}), which has not answered yet (${reason}); it is served as soon as ` +
        'the store answers (on a first `npm start` the local MinIO is still being built: its progress is printed there). ' +
        `Retry after ${STORAGE_NOT_READY_RETRY_AFTER_S} s`,
      { headers: { 'retry-after': String(STORAGE_NOT_READY_RETRY_AFTER_S) }, cause },
    ),
};
