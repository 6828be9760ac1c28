import { expect, test } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { ClickHouseClient, ClickHouseError, insertQuorum } from '../../../platform/clickhouse/client.ts';
import { loadConfig } from '../../../platform/config.ts';
import { ident, join, sql, uuidList, uuidSet, type Sql } from '../../../platform/clickhouse/sql.ts';
import { provideInfra } from '../../support/infra.ts';

test('a read of a table that appears a moment later (a replay swapping tables in) is asked again, not failed', async () => {
  const infra = await provideInfra();
  const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database: 'default' });
  const table = `swap_${randomBytes(4).toString('hex')}`;
  try {
    // the table is filled under another name and renamed in, as a replay swaps its tables: a
    // `CREATE TABLE … AS SELECT` would be visible, empty, before its rows are in
    await ch.exec(sql`CREATE TABLE ${ident(`${table}_next`)} ENGINE = Memory AS SELECT 7 AS x`);
    const appears = new Promise<void>((resolve) =>
      setTimeout(() => void ch.exec(sql`RENAME TABLE ${ident(`${table}_next`)} TO ${ident(table)}`).then(resolve), 60),
    );
    expect(await ch.query<{ x: number }>(sql`SELECT x FROM ${ident(table)}`)).toEqual([{ x: 7 }]);
    await appears;
    // a table that stays missing is still an error, after a few tries
    await expect(ch.query(sql`SELECT 1 FROM ${ident(`${table}_never`)}`)).rejects.toBeInstanceOf(ClickHouseError);
  } finally {
    await ch.exec(sql`DROP TABLE IF EXISTS ${ident(table)}`);
    await ch.exec(sql`DROP TABLE IF EXISTS ${ident(`${table}_next`)}`);
    await ch.close();
  }
});

test('every query asks for 64-bit integers as JSON strings, as 18.16 answers and current releases do not by default', async () => {
  const { createServer } = await import('node:http');
  const seen: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    seen.push(new URL(req.url ?? '/', 'http://x').searchParams);
    req.resume().on('end', () => res.end('{"meta":[{"name":"n","type":"UInt64"}],"data":[["1"]],"rows":1}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const ch = new ClickHouseClient({
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    database: 'db',
  });
  try {
    expect(await ch.query(sql`SELECT toUInt64(1) AS n`)).toEqual([{ n: '1' }]);
    for await (const chunk of await ch.queryStream(sql`SELECT toUInt64(1) AS n`, 'JSONEachRow')) void chunk;
    expect(seen.map((p) => p.get('output_format_json_quote_64bit_integers'))).toEqual(['1', '1']);
    // the uncompressed-block cache only where a read asks for it
    await ch.query(sql`SELECT toUInt64(1) AS n`, { cacheBlocks: true });
    await ch.query(sql`SELECT toUInt64(1) AS n`, { cacheBlocks: false });
    expect(seen.map((p) => p.get('use_uncompressed_cache'))).toEqual([null, null, '1', null]);
  } finally {
    await ch.close();
    server.close();
  }
});

test('on a cluster an insert needs a majority of the replicas the client knows, or CLICKHOUSE_INSERT_QUORUM; none on one server', () => {
  const urls = (n: number) => Array.from({ length: n - 1 }, (_, i) => `http://replica-${i}:8123`);
  expect(insertQuorum({ replicaUrls: urls(2) }), 'no cluster').toBe(1);
  expect([1, 2, 3, 4, 5].map((n) => insertQuorum({ cluster: 'c', replicaUrls: urls(n) }))).toEqual([1, 2, 2, 3, 3]);
  expect(insertQuorum({ cluster: 'c', replicaUrls: urls(3), insertQuorum: 3 })).toBe(3);
  expect(insertQuorum({ cluster: 'c', replicaUrls: urls(2), insertQuorum: 1 })).toBe(1);
  const base = {
    CLICKHOUSE_URL: 'http://a:8123',
    CLICKHOUSE_REPLICA_URLS: 'http://b:8123,http://c:8123',
    CLICKHOUSE_CLUSTER: 'c',
  };
  expect(ClickHouseClient.fromConfig(loadConfig(base)).insertQuorum).toBe(2);
  expect(ClickHouseClient.fromConfig(loadConfig({ ...base, CLICKHOUSE_INSERT_QUORUM: '3' })).insertQuorum).toBe(3);
  expect(ClickHouseClient.fromConfig(loadConfig({ ...base, CLICKHOUSE_CLUSTER: '' })).insertQuorum).toBe(1);
  expect(() => loadConfig({ ...base, CLICKHOUSE_INSERT_QUORUM: '0' })).toThrow(/CLICKHOUSE_INSERT_QUORUM/);
});

