// platform/processPriority.ts: every thread of the process gets the nice value (V8's and libuv's
// threads started before the call included), the threads started afterwards inherit it, and a
// thread already nicer is left alone. In a child process: the test runner's priority stays.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const moduleUrl = new URL(`file://${join(import.meta.dirname, '../../platform/processPriority.ts')}`).href;
const procStatUrl = new URL(`file://${join(import.meta.dirname, '../support/procStat.ts')}`).href;

const script = (nice: number) => `
import { lowerProcessPriority } from ${JSON.stringify(moduleUrl)};
import { threadNices as niceOf } from ${JSON.stringify(procStatUrl)};
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

// runInLowPrioritySession: where the kernel groups sessions, the work runs in a child that leads a
// session of its own at the nice value; the launcher mirrors its exit, passes it signals, and a
// child whose launcher dies ends too.
const sessionsGrouped = (() => {
  try {
    return readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1';
  } catch {
    return false;
  }
})();

const sessionScript = (then: string) => `
import { readFileSync } from 'node:fs';
import { runInLowPrioritySession } from ${JSON.stringify(moduleUrl)};
import { procStat, threadNices } from ${JSON.stringify(procStatUrl)};
await runInLowPrioritySession(7);
const { fields } = procStat('/proc/self/stat');
const nices = threadNices();
console.log(JSON.stringify({ pid: process.pid, session: Number(fields[3]), nices, autogroup: readFileSync('/proc/self/autogroup', 'utf8').trim() }));
${then}
`;

interface Worker {
  pid: number;
  session: number;
  nices: number[];
  autogroup: string;
}

function launch(then: string) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', sessionScript(then)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const worker = new Promise<Worker>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as Worker);
    });
    child.once('exit', () => reject(new Error(`exited before it reported: ${out}`)));
  });
  return { child, exited, worker };
}

const gone = async (pid: number) => {
  for (let i = 0; i < 100; i++) {
    if (!existsSync(`/proc/${pid}`)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
};

it.runIf(sessionsGrouped)('works in a session of its own at the nice value, and exits as it does', async () => {
  const { child, exited, worker } = launch('process.exit(3);');
  const w = await worker;
  expect(w.pid).not.toBe(child.pid);
  expect(w.session).toBe(w.pid);
  expect(w.autogroup).toMatch(/ nice 7$/);
  expect(new Set(w.nices)).toEqual(new Set([7]));
  expect(await exited).toEqual({ code: 3, signal: null });
});

it.runIf(sessionsGrouped)('passes SIGTERM on, and a worker whose launcher is killed ends', async () => {
  const forever = 'setInterval(() => {}, 1000);';
  const a = launch(forever);
  const wa = await a.worker;
  a.child.kill('SIGTERM');
  expect(await a.exited).toEqual({ code: 128 + 15, signal: null });
  expect(await gone(wa.pid)).toBe(true);

  const b = launch(forever);
  const wb = await b.worker;
  b.child.kill('SIGKILL');
  await b.exited;
  expect(await gone(wb.pid)).toBe(true);
});
