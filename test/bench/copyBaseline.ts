// Runs the minimal Kafka -> ClickHouse copy (minimalCopy.ts) of a topic as a process of its own,
// into a scratch table made from the runs table's DDL, and reports its CPU per run and the
// ClickHouse and Kafka CPU per run while it ran: the baseline of projector_cpu_ratio_to_copy,
// clickhouse_cpu_ratio_to_copy and replay_cpu_ratio_to_copy, measured in the caller's run.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, sql } from '../../platform/clickhouse/sql.ts';
import { createRunsTable } from '../../projections/runs/runsTable.ts';
import { runJsonLineProcess } from './jsonLineProcess.ts';
import { CpuMeter, round } from './measure.ts';
import { clickhouseMergeThreads, infraPids } from './load.ts';
import { insertCounts } from './clickhouseInserts.ts';
import { settleMerges } from './clickhouseMerges.ts';

export interface CopyBaseline {
  events: number;
  runs: number;
  rows: number;
  seconds: number;
  runs_per_s: number | null;
  /** The copy's own CPU per run (µs), from its first fetch to its last insert. */
  copy_cpu_us_per_run: number | null;
  /** ClickHouse's and Kafka's CPU per run (µs) over the copy's whole life. */
  clickhouse_cpu_us_per_run: number | null;
  kafka_cpu_us_per_run: number | null;
  /** Of ClickHouse's CPU per run, its background merges' (threads named BackgrProcPool in 18.16). */
  clickhouse_merge_cpu_us_per_run: number | null;
  /** Inserts (parts) ClickHouse took per 1,000 runs copied (clickhouseInserts.ts). */
  inserts_per_1k_runs: number | null;
}

/** The copy's table, in the caller's database (left out of the caller's own insert counts). */
export const COPY_TABLE = 'bench_minimal_copy';

/** The longest the copy waits for ClickHouse's merges of the caller's parts before it starts. */
const MERGE_WAIT_MS = 180_000;

export async function measureCopyBaseline(
  env: Record<string, string>,
  ch: ClickHouseClient,
  topic: string,
  log: (msg: string) => void,
): Promise<CopyBaseline> {
  await ch.exec(sql`DROP TABLE IF EXISTS ${ident(COPY_TABLE)}`);
  await ch.exec(createRunsTable(COPY_TABLE));
  try {
    // ClickHouse still merging what the measured phases wrote would count as the copy's cost.
    const merges = await settleMerges(ch, ch.database, MERGE_WAIT_MS);
    log(
      `minimal copy: ClickHouse's merges ${merges.settled ? 'ended' : 'still running'} after ${merges.seconds.toFixed(0)} s`,
    );
    const infra = infraPids();
    const meter = new CpuMeter({ clickhouse: infra.clickhouse!, kafka: infra.kafka! }, [], clickhouseMergeThreads());
    meter.start();
    const r = await runJsonLineProcess<{
      events: number;
      runs: number;
      rows: number;
      seconds: number;
      cpu_seconds: number;
    }>('minimal copy', 'test/bench/minimalCopy.ts', [topic, COPY_TABLE], env);
    const cpu = meter.stop();
    const copyInserts = (await insertCounts(ch, ch.database))[COPY_TABLE] ?? 0;
    const per = (s: number | null | undefined) => (s == null || r.runs === 0 ? null : round((s * 1e6) / r.runs, 1));
    const result: CopyBaseline = {
      events: r.events,
      runs: r.runs,
      rows: r.rows,
      seconds: r.seconds,
      runs_per_s: r.seconds > 0 ? round(r.runs / r.seconds, 0) : null,
      copy_cpu_us_per_run: per(r.cpu_seconds),
      clickhouse_cpu_us_per_run: per(cpu.cpuSeconds.clickhouse),
      kafka_cpu_us_per_run: per(cpu.cpuSeconds.kafka),
      clickhouse_merge_cpu_us_per_run: per(cpu.threadCpuSeconds.clickhouse_merges),
      inserts_per_1k_runs: r.runs > 0 ? round((copyInserts * 1000) / r.runs, 2) : null,
    };
    log(`minimal copy: ${JSON.stringify(result)}`);
    return result;
  } finally {
    await ch.exec(sql`DROP TABLE IF EXISTS ${ident(COPY_TABLE)}`).catch(() => {});
  }
}
