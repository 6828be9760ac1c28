// platform/retry.ts: the curve a policy describes, when retry() stops (success, an error retrying
// cannot help, attempts or time spent, abort), and what it logs. Waits are recorded, not waited.
import { describe, expect, test } from 'vitest';
import {
  attemptsRemain,
  isRetryable,
  retry,
  retryDelayMs,
  type RetryOptions,
  type RetryPolicy,
} from '../../platform/retry.ts';
import { AppError, errors } from '../../platform/errors.ts';
import { ClickHouseError } from '../../platform/clickhouse/client.ts';

const doubling: RetryPolicy = { initialDelayMs: 100, backoffCoefficient: 2, maxDelayMs: 1000, maxAttempts: Infinity };

/** An attempt that fails `failures` times with `error`, then resolves 'done'; and the options that record every wait and log. */
function scripted(failures: number, error: unknown = new Error('store away')) {
  const waits: number[] = [];
  const logged: Array<Record<string, unknown>> = [];
  let calls = 0;
  const attempt = async (n: number) => {
    calls++;
    expect(n).toBe(calls);
    if (calls <= failures) throw error;
    return 'done';
  };
  const options: RetryOptions = {
    what: 'write rows',
    logger: { warn: ((fields: Record<string, unknown>) => void logged.push(fields)) as never },
    sleep: async (ms) => void waits.push(ms),
  };
  return { attempt, options, waits, logged, calls: () => calls };
}

describe('the curve', () => {
  test('starts at the first delay, grows by the coefficient and stops growing at the cap', () => {
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(doubling, n))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect([1, 2, 3].map((n) => retryDelayMs({ ...doubling, backoffCoefficient: 1 }, n))).toEqual([100, 100, 100]);
  });

  test('maxAttempts counts the first attempt', () => {
    const three = { ...doubling, maxAttempts: 3 };
    expect([1, 2, 3].map((n) => attemptsRemain(three, n))).toEqual([true, true, false]);
    expect(attemptsRemain(doubling, 1_000_000)).toBe(true);
  });
});

describe('retry()', () => {
  test("retries until the attempt succeeds, waiting the policy's curve and logging each retried failure", async () => {
    const s = scripted(6);
    await expect(retry(doubling, s.attempt, s.options)).resolves.toBe('done');
    expect(s.calls()).toBe(7);
    expect(s.waits).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(s.logged.map((l) => [l.what, l.attempt, l.delayMs, l.err])).toEqual(
      s.waits.map((ms, i) => ['write rows', i + 1, ms, 'store away']),
    );
  });

  test('gives up with the last error when the attempts are spent', async () => {
    const s = scripted(10);
    await expect(retry({ ...doubling, maxAttempts: 3 }, s.attempt, s.options)).rejects.toThrow('store away');
    expect(s.calls()).toBe(3);
    expect(s.waits).toEqual([100, 200]);
  });

  test('stops at once at an error that says retrying cannot help', async () => {
    const s = scripted(10, errors.eventTooLarge('too large for Kafka'));
    await expect(retry(doubling, s.attempt, s.options)).rejects.toMatchObject({ code: 'EVENT_TOO_LARGE' });
    expect(s.calls()).toBe(1);
    expect(s.waits).toEqual([]);
  });

  test('retries an error that says it may pass, and logs its code', async () => {
    const s = scripted(1, errors.kafkaUnavailable('no leader'));
    await expect(retry(doubling, s.attempt, s.options)).resolves.toBe('done');
    expect(s.logged[0]).toMatchObject({ code: 'EVENT_LOG_UNAVAILABLE', attempt: 1 });
  });

  test('retryIf narrows what is retried', async () => {
    const s = scripted(10, Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    const onlyResets = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ECONNRESET';
    await expect(retry(doubling, s.attempt, { ...s.options, retryIf: onlyResets })).rejects.toThrow('refused');
    expect(s.calls()).toBe(1);
  });

  test('gives up once the time budget is spent', async () => {
    let clock = 0;
    const s = scripted(10);
    const options: RetryOptions = { ...s.options, now: () => clock, sleep: async (ms) => void (clock += ms) };
    await expect(retry({ ...doubling, maxElapsedMs: 650 }, s.attempt, options)).rejects.toThrow('store away');
    // fails at 0, 100, 300, 700: past 650 after the fourth
    expect(s.calls()).toBe(4);
  });

  test('jitter takes up to its fraction off each wait', async () => {
    const s = scripted(3);
    await retry({ ...doubling, jitter: 0.5 }, s.attempt, { ...s.options, random: () => 1 });
    expect(s.waits).toEqual([50, 100, 200]);
  });

  test('an abort ends the wait at once and throws the last error', async () => {
    const controller = new AbortController();
    const failing = async () => {
      throw new Error('store away');
    };
    // A wait of an hour with the real timer: only the abort can end it before the test's timeout.
    const retrying = retry({ ...doubling, initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 }, failing, {
      what: 'write rows',
      signal: controller.signal,
    });
    setImmediate(() => controller.abort());
    await expect(retrying).rejects.toThrow('store away');
  });

  test('an abort before a failure stops after that attempt, without waiting', async () => {
    const controller = new AbortController();
    controller.abort();
    const s = scripted(10);
    await expect(retry(doubling, s.attempt, { ...s.options, signal: controller.signal })).rejects.toThrow('store away');
    expect(s.calls()).toBe(1);
    expect(s.waits).toEqual([]);
  });
});

describe('isRetryable', () => {
  test('the outermost error that says decides; one that says nothing may pass', () => {
    expect(isRetryable(new Error('socket hang up'))).toBe(true);
    expect(isRetryable(errors.readModelUnavailable())).toBe(true);
    expect(isRetryable(errors.validation('bad'))).toBe(false);
    const refused = new ClickHouseError(500, 'Code: 62, e.displayText() = DB::Exception: Syntax error', {
      exceptionCode: 62,
    });
    expect(isRetryable(refused)).toBe(false);
    expect(isRetryable(new Error('insert failed', { cause: refused })), 'a wrapper that says nothing').toBe(false);
    expect(
      isRetryable(errors.kafkaUnavailable('timed out', Object.assign(new Error('timeout'), { retryable: false }))),
      'the wrapper says',
    ).toBe(true);
    expect(new AppError('THREAD_BUSY', 'busy').retryable).toBe(true);
  });
});