test("a quorum insert is sent with insert_quorum; refused for another quorum insert into the table (286) it is sent again; too few replicas up (285) is the caller's to retry; a cache write needs no quorum", async () => {
  const { createServer } = await import('node:http');
  const seen: URLSearchParams[] = [];
  const answers: Array<[number, string]> = [];
  const server = createServer((req, res) => {
    seen.push(new URL(req.url ?? '/', 'http://x').searchParams);
    const [status, text] = answers.shift() ?? [200, ''];
    req.resume().on('end', () => {
      res.statusCode = status;
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const ch = new ClickHouseClient({ url, replicaUrls: ['http://127.0.0.1:1'], cluster: 'c', database: 'db' });
  const single = new ClickHouseClient({ url, database: 'db' });
  // as 18.16 words them
  const previousWrite =
    'Code: 286, e.displayText() = DB::Exception: Quorum for previous write has not been satisfied yet. Status: version: 1, e.what() = DB::Exception';
  const tooFew =
    'Code: 285, e.displayText() = DB::Exception: Number of alive replicas (1) is less than requested quorum (2)., e.what() = DB::Exception';
  try {
    answers.push([500, previousWrite], [500, previousWrite]);
    await ch.insert('t', [{ x: 1 }]);
    expect(seen.map((p) => [p.get('insert_quorum'), p.get('insert_quorum_timeout')])).toEqual([
      ['2', '60000'],
      ['2', '60000'],
      ['2', '60000'],
    ]);

    seen.length = 0;
    answers.push([500, tooFew]);
    const refused = await ch.insert('t', [{ x: 1 }]).catch((e: unknown) => e);
    expect(refused).toMatchObject({ exceptionCode: 285, retryable: true });
    expect(seen).toHaveLength(1);

    seen.length = 0;
    await ch.insert('t', [{ x: 1 }], { quorum: false });
    await single.insert('t', [{ x: 1 }]);
    await ch.exec(sql`SELECT 1`);
    expect(seen.map((p) => p.get('insert_quorum'))).toEqual([null, null, null]);
  } finally {
    await Promise.all([ch.close(), single.close()]);
    server.close();
  }
});

test('rows come as JSONEachRow has them: each column by name, in order, whatever its type', async () => {
  const infra = await provideInfra();
  const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database: 'default' });
  const statement = sql`SELECT number AS n, toInt64(number) - 5 AS signed, toString(number) AS text, if(number % 2 = 0, NULL, number) AS maybe,
      [number, number * 2] AS list, generateUUIDv4() != toUUID('00000000-0000-0000-0000-000000000000') AS flag, toFloat64(number) / 3 AS ratio,
      'a"b\\\\c\\nd' AS awkward, toUUID('6f1e2a3b-0000-4000-8000-000000000001') AS id
    FROM system.numbers LIMIT 4`;
  try {
    let eachRow = '';
    for await (const chunk of await ch.queryStream(statement, 'JSONEachRow')) eachRow += chunk.toString();
    const want = eachRow
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const got = await ch.query(statement);
    expect(got).toEqual(want);
    // the server takes the setting cacheBlocks sends (18.16 here; current releases have it too)
    expect(await ch.query(statement, { cacheBlocks: true })).toEqual(want);
    expect(got.map((r) => Object.keys(r).join(','))).toEqual(want.map((r) => Object.keys(r).join(',')));
    expect(got[1]).toMatchObject({
      n: '1',
      signed: '-4',
      maybe: '1',
      list: ['1', '2'],
      awkward: 'a"b\\c\nd',
      id: '6f1e2a3b-0000-4000-8000-000000000001',
    });
    expect(await ch.query(sql`SELECT 1 AS x WHERE 0`)).toEqual([]);
  } finally {
    await ch.close();
  }
});

test('a statement ClickHouse will always refuse says retrying cannot help; a server out of reach says it can', async () => {
  const infra = await provideInfra();
  const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database: 'default' });
  const table = `refuse_${randomBytes(4).toString('hex')}`;
  try {
    await ch.exec(sql`CREATE TABLE ${ident(table)} (id UUID) ENGINE = Memory`);
    const refusals = {
      syntax: () => ch.exec(sql`SELEC 1`),
      'unknown identifier': () => ch.query(sql`SELECT no_such_column`),
      'illegal type': () => ch.query(sql`SELECT 1 + 'a'`),
      'a value the column cannot hold': () => ch.insert(table, [{ id: 'not-a-uuid' }]),
      'a field the table does not have': () =>
        ch.insert(table, [{ id: '00000000-0000-0000-0000-000000000001', extra: 1 }]),
    };
    for (const [label, refused] of Object.entries(refusals)) {
      const err = await refused().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, label).toBeInstanceOf(ClickHouseError);
      expect((err as ClickHouseError).exceptionCode, label).toBeGreaterThan(0);
      expect((err as ClickHouseError).retryable, label).toBe(false);
    }
    // a table that is not there (yet): a replay may be swapping it in, start-up creating it
    const missing = await ch.query(sql`SELECT 1 FROM ${ident(`${table}_never`)}`).catch((e: unknown) => e);
    expect(missing).toMatchObject({ exceptionCode: 60, retryable: true });
  } finally {
    await ch.exec(sql`DROP TABLE IF EXISTS ${ident(table)}`);
    await ch.close();
  }
  const away = new ClickHouseClient({ url: 'http://127.0.0.1:1', database: 'default' });
  const unreachable = await away.query(sql`SELECT 1`).catch((e: unknown) => e);
  expect(unreachable).toMatchObject({ status: 0, exceptionCode: null, retryable: true });
  expect((unreachable as Error).cause, 'the socket error is kept').toBeInstanceOf(Error);
  await away.close();
});

