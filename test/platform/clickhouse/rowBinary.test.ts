import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import { encodeRowBinary, rowBinaryColumns, RowBinaryError } from '../../../platform/clickhouse/rowBinary.ts';
import { ident, raw, sql } from '../../../platform/clickhouse/sql.ts';
import { isRetryable } from '../../../platform/retry.ts';
import { createRunLocationsTable, createRunsTable } from '../../../projections/runs/runsTable.ts';
import { createTracesTable } from '../../../projections/traces/tracesTable.ts';
import { createFeedbackTable } from '../../../projections/feedback/feedbackTable.ts';
import { provideInfra } from '../../support/infra.ts';

// Every type the read-model tables use, with the values at its edges. Current ClickHouse reads
// the same bytes: test/contract/currentClickHouse.test.ts replays the projectors' inserts on chdb.
const table = `row_binary_${randomBytes(4).toString('hex')}`;
const ddl = raw(`CREATE TABLE ${table} (
  n UInt32,
  id UUID,
  maybe_id Nullable(UUID),
  text String,
  maybe_text Nullable(String),
  at Int64,
  maybe_at Nullable(Int64),
  version UInt64,
  flag UInt8,
  cost Float64,
  maybe_score Nullable(Float64),
  tags Array(String),
  counts Array(UInt32),
  keys Array(Int32)
) ENGINE = MergeTree ORDER BY n`);
const columns = rowBinaryColumns(ddl);

const long = (n: number, unit: string) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
const ROWS = [
  {
    n: 1,
    id: '00112233-4455-6677-8899-aabbccddeeff',
    maybe_id: null,
    text: '',
    maybe_text: null,
    at: 0,
    maybe_at: null,
    version: 0,
    flag: 0,
    cost: 0,
    maybe_score: null,
    tags: [],
    counts: [],
    keys: [],
  },
  {
    n: 2,
    id: 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
    maybe_id: '01973000-0000-7000-8000-000000000101',
    text: 'hé ✓ 🎉 "quoted" \\ \n\t\0',
    maybe_text: '',
    at: -1_700_000_000_123_456,
    maybe_at: 1_764_000_000_000_000,
    version: Number.MAX_SAFE_INTEGER,
    flag: 255,
    cost: 0.1 + 0.2,
    maybe_score: -1.5e-300,
    tags: ['prod', '', 'ü'],
    counts: [0, 4294967295],
    keys: [-2147483648, -1, 0, 2147483647],
  },
  // lengths on both sides of each LEB128 boundary, in ASCII and in multi-byte text
  ...[127, 128, 16383, 16384, 2_097_152].map((size, i) => ({
    n: 10 + i,
    id: '00000000-0000-0000-0000-000000000000',
    maybe_id: null,
    text: long(size, 'a'),
    maybe_text: long(size, 'é'),
    at: 2 ** 32,
    maybe_at: -(2 ** 32) - 1,
    version: 2 ** 32 + 5,
    flag: 1,
    cost: -0,
    maybe_score: 1,
    tags: [long(size, '✓')],
    counts: [size],
    keys: [-size],
  })),
  ...[42, 43, 63, 64].map((size, i) => ({
    n: 20 + i,
    id: '00000000-0000-0000-0000-000000000001',
    maybe_id: null,
    text: long(size, '✓'),
    maybe_text: `${long(size - 1, 'a')}é`,
    at: 1,
    maybe_at: null,
    version: 1,
    flag: 0,
    cost: 1e300,
    maybe_score: null,
    tags: [],
    counts: [],
    keys: [],
  })),
];

let ch: ClickHouseClient;

beforeAll(async () => {
  const infra = await provideInfra();
  ch = new ClickHouseClient({ url: infra.clickhouseUrl, database: 'default' });
  await ch.exec(ddl);
});

afterAll(async () => {
  await ch.exec(sql`DROP TABLE IF EXISTS ${ident(table)}`);
  await ch.close();
});

