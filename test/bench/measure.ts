// Small measuring helpers for the benchmarks: percentiles, and CPU time per process read
// from /proc (so a result says which process used the cores, not only how fast it went).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { childPids } from '../support/serviceProcess.ts';
import { procStat } from '../support/procStat.ts';
import os from 'node:os';

/** Nearest-rank percentile of unsorted samples; null when there are none. */
export function percentile(samples: readonly number[], p: number): number | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export const round = (value: number | null, digits = 1): number | null =>
  value === null || !Number.isFinite(value) ? null : Number(value.toFixed(digits));

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU seconds (user + system, all threads) used so far by a process; null when it is gone or not on Linux. */
export function cpuSeconds(pid: number): number | null {
  try {
    const { fields } = procStat(`/proc/${pid}/stat`);
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * CPU seconds of a process and its children: the live children's own, and those of children
 * already gone (the kernel adds a reaped child's time to its parent's cutime and cstime).
 */
export function treeCpuSeconds(pid: number): number | null {
  try {
    const { fields } = procStat(`/proc/${pid}/stat`);
    const own = (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
    return childPids(pid).reduce((sum, child) => sum + (cpuSeconds(child) ?? 0), own);
  } catch {
    return null;
  }
}

/**
 * CPU seconds so far of the threads of a process whose name (/proc/<pid>/task/<tid>/comm) matches:
 * one kind of a server's work, e.g. ClickHouse 18.16's background merges (`BackgrProcPool`)
 * apart from its queries and inserts (`HTTPHandler`). Null when no thread matches or the
 * process is gone. A matching thread that ended in between takes its time with it: meant for
 * a server's long-lived pools.
 */
export function threadsCpuSeconds(pid: number, name: RegExp): number | null {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  let ticks = 0;
  let matched = false;
  for (const tid of tids) {
    try {
      const { comm, fields } = procStat(`/proc/${pid}/task/${tid}/stat`);
      if (!name.test(comm)) continue;
      ticks += Number(fields[11]) + Number(fields[12]);
      matched = true;
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return matched ? ticks / TICKS_PER_SECOND : null;
}

/** Threads of a process to meter apart (threadsCpuSeconds), by the name a reading reports them under. */
export type ThreadGroups = Record<string, { pid: number; name: RegExp }>;

export interface CpuReading {
  wallSeconds: number;
  /** CPU seconds per process over the window (null: the process is gone). */
  cpuSeconds: Record<string, number | null>;
  /**
   * CPU seconds over the window of the thread groups the meter was given (a part of one of
   * the processes above, so never added to them).
   */
  threadCpuSeconds: Record<string, number | null>;
  /**
   * Seconds the machine's virtual CPUs waited for the host over the window, all cores together
   * (/proc/stat's steal; null where there is none to read): a virtual machine whose host is busy
   * runs every process slower, which looks like each one costing more per unit of work.
   */
  stealSeconds: number | null;
}

/** The machine's steal time so far, in seconds (the 8th value of /proc/stat's `cpu` line, in USER_HZ = 100 ticks/s). */
export function machineStealSeconds(): number | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const steal = Number(line.trim().split(/\s+/)[8]);
    return Number.isFinite(steal) ? steal / 100 : null;
  } catch {
    return null;
  }
}

/** What a counter gained between two readings; null when either is missing. */
const delta = (before: number | null | undefined, after: number | null): number | null =>
  before === null || before === undefined || after === null ? null : after - before;

/** CPU time per named process between start() and stop(); the processes named in `trees` with their children (a cluster's workers). */
export class CpuMeter {
  readonly #pids: Record<string, number>;
  readonly #trees: ReadonlySet<string>;
  readonly #threads: ThreadGroups;
  #startedAt = 0;
  #start: Record<string, number | null> = {};
  #threadsAtStart: Record<string, number | null> = {};
  #stealAtStart: number | null = null;

  constructor(pids: Record<string, number>, trees: readonly string[] = [], threads: ThreadGroups = {}) {
    this.#pids = pids;
    this.#trees = new Set(trees);
    this.#threads = threads;
  }

  #threadCpu(): Record<string, number | null> {
    return Object.fromEntries(
      Object.entries(this.#threads).map(([name, { pid, name: comm }]) => [name, threadsCpuSeconds(pid, comm)]),
    );
  }

  #cpu(name: string, pid: number): number | null {
    return this.#trees.has(name) ? treeCpuSeconds(pid) : cpuSeconds(pid);
  }

  start(): void {
    this.#startedAt = performance.now();
    this.#stealAtStart = machineStealSeconds();
    this.#threadsAtStart = this.#threadCpu();
    this.#start = Object.fromEntries(Object.entries(this.#pids).map(([name, pid]) => [name, this.#cpu(name, pid)]));
  }

  stop(): CpuReading {
    const wallSeconds = (performance.now() - this.#startedAt) / 1000;
    const out: Record<string, number | null> = {};
    for (const [name, pid] of Object.entries(this.#pids)) out[name] = delta(this.#start[name], this.#cpu(name, pid));
    const threadCpuSeconds: Record<string, number | null> = {};
    for (const [name, after] of Object.entries(this.#threadCpu()))
      threadCpuSeconds[name] = delta(this.#threadsAtStart[name], after);
    const steal = machineStealSeconds();
    const stealSeconds = steal === null || this.#stealAtStart === null ? null : round(steal - this.#stealAtStart, 2);
    return { wallSeconds, cpuSeconds: out, threadCpuSeconds, stealSeconds };
  }
}

/** Cores busy per process over a reading (1.0 = one core all the time). */
export const coresUsed = (r: CpuReading): Record<string, number | null> =>
  Object.fromEntries(
    Object.entries(r.cpuSeconds).map(([name, s]) => [name, s === null ? null : round(s / r.wallSeconds, 2)]),
  );

/** CPU microseconds per unit of work (e.g. per run) per process, over several readings. */
export function cpuMicrosPer(units: number, ...readings: CpuReading[]): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const r of readings)
    for (const [name, s] of Object.entries(r.cpuSeconds))
      out[name] = s === null || out[name] === null ? null : (out[name] ?? 0) + s;
  for (const name of Object.keys(out))
    out[name] = out[name] === null || units === 0 ? null : round((out[name]! * 1e6) / units, 1);
  return out;
}

/** CPU microseconds per unit of work per thread group (CpuMeter's `threads`), over several readings. */
export function threadCpuMicrosPer(units: number, ...readings: CpuReading[]): Record<string, number | null> {
  return cpuMicrosPer(units, ...readings.map((r) => ({ ...r, cpuSeconds: r.threadCpuSeconds })));
}

const REFERENCE_DATA = Buffer.alloc(4 * 1024 * 1024, 'runs of a trace ');
const REFERENCE_OBJECT = Array.from({ length: 2000 }, (_, i) => ({
  id: `run-${i}`,
  name: 'ChatModel',
  tags: ['a', 'b', String(i)],
  usage: { prompt: i, completion: i * 2, cost: i / 7 },
}));

/**
 * The CPU time of a fixed job on this thread, in ms, the least of three runs after one to warm up
 * (70–80 ms each here: the clock counts in ticks of a few ms): a hash of 16 MB (native code), 8,000
 * small objects through JSON and back (V8), and arithmetic. What it
 * measures is the machine, not our code: on a virtual machine whose host gets busier, every
 * process needs more CPU for the same work, and a benchmark's CPU per run rises with nothing
 * changed. Read at a run's start and end (and each sustained minute), it tells such a drift from
 * one in our code. Counted on this thread alone (process.threadCpuUsage), so the bench's own
 * sockets and timers are not in it.
 */
export function referenceJobMs(): number {
  const cpuOf = () => {
    const u = process.threadCpuUsage ? process.threadCpuUsage() : process.cpuUsage();
    return u.user + u.system;
  };
  let best = Number.POSITIVE_INFINITY;
  // A first run unmeasured: the loop is compiled during it.
  for (let run = -1; run < 3; run++) {
    const before = cpuOf();
    for (let k = 0; k < 4; k++) createHash('sha256').update(REFERENCE_DATA).digest();
    for (let k = 0; k < 4; k++) JSON.parse(JSON.stringify(REFERENCE_OBJECT));
    let x = 0;
    for (let i = 0; i < 12_000_000; i++) x = (x * 31 + i) % 1_000_003;
    if (x < 0) throw new Error('unreachable');
    if (run >= 0) best = Math.min(best, cpuOf() - before);
  }
  return round(best / 1000, 1)!;
}

/** How much slower the machine ran the reference job at the end than at the start, in % (negative: faster). */
export const machineSlowdownPct = (startMs: number | null, endMs: number | null): number | null =>
  startMs && endMs ? round((endMs / startMs - 1) * 100, 1) : null;

/**
 * How much a series moved over its span, as a trend and not as its two ends: the least-squares
 * line through the values (one per minute, say), from its value at the first point to its value
 * at the last, in % of the first. A sustained run's minutes scatter by ±5–10 % here (the host's
 * pace, the merges' timing), so the last minute against the first measures that scatter more
 * than any drift. Null for fewer than two values or a line through zero at the start.
 */
export function trendChangePct(values: readonly number[]): number | null {
  const n = values.length;
  if (n < 2) return null;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let x = 0; x < n; x++) {
    sxy += (x - meanX) * (values[x]! - meanY);
    sxx += (x - meanX) ** 2;
  }
  const slope = sxy / sxx;
  const first = meanY - slope * meanX;
  return first === 0 ? null : round(((slope * (n - 1)) / first) * 100, 1);
}

/** Resident memory of a process in MiB (VmRSS), null when it is gone. */
export function rssMiB(pid: number): number | null {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line ? Number(line.split(/\s+/)[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Resident memory of a process and its children in MiB, null when it is gone. */
export function treeRssMiB(pid: number): number | null {
  const own = rssMiB(pid);
  return own === null ? null : childPids(pid).reduce((sum, child) => sum + (rssMiB(child) ?? 0), own);
}

/** The monotonic clock in microseconds: the clock V8 stamps CPU profile samples with. */
export const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** The machine a figure was measured on, for a benchmark's JSON line. */
export const machineInfo = () => ({
  cores: os.availableParallelism(),
  cpu: os.cpus()[0]?.model ?? null,
  memory_gb: Number((os.totalmem() / 2 ** 30).toFixed(1)),
  os: `${os.type()} ${os.release()} ${os.arch()}`,
  node: process.version,
});
