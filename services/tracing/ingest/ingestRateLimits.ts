// Per-workspace rate limits of the ingestion routes (docs/ingestion.md): "basic" (POST /runs and
// PATCH /runs/{id}, one run operation a request) lower than "batch" (/runs/batch and
// /runs/multipart, up to INGEST_SIZE_LIMIT_OPS each). A request over its limit is refused in
// onRequest, once the API key has named the workspace and before the body is read: 429
// RATE_LIMITED with Retry-After, nothing appended. The buckets live in this process: what they
// guard (its CPU, its produce calls) is the process's, and a count shared by every process would
// cost each request a round trip to a store that writes do not otherwise need.
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { Config } from '../../../platform/config.ts';
import { errors } from '../../../platform/errors.ts';
import { ingestRequestsRateLimited } from '../../../platform/metrics.ts';
import { tenantOf } from '../../tenancy/index.ts';

/** How often full buckets are dropped from memory (a full bucket and no bucket are the same). */
const SWEEP_MS = 60_000;

/**
 * A token bucket per key holding `burst` requests, refilled at `perSecond`, kept the way GCRA
 * does: one number per key, the time at which its bucket is full again.
 */
export class RateLimit {
  readonly perSecond: number;
  readonly burst: number;
  readonly #intervalMs: number;
  readonly #toleranceMs: number;
  readonly #fullAt = new Map<string, number>();
  #sweptAt = 0;

  constructor(perSecond: number, burst: number) {
    if (!(perSecond > 0) || !(burst >= 1))
      throw new Error(`a rate limit needs a rate > 0 and a burst >= 1, got ${perSecond} and ${burst}`);
    this.perSecond = perSecond;
    this.burst = burst;
    this.#intervalMs = 1000 / perSecond;
    this.#toleranceMs = this.#intervalMs * burst;
  }

  /** Takes one request for `key` at `now` (ms, monotonic): 0 when taken, else how many ms until one would be. */
  take(key: string, now: number): number {
    const fullAt = Math.max(this.#fullAt.get(key) ?? now, now) + this.#intervalMs;
    const wait = fullAt - now - this.#toleranceMs;
    if (wait > 0) return wait;
    this.#fullAt.set(key, fullAt);
    if (now - this.#sweptAt >= SWEEP_MS) this.#sweep(now);
    return 0;
  }

  /** Keys whose bucket is not full (for tests). */
  get size(): number {
    return this.#fullAt.size;
  }

  #sweep(now: number): void {
    this.#sweptAt = now;
    for (const [key, fullAt] of this.#fullAt) if (fullAt <= now) this.#fullAt.delete(key);
  }
}

export type IngestRateLimitConfig = Pick<
  Config,
  | 'INGEST_BASIC_RATE_PER_S'
  | 'INGEST_BASIC_BURST'
  | 'INGEST_BATCH_RATE_PER_S'
  | 'INGEST_BATCH_BURST'
  | 'INGEST_SIZE_LIMIT_OPS'
>;

/** The onRequest hooks of the two kinds of ingestion route; undefined where the limit is off (rate 0). */
export interface IngestRateLimits {
  basic: onRequestAsyncHookHandler | undefined;
  batch: onRequestAsyncHookHandler | undefined;
}

const rate = (perSecond: number, burst: number) => `${perSecond} a second with bursts of ${burst}`;

/** One set per process, shared by the routes at / and under /api/v1. */
export function ingestRateLimits(config: IngestRateLimitConfig): IngestRateLimits {
  const basic =
    config.INGEST_BASIC_RATE_PER_S > 0
      ? new RateLimit(config.INGEST_BASIC_RATE_PER_S, config.INGEST_BASIC_BURST)
      : null;
  const batch =
    config.INGEST_BATCH_RATE_PER_S > 0
      ? new RateLimit(config.INGEST_BATCH_RATE_PER_S, config.INGEST_BATCH_BURST)
      : null;
  const batchRate = batch ? `at up to ${rate(batch.perSecond, batch.burst)}` : 'without a limit';
  return {
    basic: basic
      ? hook(
          basic,
          'basic',
          `this workspace's requests to POST /runs and PATCH /runs/{id} are over their limit of ${rate(basic.perSecond, basic.burst)} ` +
            `on this API process (INGEST_BASIC_RATE_PER_S, INGEST_BASIC_BURST); batch ingestion (POST /runs/multipart or /runs/batch) ` +
            `takes up to ${config.INGEST_SIZE_LIMIT_OPS} run operations a request, ${batchRate}`,
        )
      : undefined,
    batch: batch
      ? hook(
          batch,
          'batch',
          `this workspace's requests to POST /runs/batch and /runs/multipart are over their limit of ${rate(batch.perSecond, batch.burst)} ` +
            'on this API process (INGEST_BATCH_RATE_PER_S, INGEST_BATCH_BURST)',
        )
      : undefined,
  };
}

function hook(limit: RateLimit, name: 'basic' | 'batch', overLimit: string): onRequestAsyncHookHandler {
  return async (request: FastifyRequest) => {
    const wait = limit.take(tenantOf(request), performance.now());
    if (wait === 0) return;
    ingestRequestsRateLimited.inc({ limit: name });
    throw errors.rateLimited(overLimit, Math.max(1, Math.ceil(wait / 1000)));
  };
}
