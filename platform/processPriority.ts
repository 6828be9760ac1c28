// Lowers this process's CPU scheduling priority (raises its nice value), for work that should
// yield the machine to what answers users: a replay rebuilding read models beside the running
// service, the projectors beside the APIs. Raising a nice value needs no privilege.
//
// Linux keeps a nice value per thread and Node's os.setPriority sets one thread's, so every
// thread the process has is niced (V8's and libuv's, started before this runs); threads started
// later inherit it from their creator. Where the kernel groups each session's threads
// (sched_autogroup_enabled, the default of most distributions) a nice value ranks a thread only
// against the threads of its own session, and sessions share the CPU as equals: the services
// `npm start` starts are its children, in its session, so the projectors yield to the APIs. A
// command run from a terminal of its own (a replay) is another session: runInLowPrioritySession
// gives it a session of its own at the nice value, so that it yields to everything else.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { constants, getPriority, setPriority } from 'node:os';

/** Sets every thread of this process to `nice` (0 to 19) where it is below it; answers how many threads it changed. */
export function lowerProcessPriority(nice: number): number {
  let threads: number[];
  try {
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    // No /proc (not Linux): the process's priority, which there covers its threads.
    if (getPriority() >= nice) return 0;
    setPriority(nice);
    return 1;
  }
  let changed = 0;
  for (const tid of threads) {
    try {
      if (getPriority(tid) >= nice) continue;
      setPriority(tid, nice);
      changed++;
    } catch {
      // a thread that ended meanwhile
    }
  }
  return changed;
}

/** Set in the child runInLowPrioritySession starts: it is the one that works. */
const SESSION_CHILD_ENV = 'LOW_PRIORITY_SESSION_CHILD';
const FORWARDED_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Lowers this script's priority to `nice` against everything on the machine. Where the kernel
 * groups sessions and this process does not lead its own, the script runs again as a child that
 * does (started detached, the same arguments and environment), whose session gets the nice
 * value; this process then only waits for it, passes it SIGINT, SIGTERM and SIGHUP, and exits as
 * it does: the promise never settles here. In that child, in a process that leads its session,
 * and where sessions are not grouped, it lowers this process's threads and resolves. A child
 * whose launcher dies (even by SIGKILL) ends too: it does not go on unseen.
 */
export function runInLowPrioritySession(nice: number): Promise<void> {
  if (nice <= 0) return Promise.resolve();
  lowerProcessPriority(nice);
  if (!sessionsGrouped()) return Promise.resolve();
  if (process.env[SESSION_CHILD_ENV] === '1' || sessionOf(process.pid) === process.pid) {
    lowerOwnSession(nice);
    if (process.channel) {
      // The launcher's end of the channel closes when it exits, however it exits.
      process.channel.unref();
      process.once('disconnect', () => process.exit(129));
    }
    return Promise.resolve();
  }
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [SESSION_CHILD_ENV]: '1' },
  });
  for (const signal of FORWARDED_SIGNALS) process.on(signal, () => child.kill(signal));
  child.once('error', (err) => {
    process.stderr.write(`could not start a session of lower priority: ${err.message}\n`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => {
    // A child ended by a signal: the shell's convention, 128 + the signal's number.
    process.exit(code ?? 128 + (signal ? constants.signals[signal] : 0));
  });
  return new Promise<void>(() => {});
}

function sessionsGrouped(): boolean {
  try {
    return readFileSync('/proc/sys/kernel/sched_autogroup_enabled', 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

/** Raises the nice value of this process's session group (/proc/self/autogroup) to `nice`. */
function lowerOwnSession(nice: number): void {
  try {
    const current = /nice (-?\d+)/.exec(readFileSync('/proc/self/autogroup', 'utf8'));
    if (current && Number(current[1]) >= nice) return;
    writeFileSync('/proc/self/autogroup', String(nice));
  } catch {
    // A kernel without the file, or one that refuses: the threads' own nice values stay.
  }
}

/** The session id of `pid` (the 6th field of /proc/<pid>/stat; the command may hold spaces and parentheses). */
function sessionOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}
