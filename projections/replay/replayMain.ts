// npm run replay -- --view runs|traces|threads|examples|all [--view …] [--no-swap] [--json]
// Rebuilds read models from the topics while the service keeps running (see replay.ts), at the
// nice value REPLAY_NICE (default 10), so that the service's reads keep answering. --json prints
// the summary as one JSON line (with the replay's CPU seconds) instead of a progress bar and prose.
import { parseArgs } from 'node:util';
import { SingleBar, Presets } from 'cli-progress';
import { loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { BlobStore } from '../../platform/blobStore.ts';
import { REPLAY_VIEWS, replay, type ReplayView } from './replay.ts';
import { useConsumerBufferPool } from '../../platform/kafka/consumerBuffers.ts';
import { runInLowPrioritySession } from '../../platform/processPriority.ts';

useConsumerBufferPool();

const { values } = parseArgs({
  options: {
    view: { type: 'string', multiple: true, default: ['all'] },
    'no-swap': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
const usage = `usage: npm run replay -- --view ${[...REPLAY_VIEWS, 'all'].join('|')} [--view …] [--no-swap] [--json]`;
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const views = new Set<ReplayView>();
for (const v of values.view) {
  if (v === 'all') REPLAY_VIEWS.forEach((x) => views.add(x));
  else if ((REPLAY_VIEWS as readonly string[]).includes(v)) views.add(v as ReplayView);
  else {
    console.error(`unknown view "${v}"\n${usage}`);
    process.exit(2);
  }
}

const config = loadConfig();
const logger = createLogger('replay', process.env.LOG_LEVEL ?? 'warn');
// From here on in a session of its own at REPLAY_NICE (this process may only wait for it).
await runInLowPrioritySession(config.REPLAY_NICE);
const cpuAtStart = process.cpuUsage();
const ch = ClickHouseClient.fromConfig(config);
const blobs = new BlobStore(config);
const bar = new SingleBar(
  {
    format: '{phase} [{bar}] {percentage}% | {value}/{total} events | {rate} events/s | ETA {eta_formatted}',
    noTTYOutput: true,
    notTTYSchedule: 2000,
    etaBuffer: 20,
  },
  Presets.shades_classic,
);
const t0 = performance.now();
let barStarted = false;
const summary = await replay(config, ch, logger, {
  views: [...views],
  swap: !values['no-swap'],
  blobs,
  onProgress: ({ phase, done, total }) => {
    if (values.json) return;
    const rate = Math.round(done / Math.max(0.001, (performance.now() - t0) / 1000));
    if (!barStarted) {
      bar.start(total, done, { phase, rate });
      barStarted = true;
    }
    bar.setTotal(total);
    bar.update(done, { phase, rate });
  },
}).finally(() => bar.stop());
const cpu = process.cpuUsage(cpuAtStart);
if (values.json)
  console.log(JSON.stringify({ ...summary, cpu_seconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(3)) }));
else
  console.log(
    `replayed ${summary.events} events in ${summary.seconds.toFixed(1)} s (${Math.round(summary.eventsPerSecond)} events/s); ` +
      `views ${summary.views.join(', ')}; rows ${Object.entries(summary.rows)
        .map(([t, n]) => `${t} ${n}`)
        .join(', ')}; ` +
      (summary.swapped ? 'swapped in.' : `left beside the live tables as ${Object.values(summary.tables).join(', ')}.`),
  );
await ch.close();
blobs.close();
process.exit(0);
