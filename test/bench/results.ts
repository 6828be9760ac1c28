// A benchmark's result as data: the JSON line it prints on stdout, also written pretty to
// bench/results/<bench>.json, with what is needed to read it later: the commit (and whether the
// work tree had uncommitted changes), the date, the machine, the 1-minute load average when the
// run started and when it ended (a figure measured on a busy machine says so), the CPU time of a
// fixed job then (a host that slowed the machine down during the run says so), and the BENCH_*
// settings it ran with (none: the documented defaults). test/bench/renderPerformance.ts renders
// docs/performance.md from these files; their history is git's.
//
// A benchmark calls startBenchRun() first and run.finish(result) at the end, instead of printing.
// BENCH_RESULTS_DIR writes the file elsewhere (a trial run that should not replace the record).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { repoRoot } from '../support/serviceProcess.ts';
import { machineInfo, machineSlowdownPct, referenceJobMs } from './measure.ts';

export const RESULTS_DIR = join(repoRoot, 'bench', 'results');

/** What is recorded about a run beside the benchmark's own figures. */
export interface RunInfo {
  commit: string | null;
  /** True when tracked files differed from the commit: the figures are of code that is in no commit. */
  dirty: boolean | null;
  /** When the run started (ISO 8601, UTC). */
  date: string;
  /** Wall time of the whole run, setup included. */
  wall_seconds: number;
  /** The machine's 1-minute load average (runnable processes) when the run started and ended. */
  load_1m: { start: number; end: number };
  /**
   * The CPU time of a fixed job (referenceJobMs) when the run started and ended, and how much
   * slower the end's was in % (machine_slowdown_pct): the host's pace, which moves every
   * process's CPU per unit of work at once, apart from our code's. Absent from results recorded
   * before it was measured.
   */
  reference_job_ms?: { start: number; end: number };
  machine_slowdown_pct?: number | null;
  machine: ReturnType<typeof machineInfo>;
  /** The BENCH_* variables and arguments the run was started with; empty: the defaults. */
  settings: { env: Record<string, string>; args: string[] };
}

export type BenchResult = { bench: string } & Record<string, unknown>;
export type RecordedResult = BenchResult & RunInfo;

const load1m = () => Number(os.loadavg()[0]!.toFixed(2));

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/** The BENCH_* variables of this process (BENCH_RESULTS_DIR aside: where a result goes is not how it was measured). */
const benchSettings = (env: NodeJS.ProcessEnv) =>
  Object.fromEntries(
    Object.entries(env)
      .filter(
        (e): e is [string, string] => e[0].startsWith('BENCH_') && e[0] !== 'BENCH_RESULTS_DIR' && e[1] !== undefined,
      )
      .sort(([a], [b]) => a.localeCompare(b)),
  );

export interface BenchRun {
  /** Prints the result as one JSON line on stdout and writes it to <results dir>/<bench>.json; returns what was written. */
  finish(result: BenchResult): RecordedResult;
}

/** Notes the start of a benchmark run (commit, date, load average); call it before any setup. */
export function startBenchRun(): BenchRun {
  const startedAt = new Date();
  const started = performance.now();
  const loadStart = load1m();
  const referenceStart = referenceJobMs();
  // The code that runs is the code of the start: read before anything else changes the tree.
  const commit = git(['rev-parse', 'HEAD']);
  // Other benchmarks' results (and the page made from them) are outputs, not code: they do not make the tree dirty.
  const status = git([
    'status',
    '--porcelain',
    '--untracked-files=no',
    '--',
    '.',
    ':!bench/results',
    ':!docs/performance.md',
  ]);
  return {
    finish(result) {
      const referenceEnd = referenceJobMs();
      const info: RunInfo = {
        commit,
        dirty: status === null ? null : status !== '',
        date: startedAt.toISOString(),
        wall_seconds: Math.round((performance.now() - started) / 1000),
        load_1m: { start: loadStart, end: load1m() },
        reference_job_ms: { start: referenceStart, end: referenceEnd },
        machine_slowdown_pct: machineSlowdownPct(referenceStart, referenceEnd),
        machine: machineInfo(),
        settings: { env: benchSettings(process.env), args: process.argv.slice(2) },
      };
      const { bench, ...figures } = result;
      const recorded = { bench, ...info, ...figures } as RecordedResult;
      process.stdout.write(`${JSON.stringify(recorded)}\n`);
      const dir = process.env.BENCH_RESULTS_DIR ? resolve(process.env.BENCH_RESULTS_DIR) : RESULTS_DIR;
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${bench}.json`);
      writeFileSync(file, `${JSON.stringify(recorded, null, 2)}\n`);
      process.stderr.write(`[bench:${bench}] result written to ${file}\n`);
      return recorded;
    },
  };
}
