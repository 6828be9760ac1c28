// Replay alone, again and again, over the data of a stack `bench:query` kept (BENCH_KEEP_DATA=1
// prints its id): replay(…, swap: false) into fresh tables, which are dropped after, as
// `bench:query` does it, without seeding 1,000,000 runs first each time. For profiling the replay
// (run it under `node --cpu-prof`; BENCH_PROFILE=<file.cpuprofile> summarises such a profile
// into the JSON line afterwards) and for comparing changes to it on the same data.
// Progress to stderr, one JSON line to stdout.
//
//   node test/bench/replayScratch.bench.ts --stack bench_query_ab12cd   [--repeat 1]
// Drop the kept data afterwards with dropStackData (test/support/tracingStack.ts).
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { loadConfig } from '../../platform/config.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { BlobStore } from '../../platform/blobStore.ts';
import { dropLeftoverReplayTables, replay, REPLAY_VIEWS } from '../../projections/replay/replay.ts';
import { provideInfra } from '../support/infra.ts';
import { infraPids } from './load.ts';
import { CpuMeter, coresUsed, machineInfo, round } from './measure.ts';

const { values: args } = parseArgs({ options: { stack: { type: 'string' }, repeat: { type: 'string', default: '1' } } });
const log = (msg: string) => process.stderr.write(`[bench:replay] ${msg}\n`);
if (!args.stack || !/^[A-Za-z0-9_]+$/.test(args.stack)) {
  log('usage: node test/bench/replayScratch.bench.ts --stack <id of a stack bench:query kept> [--repeat N]');
  process.exit(2);
}

const infra = await provideInfra();
const config = loadConfig({
  ...process.env, KAFKA_BROKERS: infra.kafkaBrokers, CLICKHOUSE_URL: infra.clickhouseUrl, S3_ENDPOINT: infra.s3Endpoint,
  S3_ACCESS_KEY_ID: infra.s3AccessKeyId, S3_SECRET_ACCESS_KEY: infra.s3SecretAccessKey,
  KAFKA_TOPIC_PREFIX: `${args.stack}.`, CLICKHOUSE_DATABASE: args.stack,
});
const ch = ClickHouseClient.fromConfig(config);
const blobs = new BlobStore(config);
const logger = pino({ name: 'bench-replay', level: 'warn' }, pino.destination(2));
const runs: Array<{ seconds: number; runs_per_s: number; events_per_s: number; rows: Record<string, number>; cores: Record<string, number | null> }> = [];
try {
  for (let i = 0; i < Number(args.repeat); i++) {
    const meter = new CpuMeter({ bench: process.pid, ...infraPids() });
    meter.start();
    const summary = await replay(config, ch, logger, { views: [...REPLAY_VIEWS], swap: false, blobs });
    const cpu = meter.stop();
    const rows = summary.rows as Record<string, number>;
    const result = {
      seconds: round(summary.seconds, 2)!, runs_per_s: round(rows.runs! / summary.seconds, 0)!,
      events_per_s: round(summary.eventsPerSecond, 0)!, rows, cores: coresUsed(cpu),
    };
    runs.push(result);
    log(`replay ${i + 1}: ${rows.runs} runs in ${result.seconds} s = ${result.runs_per_s} runs/s; cores ${JSON.stringify(result.cores)}`);
    await dropLeftoverReplayTables(ch);
  }
} finally {
  await dropLeftoverReplayTables(ch).catch(() => {});
  await ch.close();
  blobs.close();
}
process.stdout.write(JSON.stringify({ bench: 'replay-scratch', stack: args.stack, runs, machine: machineInfo() }) + '\n');
process.exit(0);
