// A task a process runs every so often in the background (a sweeper, a scheduler's tick): one
// run at a time (the next waits for the previous to end), a failure logged and retried at the
// next tick, the timer never keeping the process alive, and stop() waiting for a run under way.
import type { Logger } from './logger.ts';

export interface PeriodicTask {
  /** Runs the task now (after a run under way), outside the schedule. */
  runNow(): Promise<void>;
  /** No more runs; resolves once a run under way has ended. */
  stop(): Promise<void>;
}

export function startPeriodicTask(options: {
  name: string;
  everyMs: number;
  run: () => Promise<void>;
  logger: Pick<Logger, 'warn'>;
}): PeriodicTask {
  let current: Promise<void> = Promise.resolve();
  let stopped = false;
  const once = () => {
    current = current.then(async () => {
      if (stopped) return;
      try {
        await options.run();
      } catch (err) {
        options.logger.warn(
          { task: options.name, err: (err as Error).message },
          'a periodic task failed; it runs again at its next tick',
        );
      }
    });
    return current;
  };
  const timer = setInterval(() => void once(), options.everyMs);
  timer.unref();
  return {
    runNow: once,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
