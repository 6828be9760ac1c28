// Who calls the chat app, and in which workspace they act. With CHAT_APP_AUTH=api_key (the
// default) every /api route needs an API key of the platform, checked by the tenancy context's
// hook exactly as the tracing API and the agent server check it (X-Api-Key; X-Tenant-Id for a key
// of several workspaces); the caller acts in that workspace, whose threads are the only ones it
// sees (./threadKey.ts). With CHAT_APP_AUTH=none (loopback only, ./chatAppConfig.ts) everyone
// acts in the default workspace.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DEFAULT_WORKSPACE_ID, requireApiKey, tenantOf, type TenancyService } from '../../services/tenancy/index.ts';
import type { TraceCredentials } from './runTracing.ts';
import type { ThreadKey } from './threadKey.ts';

export type ChatAuthentication = { mode: 'api_key'; tenancy: TenancyService } | { mode: 'none' };

/** Every route registered after this in `scope` knows its caller's workspace (threadKeyOf). */
export function signInCallers(scope: FastifyInstance, authentication: ChatAuthentication): void {
  if (authentication.mode === 'api_key') return requireApiKey(scope, authentication.tenancy);
  scope.decorateRequest('tenantId', null);
  scope.addHook('onRequest', async (request) => {
    request.tenantId = DEFAULT_WORKSPACE_ID;
  });
}

/** The workspace the caller acts in. */
export const workspaceOf = (request: FastifyRequest): string => tenantOf(request);

export const threadKeyOf = (request: FastifyRequest, threadId: string): ThreadKey => ({
  workspaceId: tenantOf(request),
  threadId,
});

/**
 * The credentials a run of this request is traced with: the caller's key in the caller's
 * workspace; without keys (CHAT_APP_AUTH=none), `fallbackKey` (LANGSMITH_API_KEY), if any.
 */
export function traceCredentialsOf(
  request: FastifyRequest,
  authentication: ChatAuthentication,
  fallbackKey: string | undefined,
): TraceCredentials | undefined {
  if (authentication.mode === 'none') return fallbackKey ? { apiKey: fallbackKey } : undefined;
  const header = request.headers['x-api-key'];
  const apiKey = Array.isArray(header) ? header[0] : header;
  return apiKey ? { apiKey, workspaceId: tenantOf(request) } : undefined;
}
