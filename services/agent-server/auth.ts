// Custom authentication named by the config file's `auth.path`, in the LangGraph format: the
// module exports an `Auth` instance from `@langchain/langgraph-sdk/auth` whose `authenticate`
// handler receives the request (a web `Request`) and returns a user id or `{identity, ...}`.
// The user reaches the graph as `config.configurable.langgraph_auth_user(_id)`.
import { pathToFileURL } from 'node:url';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../common/errors.ts';

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

/** Who calls when the server has no auth module. */
export const ANONYMOUS: AuthContext = {
  user: { identity: 'anonymous', display_name: 'anonymous', permissions: [], is_authenticated: false },
  scopes: [],
};

type AuthenticateHandler = (request: Request) => Promise<unknown> | unknown;

export type Authenticator = (request: FastifyRequest) => Promise<AuthContext>;

function normalise(result: unknown): AuthContext {
  if (typeof result === 'string') {
    return { user: { identity: result, display_name: result, permissions: [], is_authenticated: true }, scopes: [] };
  }
  if (result && typeof result === 'object' && typeof (result as { identity?: unknown }).identity === 'string') {
    const r = result as Record<string, unknown> & { identity: string };
    const scopes = Array.isArray(r.permissions) ? (r.permissions as string[]) : [];
    return {
      user: { ...r, identity: r.identity, permissions: scopes, is_authenticated: (r.is_authenticated as boolean) ?? true, display_name: (r.display_name as string) ?? r.identity },
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

/** Errors the handler throws with a status (the SDK's HTTPException) answer with that status. */
function authError(err: unknown): AppError {
  const e = err as { status?: unknown; message?: unknown; headers?: Record<string, string> };
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 600) {
    return new AppError('UNAUTHORIZED', e.status, typeof e.message === 'string' && e.message ? e.message : 'Unauthorized', e.headers ?? {});
  }
  return new AppError('UNAUTHORIZED', 401, err instanceof Error ? err.message : 'Unauthorized');
}

export async function loadAuthenticator(ref: { file: string; exportName: string } | undefined): Promise<Authenticator | undefined> {
  if (!ref) return undefined;
  const module = (await import(pathToFileURL(ref.file).href)) as Record<string, unknown>;
  const auth = module[ref.exportName] as { '~handlerCache'?: { authenticate?: AuthenticateHandler } } | undefined;
  const handler = auth?.['~handlerCache']?.authenticate;
  if (!handler) throw new Error(`auth: export "${ref.exportName}" of ${ref.file} is not an Auth instance with an authenticate handler`);
  return async (request) => {
    let result: unknown;
    try {
      result = await handler(webRequest(request));
    } catch (err) {
      throw authError(err);
    }
    return normalise(result);
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