test('blocks a read keeps in the uncompressed cache never outlive their table: a swap by RENAME, a drop and a new table of the same name', async () => {
  // A replay swaps tables in by RENAME and drops the old ones; the new table's first part has the
  // same name (and so the same file paths) as the old one's. cacheBlocks reads must see the new rows.
  const infra = await provideInfra();
  const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database: 'default' });
  const name = `uc_${randomBytes(4).toString('hex')}`;
  const [live, next, old] = [name, `${name}_next`, `${name}_old`].map((t) => ident(t));
  const create = (table: typeof live, v: number) =>
    ch.exec(
      sql`CREATE TABLE ${table} ENGINE = MergeTree ORDER BY k SETTINGS index_granularity = 256 AS SELECT number AS k, toUInt64(${v}) AS v FROM numbers(100000)`,
    );
  const read = async () =>
    (
      await ch.query<{ s: string }>(sql`SELECT sum(v) AS s FROM ${live} WHERE k IN (5, 50000, 99000)`, {
        cacheBlocks: true,
      })
    )[0]!.s;
  try {
    await create(live, 1);
    expect(await read()).toBe('3');
    await create(next, 2);
    await ch.exec(sql`RENAME TABLE ${live} TO ${old}, ${next} TO ${live}`);
    expect(await read(), 'after the swap').toBe('6');
    await ch.exec(sql`DROP TABLE ${old}`);
    expect(await read(), 'after the old table is dropped').toBe('6');
    await ch.exec(sql`DROP TABLE ${live}`);
    await create(live, 4);
    expect(await read(), 'a new table of the same name').toBe('12');
  } finally {
    for (const t of [live, next, old]) await ch.exec(sql`DROP TABLE IF EXISTS ${t}`);
    await ch.close();
  }
});

