// What the OpenAPI documents of every service share, so that a generated client or a fuzzer
// knows the whole contract: the error body, the statuses a route answers besides its own (added
// to each route as it is registered, by what the route takes and the scope it is in), UUIDs,
// optional bodies, and the security requirement (with X-Tenant-Id) of authenticated scopes.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';

/** `{ error, detail }`: every 4xx and 5xx of every service (platform/errors.ts). */
export const errorBody = {
  type: 'object',
  required: ['error', 'detail'],
  properties: {
    error: { type: 'string', description: 'stable error code, e.g. INVALID_FIELD (platform/errors.ts)' },
    detail: { type: 'string', description: 'what is wrong and what to do about it' },
  },
} as const;

const REASONS: Record<number, string> = {
  400: "The request cannot be read (the JSON of the body, say) or is refused for what it asks, not for a field's form",
  401: 'No credentials, or ones that are not valid: an unknown API key; a token malformed, altered, expired or revoked',
  403: 'The API key has no access to the workspace named by X-Tenant-Id',
  404: "Not found (or not in the caller's workspace)",
  406: 'The Accept header admits no form this route answers in',
  409: 'Conflicts with the current state',
  413: 'Too large (the detail names the limit and the setting)',
  414: 'A path parameter is longer than the server takes (the detail names it)',
  415: 'The Content-Type or Content-Encoding is not one this route takes',
  422: 'A field is invalid: missing, of the wrong type or format (a UUID, say), or out of range (the message names it)',
  429: "Over the workspace's rate limit (the detail names it and its settings); retry after Retry-After seconds",
  503: 'A store the request needs (Kafka, ClickHouse, object storage) is unavailable; retry after Retry-After seconds',
};

/** Response entries `{ [status]: { description, ...errorBody } }` for these statuses. */
export function errorResponses(...statuses: number[]): Record<number, object> {
  return Object.fromEntries(statuses.map((s) => [s, { description: REASONS[s] ?? 'Error', ...errorBody }]));
}

/** A UUID, hyphenated or as 32 hex digits (the clients send both); `format: uuid` in the document. */
export const UUID_PATTERN =
  /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$/;
export const uuidSchema = { type: 'string', format: 'uuid' } as const;

/**
 * A query parameter holding a JSON object (`?metadata={"k":"v"}`): it starts with `{` after JSON's
 * own whitespace (a regex's \s also takes \f and \v, which JSON does not, so a fuzzer drew text the
 * schema allowed and the parse refused).
 */
export const jsonObjectQuerySchema = (description: string) =>
  ({ type: 'string', contentMediaType: 'application/json', pattern: '^[ \\t\\n\\r]*\\{', description }) as const;

/**
 * A time as the services take it: ISO 8601 (documented as `date-time`; naive times are read as
 * UTC) or, in JSON, epoch milliseconds. `stored`: a time a run, feedback or project keeps, 1970 up
 * to 2100 (platform/time.ts STORABLE_TIME_RANGE); `query`: a bound of a query, years 1700 to 2199.
 * `text`: a query parameter, ISO 8601 only.
 */
export function timeSchema(
  range: 'stored' | 'query',
  description: string,
  { nullable = true, text = false } = {},
): object {
  const [years, min, max] =
    range === 'stored'
      ? ['19[7-9]\\d|20\\d\\d', 0, Date.UTC(2100, 0, 1) - 1]
      : ['1[7-9]\\d\\d|2[01]\\d\\d', Date.UTC(1700, 0, 1), Date.UTC(2200, 0, 1) - 1];
  const types = [...(text ? ['string'] : ['string', 'number']), ...(nullable ? ['null'] : [])];
  return {
    type: types.length === 1 ? types[0] : types,
    format: 'date-time',
    pattern: `^(?:${years})-`,
    ...(text ? {} : { minimum: min, maximum: max }),
    description: `${description}: ISO 8601 (a time without an offset is UTC)${text ? '' : ' or epoch milliseconds'}, ${range === 'stored' ? '1970 up to 2100' : 'years 1700 to 2199'}`,
  };
}

/**
 * One server-sent event, as an OpenAPI 3.0/3.1 document describes a `text/event-stream` answer:
 * its schema is each event's (`event`, `data`, `id`, `retry`), not the stream's text.
 */
export const serverSentEvent = {
  type: 'object',
  required: ['data'],
  properties: {
    event: { type: 'string' },
    data: { type: 'string', description: 'JSON' },
    id: { type: 'string' },
    retry: { type: 'integer', minimum: 0 },
  },
} as const;

