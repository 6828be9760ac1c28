// The read models on a cluster (CLICKHOUSE_CLUSTER), on current ClickHouse (chdb, in-process).
// test/faults/clickhouseReplicas.test.ts runs them on a replicated pair of 18.16 servers; here,
// with no ZooKeeper or Keeper in-process, current ClickHouse parses every statement the cluster
// mode sends (ON CLUSTER, Replicated engines, the swap's RENAME, drops), and runs the sharding
// layer for real on a cluster of one local shard: the Distributed `_all` table of every read
// model, rows written through it landing in its table, and read back through it.
import { beforeAll, describe, expect, test } from 'vitest';
import { clusterStatement } from '../../platform/clickhouse/clusterDdl.ts';
import { ident, raw, sql, type Sql } from '../../platform/clickhouse/sql.ts';
import { quorumInsertSettings, type ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { createReadModelTables } from '../../projections/readModels.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import { createDistributedTable, DISTRIBUTED_SUFFIX } from '../../projections/distributedTables.ts';
import { createThreadsView, THREADS_VIEW } from '../../projections/threads/threadsView.ts';
import { replayOnChdb, type ChdbReplay } from '../support/chdbReplay.ts';
import { CHDB_PYTHON, ensurePythonEnv } from '../support/pythonEnv.ts';
import type { RecordedStep } from '../support/clickHouseRecorder.ts';

const CLUSTER = 'read_models';
const DATABASE = 'langsmith';
/** One shard, one replica: this process (its tcp_port), so the Distributed tables read and write locally. */
const CONFIG = `<clickhouse><tcp_port>19999</tcp_port><remote_servers><${CLUSTER}><shard><internal_replication>true</internal_replication>
<replica><host>127.0.0.1</host><port>19999</port></replica></shard></${CLUSTER}></remote_servers></clickhouse>`;

/** Every DDL statement the read models send, as written for one server. */
async function readModelDdl(): Promise<Sql[]> {
  const sent: Sql[] = [];
  const recorder = { exec: async (statement: Sql) => void sent.push(statement) } as unknown as ClickHouseClient;
  await createReadModelTables(recorder, LIVE_TABLES);
  sent.push(createThreadsView(THREADS_VIEW, LIVE_TABLES.traces, DATABASE));
  return sent;
}

const step = (query: string): RecordedStep => ({
  kind: 'statement',
  origin: 'cluster',
  database: DATABASE,
  query,
  data: null,
  binary: false,
  status: 200,
  answer: Buffer.alloc(0),
});
const tenant = '01973000-0000-7000-8000-00000000aaaa';
const other = '01973000-0000-7000-8000-00000000bbbb';

let ddl: Sql[];
let clustered: string[];
let sharding: string[];
let quorumInsert: string;
let result: ChdbReplay;
const answers = new Map<string, { ok: boolean; text: string }>();

beforeAll(async () => {
  ddl = await readModelDdl();
  clustered = [
    clusterStatement(sql`CREATE DATABASE IF NOT EXISTS ${ident(DATABASE)}`, CLUSTER, DATABASE).text,
    ...ddl.map((s) => clusterStatement(s, CLUSTER, DATABASE).text),
    ...Object.values(LIVE_TABLES).map(
      (t) => clusterStatement(createDistributedTable(t, DATABASE, CLUSTER), CLUSTER, DATABASE).text,
    ),
    clusterStatement(raw('RENAME TABLE `runs` TO `runs_replaced_x`, `runs_replay_x` TO `runs`'), CLUSTER, DATABASE)
      .text,
    clusterStatement(raw('DROP TABLE IF EXISTS `runs_replaced_x`'), CLUSTER, DATABASE).text,
  ];
  // the sharding layer for real: the tables (plain engines: no Keeper here), their `_all` tables, rows through them
  const runsAll = ident(`${LIVE_TABLES.runs}${DISTRIBUTED_SUFFIX}`).text;
  sharding = [
    ...ddl.map((s) => s.text),
    ...Object.values(LIVE_TABLES).map((t) => createDistributedTable(t, DATABASE, CLUSTER).text),
    `INSERT INTO ${runsAll} (tenant_id, id, session_id, trace_id, name, version) SELECT toUUID(if(number % 3 = 0, '${other}', '${tenant}')), generateUUIDv4(), generateUUIDv4(), generateUUIDv4(), toString(number), 1 FROM numbers(30)`,
    `SELECT count() AS n FROM ${ident(LIVE_TABLES.runs).text} FINAL WHERE tenant_id = toUUID('${tenant}') FORMAT JSONEachRow`,
    `SELECT count() AS n FROM ${runsAll} FINAL WHERE tenant_id = toUUID('${tenant}') FORMAT JSONEachRow`,
    `SELECT count() AS n FROM ${ident(`${LIVE_TABLES.traces}${DISTRIBUTED_SUFFIX}`).text} FORMAT JSONEachRow`,
    `SELECT count() AS n FROM ${ident(THREADS_VIEW).text} FORMAT JSONEachRow`,
  ];
  // an insert with the settings of a quorum insert (CLICKHOUSE_INSERT_QUORUM): known, with these values
  const settings = Object.entries(quorumInsertSettings(2))
    .map(([k, v]) => `${k} = ${v}`)
    .join(', ');
  quorumInsert = `INSERT INTO ${ident(LIVE_TABLES.runs).text} (tenant_id, id, session_id, trace_id, name, version) SETTINGS ${settings} SELECT generateUUIDv4(), generateUUIDv4(), generateUUIDv4(), generateUUIDv4(), 'quorum', 1`;
  const queries = [
    ...clustered.map((q) => `EXPLAIN AST ${q}`),
    `CREATE DATABASE IF NOT EXISTS ${DATABASE}`,
    ...sharding,
    quorumInsert,
  ];
  const steps = queries.map(step);
  steps.unshift({ ...step(`CREATE DATABASE IF NOT EXISTS ${DATABASE}`), database: null });
  result = await replayOnChdb(await ensurePythonEnv(CHDB_PYTHON), steps, 'UTC', CONFIG);
  steps.forEach((s, i) => {
    const a = result.answers[i]!;
    answers.set((s as { query: string }).query, { ok: a.ok, text: a.ok ? a.answer.toString('utf8') : a.error });
  });
}, 600_000);

describe('the cluster mode on current ClickHouse', () => {
  test('parses every statement it sends: ON CLUSTER, Replicated engines, the swap and the drops', () => {
    expect(result.version).toMatch(/^(2[5-9]|[3-9]\d)\./);
    expect(clustered.length).toBe(1 + ddl.length + Object.keys(LIVE_TABLES).length + 2);
    const refused = clustered
      .filter((q) => !answers.get(`EXPLAIN AST ${q}`)!.ok)
      .map((q) => `${q.slice(0, 120)}\n  → ${answers.get(`EXPLAIN AST ${q}`)!.text.slice(0, 300)}`);
    expect(refused).toEqual([]);
  });

  test('the Distributed `_all` tables over every read model: rows written through one land in its table, sharded by workspace, and read back through it', () => {
    const failed = sharding
      .filter((q) => !answers.get(q)!.ok)
      .map((q) => `${q.slice(0, 120)}\n  → ${answers.get(q)!.text.slice(0, 300)}`);
    expect(failed).toEqual([]);
    const n = (i: number) => JSON.parse(answers.get(sharding[sharding.length - 4 + i]!)!.text).n;
    expect([n(0), n(1), n(2), n(3)]).toEqual(['20', '20', '0', '0']);
  });

  test('takes an insert with the settings of a quorum insert (insert_quorum, insert_quorum_timeout)', () => {
    expect(answers.get(quorumInsert)).toEqual({ ok: true, text: '' });
  });
});
