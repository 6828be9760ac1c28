// The fastify setup every HTTP service shares: JSON logs, one error shape, request metrics,
// health and readiness, Prometheus metrics, and an OpenAPI document (from the route
// schemas) with a browsable page at /docs. What every route takes alike is decided here once:
// a request without a body has none whatever Content-Type it names, JSON bodies may be gzip,
// zstd or deflate encoded, a body with no required field may be left out, and a method a path
// does not serve is a 405 naming the ones it does.
import type { ServerResponse } from 'node:http';
import Fastify, {
  LogController,
  type FastifyInstance,
  type FastifyError,
  type FastifyBaseLogger,
  type RouteOptions,
  type FastifyRequest,
  type FastifyReply,
} from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Logger } from '../logger.ts';
import { AppError, errors } from '../errors.ts';
import { ClickHouseError } from '../clickhouse/client.ts';
import { isUnstorableText } from '../postgres.ts';
import { httpRequestDuration, registry } from '../metrics.ts';
import {
  BEARER_SECURITY_SCHEME,
  MAX_PATH_PARAMETER_LENGTH,
  declareDocsRoutes,
  declareInputStatuses,
  declareOptionalBodies,
  describeOptionalBodies,
  UUID_PATTERN,
} from './openapi.ts';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../json/jsonNesting.ts';
import { readDecodedBody } from './requestBody.ts';
import { ISO_TIMESTAMP } from '../time.ts';
import { declareTypedQueries } from './queryParameters.ts';

export interface HttpServerOptions {
  logger: Logger;
  title: string;
  version: string;
  description: string;
  /** Resolves true when the service can take writes (e.g. Kafka is reachable). */
  ready: () => boolean | Promise<boolean>;
  /**
   * The largest body fastify reads, and the setting that sets it (named in the 413). Without it,
   * bodies up to 1 GiB are read and the routes enforce their own (decoded) limits.
   */
  bodyLimit?: { bytes: number; setting: string };
  /**
   * Sees every route the server registers, these shared ones included, before any is served
   * (the options object, which later hooks complete: read it once the server is ready). For
   * tests that check every route is documented.
   */
  onRoute?: (route: RouteOptions) => void;
  /** Whether the document defines the bearer scheme: an authenticated scope takes tokens (declareApiKeyAuth, `bearer`). */
  bearerAuth?: boolean;
}

/** How long a refused request's body is still read (and discarded) after the answer. */
const LINGER_MS = 30_000;

/**
 * A request answered before its body was read whole (over the size limit, or malformed half-way)
 * keeps its connection until the client has sent the rest, read and discarded, for at most
 * LINGER_MS: nginx's lingering close. Fastify closes such a connection at once, and a client still
 * uploading then meets a reset (EPIPE, ECONNRESET) instead of the answer, which the official
 * clients retry as a network failure. Once the body is in, the connection serves its next request.
 */
function lingerForBody(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  if (raw.complete || raw.destroyed) return;
  reply.removeHeader('connection');
  const timer = setTimeout(() => raw.socket?.destroy(), LINGER_MS).unref();
  const done = () => clearTimeout(timer);
  raw.once('end', done).once('close', done);
  raw.resume();
}

/** How long a closing server waits for its requests in flight before it cuts their connections. */
const DRAIN_MS = 10_000;

/**
 * app.close() (a service's shutdown, on SIGTERM): the listener closes at once, idle connections
 * with it, and a request in flight is answered before its connection goes, so a replica stopped
 * or replaced behind the gateway fails no request (a write's 2xx still means its events are in
 * Kafka). A stream (a response whose headers are out and whose end is not near: SSE, a streamed
 * read) is cut at once, as before; its client resumes elsewhere. Whatever is still open after
 * DRAIN_MS is cut.
 */
function drainOnClose(app: FastifyInstance): void {
  const inFlight = new Set<ServerResponse>();
  app.addHook('onRequest', (request, reply, done) => {
    const res = reply.raw;
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
    done();
  });
  let cutOff: NodeJS.Timeout | undefined;
  app.addHook('preClose', (done) => {
    for (const res of inFlight) {
      if (res.headersSent) res.destroy();
      // Answered with `Connection: close`: a kept-alive connection would hold the close up.
      else res.shouldKeepAlive = false;
    }
    cutOff = setTimeout(() => app.server.closeAllConnections(), DRAIN_MS).unref();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearTimeout(cutOff);
    done();
  });
}

/**
 * Every failure leaves as one AppError shape: `{ error: <code>, detail: <message> }`. Also for
 * failures after a reply became a stream (sent there as an error event).
 */
