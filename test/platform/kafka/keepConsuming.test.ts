// keepConsuming: a stream that ends while its owner is not stopping is replaced by a new one
// (after the policy's wait, through failed opens); stopping ends the work without another open.
import { EventEmitter } from 'node:events';
import { expect, test } from 'vitest';
import { keepConsuming, type ConsumerSession } from '../../../platform/kafka/keepConsuming.ts';

const policy = { initialDelayMs: 1, backoffCoefficient: 1, maxDelayMs: 1, maxAttempts: Infinity };
const logger = { warn: () => undefined, error: () => undefined };

/** Sessions whose stream is an emitter that 'close' ends; `failOpens` opens fail first. */
function sessions(failOpens = 0) {
  const opened: Array<ConsumerSession<EventEmitter> & { closed: boolean }> = [];
  let failures = 0;
  return {
    opened,
    open: async () => {
      if (failures < failOpens) {
        failures++;
        throw new Error('broker not available');
      }
      const session = {
        stream: new EventEmitter(),
        closed: false,
        close: async () => {
          session.closed = true;
        },
      };
      opened.push(session);
      return session;
    },
    read: (stream: EventEmitter) =>
      new Promise<void>((resolve, reject) => {
        stream.once('close', resolve);
        stream.once('error', reject);
      }),
  };
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 2));
  expect(condition()).toBe(true);
};

test('a stream that fails or ends is replaced by a new consumer; stopping opens no other', async () => {
  const s = sessions();
  const stop = new AbortController();
  let reopenings = 0;
  const kept = keepConsuming({
    what: 'test',
    logger,
    signal: stop.signal,
    policy,
    open: s.open,
    read: s.read,
    reopening: () => void reopenings++,
  });
  await kept.started;
  expect(s.opened).toHaveLength(1);

  s.opened[0]!.stream.emit('error', new Error('Cannot find broker with node id 3'));
  await until(() => s.opened.length === 2);
  expect(s.opened[0]!.closed).toBe(true);
  expect(kept.current()).toBe(s.opened[1]);

  s.opened[1]!.stream.emit('close');
  await until(() => s.opened.length === 3);
  expect(reopenings).toBe(2);

  stop.abort();
  s.opened[2]!.stream.emit('close');
  await kept.ended;
  expect(s.opened).toHaveLength(3);
  expect(s.opened.every((session) => session.closed)).toBe(true);
});

test('opens that fail after a stream ended are retried until one succeeds', async () => {
  const s = sessions();
  let attempts = 0;
  const open = async () => {
    attempts++;
    if (attempts >= 2 && attempts <= 4) throw new Error('no broker'); // the 2nd to 4th opens fail
    return s.open();
  };
  const stop = new AbortController();
  const kept = keepConsuming({ what: 'test', logger, signal: stop.signal, policy, open, read: s.read });
  await kept.started;
  s.opened[0]!.stream.emit('close');
  await until(() => s.opened.length === 2);
  expect(attempts).toBe(5);
  stop.abort();
  s.opened[1]!.stream.emit('close');
  await kept.ended;
});

test('a first open that fails rejects started, and nothing is retried', async () => {
  const s = sessions(1);
  const kept = keepConsuming({
    what: 'test',
    logger,
    signal: new AbortController().signal,
    policy,
    open: s.open,
    read: s.read,
  });
  await expect(kept.started).rejects.toThrow(/broker not available/);
  await kept.ended;
  expect(s.opened).toHaveLength(0);
});
