import { expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { ClickHouseClient, ClickHouseError } from '../../../platform/clickhouse/client.ts';
import { ident, sql } from '../../../platform/clickhouse/sql.ts';
import { provideInfra } from '../../support/infra.ts';

test('a read of a table that appears a moment later (a replay swapping tables in) is asked again, not failed', async () => {
  const infra = await provideInfra();
  const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database: 'default' });
  const table = `swap_${randomBytes(4).toString('hex')}`;
  try {
    const appears = new Promise<void>((resolve) =>
      setTimeout(() => void ch.exec(sql`CREATE TABLE ${ident(table)} ENGINE = Memory AS SELECT 7 AS x`).then(resolve), 60),
    );
    expect(await ch.query<{ x: number }>(sql`SELECT x FROM ${ident(table)}`)).toEqual([{ x: 7 }]);
    await appears;
    // a table that stays missing is still an error, after a few tries
    await expect(ch.query(sql`SELECT 1 FROM ${ident(`${table}_never`)}`)).rejects.toBeInstanceOf(ClickHouseError);
  } finally {
    await ch.exec(sql`DROP TABLE IF EXISTS ${ident(table)}`);
    await ch.close();
  }
});
