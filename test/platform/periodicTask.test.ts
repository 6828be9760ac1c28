// platform/periodicTask.ts: runs one at a time, goes on after a failure (logged), and stop()
// waits for the run under way and prevents any other.
import { describe, expect, it } from 'vitest';
import { startPeriodicTask } from '../../platform/periodicTask.ts';

const quietLogger = () => {
  const warnings: unknown[] = [];
  return { warnings, logger: { warn: (...args: unknown[]) => void warnings.push(args) } };
};

describe('startPeriodicTask', () => {
  it('never runs twice at once, and runs again after a failure', async () => {
    const { warnings, logger } = quietLogger();
    let running = 0;
    let overlapped = false;
    let runs = 0;
    const task = startPeriodicTask({
      name: 'test',
      everyMs: 1,
      logger,
      run: async () => {
        running++;
        overlapped ||= running > 1;
        runs++;
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        if (runs === 2) throw new Error('second run fails');
      },
    });
    await expect.poll(() => runs, { timeout: 10_000 }).toBeGreaterThanOrEqual(5);
    await task.stop();
    expect(overlapped).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain('second run fails');
  });

  it('stop() waits for the run under way, and no run starts after it', async () => {
    const { logger } = quietLogger();
    let release!: () => void;
    let started = 0;
    let finished = 0;
    const task = startPeriodicTask({
      name: 'test',
      everyMs: 60_000,
      logger,
      run: async () => {
        started++;
        await new Promise<void>((resolve) => (release = resolve));
        finished++;
      },
    });
    void task.runNow();
    await expect.poll(() => started).toBe(1);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(1);
    await task.runNow();
    expect(started).toBe(1);
  });
});