test('a set of UUIDs as string literals (uuidSet) finds what toUUID() finds: in a column, a Nullable column and key tuples, by the primary index', async () => {
  const infra = await provideInfra();
  const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database: 'default' });
  const table = ident(`uuid_set_${randomBytes(4).toString('hex')}`);
  const ids = Array.from({ length: 300 }, () => randomUUID());
  try {
    await ch.exec(
      sql`CREATE TABLE ${table} (s UUID, r UInt8, t Int64, id UUID, n Nullable(UUID)) ENGINE = MergeTree ORDER BY (s, r, t, id) SETTINGS index_granularity = 16`,
    );
    const session = randomUUID();
    await ch.insert(
      table.text.replaceAll('`', ''),
      ids.map((id, i) => ({ s: session, r: i % 2, t: 1_000_000 + i, id, n: i % 3 ? id : null })),
    );
    const asked = ids.slice(40, 52); // neighbours in the key's order: a few granules of the tuples' index range
    const tuples = (typed: boolean) =>
      join(
        asked.map((id) =>
          typed
            ? sql`(toUUID(${session}), ${ids.indexOf(id) % 2}, ${1_000_000 + ids.indexOf(id)}, toUUID(${id}))`
            : sql`(${session}, ${ids.indexOf(id) % 2}, ${1_000_000 + ids.indexOf(id)}, ${id})`,
        ),
      );
    const read = async (where: Sql) => {
      const rows = await ch.queryStream(
        sql`SELECT toString(id) AS uid FROM ${table} WHERE ${where} ORDER BY uid`,
        'JSON',
      );
      let text = '';
      for await (const chunk of rows) text += chunk.toString();
      const parsed = JSON.parse(text) as { data: Array<{ uid: string }>; statistics: { rows_read: number } };
      return { ids: parsed.data.map((r) => r.uid), rowsRead: parsed.statistics.rows_read };
    };
    const expected = [...asked].sort();
    for (const [typed, plain] of [
      [sql`id IN (${uuidList(asked)})`, sql`id IN (${uuidSet(asked)})`],
      [sql`(s, r, t, id) IN (${tuples(true)})`, sql`(s, r, t, id) IN (${tuples(false)})`],
    ] as const) {
      const a = await read(typed);
      const b = await read(plain);
      expect(b.ids).toEqual(expected);
      expect(a.ids).toEqual(expected);
      expect(b.rowsRead).toBe(a.rowsRead); // the primary index narrows the read as much
    }
    expect((await read(sql`(s, r, t, id) IN (${tuples(false)})`)).rowsRead).toBeLessThanOrEqual(64);
    expect(uuidSet(asked.slice(0, 2)).text).toBe(`'${asked[0]}', '${asked[1]}'`);
    const nullable = await read(sql`n IN (${uuidSet(asked)})`);
    expect(nullable.ids).toEqual(expected.filter((id) => ids.indexOf(id) % 3 !== 0));
    // not a UUID: refused, as toUUID refuses it
    await expect(
      ch.query(sql`SELECT count() FROM ${table} WHERE id IN (${uuidSet(['not-a-uuid'])})`),
    ).rejects.toBeInstanceOf(ClickHouseError);
  } finally {
    await ch.exec(sql`DROP TABLE IF EXISTS ${table}`);
    await ch.close();
  }
});
