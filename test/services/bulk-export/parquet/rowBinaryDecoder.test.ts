// The RowBinary decoder against an encoder written from the format's definition: every value
// kind, nulls, unicode, long strings (multi-byte lengths), rows cut at any byte by the chunks.
import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { raw } from '../../../../platform/clickhouse/sql.ts';
import { RowBinaryDecoder } from '../../../../services/bulk-export/parquet/rowBinaryDecoder.ts';
import type { QueryColumn, WireKind } from '../../../../services/bulk-export/parquet/exportColumns.ts';
import {
  isValid,
  utf8At,
  type ColumnValues,
  type DecodedBatch,
} from '../../../../services/bulk-export/parquet/columnData.ts';

type Value = string | null | bigint | number | boolean | string[];

const COLUMNS: QueryColumn[] = (
  [
    ['s', 'string'],
    ['ns', 'nullableString'],
    ['j', 'jsonText'],
    ['i', 'int64'],
    ['ni', 'nullableInt64'],
    ['f', 'float64'],
    ['b', 'bool'],
    ['a', 'stringArray'],
  ] as const
).map(([name, kind]) => ({ name, select: raw(name), kind: kind as WireKind }));

const leb128 = (n: number): number[] => {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return out;
};
const str = (s: string) => {
  const bytes = Buffer.from(s, 'utf8');
  return Buffer.concat([Buffer.from(leb128(bytes.length)), bytes]);
};
const i64 = (v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(v);
  return b;
};

/** RowBinary of one row, as ClickHouse writes it. */
function encodeRow(row: Value[]): Buffer {
  const parts: Buffer[] = [];
  COLUMNS.forEach((c, i) => {
    const v = row[i]!;
    switch (c.kind) {
      case 'string':
      case 'jsonText':
        parts.push(str(v as string));
        break;
      case 'nullableString':
        parts.push(v === null ? Buffer.from([1]) : Buffer.concat([Buffer.from([0]), str(v as string)]));
        break;
      case 'int64':
        parts.push(i64(v as bigint));
        break;
      case 'nullableInt64':
        parts.push(v === null ? Buffer.from([1]) : Buffer.concat([Buffer.from([0]), i64(v as bigint)]));
        break;
      case 'float64': {
        const b = Buffer.alloc(8);
        b.writeDoubleLE(v as number);
        parts.push(b);
        break;
      }
      case 'bool':
        parts.push(Buffer.from([v ? 1 : 0]));
        break;
      case 'stringArray':
        parts.push(Buffer.from(leb128((v as string[]).length)), ...(v as string[]).map(str));
        break;
    }
  });
  return Buffer.concat(parts);
}

/** A batch's values as JS values (read at once: the decoder reuses its buffers). */
function readBatch(batch: DecodedBatch): Value[][] {
  const rows: Value[][] = [];
  for (let r = 0; r < batch.rows; r++) {
    rows.push(
      COLUMNS.map((c) => {
        const values = batch.columns.get(c.name)! as ColumnValues;
        switch (values.type) {
          case 'utf8':
            return utf8At(values, r);
          case 'fixed8':
            if (c.kind === 'float64')
              return new DataView(values.data.buffer, values.data.byteOffset + r * 8, 8).getFloat64(0, true);
            return isValid(values.validity, r)
              ? new DataView(values.data.buffer, values.data.byteOffset + r * 8, 8).getBigInt64(0, true)
              : null;
          case 'bool':
            return (values.bits[r >> 3]! & (1 << (r & 7))) !== 0;
          case 'utf8List': {
            const items: string[] = [];
            for (let k = values.offsets[r]!; k < values.offsets[r + 1]!; k++) items.push(utf8At(values.items, k)!);
            return items;
          }
        }
      }),
    );
  }
  return rows;
}

/** What the decoder should give back for a row: jsonText '' reads as null. */
const expected = (row: Value[]): Value[] => row.map((v, i) => (COLUMNS[i]!.kind === 'jsonText' && v === '' ? null : v));

