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

test('every query asks for 64-bit integers as JSON strings, as 18.16 answers and current releases do not by default', async () => {
  const { createServer } = await import('node:http');
  const seen: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    seen.push(new URL(req.url ?? '/', 'http://x').searchParams);
    req.resume().on('end', () => res.end('{"n":"1"}\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const ch = new ClickHouseClient({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, database: 'db' });
  try {
    await ch.query(sql`SELECT toUInt64(1) AS n`);
    for await (const chunk of await ch.queryStream(sql`SELECT toUInt64(1) AS n`, 'JSONEachRow')) void chunk;
    expect(seen.map((p) => p.get('output_format_json_quote_64bit_integers'))).toEqual(['1', '1']);
  } finally {
    await ch.close();
    server.close();
  }
});
