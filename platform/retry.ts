// Retrying, written once. A policy is data (first wait, growth, cap, attempts, time budget), named
// by each caller beside the work it retries, as temporalio/sdk-typescript's RetryPolicy is; the
// error decides whether another attempt can help (`retryable`, errors.ts), as platformatic/kafka's
// `canRetry` does. retry() stops at the first error that says it cannot, when the attempts or the
// time budget are spent, or at once when its AbortSignal fires (mid-wait included); it logs each
// failed attempt it will retry, through the caller's logger. retryDelayMs() is the same curve for
// a retry that is scheduled rather than awaited (the export runs, whose schedule is an event).
import type { Logger } from './logger.ts';

export interface RetryPolicy {
  /** The wait after the first failed attempt. */
  initialDelayMs: number;
  /** Each wait is the one before times this (1: constant; 2: doubling). */
  backoffCoefficient: number;
  /** No wait is longer than this. */
  maxDelayMs: number;
  /** Attempts in all, the first included; Infinity: until success, an error retrying cannot help, or abort. */
  maxAttempts: number;
  /**
   * Gives up once this long has passed since the first attempt began (checked after each
   * failure): for work whose result stops mattering after a while, e.g. a lease.
   */
  maxElapsedMs?: number;
  /** Up to this fraction (0–1) of each wait is taken off at random: replicas that failed together retry apart. */
  jitter?: number;
}

/** The wait after `failedAttempts` failures (1: after the first), before jitter. */
export function retryDelayMs(policy: RetryPolicy, failedAttempts: number): number {
  const grown = policy.initialDelayMs * policy.backoffCoefficient ** Math.max(0, failedAttempts - 1);
  return Math.min(policy.maxDelayMs, grown);
}

/** Whether the policy allows another attempt after `failedAttempts` failures. */
export const attemptsRemain = (policy: RetryPolicy, failedAttempts: number): boolean =>
  failedAttempts < policy.maxAttempts;

/**
 * Whether retrying can help, as the error says: the outermost error in the `cause` chain with a
 * boolean `retryable` decides (a wrapper knows better than what it wraps). An error that says
 * nothing (a socket error, a bug) counts as retryable: a store that is away looks like that.
 */
export function isRetryable(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = err; e && typeof e === 'object' && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const said = (e as { retryable?: unknown }).retryable;
    if (typeof said === 'boolean') return said;
  }
  return true;
}

/** The code an error carries, for the log: our catalogue's, ClickHouse's number, or Node's errno name. */
function errorCode(err: unknown): string | number | undefined {
  const seen = new Set<unknown>();
  for (let e = err; e && typeof e === 'object' && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const { code, exceptionCode } = e as { code?: unknown; exceptionCode?: unknown };
    if (typeof exceptionCode === 'number') return exceptionCode;
    if (typeof code === 'string' || typeof code === 'number') return code;
  }
  return undefined;
}

export interface RetryOptions {
  /** What is tried, for the log ("insert runs"). */
  what: string;
  /** Where each retried failure is logged (warn). None: the caller reports the outcome itself. */
  logger?: Pick<Logger, 'warn'>;
  /** Ends the wait at once and gives up, throwing the last attempt's error. */
  signal?: AbortSignal;
  /** Whether an error may be retried; isRetryable by default. A caller that retries one failure only names it. */
  retryIf?: (err: unknown) => boolean;
  /** For tests: waits `ms` (or until `signal` fires); the clock; the random source of jitter. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  random?: () => number;
}

/** Waits `ms`, or less when `signal` fires. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Runs `attempt` until it resolves, retrying failures as `policy` allows. Throws the last error
 * when retrying cannot help (retryIf), the attempts or time budget are spent, or `signal` fires.
 * The attempt is told its number (1 for the first).
 */
export async function retry<T>(
  policy: RetryPolicy,
  attempt: (n: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const { what, logger, signal, retryIf = isRetryable, now = Date.now, random = Math.random } = options;
  const wait = options.sleep ?? sleep;
  const started = now();
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      const elapsed = now() - started;
      if (
        signal?.aborted ||
        !retryIf(err) ||
        !attemptsRemain(policy, n) ||
        (policy.maxElapsedMs !== undefined && elapsed > policy.maxElapsedMs)
      )
        throw err;
      const delayMs = Math.round(retryDelayMs(policy, n) * (1 - (policy.jitter ?? 0) * random()));
      const message = (err as Error)?.message ?? String(err);
      logger?.warn(
        { what, attempt: n, delayMs, code: errorCode(err), err: message },
        `${what} failed; retrying in ${delayMs} ms`,
      );
      await wait(delayMs, signal);
      if (signal?.aborted) throw err;
    }
  }
}
