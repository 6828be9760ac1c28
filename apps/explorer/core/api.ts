// The explorer's calls to the tracing API it is served by (same origin): the API key and the
// workspace kept in localStorage, sent as X-Api-Key / X-Tenant-Id (../../shared/credentials.ts,
// which the chat page shares); every failure as an ApiError carrying the API's own code and
// message, for the page to show in words.
import { authHeaders, credentialStore, type Credentials, type Workspace } from '../../shared/credentials.ts';

export { authHeaders, type Credentials, type Workspace };

const credentials = credentialStore('explorer');
export const storedCredentials = (): Credentials | null => credentials.load();
export const storeCredentials = (c: Credentials | null): void => credentials.save(c);

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function apiCall<T>(
  credentials: Credentials,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  /** Sent as JSON; a FormData as multipart (the browser sets its boundary). */
  body?: unknown,
): Promise<T> {
  const headers: Record<string, string> = { ...authHeaders(credentials), accept: 'application/json' };
  const form = body instanceof FormData;
  if (body !== undefined && !form) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : form ? body : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, 'NETWORK', `the tracing API could not be reached (${(err as Error).message})`);
  }
  const text = await res.text();
  if (!res.ok) throw apiErrorOf(res, text);
  try {
    return (text ? JSON.parse(text) : null) as T;
  } catch {
    return null as T;
  }
}

/** A failed answer as an ApiError: the API's code and message when it sent them, else the status and text. */
export function apiErrorOf(res: Response, text: string): ApiError {
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON: the text is the message */
  }
  const p = (parsed ?? {}) as { code?: string; error?: string; message?: string; detail?: string };
  return new ApiError(
    res.status,
    p.code ?? p.error ?? `HTTP_${res.status}`,
    p.message ?? p.detail ?? (text || res.statusText),
  );
}

// ---- the shapes the page reads ----

export interface Project {
  id: string;
  name: string;
  description: string | null;
  start_time: string;
  run_count: number | null;
  error_rate: number | null;
  latency_p50: number | null;
  latency_p99: number | null;
  total_tokens: number | null;
  last_run_start_time: string | null;
}

export interface Run {
  id: string;
  trace_id: string;
  name: string;
  run_type: string;
  status?: string;
  start_time: string;
  end_time?: string | null;
  dotted_order?: string;
  parent_run_id?: string | null;
  session_id?: string;
  inputs?: unknown;
  outputs?: unknown;
  error?: string | null;
  tags?: string[] | null;
  extra?: { metadata?: Record<string, unknown> } & Record<string, unknown>;
  prompt_tokens?: number | null;
  completion_tokens?: number | null;
  total_tokens?: number | null;
  total_cost?: number | null;
}

export interface RunsPage {
  runs: Run[];
  cursors: { next: string | null };
}

export const listProjects = (c: Credentials) => apiCall<Project[]>(c, 'GET', '/sessions?include_stats=true&limit=100');
export const getProject = (c: Credentials, id: string) => apiCall<Project>(c, 'GET', `/sessions/${id}`);
export const queryRuns = (c: Credentials, body: Record<string, unknown>) =>
  apiCall<RunsPage>(c, 'POST', '/runs/query', body);
export const getRun = (c: Credentials, id: string) => apiCall<Run>(c, 'GET', `/runs/${id}`);

/** The key's workspaces (needs no X-Tenant-Id, so it works before one is chosen). */
export const listWorkspaces = (apiKey: string) =>
  apiCall<Workspace[]>({ apiKey, workspaceId: null }, 'GET', '/workspaces');
