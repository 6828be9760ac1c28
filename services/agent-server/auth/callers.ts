// Who calls the agent server, and what each action of theirs may see. The routes that need a
// caller are registered in a scope of their own where `requireCaller` authenticates every request
// first (fastify encapsulation: the public routes — health, /info, docs, agent cards — live in the
// parent scope, out of the hook's reach). Three ways to authenticate, one per server:
//   api_key  the tracing API's keys (the tenancy context): X-Api-Key, and X-Tenant-Id for a key
//            of several workspaces; the caller acts in the key's workspace (the default). Read
//            from the tenancy topic, or, on a server the control plane deployed, verified by the
//            platform over HTTP (platformKeys.ts), and then only keys of the deployment's
//            workspace are taken (a key of several acts there without X-Tenant-Id)
//   custom   the config file's auth module (customAuth.ts), which replaces API keys, as on
//            LangGraph Platform; its `auth.on(…)` handlers narrow each action
//   none     AGENT_SERVER_AUTH=none, for local development: everyone acts in the default workspace
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { DEFAULT_WORKSPACE_ID } from '../../tenancy/index.ts';
import { errors } from '../../../platform/errors.ts';
import type { RecordScope } from '../store/agentRecords.ts';
import { ANONYMOUS, type AuthContext, type AuthEvent, type AuthEventValue, type CustomAuth } from './customAuth.ts';
import { errorResponse } from '../routes/routeSchemas.ts';
import { declareApiKeyAuth } from '../../../platform/http/openapi.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

export type AuthMode = 'api_key' | 'custom' | 'none';

/** Who says which workspace an API key acts in: the tenancy fold (TenancyService), or the platform over HTTP (PlatformKeys). */
export interface KeyAuthority {
  authenticate(apiKey: string | undefined, tenantId: string | undefined): Promise<string>;
}

/**
 * How this server authenticates: the mode, and what it needs for it. With `workspaceId` (a
 * deployed server's LANGSMITH_TENANT_ID), only keys acting in that workspace are taken.
 */
export type CallerAuthentication =
  | { mode: 'api_key'; keys: KeyAuthority; workspaceId?: string }
  | { mode: 'custom'; custom: CustomAuth }
  | { mode: 'none' };

export class Caller {
  /** The workspace the caller acts in: its API key's, else the default workspace. */
  readonly workspaceId: string;
  /** The user as the graphs see it (`langgraph_auth_user`): the auth module's, else anonymous. */
  readonly auth: AuthContext;
  readonly #custom: CustomAuth | undefined;

  constructor(workspaceId: string, auth: AuthContext, custom?: CustomAuth) {
    this.workspaceId = workspaceId;
    this.auth = auth;
    this.#custom = custom;
  }

  /**
   * What the caller may see for `event` on `value`: its workspace, narrowed by the auth module's
   * filter for the event. The module's handler may stamp `value` (e.g. an owner in its metadata)
   * and may refuse (it throws the refusal). Ask before every action, as LangGraph does.
   */
  async scope<E extends AuthEvent>(event: E, value: AuthEventValue<E>): Promise<RecordScope> {
    const filters = this.#custom ? await this.#custom.authorize(this.auth, event, value) : undefined;
    return filters ? { workspaceId: this.workspaceId, filters } : { workspaceId: this.workspaceId };
  }
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

async function authenticate(authentication: CallerAuthentication, request: FastifyRequest): Promise<Caller> {
  switch (authentication.mode) {
    case 'api_key': {
      const only = authentication.workspaceId;
      // A key of several workspaces acts in this server's one without naming it.
      const workspaceId = await authentication.keys.authenticate(
        header(request, 'x-api-key'),
        header(request, 'x-tenant-id') || only,
      );
      if (only !== undefined && workspaceId !== only) throw errors.deploymentWorkspaceForbidden();
      return new Caller(workspaceId, ANONYMOUS);
    }
    case 'custom':
      return new Caller(DEFAULT_WORKSPACE_ID, await authentication.custom.authenticate(request), authentication.custom);
    case 'none':
      return new Caller(DEFAULT_WORKSPACE_ID, ANONYMOUS);
  }
}

/** The refusals an auth module may answer, for the OpenAPI document (API keys: declareApiKeyAuth's). */
const CUSTOM_AUTH_RESPONSES = {
  401: errorResponse('the auth module refused the request (or answered with another status of its choice)'),
  403: errorResponse('an auth.on(…) handler of the auth module refused the action'),
};

/**
 * Every route registered after this in the same scope needs a caller (`callerOf(request)`);
 * the OpenAPI document of each says how it is authenticated and how it may be refused.
 */
export function requireCaller(scope: FastifyInstance, authentication: CallerAuthentication): void {
  scope.decorateRequest('caller', null);
  scope.addHook('onRequest', async (request) => {
    request.caller = await authenticate(authentication, request);
  });
  if (authentication.mode === 'api_key') declareApiKeyAuth(scope);
  else if (authentication.mode === 'custom')
    scope.addHook('onRoute', (route: RouteOptions) => {
      const schema = (route.schema ?? {}) as Record<string, unknown>;
      route.schema = { ...schema, response: { ...CUSTOM_AUTH_RESPONSES, ...(schema.response as object | undefined) } };
    });
}

export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller)
    throw new Error(`${request.method} ${request.routeOptions.url} is registered without requireCaller`);
  return request.caller;
}