/** A 200 answered as JSON, or (Accept: text/event-stream) as the same page in server-sent events. */
export function jsonOrEventStream(schema: object, description: string): object {
  return { description, content: { 'application/json': { schema }, 'text/event-stream': { schema: serverSentEvent } } };
}

type RouteSchema = NonNullable<RouteOptions['schema']> & {
  response?: Record<string | number, unknown>;
  security?: unknown;
  hide?: boolean;
};

function schemaOf(route: RouteOptions): RouteSchema {
  route.schema ??= {};
  return route.schema as RouteSchema;
}

/** Adds responses to a route, keeping any the route declares itself. */
function addResponses(route: RouteOptions, statuses: number[]): void {
  const schema = schemaOf(route);
  schema.response = { ...errorResponses(...statuses), ...(schema.response ?? {}) };
}

/** The longest path parameter the router takes (UTF-16 code units, decoded): longer is a 414. */
export const MAX_PATH_PARAMETER_LENGTH = 1024;

/**
 * A path parameter's text, as a route's document states it, is at most half the router's limit:
 * a character outside the Basic Multilingual Plane is one character to a schema and two code
 * units to the router. Parameters of a format (UUIDs), an enum or their own maxLength are
 * bounded already.
 */
function boundPathParameters(schema: RouteSchema): void {
  const properties = (schema.params as { properties?: Record<string, Record<string, unknown>> } | undefined)
    ?.properties;
  for (const property of Object.values(properties ?? {}))
    if (
      property.type === 'string' &&
      property.maxLength === undefined &&
      property.format === undefined &&
      property.enum === undefined
    )
      property.maxLength = MAX_PATH_PARAMETER_LENGTH / 2;
}

/**
 * For every route registered after this (in this scope and below): the statuses that follow
 * from what it takes. A body can be malformed (400), too large (413), of a type or encoding the
 * route does not take (415) or invalid (422, also too deeply nested); parameters and query
 * strings can be malformed (400, from the route's own parsing) or invalid (422, from the schema);
 * a path parameter can be too long (414).
 */
export function declareInputStatuses(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = schemaOf(route);
    if (schema.hide) return;
    const statuses = new Set<number>();
    const methods = [route.method].flat();
    if (schema.body || methods.some((m) => m === 'POST' || m === 'PUT' || m === 'PATCH'))
      [400, 413, 415, 422].forEach((s) => statuses.add(s));
    if (schema.params || schema.querystring) [400, 422].forEach((s) => statuses.add(s));
    // Any path parameter longer than the router takes (MAX_PATH_PARAMETER_LENGTH) is a 414.
    if (route.url.includes(':') || route.url.includes('*')) statuses.add(414);
    boundPathParameters(schema);
    if (statuses.size > 0) addResponses(route, [...statuses]);
  });
}

/** X-Tenant-Id, as every authenticated route takes it. */
const tenantIdHeader = {
  type: 'string',
  format: 'uuid',
  description:
    'The workspace to act in: needed for an API key linked to several workspaces; a bearer token names its own',
} as const;

/**
 * For every route registered after this in this scope: the API key it requires (in the
 * document's security), or, with `bearer`, a bearer token as the alternative; the X-Tenant-Id
 * header (a UUID); and the statuses authentication answers: 401 (no key, or an unknown one; a
 * token malformed, altered, expired or revoked), 400 (X-Tenant-Id required by a key of several
 * workspaces), 422 (X-Tenant-Id not a UUID), 403 (a workspace the key is not linked to) and 503
 * (the key registry could not be brought up to date). The server's document defines the schemes
 * (createHttpServer, `bearerAuth` for the token's).
 */
export function declareApiKeyAuth(app: FastifyInstance, { bearer = false }: { bearer?: boolean } = {}): void {
  app.addHook('onRoute', (route) => {
    const schema = schemaOf(route);
    if (schema.hide) return;
    schema.security ??= [{ apiKey: [] }, ...(bearer ? [{ bearer: [] }] : [])];
    // A header parameter, not a security scheme: a scheme's value can have no format.
    const headers = (schema.headers ?? { type: 'object' }) as { properties?: Record<string, unknown> };
    schema.headers = { ...headers, properties: { ...headers.properties, 'X-Tenant-Id': tenantIdHeader } };
    addResponses(route, [400, 401, 403, 422, 503]);
  });
}

/** The bearer scheme's definition in a document whose routes take tokens (declareApiKeyAuth with `bearer`). */
export const BEARER_SECURITY_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: 'A token from `npm run admin -- issue-token`: acts in one workspace for an API key, until it expires.',
} as const;

