// What the OpenAPI documents of every service share, so that a generated client or a fuzzer
// knows the whole contract: the error body, the statuses a route answers besides its own (added
// to each route as it is registered, by what the route takes and the scope it is in), UUIDs,
// and the security requirement of authenticated scopes.
import type { FastifyInstance, RouteOptions } from 'fastify';

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
  400: 'The request is malformed: a parameter, a header or the JSON of the body',
  401: 'No credentials, or ones that are not valid: an unknown API key; a token malformed, altered, expired or revoked',
  403: 'The API key has no access to the workspace named by X-Tenant-Id',
  404: 'Not found (or not in the caller\'s workspace)',
  406: 'The Accept header admits no form this route answers in',
  409: 'Conflicts with the current state',
  413: 'Too large (the detail names the limit and the setting)',
  414: 'A path parameter is longer than the server takes (the detail names it)',
  415: 'The Content-Type or Content-Encoding is not one this route takes',
  422: 'A field is invalid (the message names it)',
  429: 'Over the workspace\'s rate limit (the detail names it and its settings); retry after Retry-After seconds',
  503: 'A store the request needs (Kafka, ClickHouse, object storage) is unavailable; retry after Retry-After seconds',
};

/** Response entries `{ [status]: { description, ...errorBody } }` for these statuses. */
export function errorResponses(...statuses: number[]): Record<number, object> {
  return Object.fromEntries(statuses.map((s) => [s, { description: REASONS[s] ?? 'Error', ...errorBody }]));
}

/** A UUID, hyphenated or as 32 hex digits (the clients send both); `format: uuid` in the document. */
export const UUID_PATTERN = /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$/;
export const uuidSchema = { type: 'string', format: 'uuid' } as const;

/** A 200 answered as JSON, or (Accept: text/event-stream) as the same page in server-sent events. */
export function jsonOrEventStream(schema: object, description: string): object {
  return { description, content: { 'application/json': { schema }, 'text/event-stream': { schema: { type: 'string' } } } };
}

type RouteSchema = NonNullable<RouteOptions['schema']> & { response?: Record<string | number, unknown>; security?: unknown; hide?: boolean };

function schemaOf(route: RouteOptions): RouteSchema {
  route.schema ??= {};
  return route.schema as RouteSchema;
}

/** Adds responses to a route, keeping any the route declares itself. */
function addResponses(route: RouteOptions, statuses: number[]): void {
  const schema = schemaOf(route);
  schema.response = { ...errorResponses(...statuses), ...(schema.response ?? {}) };
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
    if (schema.body || methods.some((m) => m === 'POST' || m === 'PUT' || m === 'PATCH')) [400, 413, 415, 422].forEach((s) => statuses.add(s));
    if (schema.params || schema.querystring) [400, 422].forEach((s) => statuses.add(s));
    // Any path parameter longer than the router takes (fastify's maxParamLength) is a 414.
    if (route.url.includes(':') || route.url.includes('*')) statuses.add(414);
    if (statuses.size > 0) addResponses(route, [...statuses]);
  });
}

/**
 * For every route registered after this in this scope: the API key it requires (in the
 * document's security), or, with `bearer`, a bearer token as the alternative, and the statuses
 * authentication answers: 401 (no key, or an unknown one; a token malformed, altered, expired or
 * revoked), 400 (X-Tenant-Id malformed, or required by a key of several workspaces), 403 (a
 * workspace the key is not linked to) and 503 (the key registry could not be brought up to date).
 * The server's document defines the schemes (createHttpServer, `bearerAuth` for the token's).
 */
export function declareApiKeyAuth(app: FastifyInstance, { bearer = false }: { bearer?: boolean } = {}): void {
  app.addHook('onRoute', (route) => {
    const schema = schemaOf(route);
    if (schema.hide) return;
    // The key alone, or with the workspace it acts in (a key of several workspaces needs X-Tenant-Id);
    // a token names its workspace itself.
    schema.security ??= [{ apiKey: [] }, { apiKey: [], tenantId: [] }, ...(bearer ? [{ bearer: [] }] : [])];
    addResponses(route, [400, 401, 403, 503]);
  });
}

/** The bearer scheme's definition in a document whose routes take tokens (declareApiKeyAuth with `bearer`). */
export const BEARER_SECURITY_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: 'A token from `npm run admin -- issue-token`: acts in one workspace for an API key, until it expires.',
} as const;

const text = (mediaType: string, description: string) => ({ description, content: { [mediaType]: { schema: { type: 'string' } } } });

/** What each of Swagger UI's routes serves, by its path below the page's (@fastify/swagger-ui 6). */
const DOCS_ROUTES: Record<string, Record<string, unknown>> = {
  '': { summary: 'This document, browsable (Swagger UI)', response: { 200: text('text/html', 'the page') } },
  '/json': {
    summary: 'This document (OpenAPI 3), as JSON',
    response: { 200: { description: 'the OpenAPI document', type: 'object', additionalProperties: true } },
  },
  '/yaml': { summary: 'This document (OpenAPI 3), as YAML', response: { 200: text('application/x-yaml', 'the OpenAPI document') } },
  '/static/index.html': { summary: 'The page, under its old name', response: { 302: { description: 'to the page', type: 'null' } } },
  '/static/swagger-initializer.js': { summary: 'The page’s settings', response: { 200: text('application/javascript', 'the script') } },
  '/static/*': {
    summary: 'The page’s scripts, styles and images',
    params: { type: 'object', properties: { '*': { type: 'string', description: 'the file, e.g. swagger-ui.css' } } },
    response: {
      200: { description: 'the file', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
      304: { description: 'not modified since the copy the caller has (If-None-Match, If-Modified-Since)', type: 'null' },
      400: { description: 'the path is malformed', ...errorBody },
      403: { description: 'a path that leads outside the page’s files', ...errorBody },
      404: { description: 'no such file', ...errorBody },
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
