// GET /workspaces: the workspaces the caller's API key is linked to, for a person (or a client)
// to pick the X-Tenant-Id of a key of several. Outside the API-key hook, which refuses such a key
// without X-Tenant-Id: the key is checked here, and X-Tenant-Id is not needed.
// GET /workspaces/current: the one workspace a request acts in, inside the API-key hook. Deployed
// agent servers verify their callers' keys with it (LANGSMITH_AUTH_ENDPOINT), so they need no
// access to the tenancy topic.
import type { FastifyPluginAsync } from 'fastify';
import { errorResponses } from '../../platform/http/openapi.ts';
import { tenantOf } from './apiKeyAuth.ts';
import type { TenancyService } from './tenancyService.ts';

const workspaceSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'UUID: what X-Tenant-Id names' },
    display_name: { type: 'string' },
  },
} as const;

export const workspaceRoutes: FastifyPluginAsync<{ tenancy: TenancyService }> = async (app, { tenancy }) => {
  app.get(
    '/workspaces',
    {
      schema: {
        tags: ['workspaces'],
        summary: "The workspaces of the caller's API key, by name (X-Tenant-Id not needed)",
        security: [{ apiKey: [] }],
        response: { 200: { type: 'array', items: workspaceSchema }, ...errorResponses(401, 503) },
      },
    },
    async (request) => {
      const header = request.headers['x-api-key'];
      const workspaces = await tenancy.workspacesOf(Array.isArray(header) ? header[0] : header);
      return workspaces.map((w) => ({ id: w.id, display_name: w.name }));
    },
  );
};

/**
 * GET /workspaces/current, registered inside a scope that requireApiKey guards: the workspace the
 * request acts in (its key's, or the X-Tenant-Id it names), refused exactly as every route is.
 */
export const currentWorkspaceRoutes: FastifyPluginAsync<{ tenancy: TenancyService }> = async (app, { tenancy }) => {
  app.get(
    '/workspaces/current',
    {
      schema: {
        tags: ['workspaces'],
        summary:
          'The workspace this request acts in: its API key’s, or the one X-Tenant-Id names (deployed agent servers verify callers with it)',
        response: { 200: workspaceSchema, ...errorResponses(400, 401, 403, 503) },
      },
    },
    async (request) => {
      const id = tenantOf(request);
      return { id, display_name: tenancy.state.workspaces.get(id)?.name ?? id };
    },
  );
};
