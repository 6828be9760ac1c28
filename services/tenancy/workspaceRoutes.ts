// GET /workspaces: the workspaces the caller's API key is linked to, for a person (or a client)
// to pick the X-Tenant-Id of a key of several. Outside the API-key hook, which refuses such a key
// without X-Tenant-Id: the key is checked here, and X-Tenant-Id is not needed.
import type { FastifyPluginAsync } from 'fastify';
import { errorResponses } from '../../platform/http/openapi.ts';
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
