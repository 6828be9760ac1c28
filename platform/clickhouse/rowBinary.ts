// Encodes rows for an insert in ClickHouse's RowBinary format: no text to build and none for the
// server to parse (JSONEachRow cost the projector and ClickHouse most of a replay). The columns
// come from the table's own DDL (rowBinaryColumns), so the encoding cannot drift from the table;
// the insert names them, so a column the writer does not know takes its default.
// The bytes are the same for ClickHouse 18.16 and current releases:
//   String = LEB128 byte length + UTF-8 bytes; Int64/UInt64/Float64 = 8 bytes little-endian,
//   UInt32 4, UInt8 1; UUID = 16 bytes, each 8-byte half of the text form little-endian;
//   Nullable(T) = one byte (1 = NULL) then T unless NULL; Array(T) = LEB128 count + items.
// A value a column cannot hold (a UUID that is not one, a fraction in an integer column) throws
// a RowBinaryError that says retrying cannot help, as ClickHouse refusing the row would.
// A field that is undefined takes the column's default, as an absent key does in JSONEachRow.
import type { Sql } from './sql.ts';

export class RowBinaryError extends Error {
  /** Encoding the same row again fails the same way (platform/retry.ts obeys it). */
  readonly retryable = false;
  constructor(message: string) {
    super(message);
    this.name = 'RowBinaryError';
  }
}

/** Where the bytes go: one growing buffer per insert. */
class ByteSink {
  buf: Buffer;
  pos = 0;
  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity);
  }
  ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.pos + bytes, this.buf.length * 2));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}

type Write = (sink: ByteSink, value: unknown, column: string) => void;

const lebSize = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5);

