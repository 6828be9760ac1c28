// When a supervisor (services/main.ts, the local deployer) restarts a process: crashes of a running service, yes, with a growing
// delay; a service that cannot start (exit code 78) or dies soon after every start, no.
import { expect, test } from 'vitest';
import { MAX_QUICK_EXITS, QUICK_EXIT_MS, RestartPolicy } from '../../platform/restartPolicy.ts';

const crash = (ranMs: number) => ({ code: 1, signal: null, ranMs });

test('a service that cannot start is never restarted', () => {
  const decision = new RestartPolicy().decide({ code: 78, signal: null, ranMs: 200 });
  expect(decision).toEqual({ restart: false, reason: expect.stringContaining('cannot start') });
});

test('one that dies soon after each start is given up after a few tries, with growing delays in between', () => {
  const policy = new RestartPolicy();
  const delays: number[] = [];
  for (let exit = 1; exit < MAX_QUICK_EXITS; exit++) {
    const decision = policy.decide(crash(1_000));
    if (!decision.restart) throw new Error(`given up after ${exit} exits`);
    delays.push(decision.delayMs);
  }
  expect(delays).toEqual([500, 1000, 2000, 4000].slice(0, MAX_QUICK_EXITS - 1));
  expect(policy.decide({ code: null, signal: 'SIGSEGV', ranMs: 1_000 })).toEqual({
    restart: false,
    reason: expect.stringMatching(new RegExp(`exited ${MAX_QUICK_EXITS} times in a row .*SIGSEGV`)),
  });
});

test('a crash after a good run is restarted, and starts the count afresh', () => {
  const policy = new RestartPolicy();
  for (let exit = 1; exit < MAX_QUICK_EXITS; exit++) policy.decide(crash(1_000));
  expect(policy.decide(crash(QUICK_EXIT_MS + 1))).toEqual({ restart: true, delayMs: 500 });
  for (let exit = 1; exit < MAX_QUICK_EXITS; exit++) expect(policy.decide(crash(1_000)).restart).toBe(true);
  expect(policy.decide(crash(1_000)).restart).toBe(false);
});
