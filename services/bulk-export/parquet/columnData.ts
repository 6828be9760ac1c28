// A batch's columns as Arrow lays them out (offsets, value bytes, validity bits), before they
// become Arrow Data: what the decoder produces and what the batch enrichment edits.

/** Variable-length UTF-8 values: value i is data[offsets[i], offsets[i + 1]). */
export interface Utf8Values {
  type: 'utf8';
  length: number;
  offsets: Int32Array;
  data: Uint8Array;
  /** Validity bits (1 = present), LSB first; null when no value is null. */
  validity: Uint8Array | null;
  nullCount: number;
}

/** 8-byte little-endian values (Int64, Float64, timestamps), as raw bytes. */
export interface FixedValues {
  type: 'fixed8';
  length: number;
  data: Uint8Array;
  validity: Uint8Array | null;
  nullCount: number;
}

/** Booleans as bits. */
export interface BoolValues {
  type: 'bool';
  length: number;
  bits: Uint8Array;
}

/** Lists of strings: list i holds items offsets[i] … offsets[i + 1] - 1. */
export interface Utf8ListValues {
  type: 'utf8List';
  length: number;
  offsets: Int32Array;
  items: Utf8Values;
}

export type ColumnValues = Utf8Values | FixedValues | BoolValues | Utf8ListValues;

/** A decoded batch: rows of the query's columns, by name. */
export interface DecodedBatch {
  rows: number;
  columns: Map<string, ColumnValues>;
}

export const isValid = (validity: Uint8Array | null, i: number): boolean =>
  validity === null || (validity[i >> 3]! & (1 << (i & 7))) !== 0;

const textEncoder = new TextEncoder();

/** A column of `length` nulls. */
export function allNullUtf8(length: number): Utf8Values {
  return {
    type: 'utf8',
    length,
    offsets: new Int32Array(length + 1),
    data: new Uint8Array(0),
    validity: new Uint8Array((length + 7) >> 3),
    nullCount: length,
  };
}

/** The same column with some values replaced (row -> new value, null for null); the others are copied as bytes. */
export function replaceUtf8Values(column: Utf8Values, replacements: ReadonlyMap<number, string | null>): Utf8Values {
  if (replacements.size === 0) return column;
  const encoded = new Map([...replacements].map(([row, v]) => [row, v === null ? null : textEncoder.encode(v)]));
  const offsets = new Int32Array(column.length + 1);
  const present: boolean[] = new Array<boolean>(column.length);
  let size = 0;
  for (let i = 0; i < column.length; i++) {
    const replaced = encoded.get(i);
    if (replaced !== undefined) {
      size += replaced?.length ?? 0;
      present[i] = replaced !== null;
    } else {
      size += column.offsets[i + 1]! - column.offsets[i]!;
      present[i] = isValid(column.validity, i);
    }
    offsets[i + 1] = size;
  }
  const data = new Uint8Array(size);
  // Copy unchanged runs of values in one go, replaced values one by one.
  let runStart = 0;
  const flush = (end: number) => {
    if (end > runStart)
      data.set(column.data.subarray(column.offsets[runStart]!, column.offsets[end]!), offsets[runStart]!);
  };
  for (const row of [...encoded.keys()].sort((a, b) => a - b)) {
    flush(row);
    const bytes = encoded.get(row);
    if (bytes) data.set(bytes, offsets[row]!);
    runStart = row + 1;
  }
  flush(column.length);
  return { type: 'utf8', length: column.length, offsets, data, ...validityOf(present) };
}

function validityOf(present: readonly boolean[]): { validity: Uint8Array | null; nullCount: number } {
  let nullCount = 0;
  for (const p of present) if (!p) nullCount++;
  if (nullCount === 0) return { validity: null, nullCount };
  const validity = new Uint8Array((present.length + 7) >> 3);
  for (let i = 0; i < present.length; i++) if (present[i]) validity[i >> 3]! |= 1 << (i & 7);
  return { validity, nullCount };
}

/** Value i of a UTF-8 column as a string (null when null). */
export function utf8At(column: Utf8Values, i: number): string | null {
  if (!isValid(column.validity, i)) return null;
  return Buffer.from(
    column.data.buffer,
    column.data.byteOffset + column.offsets[i]!,
    column.offsets[i + 1]! - column.offsets[i]!,
  ).toString('utf8');
}

/** Value i of an 8-byte column read as a signed 64-bit integer (a Number: times and counts fit). */
export function int64At(column: FixedValues, i: number): number | null {
  if (!isValid(column.validity, i)) return null;
  return Number(new DataView(column.data.buffer, column.data.byteOffset + i * 8, 8).getBigInt64(0, true));
}
