// The trace explorer's page (apps/explorer/, built by Vite into apps/dist/) on the API's port:
// the page and its assets under /ui/ (a prefix no API route uses; every client-side route under
// it answers the page), / redirected there, and the run links the langsmith clients print
// (`getRunUrl()` / `get_run_url()`: {web_url}/o/{tenant}/projects/p/{project}/r/{run}?poll=true)
// redirected to the page's own URL for that run. Public (the page asks for an API key itself),
// and hidden from the OpenAPI document: these are pages, not API operations.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
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
    return reply.code(503).type('text/plain').send('The explorer page is not built: run `npm run build:apps` (npm start builds it), then reload.\n');
  // Revalidated on every load, so a new build's asset names are picked up (send's own header off).
  return reply.header('cache-control', 'no-cache').sendFile(INDEX, { cacheControl: false });
}

export interface ExplorerPageOptions {
  /** Where the built pages are (PAGES_DIR; a test's own directory). */
  pagesDir?: string;
}

export const explorerPageRoutes: FastifyPluginAsync<ExplorerPageOptions> = async (app, { pagesDir = PAGES_DIR }) => {
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
