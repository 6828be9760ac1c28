// The hook that authenticates every request of a scope and puts the workspace it acts in on
// request.tenantId: an API key in X-Api-Key (X-Tenant-Id for a key of several workspaces), or,
// where the scope takes them, a bearer token in `Authorization: Bearer <token>` (bearerTokens.ts).
// X-Api-Key, when sent, is what counts, so a client that sends a key behaves as it always has.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TenancyService } from './tenancyService.ts';
import { errors } from '../../platform/errors.ts';
import { declareApiKeyAuth } from '../../platform/http/openapi.ts';
import { hashApiKey } from './apiKeys.ts';

declare module 'fastify' {
  interface FastifyRequest {
    tenantId: string | null;
    /** The hash of the API key the caller authenticated with (directly, or through a token issued for it). */
    keyHash: string | null;
  }
}

export interface ApiKeyAuthOptions {
  /** Whether `Authorization: Bearer <token>` is taken as the alternative to X-Api-Key. */
  bearer?: boolean;
}

/**
 * Every route registered after this in the same scope needs an API key (or, with `bearer`, a
 * token); the workspace it acts in lands on request.tenantId.
 */
export function requireApiKey(app: FastifyInstance, tenancy: TenancyService, options: ApiKeyAuthOptions = {}): void {
  const { bearer = false } = options;
  declareApiKeyAuth(app, { bearer });
  app.decorateRequest('tenantId', null);
  app.decorateRequest('keyHash', null);
  app.addHook('onRequest', async (request) => {
    const header = (name: string) => {
      const v = request.headers[name];
      return Array.isArray(v) ? v[0] : v;
    };
    const apiKey = header('x-api-key');
    const authorization = (bearer && !apiKey && header('authorization')) || undefined;
    if (authorization !== undefined) {
      const who = await tenancy.authenticateBearerKey(bearerToken(authorization), header('x-tenant-id'));
      request.tenantId = who.workspaceId;
      request.keyHash = who.keyHash;
      return;
    }
    if (bearer && !apiKey) throw errors.missingCredentials();
    request.tenantId = await tenancy.authenticate(apiKey, header('x-tenant-id'));
    request.keyHash = hashApiKey(apiKey!);
  });
}

/** The token of `Bearer <token>` (the scheme in any case, RFC 9110 §11.1). */
function bearerToken(authorization: string): string {
  const match = /^bearer +([^ ]+) *$/i.exec(authorization);
  if (!match) throw errors.malformedToken('the Authorization header must be "Bearer <token>"');
  return match[1]!;
}

/** Who calls: the hash of their API key (an annotation queue's reviewer is an API key). */
export function keyHashOf(request: FastifyRequest): string {
  if (!request.keyHash) throw new Error('route registered without requireApiKey');
  return request.keyHash;
}

export function tenantOf(request: FastifyRequest): string {
  if (!request.tenantId) throw new Error('route registered without requireApiKey');
  return request.tenantId;
}
