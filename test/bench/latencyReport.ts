// Reads what test/bench/latencyTrace.ts recorded (one file per process) and says, for a time
// window, how each process fared: its HTTP requests, its produce calls against the broker's
// round trips (the difference is waiting in the producer), GC, event-loop delay and how long
// its main thread waited for a core. Then the slowest requests, each with what happened around
// it. One JSON object on stdout.
//
//   node test/bench/latencyReport.ts <dir> [--from <epoch ms>] [--to <epoch ms>]
//
// bench:ingest prints its half-load phase's window in its JSON line (half_load.started_at,
// half_load.ended_at).
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile, round } from './measure.ts';

interface Trace {
  pid: number;
  argv: string[];
  windows: Array<[at: number, eldMaxMs: number, eldP99Ms: number, runQueueMs: number]>;
  gcs: Array<[at: number, ms: number, kind: number]>;
  requests: Array<[at: number, ms: number]>;
  sends: Array<[at: number, ms: number, messages: number]>;
  produceRoundTrips: Array<[at: number, ms: number]>;
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { from: { type: 'string' }, to: { type: 'string' } },
});
const dir = positionals[0];
if (!dir) {
  process.stderr.write('usage: node test/bench/latencyReport.ts <dir> [--from <epoch ms>] [--to <epoch ms>]\n');
  process.exit(2);
}
const from = values.from ? Number(values.from) : 0;
const to = values.to ? Number(values.to) : Number.POSITIVE_INFINITY;
const within = <T extends [number, ...number[]]>(rows: T[]): T[] => rows.filter(([at]) => at >= from && at <= to);
const spread = (ms: number[]) => ({
  n: ms.length,
  p50_ms: round(percentile(ms, 50)),
  p99_ms: round(percentile(ms, 99)),
  max_ms: round(ms.length ? Math.max(...ms) : null),
});

const traces: Trace[] = readdirSync(dir)
  .filter((f) => /^\d+\.json$/.test(f))
  .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Trace);

const processes = traces.map((t) => {
  const windows = within(t.windows);
  const gcs = within(t.gcs);
  return {
    process: `${basename(t.argv[0] ?? '?')} (${t.pid})`,
    requests: spread(within(t.requests).map(([, ms]) => ms)),
    produce_calls: spread(within(t.sends).map(([, ms]) => ms)),
    produce_round_trips: spread(within(t.produceRoundTrips).map(([, ms]) => ms)),
    gc: {
      n: gcs.length,
      total_ms: round(gcs.reduce((s, [, ms]) => s + ms, 0)),
      max_ms: round(gcs.length ? Math.max(...gcs.map(([, ms]) => ms)) : null),
    },
    event_loop_delay: {
      max_ms: round(windows.length ? Math.max(...windows.map((w) => w[1])) : null),
      windows_over_20_ms: windows.filter((w) => w[1] > 20).length,
      windows: windows.length,
    },
    run_queue_wait: {
      total_ms: round(windows.reduce((s, w) => s + (w[3] ?? 0), 0)),
      max_per_100ms_ms: round(windows.length ? Math.max(...windows.map((w) => w[3] ?? 0)) : null),
    },
  };
});

// The slowest requests of the process that served any, with the other processes' state around them.
const server = traces.filter((t) => t.requests.length > 0).sort((a, b) => b.requests.length - a.requests.length)[0];
const slowest = server
  ? within(server.requests)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([at, ms]) => ({
        at: Math.round(at),
        ms: round(ms),
        around: Object.fromEntries(
          traces.map((t) => {
            const near = t.windows.filter(([w]) => w >= at && w <= at + ms + 100);
            const gc = t.gcs.filter(([g]) => g >= at && g <= at + ms).reduce((s, [, d]) => s + d, 0);
            const trips = t.produceRoundTrips.filter(([r]) => r >= at && r <= at + ms).map(([, d]) => d);
            return [
              `${basename(t.argv[0] ?? '?')} (${t.pid})`,
              {
                event_loop_delay_max_ms: round(near.length ? Math.max(...near.map((w) => w[1])) : null),
                run_queue_wait_ms: round(near.reduce((s, w) => s + (w[3] ?? 0), 0)),
                gc_ms: round(gc),
                produce_round_trip_max_ms: round(trips.length ? Math.max(...trips) : null),
              },
            ];
          }),
        ),
      }))
  : [];

process.stdout.write(
  JSON.stringify({ window: { from: from || null, to: Number.isFinite(to) ? to : null }, processes, slowest }) + '\n',
);
