import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TenancyService } from './tenancyService.ts';
import { declareApiKeyAuth } from '../../platform/http/openapi.ts';

declare module 'fastify' {
  interface FastifyRequest {
    tenantId: string | null;
  }
}

/** Every route registered after this in the same scope needs an API key; the workspace it acts in lands on request.tenantId. */
export function requireApiKey(app: FastifyInstance, tenancy: TenancyService): void {
  declareApiKeyAuth(app);
  app.decorateRequest('tenantId', null);
  app.addHook('onRequest', async (request) => {
    const header = (name: string) => {
      const v = request.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    request.tenantId = await tenancy.authenticate(header('x-api-key'), header('x-tenant-id'));
  });
}

export function tenantOf(request: FastifyRequest): string {
  if (!request.tenantId) throw new Error('route registered without requireApiKey');
  return request.tenantId;
}
