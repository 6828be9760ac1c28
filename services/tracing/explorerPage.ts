// The trace explorer's page (apps/explorer/, built by Vite into apps/dist/) on the API's port:
// the page and its assets under /ui/ (a prefix no API route uses; every client-side route under
// it answers the page), / redirected there, and the run links the langsmith clients print
// (`getRunUrl()` / `get_run_url()`: {web_url}/o/{tenant}/projects/p/{project}/r/{run}?poll=true)
// redirected to the page's own URL for that run. Public (the page asks for an API key itself),
// and hidden from the OpenAPI document: these are pages, not API operations.
//
// The page's deployments view reads the control plane, another process on another port. Its calls
// go through this origin (/ui/control-plane/v2/deployments…, forwarded with @fastify/reply-from)
// rather than cross-origin with CORS: the browser then needs one address only (one port to expose
// or tunnel), the control plane opens nothing to other origins, and a control plane that is not
// running is a 503 CONTROL_PLANE_UNAVAILABLE in words, which a cross-origin fetch could not tell
// from a CORS refusal. Only the deployments API, and only its reads and DELETE; the request's
// X-Api-Key / X-Tenant-Id / Authorization go along and the control plane checks them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../../platform/errors.ts';
import { uuidSchema } from '../../platform/http/openapi.ts';

/** Where `vite build` (apps/vite.config.ts) writes the pages. */
export const PAGES_DIR = join(import.meta.dirname, '..', '..', 'apps', 'dist');
/** The page's prefix; apps/vite.config.ts builds the explorer's asset URLs under it. */
export const EXPLORER_PREFIX = '/ui/';
const INDEX = 'explorer/index.html';

const hidden = { hide: true } as const;

/** The page, or a 503 saying how to build it (checked per request: the build may come after start-up). */
function sendPage(reply: FastifyReply, pagesDir: string): FastifyReply {
  if (!existsSync(join(pagesDir, INDEX)))
    return reply
      .code(503)
      .type('text/plain')
      .send('The explorer page is not built: run `npm run build:apps` (npm start builds it), then reload.\n');
  // Revalidated on every load, so a new build's asset names are picked up (send's own header off).
  return reply.header('cache-control', 'no-cache').sendFile(INDEX, { cacheControl: false });
}

/** Where the page's control-plane calls go on this origin: `<this>/v2/deployments…`. */
export const CONTROL_PLANE_FORWARD_PREFIX = '/ui/control-plane';

export interface ExplorerPageOptions {
  /** Where the built pages are (PAGES_DIR; a test's own directory). */
  pagesDir?: string;
  /** The control plane's base URL (platform/config.ts controlPlaneUrl); unset: the page's deployments say it is not configured. */
  controlPlaneUrl?: string;
}

const causeCode = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ?? (error as { code?: string }).code ?? String(error);
};

/** The forwarded paths: /v2/deployments and its sub-resources, segments of ids and names only. */
const FORWARDABLE = /^\/v2\/deployments(\/[A-Za-z0-9_-]+)*\/?$/;

/** GET and DELETE under /ui/control-plane/v2/deployments, forwarded to the control plane. */
async function controlPlaneForward(app: FastifyInstance, controlPlaneUrl: string | undefined): Promise<void> {
  await app.register(replyFrom, { disableRequestLogging: true });
  const forward = (request: FastifyRequest, reply: FastifyReply) => {
    if (!controlPlaneUrl) throw errors.notConfigured("the tracing API was started without the control plane's URL");
    const path = request.url.slice(CONTROL_PLANE_FORWARD_PREFIX.length);
    // Only the deployments resources: a `..` segment (raw or percent-encoded) would climb out of
    // /v2/deployments once normalised. reply-from refuses those today too; this rule is ours.
    const pathname = path.split('?', 1)[0]!;
    if (!FORWARDABLE.test(pathname))
      throw errors.badRequest(`not a deployments path of the control plane: ${pathname}`);
    return reply.from(`${controlPlaneUrl}${path}`, {
      onError: (r, { error }) => r.send(errors.controlPlaneUnavailable(controlPlaneUrl, causeCode(error), error)),
    });
  };
  const url = `${CONTROL_PLANE_FORWARD_PREFIX}/v2/deployments`;
  app.route({ method: ['GET', 'DELETE'], url, schema: hidden, handler: forward });
  app.route({ method: ['GET', 'DELETE'], url: `${url}/*`, schema: hidden, handler: forward });
}

export const explorerPageRoutes: FastifyPluginAsync<ExplorerPageOptions> = async (
  app,
  { pagesDir = PAGES_DIR, controlPlaneUrl },
) => {
  await app.register(fastifyStatic, { root: pagesDir, serve: false });
  // Hashed file names: cached for good. (The directory may appear only after start-up.)
  await app.register(fastifyStatic, {
    root: join(pagesDir, 'assets'),
    prefix: `${EXPLORER_PREFIX}assets/`,
    decorateReply: false,
    immutable: true,
    maxAge: '365d',
  });
  app.get('/', { schema: hidden }, (_request, reply) => reply.redirect(EXPLORER_PREFIX));
  app.get('/ui', { schema: hidden }, (_request, reply) => reply.redirect(EXPLORER_PREFIX));
  app.get('/ui/', { schema: hidden }, (_request, reply) => sendPage(reply, pagesDir));
  app.get('/ui/*', { schema: hidden }, (_request, reply) => sendPage(reply, pagesDir));
  await app.register((scope) => controlPlaneForward(scope, controlPlaneUrl));
  app.get<{ Params: { tenantId: string; projectId: string; runId: string } }>(
    '/o/:tenantId/projects/p/:projectId/r/:runId',
    {
      schema: {
        ...hidden,
        params: { type: 'object', properties: { tenantId: uuidSchema, projectId: uuidSchema, runId: uuidSchema } },
        querystring: { type: 'object', additionalProperties: true, properties: { poll: { type: 'string' } } },
      },
    },
    (request, reply) => {
      const { tenantId, projectId, runId } = request.params;
      return reply.redirect(`${EXPLORER_PREFIX}projects/${projectId}/runs/${runId}?workspace=${tenantId}`);
    },
  );
};
