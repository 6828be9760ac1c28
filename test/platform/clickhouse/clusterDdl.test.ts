// The read models' DDL as a cluster needs it (clusterDdl.ts): ON CLUSTER, Replicated engines with
// a ZooKeeper path per database and table, every table of the read models covered; nothing else touched.
import { describe, expect, it } from 'vitest';
import { raw, sql, ident, type Sql } from '../../../platform/clickhouse/sql.ts';
import { clusterStatement } from '../../../platform/clickhouse/clusterDdl.ts';
import { createReadModelTables } from '../../../projections/readModels.ts';
import { LIVE_TABLES } from '../../../projections/readModelTables.ts';
import { createThreadsView } from '../../../projections/threads/threadsView.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';

const cluster = (text: string) => clusterStatement(raw(text), 'read_models', 'langsmith').text;

describe('clusterStatement', () => {
  it('makes a MergeTree table ON CLUSTER with its Replicated engine, arguments kept', () => {
    expect(
      cluster(
        'CREATE TABLE IF NOT EXISTS `runs` (\n  id UUID,\n  version UInt64\n) ENGINE = ReplacingMergeTree(version)\nORDER BY (id)',
      ),
    ).toBe(
      "CREATE TABLE IF NOT EXISTS `langsmith`.`runs` ON CLUSTER `read_models` (\n  id UUID,\n  version UInt64\n) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/langsmith/runs', '{replica}', version)\nORDER BY (id)",
    );
    expect(cluster('CREATE TABLE IF NOT EXISTS `k` (a UInt8) ENGINE = ReplacingMergeTree\nORDER BY a')).toBe(
      "CREATE TABLE IF NOT EXISTS `langsmith`.`k` ON CLUSTER `read_models` (a UInt8) ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/langsmith/k', '{replica}')\nORDER BY a",
    );
    expect(cluster('CREATE TABLE IF NOT EXISTS h (w UInt64) ENGINE = SummingMergeTree(w) ORDER BY w')).toContain(
      "ENGINE = ReplicatedSummingMergeTree('/clickhouse/tables/{shard}/langsmith/h', '{replica}', w)",
    );
  });

  it('sends views, the database, drops and renames ON CLUSTER, names with their database; a log table stays a log table', () => {
    expect(cluster('CREATE VIEW IF NOT EXISTS `threads` AS SELECT 1')).toBe(
      'CREATE VIEW IF NOT EXISTS `langsmith`.`threads` ON CLUSTER `read_models` AS SELECT 1',
    );
    expect(cluster('CREATE DATABASE IF NOT EXISTS `langsmith`')).toBe(
      'CREATE DATABASE IF NOT EXISTS `langsmith` ON CLUSTER `read_models`',
    );
    expect(cluster('CREATE TABLE IF NOT EXISTS `m` (at DateTime) ENGINE = TinyLog')).toBe(
      'CREATE TABLE IF NOT EXISTS `langsmith`.`m` ON CLUSTER `read_models` (at DateTime) ENGINE = TinyLog',
    );
    expect(cluster('DROP TABLE IF EXISTS `runs_replaced_1`')).toBe(
      'DROP TABLE IF EXISTS `langsmith`.`runs_replaced_1` ON CLUSTER `read_models`',
    );
    expect(cluster('RENAME TABLE `runs` TO `runs_old`, `runs_new` TO `runs`')).toBe(
      'RENAME TABLE `langsmith`.`runs` TO `langsmith`.`runs_old`, `langsmith`.`runs_new` TO `langsmith`.`runs` ON CLUSTER `read_models`',
    );
  });

  it('leaves mutations, column additions and reads as they are (a replicated table replicates them)', () => {
    for (const text of [
      'ALTER TABLE `runs` DELETE WHERE 1',
      'ALTER TABLE `runs` ADD COLUMN x UInt8',
      'SELECT 1',
      'INSERT INTO t SELECT 1',
    ])
      expect(cluster(text)).toBe(text);
    expect(clusterStatement(sql`DROP TABLE IF EXISTS ${ident('x')} SYNC`, 'c', 'd').text).toBe(
      'DROP TABLE IF EXISTS `x` SYNC',
    );
  });

  it('covers every table and view of the read models', async () => {
    const sent: string[] = [];
    const recorder = {
      exec: async (statement: Sql) => void sent.push(clusterStatement(statement, 'read_models', 'langsmith').text),
    } as unknown as ClickHouseClient;
    await createReadModelTables(recorder, LIVE_TABLES);
    sent.push(
      clusterStatement(createThreadsView('threads', LIVE_TABLES.traces, 'langsmith'), 'read_models', 'langsmith').text,
    );
    expect(sent.length).toBe(Object.keys(LIVE_TABLES).length + 1);
    for (const text of sent) {
      expect(text, text.slice(0, 80)).toMatch(
        /^CREATE (TABLE|VIEW) IF NOT EXISTS `langsmith`\.`[a-z_]+` ON CLUSTER `read_models` /,
      );
      if (text.startsWith('CREATE VIEW')) expect(text).toContain('FROM `langsmith`.`traces` FINAL');
      if (text.startsWith('CREATE TABLE'))
        expect(text).toMatch(
          /ENGINE = Replicated(Replacing|Summing)?MergeTree\('\/clickhouse\/tables\/\{shard\}\/langsmith\/[a-z_]+', '\{replica\}'/,
        );
    }
  });
});
