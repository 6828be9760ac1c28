// KeyedWaiters (runs/keyedWaiters.ts): one event settles every caller waiting on its run, and
// only those; a caller that gave up is dropped and never settled.
import { expect, test } from 'vitest';
import { KeyedWaiters } from '../../../../services/agent-server/runs/keyedWaiters.ts';

const settled = async <T>(promise: Promise<T>): Promise<T | 'pending'> =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), 10))]);

test('settles every waiter of a key, once, and none of another key', async () => {
  const waiters = new KeyedWaiters<string>();
  const a1 = waiters.wait('a');
  const a2 = waiters.wait('a');
  const b = waiters.wait('b');
  expect(waiters.keys().sort()).toEqual(['a', 'b']);
  waiters.settle('a', 'first');
  waiters.settle('a', 'second'); // nobody waits any more: dropped
  expect(await Promise.all([a1, a2])).toEqual(['first', 'first']);
  expect(await settled(b)).toBe('pending');
  expect([waiters.has('a'), waiters.has('b')]).toEqual([false, true]);
  expect(await settled(waiters.wait('a'))).toBe('pending');
});

test('a waiter whose signal aborts is dropped, and the key goes with its last waiter', async () => {
  const waiters = new KeyedWaiters<number>();
  const gaveUp = new AbortController();
  const dropped = waiters.wait('r', gaveUp.signal);
  const kept = waiters.wait('r');
  gaveUp.abort();
  waiters.settle('r', 7);
  expect(await kept).toBe(7);
  expect(await settled(dropped)).toBe('pending');

  const alone = new AbortController();
  void waiters.wait('s', alone.signal);
  alone.abort();
  expect(waiters.has('s')).toBe(false);
  const late = new AbortController();
  late.abort();
  void waiters.wait('t', late.signal);
  expect(waiters.has('t')).toBe(false);
});
