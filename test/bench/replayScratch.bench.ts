// Replay alone, again and again, over the data of a stack `bench:query` kept (BENCH_KEEP_DATA=1
// prints its id): replay(…, swap: false) into fresh tables, which are dropped after, as
// `bench:query` does it, without seeding 1,000,000 runs first each time. For profiling the replay
// (run it under `node --cpu-prof`; BENCH_PROFILE=<file.cpuprofile> summarises such a profile
// into the JSON line afterwards) and for comparing changes to it on the same data.
// Beside it, the raw engines on the same data, each alone: Kafka (the runs topic read from the
// start with the projectors' consumer settings, the bytes left undecoded) and ClickHouse (the
// live `runs`, `run_locations` and `traces` copied into fresh tables by INSERT … SELECT FINAL).
// Progress to stderr, one JSON line to stdout.
//
//   node test/bench/replayScratch.bench.ts --stack bench_query_ab12cd   [--repeat 1] [--no-raw]
// Drop the kept data afterwards with dropStackData (test/support/tracingStack.ts).
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { Consumer, MessagesStreamModes } from '@platformatic/kafka';
import { ident, sql } from '../../platform/clickhouse/sql.ts';
import { brokerList, topicName } from '../../platform/kafka/topicAdmin.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { LIVE_TABLES, tablesWithSuffix } from '../../projections/readModelTables.ts';
import { createReadModelTables } from '../../projections/readModels.ts';
import { loadConfig } from '../../platform/config.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { BlobStore } from '../../platform/blobStore.ts';
import { dropLeftoverReplayTables, replay, REPLAY_VIEWS } from '../../projections/replay/replay.ts';
import { provideInfra } from '../support/infra.ts';
import { infraPids } from './load.ts';
import { CpuMeter, coresUsed, machineInfo, round } from './measure.ts';
import { useConsumerBufferPool } from '../../platform/kafka/consumerBuffers.ts';

const { values: args } = parseArgs({
  options: {
    stack: { type: 'string' },
    repeat: { type: 'string', default: '1' },
    'no-raw': { type: 'boolean', default: false },
  },
});
const log = (msg: string) => process.stderr.write(`[bench:replay] ${msg}\n`);
if (!args.stack || !/^[A-Za-z0-9_]+$/.test(args.stack)) {
  log('usage: node test/bench/replayScratch.bench.ts --stack <id of a stack bench:query kept> [--repeat N]');
  process.exit(2);
}

useConsumerBufferPool(); // as projections/replay/replayMain.ts does
const infra = await provideInfra();
const config = loadConfig({
  ...process.env,
  KAFKA_BROKERS: infra.kafkaBrokers,
  CLICKHOUSE_URL: infra.clickhouseUrl,
  S3_ENDPOINT: infra.s3Endpoint,
  S3_ACCESS_KEY_ID: infra.s3AccessKeyId,
  S3_SECRET_ACCESS_KEY: infra.s3SecretAccessKey,
  KAFKA_TOPIC_PREFIX: `${args.stack}.`,
  CLICKHOUSE_DATABASE: args.stack,
});
const ch = ClickHouseClient.fromConfig(config);
const blobs = new BlobStore(config);
const logger = pino({ name: 'bench-replay', level: 'warn' }, pino.destination(2));
/** The runs topic read to its end from the start, as the projectors' consumer reads it, nothing decoded. */
async function rawKafkaRead(): Promise<{
  seconds: number;
  messages: number;
  mb: number;
  cores: Record<string, number | null>;
}> {
  const topic = topicName(config, TOPICS.runs);
  const consumer = new Consumer({
    clientId: 'bench-raw-read',
    groupId: `${config.KAFKA_TOPIC_PREFIX}bench-raw-${Date.now()}`,
    bootstrapBrokers: brokerList(config),
    minBytes: 256 * 1024,
    maxWaitTime: 50,
    maxBytes: 64 * 1024 * 1024,
    highWaterMark: 4096,
  });
  try {
    const ends = (await consumer.listOffsets({ topics: [topic] })).get(topic) ?? [];
    const total = ends.reduce((a, b) => a + Number(b), 0);
    const meter = new CpuMeter({ bench: process.pid, ...infraPids() });
    meter.start();
    const started = performance.now();
    const stream = await consumer.consume({ topics: [topic], mode: MessagesStreamModes.EARLIEST, autocommit: false });
    let messages = 0;
    let bytes = 0;
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (m: { value: Buffer | null }) => {
        messages++;
        bytes += m.value?.length ?? 0;
        if (messages >= total) resolve();
      });
      stream.on('error', reject);
    });
    const seconds = (performance.now() - started) / 1000;
    const cpu = meter.stop();
    await stream.close();
    return { seconds: round(seconds, 2)!, messages, mb: round(bytes / 1e6, 0)!, cores: coresUsed(cpu) };
  } finally {
    await consumer.close(true).catch(() => {});
  }
}

