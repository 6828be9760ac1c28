// Closed-loop load for the request/response benchmarks (agent server, its replicas): clients each
// sending their next request as soon as the previous one is answered, and one measured phase of
// that with the CPU of the processes that serve it.
import { readFileSync } from 'node:fs';
import { CpuMeter, coresUsed, cpuMicrosPer, percentile, round } from './measure.ts';

/** One request of a client (`client` = 0..concurrency-1); resolves to null when it succeeded, else what went wrong. */
export type Send = (client: number) => Promise<string | null>;

export interface Phase {
  rps: number | null;
  p50_ms: number | null;
  p99_ms: number | null;
  requests: number;
  failures?: Record<string, number>;
  /** Cores busy per process while the phase ran. */
  cores: Record<string, number | null>;
  /** CPU per answered request, per process: what a request costs, whatever bounds the rate. */
  cpu_us_per_request: Record<string, number | null>;
}

/** `concurrency` clients, each sending its next request when the previous one is answered, for `seconds`. */
export async function closedLoop(
  concurrency: number,
  seconds: number,
  send: Send,
): Promise<{ latenciesMs: number[]; seconds: number; failures: Record<string, number> }> {
  const latenciesMs: number[] = [];
  const failures: Record<string, number> = {};
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, client) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const failure = await send(client).catch((err: NodeJS.ErrnoException) => err.code ?? err.message);
        latenciesMs.push(performance.now() - t0);
        if (failure !== null) failures[failure] = (failures[failure] ?? 0) + 1;
      }
    }),
  );
  return { latenciesMs, seconds: (performance.now() - startedAt) / 1000, failures };
}

/** CPU seconds the whole machine has been busy (all cores), from /proc/stat; null off Linux. */
function machineBusySeconds(): number | null {
  try {
    const [, user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .map(Number);
    return (user! + nice! + system! + irq! + softirq! + steal!) / 100; // USER_HZ
  } catch {
    return null;
  }
}

export interface PhaseSettings {
  seconds: number;
  warmupSeconds: number;
  log: (msg: string) => void;
  /** Names in `pids` measured with their child processes (PostgreSQL's backends). */
  trees?: string[];
}

/**
 * Warms up, then measures one phase; `pids` are the processes whose CPU it reports (`other`: the
 * rest of the machine, which should be near 0).
 */
export async function measurePhase(
  name: string,
  concurrency: number,
  send: Send,
  pids: Record<string, number>,
  settings: PhaseSettings,
): Promise<Phase> {
  if (settings.warmupSeconds > 0) await closedLoop(concurrency, settings.warmupSeconds, send);
  const meter = new CpuMeter(pids, settings.trees);
  const busyBefore = machineBusySeconds();
  meter.start();
  const run = await closedLoop(concurrency, settings.seconds, send);
  const reading = meter.stop();
  const busy = busyBefore === null ? null : machineBusySeconds()! - busyBefore;
  const ours = Object.values(reading.cpuSeconds).reduce<number>((a, b) => a + (b ?? 0), 0);
  const cores = {
    ...coresUsed(reading),
    other: busy === null ? null : round(Math.max(0, busy - ours) / reading.wallSeconds, 2),
  };
  const failed = Object.values(run.failures).reduce((a, b) => a + b, 0);
  const phase: Phase = {
    rps: round((run.latenciesMs.length - failed) / run.seconds, 0),
    p50_ms: round(percentile(run.latenciesMs, 50), 2),
    p99_ms: round(percentile(run.latenciesMs, 99), 2),
    requests: run.latenciesMs.length,
    ...(failed > 0 ? { failures: run.failures } : {}),
    cores,
    cpu_us_per_request: cpuMicrosPer(run.latenciesMs.length, reading),
  };
  settings.log(
    `${name}: ${phase.rps} req/s, p50 ${phase.p50_ms} ms, p99 ${phase.p99_ms} ms, ${phase.requests} requests${failed ? `, failures ${JSON.stringify(run.failures)}` : ''}; cores ${JSON.stringify(phase.cores)}, CPU µs per request ${JSON.stringify(phase.cpu_us_per_request)}`,
  );
  return phase;
}
