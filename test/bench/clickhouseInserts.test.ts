import { randomBytes } from 'node:crypto';
import { expect, test } from 'vitest';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, raw, sql } from '../../platform/clickhouse/sql.ts';
import { provideInfra } from '../support/infra.ts';
import { insertCounts, insertsPer1kRuns } from './clickhouseInserts.ts';

test('insertsPer1kRuns: the inserts between two readings per 1,000 runs, by table and in all', () => {
  const before = { runs: 10, traces: 4, bench_minimal_copy: 1 };
  const after = { runs: 13, traces: 4, run_keys: 2, bench_minimal_copy: 9 };
  expect(insertsPer1kRuns(before, after, 2000, ['bench_minimal_copy'])).toEqual({ runs: 1.5, run_keys: 1, total: 2.5 });
  // From nothing: every insert counts; 9 in 4,000 runs is 2.25 per 1,000 (two decimals).
  expect(insertsPer1kRuns({}, { runs: 9 }, 4000)).toEqual({ runs: 2.25, total: 2.25 });
  expect(insertsPer1kRuns({}, { runs: 1 }, 3000)).toEqual({ runs: 0.33, total: 0.33 });
  expect(insertsPer1kRuns(before, after, 0)).toBeNull();
});

test('insertCounts: one more per insert, whatever its rows, and merges take none back', async () => {
  const infra = await provideInfra();
  const database = `inserts_${randomBytes(4).toString('hex')}`;
  const admin = new ClickHouseClient({ url: infra.clickhouseUrl, database: 'default' });
  await admin.exec(sql`CREATE DATABASE ${ident(database)}`);
  const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database });
  try {
    await ch.exec(raw('CREATE TABLE t (k UInt64) ENGINE = MergeTree ORDER BY k'));
    await ch.exec(raw('CREATE TABLE u (k UInt64) ENGINE = MergeTree ORDER BY k'));
    expect(await insertCounts(ch, database)).toEqual({});
    for (const rows of [1, 1000, 5])
      await ch.exec(raw(`INSERT INTO t SELECT number FROM system.numbers LIMIT ${rows}`));
    await ch.exec(raw('INSERT INTO u VALUES (1)'));
    expect(await insertCounts(ch, database)).toEqual({ t: 3, u: 1 });
    await ch.exec(raw('OPTIMIZE TABLE t FINAL'));
    expect(await insertCounts(ch, database)).toEqual({ t: 3, u: 1 });
  } finally {
    await admin.exec(sql`DROP DATABASE IF EXISTS ${ident(database)}`);
  }
});
