// Custom auth named by the config file's `auth.path`, in the LangGraph format: the module exports
// an `Auth` instance from `@langchain/langgraph-sdk/auth`. Its `authenticate` handler receives the
// request (a web `Request`) and returns a user id or `{identity, ...}`; its `auth.on(…)` handlers
// are asked before each action on a resource, and may stamp the value (e.g. `value.metadata.owner`),
// return a filter that narrows what the user sees (authFilters.ts), return false (403) or throw an
// HTTPException (its status). Handler lookup and results follow the LangGraph JS server
// (langgraph-api src/auth/index.mts). The user reaches the graph as `config.configurable.langgraph_auth_user(_id)`.
import { pathToFileURL } from 'node:url';
import type { FastifyRequest } from 'fastify';
import type { AuthEventValueMap } from '@langchain/langgraph-sdk/auth';
import { errors, type AppError } from '../../../platform/errors.ts';
import { checkAuthFilters, type AuthFilters } from './authFilters.ts';

export interface AuthUser {
  identity: string;
  display_name: string;
  permissions: string[];
  is_authenticated: boolean;
  [key: string]: unknown;
}

export interface AuthContext {
  user: AuthUser;
  scopes: string[];
}

/** The actions the server asks the handlers about, with the value each handler receives. */
export type AuthEvent = keyof AuthEventValueMap;
export type AuthEventValue<E extends AuthEvent> = AuthEventValueMap[E];

/** Who calls when the server authenticates no user (API keys, or auth off). */
export const ANONYMOUS: AuthContext = {
  user: { identity: 'anonymous', display_name: 'anonymous', permissions: [], is_authenticated: false },
  scopes: [],
};

type AuthenticateHandler = (request: Request) => Promise<unknown> | unknown;
type OnHandler = (request: {
  event: string;
  resource: string;
  action: string;
  value: unknown;
  permissions: string[];
  user: AuthUser;
}) => unknown;

interface AuthModule {
  '~handlerCache'?: { authenticate?: AuthenticateHandler; callbacks?: Record<string, OnHandler> };
}

export interface CustomAuth {
  authenticate(request: FastifyRequest): Promise<AuthContext>;
  /** Asks the module's handler for `event` (none: allowed, unfiltered); throws the refusal. */
  authorize<E extends AuthEvent>(
    context: AuthContext,
    event: E,
    value: AuthEventValue<E>,
  ): Promise<AuthFilters | undefined>;
}

function normalise(result: unknown): AuthContext {
  if (typeof result === 'string') {
    return { user: { identity: result, display_name: result, permissions: [], is_authenticated: true }, scopes: [] };
  }
  if (result && typeof result === 'object' && typeof (result as { identity?: unknown }).identity === 'string') {
    const r = result as Record<string, unknown> & { identity: string };
    const scopes = Array.isArray(r.permissions) ? (r.permissions as string[]) : [];
    return {
      user: {
        ...r,
        identity: r.identity,
        permissions: scopes,
        is_authenticated: (r.is_authenticated as boolean) ?? true,
        display_name: (r.display_name as string) ?? r.identity,
      },
      scopes,
    };
  }
  throw new Error('the auth handler must return a user id string or an object with an `identity` string');
}

/** The web Request the handler sees: same method, URL and headers as the HTTP request. */
function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(`${request.protocol}://${request.host}${request.url}`, { method: request.method, headers });
}

/** An HTTPException the handler throws answers with its status, message and headers; other errors stay errors of the module. */
function refusal(err: unknown, fallbackStatus: number | undefined): AppError | unknown {
  const e = err as { status?: unknown; message?: unknown; headers?: Record<string, string> };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 600) {
    return errors.refusedByAuthHandler(
      e.status,
      typeof e.message === 'string' && e.message ? e.message : 'Unauthorized',
      e.headers ?? {},
    );
  }
  if (fallbackStatus !== undefined)
    return errors.refusedByAuthHandler(fallbackStatus, err instanceof Error ? err.message : 'Unauthorized');
  return err;
}

export async function loadCustomAuth(ref: { file: string; exportName: string }): Promise<CustomAuth> {
  const module = (await import(pathToFileURL(ref.file).href)) as Record<string, unknown>;
  const handlers = (module[ref.exportName] as AuthModule | undefined)?.['~handlerCache'];
  const authenticate = handlers?.authenticate;
  if (!authenticate)
    throw new Error(
      `auth: export "${ref.exportName}" of ${ref.file} is not an Auth instance with an authenticate handler`,
    );
  const callbacks = handlers.callbacks ?? {};
  return {
    async authenticate(request) {
      let result: unknown;
      try {
        result = await authenticate(webRequest(request));
      } catch (err) {
        // Whatever the authenticate handler throws refuses the request: 401 unless it says otherwise.
        throw refusal(err, 401);
      }
      return normalise(result);
    },
    async authorize(context, event, value) {
      const [resource, action] = event.split(':') as [string, string];
      // The most specific handler wins: "threads:read", then "threads", then "*:read", then "*".
      const key = [event, resource, `*:${action}`, '*'].find((k) => callbacks[k]);
      if (!key) return undefined;
      let result: unknown;
      try {
        result = await callbacks[key]!({
          event,
          resource,
          action,
          value,
          permissions: context.scopes,
          user: context.user,
        });
      } catch (err) {
        throw refusal(err, undefined);
      }
      if (result === undefined || result === null || result === true) return undefined;
      if (result === false) throw errors.refusedByAuthHandler(403, 'Forbidden');
      if (typeof result !== 'object')
        throw new Error(
          `auth handler for "${event}" returned ${typeof result}; expected a filter object, true, false, null or undefined`,
        );
      return checkAuthFilters(result);
    },
  };
}

/** What the graph sees of the caller, in LangGraph's configurable keys. */
export function authConfigurable(auth: AuthContext): Record<string, unknown> {
  return {
    langgraph_auth_user: auth.user,
    langgraph_auth_user_id: auth.user.identity,
    langgraph_auth_permissions: auth.scopes,
  };
}
