import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test } from 'vitest';
import {
  CpuMeter,
  cpuSeconds,
  machineSlowdownPct,
  referenceJobMs,
  threadCpuMicrosPer,
  threadsCpuSeconds,
  trendChangePct,
} from './measure.ts';

test('threadsCpuSeconds: the CPU of the threads a name matches, apart; null when none does or the process is gone', async () => {
  // A process of one thread that only burns CPU: its thread's time is the process's time.
  const busy = spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' });
  const pid = busy.pid!;
  try {
    const meter = new CpuMeter({ busy: pid }, [], { shell: { pid, name: /^sh$/ }, other: { pid, name: /^nope$/ } });
    meter.start();
    while ((cpuSeconds(pid) ?? 0) < 0.3) await sleep(50);
    const reading = meter.stop();
    expect(threadsCpuSeconds(pid, /^nope$/)).toBeNull();
    // One thread: what its group reads is what the process reads (both in ticks of 10 ms).
    expect(reading.threadCpuSeconds.shell).toBeCloseTo(reading.cpuSeconds.busy!, 1);
    expect(reading.threadCpuSeconds.shell).toBeGreaterThan(0);
    expect(reading.threadCpuSeconds.other).toBeNull();
    expect(threadCpuMicrosPer(1000, reading).shell).toBeCloseTo((reading.threadCpuSeconds.shell! * 1e6) / 1000, 0);
  } finally {
    busy.kill('SIGKILL');
    await once(busy, 'exit');
  }
  expect(threadsCpuSeconds(pid, /^sh$/)).toBeNull();
});

test('referenceJobMs: a positive CPU time of the same job; machineSlowdownPct compares two', () => {
  const ms = referenceJobMs();
  expect(ms).toBeGreaterThan(0);
  expect(machineSlowdownPct(70, 98)).toBe(40);
  expect(machineSlowdownPct(80, 72)).toBe(-10);
  expect(machineSlowdownPct(null, 72)).toBeNull();
});

test('trendChangePct: the least-squares line’s change over the series, not its two ends', () => {
  expect(trendChangePct([100, 110, 120, 130])).toBe(30);
  expect(trendChangePct([100, 100, 100, 100])).toBe(0);
  // the last point low, the rest flat: the ends say -10 %, the trend a fraction of it
  expect(trendChangePct([100, 100, 100, 100, 100, 100, 100, 100, 100, 90])).toBe(-4.8);
  // scatter around a flat line, ends apart (a sustained run's minutes): no drift
  expect(trendChangePct([11595, 10221, 10817, 11283, 12409, 11263, 11393, 11527, 11801, 10393])).toBe(1.5);
  expect(trendChangePct([80, 72])).toBe(-10);
  expect(trendChangePct([5])).toBeNull();
  expect(trendChangePct([])).toBeNull();
});