/** The live tables copied by ClickHouse alone (INSERT … SELECT FINAL): its own cost of writing the rows. */
async function rawClickHouseWrite(): Promise<{ seconds: number; rows: number; cores: Record<string, number | null> }> {
  const copy = tablesWithSuffix(`_replay_${Date.now()}`);
  await createReadModelTables(ch, copy);
  const meter = new CpuMeter({ bench: process.pid, ...infraPids() });
  meter.start();
  const started = performance.now();
  for (const t of ['runs', 'runLocations', 'traces'] as const)
    await ch.exec(sql`INSERT INTO ${ident(copy[t])} SELECT * FROM ${ident(LIVE_TABLES[t])} FINAL`);
  const seconds = (performance.now() - started) / 1000;
  const cpu = meter.stop();
  const [row] = await ch.query<{ n: string }>(sql`SELECT count() AS n FROM ${ident(copy.runs)}`);
  await dropLeftoverReplayTables(ch);
  return { seconds: round(seconds, 2)!, rows: Number(row?.n ?? 0), cores: coresUsed(cpu) };
}

const runs: Array<{
  seconds: number;
  runs_per_s: number;
  events_per_s: number;
  rows: Record<string, number>;
  cores: Record<string, number | null>;
}> = [];
let raw: Record<string, unknown> | null = null;
try {
  for (let i = 0; i < Number(args.repeat); i++) {
    const meter = new CpuMeter({ bench: process.pid, ...infraPids() });
    meter.start();
    const summary = await replay(config, ch, logger, { views: [...REPLAY_VIEWS], swap: false, blobs });
    const cpu = meter.stop();
    const rows = summary.rows as Record<string, number>;
    const result = {
      seconds: round(summary.seconds, 2)!,
      runs_per_s: round(rows.runs! / summary.seconds, 0)!,
      events_per_s: round(summary.eventsPerSecond, 0)!,
      rows,
      cores: coresUsed(cpu),
    };
    runs.push(result);
    log(
      `replay ${i + 1}: ${rows.runs} runs in ${result.seconds} s = ${result.runs_per_s} runs/s; cores ${JSON.stringify(result.cores)}`,
    );
    await dropLeftoverReplayTables(ch);
  }
  if (!args['no-raw']) {
    const kafka = await rawKafkaRead();
    log(
      `raw Kafka read: ${kafka.messages} messages, ${kafka.mb} MB in ${kafka.seconds} s; cores ${JSON.stringify(kafka.cores)}`,
    );
    const clickhouse = await rawClickHouseWrite();
    log(
      `raw ClickHouse write: ${clickhouse.rows} runs (and their locations and traces) in ${clickhouse.seconds} s; cores ${JSON.stringify(clickhouse.cores)}`,
    );
    raw = { kafka, clickhouse };
  }
} finally {
  await dropLeftoverReplayTables(ch).catch(() => {});
  await ch.close();
  blobs.close();
}
process.stdout.write(
  JSON.stringify({ bench: 'replay-scratch', stack: args.stack, runs, raw, machine: machineInfo() }) + '\n',
);
process.exit(0);