const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ maxLength: 300 }),
  fc.constant(''),
  fc.constant('é😀'.repeat(3000)),
);
const rowArb = fc.tuple(
  text,
  fc.option(text),
  text,
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.option(fc.bigInt({ min: 0n, max: 2n ** 60n })),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.array(text, { maxLength: 4 }),
) as fc.Arbitrary<Value[]>;

function decodeAll(
  bytes: Buffer,
  cuts: number[],
  options: { batchRows: number; batchBytes: number },
): { rows: Value[][]; batches: number[] } {
  const decoder = new RowBinaryDecoder(COLUMNS, options);
  const rows: Value[][] = [];
  const batches: number[] = [];
  const take = (b: DecodedBatch) => {
    batches.push(b.rows);
    rows.push(...readBatch(b));
  };
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const p of [...points, bytes.length]) {
    for (const b of decoder.push(bytes.subarray(from, p))) take(b);
    from = p;
  }
  const last = decoder.end();
  if (last) take(last);
  return { rows, batches };
}

describe('RowBinaryDecoder', () => {
  test('decodes every row exactly, however the chunks cut the stream', () => {
    fc.assert(
      fc.property(
        fc.array(rowArb, { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        fc.integer({ min: 1, max: 8 }),
        (rows, cuts, batchRows) => {
          const bytes = Buffer.concat(rows.map(encodeRow));
          const { rows: decoded, batches } = decodeAll(bytes, cuts, { batchRows, batchBytes: 1 << 30 });
          expect(decoded).toEqual(rows.map(expected));
          expect(batches.every((n) => n <= batchRows)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('decodes a stream fed one byte at a time', () => {
    const rows: Value[][] = [
      ['a', null, '', 1n, null, 0.5, true, []],
      ['ünïcødé 😀', 'x', '{"k":1}', -5n, 7n, -1.25, false, ['t1', '', 'ß']],
      ['z'.repeat(20_000), 'y'.repeat(200), 'q', 2n ** 62n, 0n, 1e300, true, ['only']],
    ];
    const bytes = Buffer.concat(rows.map(encodeRow));
    const { rows: decoded } = decodeAll(
      bytes,
      Array.from({ length: bytes.length }, (_, i) => i),
      { batchRows: 2, batchBytes: 1 << 30 },
    );
    expect(decoded).toEqual(rows.map(expected));
  });

  test('ends a batch at batchBytes, counting what `weigh` adds for a row', () => {
    const row = (s: string): Value[] => [s, null, '', 0n, null, 0, false, []];
    const bytes = Buffer.concat([row('ab'), row('heavy'), row('cd'), row('ef')].map(encodeRow));
    const decoder = new RowBinaryDecoder(COLUMNS, {
      batchRows: 100,
      batchBytes: 1000,
      weigh: { column: 's', bytes: (v) => (Buffer.from(v).toString() === 'heavy' ? 5000 : 0) },
    });
    const batches = [...decoder.push(bytes)].map((b) => b.rows);
    const last = decoder.end();
    // 'heavy' fills the first batch (it ends after that row); the rest fit in the next.
    expect([...batches, last?.rows]).toEqual([2, 2]);
  });

  test('fails when the stream ends inside a row, or carries bytes no column can hold', () => {
    const bytes = encodeRow(['abc', 'x', 'y', 1n, 2n, 3, true, ['t']]);
    const cut = new RowBinaryDecoder(COLUMNS, { batchRows: 10, batchBytes: 1 << 20 });
    expect([...cut.push(bytes.subarray(0, bytes.length - 1))]).toEqual([]);
    expect(() => cut.end()).toThrow(/ended inside a row/);

    // An error text ClickHouse appends mid-stream ("Code: 241, …") is not a row.
    const garbage = new RowBinaryDecoder(COLUMNS, { batchRows: 10, batchBytes: 1 << 20 });
    expect(() => {
      for (const _ of garbage.push(
        Buffer.from('Code: 241. DB::Exception: Memory limit (for query) exceeded: would use 9.31 GiB'),
      ))
        void _;
      garbage.end();
    }).toThrow();
  });
});
