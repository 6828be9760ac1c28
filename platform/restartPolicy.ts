// When a supervisor (services/main.ts, the local deployer's agent servers) restarts a process that
// exited. A crash of a running process is restarted, after a delay that grows while it keeps
// crashing; a process that cannot start is not, since another try fails the same way: one that
// exits with the cannot-start code (a bad configuration, a port another program holds), or that
// dies soon after each start, again and again.
import { CANNOT_START_EXIT_CODE } from './cannotStart.ts';
import { retryDelayMs, type RetryPolicy } from './retry.ts';

/** An exit this soon after the start counts as a failure to start. */
export const QUICK_EXIT_MS = 30_000;
/** This many quick exits in a row, and the service is given up. */
export const MAX_QUICK_EXITS = 3;
/** The wait before a crashed service is started again, growing while it keeps crashing soon after its start. */
export const SERVICE_RESTART_RETRY: RetryPolicy = {
  initialDelayMs: 500,
  backoffCoefficient: 2,
  maxDelayMs: 10_000,
  maxAttempts: MAX_QUICK_EXITS,
};

export type ServiceExit = { code: number | null; signal: NodeJS.Signals | null; ranMs: number };

export type RestartDecision = { restart: true; delayMs: number } | { restart: false; reason: string };

/** One per supervised process: it remembers how many times in a row the service has exited soon after its start. */
export class RestartPolicy {
  #quickExits = 0;

  decide(exit: ServiceExit): RestartDecision {
    if (exit.code === CANNOT_START_EXIT_CODE) {
      return { restart: false, reason: `it cannot start (exit code ${CANNOT_START_EXIT_CODE})` };
    }
    this.#quickExits = exit.ranMs < QUICK_EXIT_MS ? this.#quickExits + 1 : 0;
    if (this.#quickExits >= MAX_QUICK_EXITS) {
      const last = exit.signal ?? `exit code ${exit.code}`;
      const times = `${this.#quickExits} times in a row within ${QUICK_EXIT_MS / 1000} s of starting`;
      return { restart: false, reason: `it exited ${times} (last: ${last})` };
    }
    return { restart: true, delayMs: retryDelayMs(SERVICE_RESTART_RETRY, Math.max(1, this.#quickExits)) };
  }
}