describe('RowBinary inserts on ClickHouse 18.16', () => {
  test('rows read back as they were written', async () => {
    await ch.insertRowBinary(table, columns, ROWS);
    const back = await ch.query<Record<string, unknown>>(sql`SELECT * FROM ${ident(table)} ORDER BY n`);
    // JSONEachRow answers 64-bit integers as strings, UUIDs in lower case
    const expected = ROWS.map((r) => ({
      ...r,
      id: r.id.toLowerCase(),
      at: String(r.at),
      maybe_at: r.maybe_at === null ? null : String(r.maybe_at),
      version: String(r.version),
    }));
    expect(back).toEqual(expected);
  });

  test('the bytes are the ones ClickHouse itself writes for the same values', async () => {
    const row = ROWS[1]!;
    const select = sql`SELECT toUInt32(${row.n}) AS n, toUUID(${row.id}) AS id, toNullable(toUUID(${row.maybe_id})) AS maybe_id, ${row.text} AS text,
      toNullable(${row.maybe_text}) AS maybe_text, toInt64(${row.at}) AS at, toNullable(toInt64(${row.maybe_at})) AS maybe_at,
      toUInt64(${row.version}) AS version, toUInt8(${row.flag}) AS flag, toFloat64(${row.cost}) AS cost,
      toNullable(toFloat64(${row.maybe_score})) AS maybe_score, ${row.tags} AS tags, [toUInt32(0), toUInt32(4294967295)] AS counts,
      [toInt32(-2147483648), toInt32(-1), toInt32(0), toInt32(2147483647)] AS keys`;
    const chunks: Buffer[] = [];
    for await (const chunk of await ch.queryStream(select, 'RowBinary')) chunks.push(chunk);
    expect(encodeRowBinary(columns, [row]).toString('hex')).toBe(Buffer.concat(chunks).toString('hex'));
  });

  test('a field left undefined takes the column default, as an absent key does in JSONEachRow', async () => {
    await ch.insertRowBinary(table, columns, [{ n: 99 }]);
    const [back] = await ch.query<Record<string, unknown>>(sql`SELECT * FROM ${ident(table)} WHERE n = 99`);
    expect(back).toEqual({
      n: 99,
      id: '00000000-0000-0000-0000-000000000000',
      maybe_id: null,
      text: '',
      maybe_text: null,
      at: '0',
      maybe_at: null,
      version: '0',
      flag: 0,
      cost: 0,
      maybe_score: null,
      tags: [],
      counts: [],
      keys: [],
    });
  });
});

test('a value a column cannot hold is refused before sending, and retrying cannot help', () => {
  const good = ROWS[0]!;
  const bad = {
    'a UUID that is not one': { id: 'not-a-uuid' },
    'a UUID with a letter that is not hex': { id: '0011223g-4455-6677-8899-aabbccddeeff' },
    'a fraction in an integer column': { at: 1.5 },
    'a negative unsigned': { version: -1 },
    'too big for UInt8': { flag: 256 },
    'too small for Int32': { keys: [-2147483649] },
    'a number for a string': { text: 5 },
    'text for an array': { tags: 'prod' },
  };
  for (const [label, change] of Object.entries(bad)) {
    const err = (() => {
      try {
        encodeRowBinary(columns, [{ ...good, ...change }]);
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(err, label).toBeInstanceOf(RowBinaryError);
    expect(isRetryable(err), label).toBe(false);
  }
});

test('every read-model table has an encoder for each of its columns, as ClickHouse lists them', async () => {
  for (const create of [createRunsTable, createRunLocationsTable, createTracesTable, createFeedbackTable]) {
    const name = `${table}_${create.name}`;
    await ch.exec(create(name));
    try {
      const listed = await ch.query<{ name: string; type: string }>(
        sql`SELECT name, type FROM system.columns WHERE database = 'default' AND table = ${name}`,
      );
      expect(
        rowBinaryColumns(create(name)).columns.map((c) => ({ name: c.name, type: c.type })),
        create.name,
      ).toEqual(listed);
    } finally {
      await ch.exec(sql`DROP TABLE IF EXISTS ${ident(name)}`);
    }
  }
});
