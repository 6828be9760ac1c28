// What one insert costs ClickHouse, per table the runs projector writes: the part it makes on
// disk (a file or two per column, whatever its rows) against the rows it holds. In a scratch
// database, the tables made from their own DDL, background merges stopped; each round inserts
// into every table in turn (so the filesystem's state weighs on each alike), at two sizes, and
// ClickHouse's CPU (/proc) is summed per table and size. Fixed cost per insert ≈ the small
// insert's; the per-row cost is the difference over the extra rows. Rows are all defaults but a
// random tenant id: this measures the part, not the payloads (bench:ingest's copy baseline has
// the per-row cost of real rows). Progress to stderr, one JSON line to stdout.
//
//   node test/bench/insertCostScratch.bench.ts [--rounds 20] [--small 10] [--large 2000]
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, raw, sql } from '../../platform/clickhouse/sql.ts';
import { createReadModelTables } from '../../projections/readModels.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import { RunsWriter } from '../../projections/runs/runsWriter.ts';
import { TracesWriter } from '../../projections/traces/tracesWriter.ts';
import { ThreadsWriter } from '../../projections/threads/threadsWriter.ts';
import { provideInfra } from '../support/infra.ts';
import { infraPids } from './load.ts';
import { cpuSeconds, machineInfo, round } from './measure.ts';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '20' },
    small: { type: 'string', default: '10' },
    large: { type: 'string', default: '2000' },
  },
});
const rounds = Number(args.rounds);
const sizes = [Number(args.small), Number(args.large)] as const;
const log = (msg: string) => process.stderr.write(`[bench:insert-cost] ${msg}\n`);

const infra = await provideInfra();
const pid = infraPids().clickhouse;
if (!pid) throw new Error('no ClickHouse process id (.local/run/clickhouse.pid)');
const database = `insert_cost_${randomBytes(4).toString('hex')}`;
const admin = new ClickHouseClient({ url: infra.clickhouseUrl, database: 'default' });
await admin.exec(sql`CREATE DATABASE ${ident(database)}`);
const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database });
try {
  await createReadModelTables(ch, LIVE_TABLES);
  // The tables a batch of the runs projector inserts into (trace_hour_stats is the readers').
  const tables = [
    ...new RunsWriter(ch, LIVE_TABLES).tables,
    ...new TracesWriter(ch, LIVE_TABLES).tables.filter((t) => t !== LIVE_TABLES.traceHourStats),
    ...new ThreadsWriter(ch, LIVE_TABLES).tables,
  ];
  const columns = new Map<string, number>();
  for (const table of tables) {
    await ch.exec(sql`SYSTEM STOP MERGES ${ident(table)}`);
    const [row] = await ch.query<{ n: string }>(
      sql`SELECT count() AS n FROM system.columns WHERE database = ${database} AND table = ${table}`,
    );
    columns.set(table, Number(row?.n ?? 0));
  }
  const cpuMs = new Map<string, [number, number]>(tables.map((t) => [t, [0, 0]]));
  for (let r = 0; r < rounds; r++) {
    for (const table of tables)
      for (const [i, rows] of sizes.entries()) {
        const before = cpuSeconds(pid)!;
        await ch.exec(
          raw(`INSERT INTO ${ident(table).text} (tenant_id) SELECT generateUUIDv4() FROM system.numbers LIMIT ${rows}`),
        );
        const spent = cpuMs.get(table)!;
        spent[i] = (spent[i] ?? 0) + (cpuSeconds(pid)! - before) * 1000;
      }
    if ((r + 1) % 5 === 0) log(`${r + 1}/${rounds} rounds`);
  }
  const perTable = Object.fromEntries(
    tables.map((t) => {
      const [small, large] = cpuMs.get(t)!.map((ms) => ms / rounds) as [number, number];
      return [
        t,
        {
          columns: columns.get(t),
          [`cpu_ms_per_insert_of_${sizes[0]}`]: round(small, 1),
          [`cpu_ms_per_insert_of_${sizes[1]}`]: round(large, 1),
          cpu_us_per_extra_row: round(((large - small) * 1000) / (sizes[1] - sizes[0]), 2),
        },
      ];
    }),
  );
  const fixed = (t: string) => cpuMs.get(t)![0] / rounds;
  const all = tables.reduce((n, t) => n + fixed(t), 0);
  process.stdout.write(
    `${JSON.stringify({
      bench: 'insert-cost',
      machine: machineInfo(),
      rounds,
      // One batch of the runs projector inserts into every table; the minimal copy into runs alone.
      cpu_ms_per_batch_fixed: round(all, 1),
      runs_share_of_batch_fixed: round(fixed(LIVE_TABLES.runs) / all, 2),
      tables: perTable,
    })}\n`,
  );
} finally {
  await admin.exec(sql`DROP DATABASE IF EXISTS ${ident(database)}`);
  await Promise.all([ch.close(), admin.close()]);
}