const text = (mediaType: string, description: string) => ({
  description,
  content: { [mediaType]: { schema: { type: 'string' } } },
});

/** What each of Swagger UI's routes serves, by its path below the page's (@fastify/swagger-ui 6). */
const DOCS_ROUTES: Record<string, Record<string, unknown>> = {
  '': { summary: 'This document, browsable (Swagger UI)', response: { 200: text('text/html', 'the page') } },
  '/json': {
    summary: 'This document (OpenAPI 3), as JSON',
    response: { 200: { description: 'the OpenAPI document', type: 'object', additionalProperties: true } },
  },
  '/yaml': {
    summary: 'This document (OpenAPI 3), as YAML',
    response: {
      200: {
        description: 'the OpenAPI document',
        content: { 'application/x-yaml': { schema: { type: 'object', additionalProperties: true } } },
      },
    },
  },
  '/static/index.html': {
    summary: 'The page, under its old name',
    response: { 302: { description: 'to the page', type: 'null' } },
  },
  '/static/swagger-initializer.js': {
    summary: 'The page’s settings',
    response: { 200: text('application/javascript', 'the script') },
  },
  '/static/*': {
    summary: 'The page’s scripts, styles and images',
    // The page's files are named so; another name is no file (404), or a path the static files refuse (400, 403).
    params: {
      type: 'object',
      properties: {
        '*': { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$', description: 'the file, e.g. swagger-ui.css' },
      },
    },
    response: {
      200: { description: 'the file', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
      304: {
        description: 'not modified since the copy the caller has (If-None-Match, If-Modified-Since)',
        type: 'null',
      },
      400: { description: 'the path is malformed', ...errorBody },
      403: { description: 'a path that leads outside the page’s files', ...errorBody },
      404: { description: 'no such file', ...errorBody },
      422: { description: 'a name no file of the page has the form of', ...errorBody },
    },
  },
};

/**
 * Documents the routes of the Swagger UI registered after this in this scope (its page, its
 * assets, the document as JSON and YAML), which the plugin registers hidden: the document lists
 * every route the service serves, itself included.
 */
export function declareDocsRoutes(app: FastifyInstance, prefix: string): void {
  app.addHook('onRoute', (route) => {
    const doc = DOCS_ROUTES[route.url.slice(prefix.length)];
    if (doc) route.schema = { tags: ['operations'], ...doc };
  });
}

/** Marks, in a route's schema, a body that may be left out (swagger copies `x-` keys into the operation). */
const OPTIONAL_BODY = 'x-optional-body';

/** A JSON object body that requires no field: `{}` is valid, so leaving the body out is too. */
function isOptionalBody(body: unknown): boolean {
  if (body === null || typeof body !== 'object') return false;
  const b = body as Record<string, unknown>;
  const types = [b.type].flat();
  if (!types.includes('object') || types.some((t) => t !== 'object' && t !== 'null')) return false;
  if (b.content !== undefined || b.minProperties || b.anyOf || b.oneOf || b.allOf || b.not) return false;
  return !Array.isArray(b.required) || b.required.length === 0;
}

const emptyBodyAsObject = async (request: FastifyRequest): Promise<void> => {
  if (request.body === undefined) request.body = {};
};

/**
 * For every route registered after this (in this scope and below) whose JSON body requires no
 * field: a request without a body reads as one with `{}`, and the document says the body is
 * optional (describeOptionalBodies). FastAPI reads an all-optional body the same way.
 */
export function declareOptionalBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as (RouteSchema & { body?: unknown; [OPTIONAL_BODY]?: boolean }) | undefined;
    if (!schema || !isOptionalBody(schema.body)) return;
    schema[OPTIONAL_BODY] = true;
    route.preValidation = [emptyBodyAsObject, ...[route.preValidation ?? []].flat()] as RouteOptions['preValidation'];
  });
}

type Operation = { requestBody?: { required?: boolean }; [OPTIONAL_BODY]?: boolean };

/** The document's side of declareOptionalBodies: `requestBody.required: false` where the route reads no body as `{}`. */
export function describeOptionalBodies<T extends { paths?: Record<string, Record<string, unknown>> }>(document: T): T {
  for (const path of Object.values(document.paths ?? {}))
    for (const operation of Object.values(path) as Operation[]) {
      if (!operation || typeof operation !== 'object' || !(OPTIONAL_BODY in operation)) continue;
      delete operation[OPTIONAL_BODY];
      if (operation.requestBody) operation.requestBody.required = false;
    }
  return document;
}
