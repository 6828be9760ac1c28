// Every error the services answer with is defined here once, with a stable code and an
// HTTP status. Route code throws these; the HTTP layer turns them into
// `{ "error": <code>, "detail": <message> }` with the status.

export class AppError extends Error {
  readonly code: string;
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  constructor(code: string, statusCode: number, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.statusCode = statusCode;
    this.headers = headers;
  }
}

/** Keeps the error an AppError stands for, for the logs (never sent to the client). */
function withCause(appError: AppError, cause: unknown): AppError {
  if (cause !== undefined) Object.defineProperty(appError, 'cause', { value: cause, enumerable: false });
  return appError;
}

export const errors = {
  badRequest: (message: string) => new AppError('BAD_REQUEST', 400, message),
  invalidFilter: (message: string) => new AppError('INVALID_FILTER', 400, message),
  invalidJson: (where: string, cause: string) => new AppError('INVALID_JSON', 400, `${where} is not valid JSON: ${cause}`),
  invalidField: (message: string) => new AppError('INVALID_FIELD', 422, message),
  /** JSON nested deeper than MAX_JSON_DEPTH (platform/json/jsonNesting.ts), wherever it enters. */
  jsonTooDeep: (where: string, limit: number) =>
    new AppError('JSON_TOO_DEEP', 422, `${where} nests objects and arrays deeper than ${limit} levels, the limit for JSON sent to this service`),
  invalidMultipart: (message: string) => new AppError('INVALID_MULTIPART', 400, message),
  unsupportedEncoding: (encoding: string) =>
    new AppError('UNSUPPORTED_CONTENT_ENCODING', 415, `Content-Encoding "${encoding}" is not supported; use gzip or zstd`),
  undecodableBody: (encoding: string, cause: string) =>
    new AppError('UNDECODABLE_BODY', 400, `the body could not be decoded as ${encoding}: ${cause}`),
  unsupportedMediaType: (type: string, expected: string) =>
    new AppError('UNSUPPORTED_MEDIA_TYPE', 415, `Content-Type "${type}" is not accepted here; send ${expected}`),
  /** The Accept header admits none of the forms a route answers in. */
  notAcceptable: (accept: string, offered: readonly string[]) =>
    new AppError('NOT_ACCEPTABLE', 406, `Accept "${accept}" admits none of the forms this route answers in: ${offered.join(', ')}`),
  bodyTooLarge: (limit: number, setting = 'batch_ingest_config.size_limit_bytes') =>
    new AppError('BODY_TOO_LARGE', 413, `the request body exceeds the limit of ${limit} bytes (${setting})`),
  notFound: (what: string) => new AppError('NOT_FOUND', 404, `${what} not found`),
  conflict: (message: string) => new AppError('CONFLICT', 409, message),
  /** An agent-server run asked for a thread that is running one, with multitask_strategy "reject". */
  threadBusy: () =>
    new AppError('THREAD_BUSY', 422, 'Thread is already running a task. Wait for it to finish or choose a different multitask strategy.'),
  /** A bulk-export destination's test write failed; `message` says why (never with secrets). */
  destinationCheckFailed: (message: string) => new AppError('DESTINATION_CHECK_FAILED', 400, message),

  missingApiKey: () => new AppError('MISSING_API_KEY', 401, 'an API key is required in the X-Api-Key header'),
  unknownApiKey: () => new AppError('INVALID_API_KEY', 401, 'the API key is not valid'),
  tenantRequired: () =>
    new AppError(
      'TENANT_ID_REQUIRED',
      400,
      'this API key is linked to several workspaces: send the workspace id in the X-Tenant-Id header',
    ),
  invalidTenantId: (value: string) => new AppError('INVALID_TENANT_ID', 400, `X-Tenant-Id "${value}" is not a UUID`),
  workspaceForbidden: (workspaceId: string) =>
    new AppError('WORKSPACE_FORBIDDEN', 403, `this API key has no access to workspace ${workspaceId}`),
  /**
   * The agent server's custom auth module (langgraph.json `auth.path`) refused the request: its
   * `authenticate` or `auth.on(…)` handler threw an HTTPException (its status, message and headers)
   * or returned false (403).
   */
  refusedByAuthHandler: (status: number, message: string, headers: Record<string, string> = {}) =>
    new AppError(status === 401 ? 'UNAUTHORIZED' : status === 403 ? 'FORBIDDEN' : 'REFUSED_BY_AUTH_HANDLER', status, message, headers),

  validation: (message: string) => new AppError('VALIDATION_ERROR', 422, message),
  readModelUnavailable: () =>
    new AppError('READ_MODEL_UNAVAILABLE', 503, 'the read model (ClickHouse) is unavailable; retry shortly', { 'retry-after': '2' }),
  internal: () => new AppError('INTERNAL', 500, 'internal server error'),
  notConfigured: (message: string) => new AppError('NOT_CONFIGURED', 503, message),

  kafkaUnavailable: (cause: string, error?: unknown) =>
    withCause(new AppError('EVENT_LOG_UNAVAILABLE', 503, `the event log (Kafka) cannot take writes right now: ${cause}`, { 'retry-after': '2' }), error),
  /** Kafka could never take it (larger than its max.message.bytes): retrying cannot help, so not a 503. */
  eventTooLarge: (message: string) => new AppError('EVENT_TOO_LARGE', 413, message),
  storageUnavailable: (what: string, cause: string) =>
    new AppError('STORAGE_UNAVAILABLE', 503, `${what} is unavailable: ${cause}`, { 'retry-after': '2' }),
};
