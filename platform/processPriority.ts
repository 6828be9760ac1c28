// Lowers this process's CPU scheduling priority (raises its nice value), for work that should
// yield the machine to what answers users: a replay rebuilding read models beside the running
// service, the projectors beside the APIs. Raising a nice value needs no privilege.
//
// Linux keeps a nice value per thread and Node's os.setPriority sets one thread's, so every
// thread the process has is niced (V8's and libuv's, started before this runs); threads started
// later inherit it from their creator. Where the kernel groups each session's threads
// (sched_autogroup_enabled, the default of most distributions) a nice value ranks a thread only
// against the threads of its own session, and sessions share the CPU as equals: the services
// `npm start` starts are its children, in its session, so the projectors yield to the APIs.
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

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
