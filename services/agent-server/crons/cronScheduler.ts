// Starts crons' runs on schedule. Every agent server runs one: it claims the due crons from the
// store (which moves each one's next_run_date to its next tick as it claims it: one replica per
// tick, see postgresCronStore.ts) and starts their runs, then sleeps until the earliest
// next_run_date it knows of, AGENT_SERVER_CRON_TICK_MS at most (a cron another replica created
// meanwhile is seen within that). A cron created or changed here wakes it at once. A cron past
// its next_run_date when a server starts (every server was down at its tick) runs once, then
// keeps to its schedule: missed ticks are not made up.
import type { Logger } from '../../../platform/logger.ts';
import { AppError } from '../../../platform/errors.ts';
import type { CronStore, StoredCron } from './cronRecords.ts';

/** How many crons one claim takes (a tick with more claims again at once). */
const BATCH = 100;
/** Never sooner than this between two looks at the store (a cron due while another replica holds its row). */
const MIN_SLEEP_MS = 10;
/** Woken this much after the next due time, so that the store, on its own clock, sees it due. */
const DUE_MARGIN_MS = 5;

export interface CronSchedulerOptions {
  store: CronStore;
  /** Starts (admits) the run of a claimed cron's tick: cronRun.ts startCronRun. */
  start: (stored: StoredCron) => Promise<unknown>;
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** The longest it sleeps between two looks at the store. */
  tickMs: number;
}

export class CronScheduler {
  readonly store: CronStore;
  readonly #options: CronSchedulerOptions;
  #loop: Promise<void> | undefined;
  #stopped = false;
  /** Set by wake() while it is not sleeping: the next sleep returns at once. */
  #woken = false;
  #wakeSleep: (() => void) | undefined;

  constructor(options: CronSchedulerOptions) {
    this.store = options.store;
    this.#options = options;
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  /** Looks at the store now (a cron was created or changed here). */
  wake(): void {
    this.#woken = true;
    this.#wakeSleep?.();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.wake();
    await this.#loop;
  }

  /** Claims every due cron and starts its run; how many runs it started. */
  async tick(): Promise<number> {
    let started = 0;
    for (;;) {
      const due = await this.store.claimDue(BATCH);
      // together: each waits on its own queries (thread, queue), not on the others'
      started += (await Promise.all(due.map((stored) => this.#fire(stored)))).filter(Boolean).length;
      if (due.length < BATCH || this.#stopped) return started;
    }
  }

  async #fire(stored: StoredCron): Promise<boolean> {
    const { cron } = stored;
    const about = { cron_id: cron.cron_id, thread_id: cron.thread_id, assistant_id: cron.assistant_id };
    try {
      await this.#options.start(stored);
      return true;
    } catch (err) {
      const code = err instanceof AppError ? err.code : undefined;
      if (code === 'NOT_FOUND') {
        // Its thread (or assistant) is gone: so is the cron, as a thread's crons go with it.
        await this.store.delete({ workspaceId: stored.workspaceId }, cron.cron_id).catch(() => false);
        this.#options.logger.warn(
          { ...about, err: (err as Error).message },
          'a cron was deleted: what it runs is gone',
        );
      } else if (code === 'THREAD_BUSY') {
        this.#options.logger.info(
          about,
          'a cron’s tick was skipped: its thread is running a run (multitask_strategy reject)',
        );
      } else {
        this.#options.logger.error({ ...about, err: (err as Error).message }, 'a cron’s run could not be started');
      }
      return false;
    }
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      let sleepMs = this.#options.tickMs;
      try {
        // At rest one query per look: the claim (a transaction) only when a cron is due.
        let untilDue = await this.store.msUntilNextDue();
        if (untilDue !== undefined && untilDue <= 0) {
          await this.tick();
          untilDue = await this.store.msUntilNextDue();
        }
        if (untilDue !== undefined) sleepMs = Math.min(sleepMs, Math.max(MIN_SLEEP_MS, untilDue + DUE_MARGIN_MS));
      } catch (err) {
        if (this.#stopped) return;
        this.#options.logger.warn(
          { err: (err as Error).message },
          'the cron scheduler could not read the crons; it tries again',
        );
      }
      await this.#sleep(sleepMs);
    }
  }

  #sleep(ms: number): Promise<void> {
    if (this.#woken || this.#stopped) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wakeSleep = undefined;
        this.#woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.#wakeSleep = done;
    });
  }
}