export function toAppError(
  err: FastifyError | AppError | Error,
  contentType = '(none)',
  bodyLimit?: HttpServerOptions['bodyLimit'],
): AppError {
  if (err instanceof AppError) return err;
  const e = err as FastifyError;
  if (e.validation) {
    const first = e.validation[0];
    const allowed = first?.params?.allowedValues as unknown[] | undefined;
    const extra = first?.keyword === 'additionalProperties' ? ` (${String(first.params.additionalProperty)})` : '';
    return errors.validation(e.message + extra + (allowed ? `: ${allowed.filter((v) => v !== null).join(', ')}` : ''));
  }
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return errors.unsupportedMediaType(contentType, 'application/json or multipart/form-data');
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' && bodyLimit)
    return errors.bodyTooLarge(bodyLimit.bytes, bodyLimit.setting);
  // A read model that is away is a 503 to retry; a statement it refuses is our bug, not the caller's.
  if (err instanceof ClickHouseError) return err.retryable ? errors.readModelUnavailable(err) : errors.internal(err);
  if (e.code === 'FST_ERR_MAX_PARAM_LENGTH') return errors.uriTooLong(e.message);
  if (isUnstorableText(err))
    return errors.validation(
      'a string in the request holds a character that cannot be stored (a NUL, \\u0000, or one outside UTF-8)',
    );
  if (e.statusCode === 404) return new AppError('NOT_FOUND', e.message, { cause: err });
  if (e.statusCode === 413) return new AppError('BODY_TOO_LARGE', e.message, { cause: err });
  if (e.statusCode === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', e.message, { cause: err });
  // Any other refusal by fastify or a plugin (an empty or malformed JSON body, a bad URL): in our words.
  if (e.statusCode && e.statusCode < 500) return new AppError('BAD_REQUEST', e.message, { cause: err });
  return errors.internal(err);
}

export async function createHttpServer(options: HttpServerOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: options.bodyLimit?.bytes ?? 1024 * 1024 * 1024,
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false, allowUnionTypes: true },
      // `format: uuid` as the clients send ids: hyphenated or 32 hex digits (ajv-formats takes only the
      // first); `format: date-time` as they send times: RFC 3339, or naive (UTC) or with a space.
      onCreate: (ajv) =>
        ajv
          .addFormat('uuid', UUID_PATTERN)
          .addFormat('date-time', { type: 'string', validate: (text: string) => ISO_TIMESTAMP.test(text.trim()) }),
    },
    requestIdHeader: 'x-request-id',
    // Longer than fastify's 100: ids chosen by callers (a thread id, an attachment name) may be
    // long; a route's document bounds each of its path parameters below this (openapi.ts).
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    // Shutdown drains (drainOnClose): idle connections go at once, requests in flight are answered.
    forceCloseConnections: 'idle',
    // What the router refuses before any route (a path parameter over maxParamLength, a bad URL):
    // in the same shape and codes as everything else.
    frameworkErrors: (err, request, reply) => sendError(err, request, reply, false),
  });

  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  drainOnClose(app);
  declareInputStatuses(app);

  // A body whose schema requires no field may be left out: it reads as {} (and the document says
  // the body is optional).
  declareOptionalBodies(app);
  // Typed query parameters (integer, boolean, arrays) are read into their types before validation.
  declareTypedQueries(app);

  // JSON bodies: decoded as their Content-Encoding says (gzip, zstd, deflate; the decoded size
  // held to bodyLimit), held to the one nesting limit of all JSON taken in
  // (platform/json/jsonNesting.ts), then fastify's own parser (prototype-poisoning safe). No
  // bytes is no body, whatever Content-Type is named: generic clients and SDK generators send
  // `Content-Type: application/json` on every request, DELETEs included, and FastAPI-based
  // servers read such a request as having no body. A service may replace this parser with its
  // own (the tracing API reads with its ingestion limit), keeping those rules (requestBody.ts).
  const jsonLimit = options.bodyLimit ?? { bytes: 1024 * 1024 * 1024, setting: "the server's body limit" };
  // A `__proto__` key is dropped (it is never an own property a route reads), not refused:
  // generic clients and fuzzers send it as any other key.
  const defaultJson = app.getDefaultJsonParser('remove', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', (request, payload, done) => {
    readDecodedBody(payload, request.headers, jsonLimit).then(
      (bytes) => {
        if (bytes.length === 0) return done(null, undefined);
        const body = bytes.toString('utf8');
        if (jsonTooDeep(body)) return done(errors.jsonTooDeep('the request body', MAX_JSON_DEPTH), undefined);
        return defaultJson(request, body, done);
      },
      (err: Error) => done(err, undefined),
    );
  });

  // Which methods each path answers, for the 405 of a method it does not (RFC 9110 §15.5.6).
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => [route.method].flat().forEach((m) => methods.add(m)));
  /**
   * The route a path is, and the methods it answers: where a static path and a parametric one
   * both match it (POST /runs/batch, GET /runs/{run_id}), the one with the fewest parameters, as
   * the document lists it. Null when nothing matches.
   */
  const routeAt = (url: string): { methods: string[]; params: number } | null => {
    const found = [...methods].flatMap((method) => {
      const route = app.findRoute({ method, url });
      return route ? [{ method, params: Object.keys(route.params).length }] : [];
    });
    if (found.length === 0) return null;
    const params = Math.min(...found.map((f) => f.params));
    return {
      methods: found
        .filter((f) => f.params === params)
        .map((f) => f.method)
        .sort(),
      params,
    };
  };
  /** The 405 for a method the route at this path does not answer; null when it does (or there is none). */
  function methodNotAllowed(request: FastifyRequest): AppError | null {
    const path = request.url.split('?')[0]!;
    const route = routeAt(path);
    return route && !route.methods.includes(request.method)
      ? errors.methodNotAllowed(request.method, path, route.methods)
      : null;
  }
  function sendNoRoute(request: FastifyRequest, reply: FastifyReply) {
    // A route that found nothing (a static file, say) answers 404 through here as well.
    const appErr = methodNotAllowed(request) ?? errors.noRoute(request.method, request.url.split('?')[0]!);
    return reply.code(appErr.statusCode).headers(appErr.headers).send({ error: appErr.code, detail: appErr.message });
  }
  /**
   * A method a static path does not answer that a parametric route of that method took (PATCH
   * /runs/batch reaching PATCH /runs/{run_id}, whose run_id is no UUID): that route's refusal
   * becomes the 405 of the path. Looked for only when such a route refused the request.
   */
  function shadowedMethod(request: FastifyRequest, appErr: AppError): AppError | null {
    if (![400, 404, 422].includes(appErr.statusCode)) return null;
    const params = Object.keys((request.params as object | undefined) ?? {}).length;
    if (params === 0) return null;
    const route = routeAt(request.url.split('?')[0]!);
    return route && route.params < params ? methodNotAllowed(request) : null;
  }

  /** `routed`: the request reached a route, or the not-found handler (not a refusal of the router's). */
  function sendError(err: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply, routed = true) {
    const appErr = toAppError(err, String(request.headers['content-type'] ?? '(none)'), options.bodyLimit);
    if (appErr.code === 'INTERNAL') request.log.error({ err }, 'unhandled error');
    else if (appErr.statusCode >= 500) request.log.warn({ code: appErr.code, msg: err.message }, 'request failed');
    lingerForBody(request, reply);
    // No route takes this method and path: what its body or headers are does not matter.
    if (routed && request.is404) return sendNoRoute(request, reply);
    const answer = (routed && shadowedMethod(request, appErr)) || appErr;
    return reply.code(answer.statusCode).headers(answer.headers).send({ error: answer.code, detail: answer.message });
  }
  app.setErrorHandler((err: FastifyError | AppError, request, reply) => sendError(err, request, reply));
  app.setNotFoundHandler(sendNoRoute);

  app.addHook('onResponse', async (request, reply) => {
    httpRequestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  await app.register(swagger, {
    openapi: {
      info: { title: options.title, version: options.version, description: options.description },
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
          ...(options.bearerAuth ? { bearer: BEARER_SECURITY_SCHEME } : {}),
        },
      },
    },
    transformObject: (document) =>
      'openapiObject' in document
        ? describeOptionalBodies(document.openapiObject as Parameters<typeof describeOptionalBodies>[0])
        : document.swaggerObject,
  });
  await app.register(async (docs) => {
    declareDocsRoutes(docs, '/docs');
    await docs.register(swaggerUi, { routePrefix: '/docs' });
  });

  const ops = { schema: { hide: false, tags: ['operations'] } };
  app.get(
    '/ok',
    { schema: { ...ops.schema, response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } } } } } },
    async () => ({ ok: true }),
  );
  const readiness = { type: 'object', properties: { ready: { type: 'boolean' } } } as const;
  app.get(
    '/ready',
    {
      schema: {
        ...ops.schema,
        response: {
          200: readiness,
          503: { description: 'not ready: a store writes need is unreachable', ...readiness },
        },
      },
    },
    async (_request, reply) => {
      const ready = await options.ready();
      return reply.code(ready ? 200 : 503).send({ ready });
    },
  );
  app.get(
    '/metrics',
    {
      schema: {
        ...ops.schema,
        produces: ['text/plain'],
        response: {
          200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
    async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()),
  );
  return app;
}
