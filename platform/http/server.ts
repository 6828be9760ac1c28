// The fastify setup every HTTP service shares: JSON logs, one error shape, request metrics,
// health and readiness, Prometheus metrics, and an OpenAPI document (from the route
// schemas) with a browsable page at /docs.
import Fastify, { LogController, type FastifyInstance, type FastifyError, type FastifyBaseLogger, type RouteOptions, type FastifyRequest, type FastifyReply } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Logger } from '../logger.ts';
import { AppError, errors } from '../errors.ts';
import { ClickHouseError } from '../clickhouse/client.ts';
import { httpRequestDuration, registry } from '../metrics.ts';
import { BEARER_SECURITY_SCHEME, declareDocsRoutes, declareInputStatuses, UUID_PATTERN } from './openapi.ts';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../json/jsonNesting.ts';

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

/**
 * Every failure leaves as one AppError shape: `{ error: <code>, detail: <message> }`. Also for
 * failures after a reply became a stream (sent there as an error event).
 */
export function toAppError(err: FastifyError | AppError | Error, contentType = '(none)', bodyLimit?: HttpServerOptions['bodyLimit']): AppError {
  if (err instanceof AppError) return err;
  const e = err as FastifyError;
  if (e.validation) {
    const allowed = e.validation[0]?.params?.allowedValues as unknown[] | undefined;
    return errors.validation(e.message + (allowed ? `: ${allowed.filter((v) => v !== null).join(', ')}` : ''));
  }
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return errors.unsupportedMediaType(contentType, 'application/json or multipart/form-data');
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' && bodyLimit) return errors.bodyTooLarge(bodyLimit.bytes, bodyLimit.setting);
  // A read model that is away is a 503 to retry; a statement it refuses is our bug, not the caller's.
  if (err instanceof ClickHouseError) return err.retryable ? errors.readModelUnavailable(err) : errors.internal(err);
  if (e.code === 'FST_ERR_MAX_PARAM_LENGTH') return errors.uriTooLong(e.message);
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
      // `format: uuid` as the clients send ids: hyphenated or 32 hex digits (ajv-formats takes only the first).
      onCreate: (ajv) => ajv.addFormat('uuid', UUID_PATTERN),
    },
    requestIdHeader: 'x-request-id',
    forceCloseConnections: true,
    // What the router refuses before any route (a path parameter over maxParamLength, a bad URL):
    // in the same shape and codes as everything else.
    frameworkErrors: (err, request, reply) => sendError(err, request, reply),
  });

  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  declareInputStatuses(app);

  // JSON bodies: fastify's own parser (prototype-poisoning safe, within bodyLimit), after the one
  // nesting limit of all JSON taken in (platform/json/jsonNesting.ts). A service may
  // replace it with its own (the tracing API decodes compressed bodies), keeping that limit.
  const defaultJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && jsonTooDeep(body)) return done(errors.jsonTooDeep('the request body', MAX_JSON_DEPTH), undefined);
    return defaultJson(request, body as string, done);
  });

  function sendError(err: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply) {
    const appErr = toAppError(err, String(request.headers['content-type'] ?? '(none)'), options.bodyLimit);
    if (appErr.code === 'INTERNAL') request.log.error({ err }, 'unhandled error');
    else if (appErr.statusCode >= 500) request.log.warn({ code: appErr.code, msg: err.message }, 'request failed');
    lingerForBody(request, reply);
    return reply.code(appErr.statusCode).headers(appErr.headers).send({ error: appErr.code, detail: appErr.message });
  }
  app.setErrorHandler(sendError);
  app.setNotFoundHandler((request, reply) => {
    const notFound = errors.noRoute(request.method, request.url.split('?')[0]!);
    return reply.code(notFound.statusCode).send({ error: notFound.code, detail: notFound.message });
  });

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
          tenantId: { type: 'apiKey', in: 'header', name: 'X-Tenant-Id' },
          ...(options.bearerAuth ? { bearer: BEARER_SECURITY_SCHEME } : {}),
        },
      },
    },
  });
  await app.register(async (docs) => {
    declareDocsRoutes(docs, '/docs');
    await docs.register(swaggerUi, { routePrefix: '/docs' });
  });

  const ops = { schema: { hide: false, tags: ['operations'] } };
  app.get('/ok', { schema: { ...ops.schema, response: { 200: { type: 'object', properties: { ok: { type: 'boolean' } } } } } }, async () => ({ ok: true }));
  const readiness = { type: 'object', properties: { ready: { type: 'boolean' } } } as const;
  app.get('/ready', { schema: { ...ops.schema, response: { 200: readiness, 503: { description: 'not ready: a store writes need is unreachable', ...readiness } } } }, async (_request, reply) => {
    const ready = await options.ready();
    return reply.code(ready ? 200 : 503).send({ ready });
  });
  app.get('/metrics', { schema: { ...ops.schema, produces: ['text/plain'], response: { 200: { description: 'Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } } } } }, async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));
  return app;
}
