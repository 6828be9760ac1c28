// Where a process's latency goes, recorded from outside its code: preloaded with
// `--import ./test/bench/latencyTrace.ts` (e.g. BENCH_NODE_OPTIONS for the API and projector of
// bench:ingest, or on the benchmark's own command line), it records, with wall-clock times,
// event-loop delay (perf_hooks.monitorEventLoopDelay, per 100 ms window) and how long the main thread
// waited for a core while runnable in each window (/proc/self/schedstat: other processes on the
// machine, not this one's own work), GC pauses
// (PerformanceObserver 'gc'), each HTTP request the process serves (from its headers parsed to its
// response finished, node's http diagnostics channels) and each Kafka produce (the producer's
// send() from call to acknowledgement, and the produce request's broker round trip from its write
// to the socket to its answer, @platformatic/kafka's diagnostics channels). Every second it writes
// them to LATENCY_TRACE_DIR/<pid>.json (default <tmpdir>/latency-trace); nothing is printed.
// test/bench/latencyReport.ts reads the files and says, for a window (bench:ingest prints its
// half-load window), what each process went through and what surrounded the slowest requests.
import { subscribe, tracingChannel } from 'node:diagnostics_channel';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

const dir = process.env.LATENCY_TRACE_DIR ?? join(tmpdir(), 'latency-trace');
mkdirSync(dir, { recursive: true });
const file = join(dir, `${process.pid}.json`);
/** Wall-clock milliseconds of a performance.now() reading (comparable across processes). */
const wall = (t: number) => performance.timeOrigin + t;

const windows: Array<[at: number, eldMaxMs: number, eldP99Ms: number, runQueueMs: number]> = [];
const gcs: Array<[at: number, ms: number, kind: number]> = [];
const requests: Array<[at: number, ms: number]> = [];
const sends: Array<[at: number, ms: number, messages: number]> = [];
const produceRoundTrips: Array<[at: number, ms: number]> = [];

const eld = monitorEventLoopDelay({ resolution: 1 });
eld.enable();
/** Nanoseconds the main thread has waited for a core, runnable (Linux /proc/self/schedstat; 0 elsewhere). */
const runQueueNs = (): number => {
  try {
    return Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]);
  } catch {
    return 0;
  }
};
let lastRunQueueNs = runQueueNs();
setInterval(() => {
  const waited = runQueueNs();
  windows.push([Date.now(), eld.max / 1e6, eld.percentile(99) / 1e6, (waited - lastRunQueueNs) / 1e6]);
  lastRunQueueNs = waited;
  eld.reset();
}, 100).unref();

new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    gcs.push([wall(e.startTime), e.duration, (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0]);
}).observe({ entryTypes: ['gc'] });

const started = new WeakMap<object, number>();
subscribe('http.server.request.start', (m) => started.set((m as { response: object }).response, performance.now()));
subscribe('http.server.response.finish', (m) => {
  const t0 = started.get((m as { response: object }).response);
  if (t0 !== undefined) requests.push([wall(t0), performance.now() - t0]);
});

const begun = new WeakMap<object, number>();
const timed = (name: string, done: (context: Record<string, unknown>, t0: number) => void) => {
  const channel = tracingChannel(`plt:kafka:${name}`);
  channel.subscribe({
    start: (c) => void begun.set(c as object, performance.now()),
    end: () => {},
    asyncStart: (c) => {
      const t0 = begun.get(c as object);
      if (t0 !== undefined) done(c as Record<string, unknown>, t0);
    },
    asyncEnd: () => {},
    error: () => {},
  });
};
timed('producer:sends', (c, t0) => {
  const messages = (c.options as { messages?: unknown[] } | undefined)?.messages?.length ?? 0;
  sends.push([wall(t0), performance.now() - t0, messages]);
});
// apiKey 0 is Produce.
timed('connections:api', (c, t0) => {
  if (c.apiKey === 0) produceRoundTrips.push([wall(t0), performance.now() - t0]);
});

const dump = () => {
  try {
    writeFileSync(
      file,
      JSON.stringify({
        pid: process.pid,
        argv: process.argv.slice(1),
        windows,
        gcs,
        requests,
        sends,
        produceRoundTrips,
      }),
    );
  } catch {
    // A trace is best effort: never disturb the process measured.
  }
};
setInterval(dump, 1000).unref();
process.on('exit', dump);
