// Callers' API keys verified by the platform over HTTP, for an agent server that has no access to
// the tenancy topic: a server the control plane deployed (LANGSMITH_AUTH_ENDPOINT). Each key is
// checked with `GET <endpoint>/workspaces/current`, sending the caller's X-Api-Key and X-Tenant-Id
// as they came: the platform answers the workspace the request acts in, or refuses it exactly as
// its own routes would, and that refusal is this server's answer too.
//
// Answers are kept for CACHE_MS, the refusals too (a flood of wrong keys costs the platform one
// request a second per key), and requests for a key being checked wait for that one check. So a
// revoked key is refused here within CACHE_MS of the platform refusing it, about as fast as a
// server folding the tenancy topic sees the revocation.
import { createHash } from 'node:crypto';
import { AppError, ERROR_CODES, errors, type ErrorCode } from '../../../platform/errors.ts';

/** How long an answer of the platform is used before the key is checked again. */
export const CACHE_MS = 1_000;
/** How long a check may take before the request is answered with a 503. */
const CHECK_TIMEOUT_MS = 5_000;
/** Keys kept at most; past that the cache starts afresh (a memory bound under a flood of distinct keys). */
const MAX_ENTRIES = 10_000;

interface Entry {
  at: number;
  answer: Promise<string>;
}

export class PlatformKeys {
  readonly #url: string;
  readonly #cache = new Map<string, Entry>();

  /** `endpoint`: the platform's base URL (the control plane's or the tracing API's). */
  constructor(endpoint: string) {
    this.#url = `${endpoint.replace(/\/+$/, '')}/workspaces/current`;
  }

  /** The workspace the key acts in (X-Tenant-Id choosing among several); refused as the platform refuses it. */
  authenticate(apiKey: string | undefined, tenantId: string | undefined): Promise<string> {
    if (!apiKey) return Promise.reject(errors.missingApiKey());
    const id = `${createHash('sha256').update(apiKey).digest('hex')}\0${tenantId ?? ''}`;
    const now = Date.now();
    const cached = this.#cache.get(id);
    if (cached && now - cached.at < CACHE_MS) return cached.answer;
    if (this.#cache.size >= MAX_ENTRIES) this.#cache.clear();
    const answer = this.#check(apiKey, tenantId);
    // An unavailable platform is not an answer about the key: the next request asks again.
    answer.catch((err: unknown) => {
      if (!(err instanceof AppError) || err.statusCode >= 500) this.#cache.delete(id);
    });
    this.#cache.set(id, { at: now, answer });
    return answer;
  }

  async #check(apiKey: string, tenantId: string | undefined): Promise<string> {
    let res: Response;
    try {
      res = await fetch(this.#url, {
        headers: { 'x-api-key': apiKey, ...(tenantId ? { 'x-tenant-id': tenantId } : {}), accept: 'application/json' },
        signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
      });
    } catch (err) {
      throw errors.authUnavailable(this.#url, (err as Error).message, err);
    }
    const body = (await res.json().catch(() => null)) as { id?: unknown; error?: unknown; detail?: unknown } | null;
    if (res.ok && typeof body?.id === 'string') return body.id;
    const code = typeof body?.error === 'string' && body.error in ERROR_CODES ? (body.error as ErrorCode) : null;
    if (res.status >= 400 && res.status < 500 && code)
      throw new AppError(code, typeof body?.detail === 'string' ? body.detail : `refused with ${res.status}`, {
        status: res.status,
      });
    throw errors.authUnavailable(this.#url, `it answered ${res.status}`);
  }
}