/** Writes n as LEB128 at the sink's position, which has room for it. */
function putLeb(sink: ByteSink, n: number): void {
  const buf = sink.buf;
  while (n >= 0x80) {
    buf[sink.pos++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[sink.pos++] = n;
}

function writeLeb(sink: ByteSink, n: number): void {
  sink.ensure(5);
  putLeb(sink, n);
}

const writeString: Write = (sink, value, column) => {
  const s = value === undefined ? '' : value;
  if (typeof s !== 'string') throw new RowBinaryError(`column ${column}: a string expected, got ${typeof s}`);
  const len = s.length;
  // UTF-8 takes 1 to 3 bytes per UTF-16 unit: when len and 3·len need as many length bytes,
  // the prefix's size is known before writing, so the text is written in place, scanned once.
  const low = lebSize(len);
  const high = lebSize(len * 3);
  // Room for the worst case; where the buffer's end is near, its exact size (a scan, cheaper
  // than moving the whole body to a buffer twice as large for room that is mostly not used).
  if (sink.pos + high + len * 3 > sink.buf.length) sink.ensure(high + Math.max(len, Buffer.byteLength(s, 'utf8')));
  const buf = sink.buf;
  const start = sink.pos + low;
  let bytes = 0;
  if (len < 64) {
    // Short text: a byte loop beats a native call while it stays ASCII.
    let i = 0;
    for (; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[start + i] = c;
    }
    bytes = i === len ? len : buf.write(s, start, 'utf8');
  } else bytes = buf.write(s, start, 'utf8');
  const size = lebSize(bytes);
  if (size !== low) buf.copyWithin(sink.pos + size, start, start + bytes);
  putLeb(sink, bytes);
  sink.pos += bytes;
};

const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[65 + i] = HEX[97 + i] = 10 + i;
/** Where each of a UUID's 16 bytes sits in its text form. */
const UUID_HEX_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

function hexByte(s: string, at: number): number {
  const hi = HEX[s.charCodeAt(at)] ?? -1;
  const lo = HEX[s.charCodeAt(at + 1)] ?? -1;
  return hi < 0 || lo < 0 ? -1 : (hi << 4) | lo;
}

/**
 * A UUID column's writer. It keeps the last value's bytes: rows come grouped by trace, so the
 * tenant, trace and project repeat from row to row and most values are copied, not parsed.
 */
function uuidWriter(): Write {
  let last = '';
  const lastBytes = Buffer.alloc(16);
  return (sink, value, column) => {
    const s = value === undefined ? '00000000-0000-0000-0000-000000000000' : value;
    sink.ensure(16);
    const buf = sink.buf;
    const at = sink.pos;
    sink.pos += 16;
    if (s === last) {
      // 16 bytes: a loop costs less than a native copy's call
      for (let i = 0; i < 16; i++) buf[at + i] = lastBytes[i]!;
      return;
    }
    if (typeof s !== 'string' || s.length !== 36 || s[8] !== '-' || s[13] !== '-' || s[18] !== '-' || s[23] !== '-') {
      sink.pos = at;
      throw new RowBinaryError(`column ${column}: not a UUID: ${JSON.stringify(s)?.slice(0, 60)}`);
    }
    for (let i = 0; i < 16; i++) {
      const b = hexByte(s, UUID_HEX_AT[i]!);
      if (b < 0) {
        sink.pos = at;
        throw new RowBinaryError(`column ${column}: not a UUID: ${JSON.stringify(s)}`);
      }
      // each half little-endian: byte 0 of the text goes to 7, byte 8 to 15
      buf[at + (i < 8 ? 7 - i : 23 - i)] = b;
    }
    for (let i = 0; i < 16; i++) lastBytes[i] = buf[at + i]!;
    last = s;
  };
}

const TWO_32 = 4294967296;
const TWO_31 = 2147483648;

function integer(value: unknown, column: string, min: number, max: number): number {
  const n = value === undefined ? 0 : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max)
    throw new RowBinaryError(`column ${column}: not an integer in [${min}, ${max}]: ${String(n).slice(0, 60)}`);
  return n;
}

/** 64-bit integers from JS numbers: exact up to 2^53, which every value we store stays under. */
const writeInt64: Write = (sink, value, column) => {
  const n = integer(value, column, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  sink.ensure(8);
  const high = Math.floor(n / TWO_32);
  sink.buf.writeUInt32LE(n - high * TWO_32, sink.pos);
  sink.buf.writeInt32LE(high, sink.pos + 4);
  sink.pos += 8;
};

const writeUInt64: Write = (sink, value, column) => {
  const n = integer(value, column, 0, Number.MAX_SAFE_INTEGER);
  sink.ensure(8);
  const high = Math.floor(n / TWO_32);
  sink.buf.writeUInt32LE(n - high * TWO_32, sink.pos);
  sink.buf.writeUInt32LE(high, sink.pos + 4);
  sink.pos += 8;
};

const writeUInt32: Write = (sink, value, column) => {
  const n = integer(value, column, 0, TWO_32 - 1);
  sink.ensure(4);
  sink.buf.writeUInt32LE(n, sink.pos);
  sink.pos += 4;
};

const writeInt32: Write = (sink, value, column) => {
  const n = integer(value, column, -TWO_31, TWO_31 - 1);
  sink.ensure(4);
  sink.buf.writeInt32LE(n, sink.pos);
  sink.pos += 4;
};

const writeUInt8: Write = (sink, value, column) => {
  const n = integer(value, column, 0, 255);
  sink.ensure(1);
  sink.buf[sink.pos++] = n;
};

const writeFloat64: Write = (sink, value, column) => {
  const n = value === undefined ? 0 : value;
  if (typeof n !== 'number') throw new RowBinaryError(`column ${column}: a number expected, got ${typeof n}`);
  sink.ensure(8);
  sink.buf.writeDoubleLE(n, sink.pos);
  sink.pos += 8;
};

const SCALARS: Record<string, Write> = {
  String: writeString,
  Int64: writeInt64,
  UInt64: writeUInt64,
  UInt32: writeUInt32,
  Int32: writeInt32,
  UInt8: writeUInt8,
  Float64: writeFloat64,
};

/** The writer of a ClickHouse type; the types our tables use, no others. */
function writerOf(type: string): Write {
  if (type === 'UUID') return uuidWriter();
  const scalar = SCALARS[type];
  if (scalar) return scalar;
  const nullable = /^Nullable\((.+)\)$/.exec(type);
  if (nullable) {
    const inner = writerOf(nullable[1]!);
    return (sink, value, column) => {
      sink.ensure(1);
      if (value === null || value === undefined) {
        sink.buf[sink.pos++] = 1;
        return;
      }
      sink.buf[sink.pos++] = 0;
      inner(sink, value, column);
    };
  }
  const array = /^Array\((.+)\)$/.exec(type);
  if (array) {
    const item = writerOf(array[1]!);
    return (sink, value, column) => {
      const items = value === undefined ? [] : value;
      if (!Array.isArray(items)) throw new RowBinaryError(`column ${column}: an array expected, got ${typeof items}`);
      writeLeb(sink, items.length);
      for (const v of items) item(sink, v, column);
    };
  }
  throw new TypeError(`RowBinary: no encoder for the ClickHouse type ${type}`);
}

export interface RowBinaryColumn {
  name: string;
  type: string;
  write: Write;
}

type EncodeRows = (sink: ByteSink, rows: readonly object[]) => void;

/** A table's columns in DDL order, each with its encoder: what an insert of the table's rows sends. */
export interface RowBinaryColumns {
  readonly columns: readonly RowBinaryColumn[];
  /** `(a, b, …)`: the column list of the INSERT. */
  readonly list: string;
  /** Bytes per row of the last body encoded: the next body's buffer is sized by it, not grown step by step. */
  bytesPerRow: number;
  /** Writes the rows, each column by its own line of code (rowsEncoder). */
  readonly encodeRows: EncodeRows;
}

/**
 * The table's row loop, written out column by column: each field read by its name in the code
 * (not `row[name]`, which V8 cannot specialise once a loop has seen a few dozen names) and each
 * writer called from a call site of its own, where it can be inlined. Names are the DDL's column
 * names, matched by `[a-z_][a-z0-9_]*` (rowBinaryColumns), so the generated text holds no input.
 */
function rowsEncoder(columns: readonly RowBinaryColumn[]): EncodeRows {
  const lines = columns.map((c, i) => `    w${i}(sink, r.${c.name}, ${JSON.stringify(c.name)});`);
  const body = `${columns.map((_, i) => `const w${i} = columns[${i}].write;`).join('\n')}
return function encodeRows(sink, rows) {
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k];
${lines.join('\n')}
  }
};`;
  return new Function('columns', body)(columns) as EncodeRows;
}

/** The columns of a `CREATE TABLE … (name Type, …) ENGINE …` statement, one per line as our DDL writes them. */
export function rowBinaryColumns(ddl: Sql): RowBinaryColumns {
  const body = ddl.text.slice(ddl.text.indexOf('(') + 1, ddl.text.lastIndexOf(') ENGINE'));
  const columns: RowBinaryColumn[] = [];
  for (const line of body.split('\n')) {
    const m = /^\s*([a-z_][a-z0-9_]*)\s+(.+?),?\s*$/.exec(line);
    if (m) columns.push({ name: m[1]!, type: m[2]!, write: writerOf(m[2]!) });
  }
  if (columns.length === 0) throw new TypeError(`no columns in ${ddl.text.slice(0, 100)}`);
  return {
    columns,
    list: `(${columns.map((c) => `\`${c.name}\``).join(', ')})`,
    bytesPerRow: 256,
    encodeRows: rowsEncoder(columns),
  };
}

/** The rows as one RowBinary body, each row's fields taken by column name. */
export function encodeRowBinary(columns: RowBinaryColumns, rows: readonly object[]): Buffer {
  const sink = new ByteSink(Math.max(4096, Math.ceil(rows.length * columns.bytesPerRow * 1.1)));
  columns.encodeRows(sink, rows);
  if (rows.length > 0) columns.bytesPerRow = sink.pos / rows.length;
  return sink.buf.subarray(0, sink.pos);
}
