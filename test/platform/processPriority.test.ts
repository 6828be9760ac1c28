// platform/processPriority.ts: every thread of the process gets the nice value (V8's and libuv's
// threads started before the call included), the threads started afterwards inherit it, and a
// thread already nicer is left alone. In a child process: the test runner's priority stays.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const moduleUrl = new URL(`file://${join(import.meta.dirname, '../../platform/processPriority.ts')}`).href;

/** Each thread's nice value, from /proc/<pid>/task/<tid>/stat (the 19th field). */
const script = (nice: number) => `
import { readdirSync, readFileSync } from 'node:fs';
import { lowerProcessPriority } from ${JSON.stringify(moduleUrl)};
const niceOf = () => readdirSync('/proc/self/task').map((tid) => {
  const stat = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
});
const before = niceOf();
const changed = lowerProcessPriority(${nice});
// libuv's thread pool starts on first use, after the call: its threads inherit the value.
await Promise.all(Array.from({ length: 4 }, () => import('node:crypto').then((c) => new Promise((r) => c.pbkdf2('x', 'y', 1, 8, 'sha256', r)))));
console.log(JSON.stringify({ before, changed, after: niceOf(), again: lowerProcessPriority(${nice}) }));
`;

it.runIf(process.platform === 'linux')('nices every thread of the process, and the threads it starts later', () => {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script(7)], { encoding: 'utf8' });
  const { before, changed, after, again } = JSON.parse(out) as {
    before: number[];
    changed: number;
    after: number[];
    again: number;
  };
  expect(before.every((n) => n === before[0])).toBe(true);
  expect(changed).toBe(before.length);
  expect(after.length).toBeGreaterThan(before.length); // the thread pool's threads
  expect(new Set(after)).toEqual(new Set([7]));
  expect(again).toBe(0);
});
