// The least a Kafka -> ClickHouse hop needs for the runs topic: the raw baseline that the
// projector's (and a replay's) CPU per run is judged against, measured in the same run as them.
// It consumes a topic of RunOpsAppended events with our Kafka client (a group of its own, from
// the beginning, the projector's fetch settings, offsets committed per batch), decodes each
// event, folds each batch's operations into one row per run (mergeRunOp on an empty row: no
// read of earlier state, no derived fields, no other table), and inserts the rows in RowBinary
// with our ClickHouse client into a table made from the runs table's DDL. Nothing else.
//
// Run as its own process, so that its CPU is its own (/proc): node test/bench/minimalCopy.ts
// <topic> <table>, with the stack's environment (KAFKA_BROKERS, CLICKHOUSE_URL, …). It copies
// the topic up to the end offsets it finds on start, then prints one JSON line: events, runs
// (posts), rows inserted, seconds, and its own CPU seconds from its first fetch to its last
// insert (process.cpuUsage: its start-up is not the hop's cost). copyBaseline.ts runs it.
import { Admin, Consumer, MessagesStreamModes } from '@platformatic/kafka';
import { loadConfig } from '../../platform/config.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { brokerList } from '../../platform/kafka/topicAdmin.ts';
import { decodeEvent } from '../../schemas/registry.ts';
import { batches, type RawMessagesStream } from '../../projections/shared/consumerBatches.ts';
import { emptyRow, mergeRunOp } from '../../projections/runs/runRow.ts';
import { opVersion, type RunRow } from '../../projections/shared/runRow.ts';
import { RUNS_COLUMNS } from '../../projections/runs/runsTable.ts';

const [topic, table] = process.argv.slice(2);
if (!topic || !table) throw new Error('usage: node test/bench/minimalCopy.ts <topic> <table>');
const config = loadConfig(process.env);
const ch = ClickHouseClient.fromConfig(config);
const brokers = brokerList(config);

// Where the copy ends: the topic's end offsets now.
const admin = new Admin({ clientId: 'bench-copy-admin', bootstrapBrokers: brokers });
const [ends] = await admin.listOffsets({
  topics: [
    {
      name: topic,
      partitions: Array.from({ length: config.KAFKA_PARTITIONS }, (_, p) => ({ partitionIndex: p, timestamp: -1n })),
    },
  ],
});
await admin.close();
const remaining = new Map<number, bigint>();
for (const p of ends?.partitions ?? []) if (p.offset > 0n) remaining.set(p.partitionIndex, p.offset);

const consumer = new Consumer({
  clientId: 'bench-copy',
  groupId: `bench-copy-${process.pid}-${Date.now()}`,
  bootstrapBrokers: brokers,
  minBytes: 256 * 1024,
  maxWaitTime: 200,
  maxBytes: 64 * 1024 * 1024,
  highWaterMark: 4096,
});
const startedAt = performance.now();
const cpuAtStart = process.cpuUsage();
const stream = (await consumer.consume({
  topics: [topic],
  mode: MessagesStreamModes.EARLIEST,
  autocommit: false,
})) as unknown as RawMessagesStream;

let events = 0;
let runs = 0;
let rows = 0;
if (remaining.size > 0)
  for await (const batch of batches(stream, config.PROJECTOR_BATCH_EVENTS, config.PROJECTOR_FLUSH_MS)) {
    const byRun = new Map<string, RunRow>();
    for (const message of batch) {
      const headers = new Map(message.headerEntries.map(([k, v]) => [k?.toString() ?? '', v?.toString() ?? '']));
      const decoded = decodeEvent(headers, message.value);
      events++;
      if (decoded.name !== 'RunOpsAppended') continue;
      const event = decoded.payload;
      event.ops.forEach((op, index) => {
        if (op.op === 'post') runs++;
        const known = byRun.get(op.run_id);
        const merged = mergeRunOp(
          known ?? emptyRow(event.tenant_id, event.trace_id, op.run_id),
          op,
          opVersion(message.offset, index),
          event.received_at,
        );
        if (merged) byRun.set(op.run_id, merged);
      });
    }
    await ch.insertRowBinary(table, RUNS_COLUMNS, [...byRun.values()]);
    rows += byRun.size;
    const last = new Map<number, (typeof batch)[number]>();
    for (const m of batch) last.set(m.partition, m);
    await Promise.all([...last.values()].map((m) => m.commit()));
    for (const [partition, m] of last)
      if (m.offset + 1n >= (remaining.get(partition) ?? 0n)) remaining.delete(partition);
    if (remaining.size === 0) break;
  }
const seconds = (performance.now() - startedAt) / 1000;
const cpu = process.cpuUsage(cpuAtStart);
await stream.close().catch(() => {});
await consumer.close(true).catch(() => {});
await ch.close();
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
process.stdout.write(
  `${JSON.stringify({ events, runs, rows, seconds: Number(seconds.toFixed(2)), cpu_seconds: Number(cpuSeconds.toFixed(3)) })}\n`,
);
