// Decodes ClickHouse's RowBinary output straight into Arrow column buffers: string bytes are
// copied from the HTTP chunks into each column's value buffer (no JS strings), 8-byte numbers
// are copied as bytes, nulls become validity bits. Rows may span chunks: a row that does not
// fit in what has arrived is undone and decoded again once enough bytes are there (the decoder
// knows how many it needs, so a huge row is not retried chunk after chunk). The buffers are
// reused from batch to batch: a batch is used before decoding goes on.
//
// RowBinary: String = LEB128 length + bytes; Nullable(T) = one byte (1 = NULL) then T unless
// NULL; Array(T) = LEB128 count + items; Int64/UInt64/Float64 = 8 bytes little-endian; UInt8 = 1 byte.
import type { QueryColumn, WireKind } from './exportColumns.ts';
import type { ColumnValues, DecodedBatch } from './columnData.ts';

const STRING = 0;
const NULLABLE_STRING = 1;
const JSON_TEXT = 2;
const FIXED8 = 3;
const NULLABLE_FIXED8 = 4;
const BOOL = 5;
const STRING_ARRAY = 6;

const KIND_CODES: Record<WireKind, number> = {
  string: STRING,
  nullableString: NULLABLE_STRING,
  jsonText: JSON_TEXT,
  int64: FIXED8,
  nullableInt64: NULLABLE_FIXED8,
  float64: FIXED8,
  bool: BOOL,
  stringArray: STRING_ARRAY,
};

/** Strings shorter than this are copied byte by byte (cheaper than a native copy call). */
const SHORT_COPY = 32;

/** One column's buffers for the batch being decoded. All builders share one shape (fast property access). */
class ColumnBuilder {
  readonly name: string;
  readonly kind: number;
  /** String or list offsets (rows + 1). */
  offsets: Int32Array;
  /** String bytes, 8-byte values, or bool bits. */
  data: Uint8Array;
  /** Bytes of `data` in use (strings). */
  size = 0;
  validity: Uint8Array;
  /** Lists: item offsets and bytes, and the item count. */
  itemOffsets: Int32Array;
  itemData: Uint8Array;
  itemSize = 0;
  items = 0;

  constructor(column: QueryColumn, rowCapacity: number, dataCapacity: number, itemCapacity: number) {
    this.name = column.name;
    this.kind = KIND_CODES[column.kind];
    const fixed = this.kind === FIXED8 || this.kind === NULLABLE_FIXED8;
    const hasOffsets =
      this.kind === STRING || this.kind === NULLABLE_STRING || this.kind === JSON_TEXT || this.kind === STRING_ARRAY;
    this.offsets = new Int32Array(hasOffsets ? rowCapacity + 1 : 0);
    this.data = new Uint8Array(
      fixed
        ? rowCapacity * 8
        : this.kind === BOOL
          ? (rowCapacity + 7) >> 3
          : this.kind === STRING_ARRAY
            ? 0
            : dataCapacity,
    );
    this.validity = new Uint8Array(
      this.kind === NULLABLE_STRING || this.kind === JSON_TEXT || this.kind === NULLABLE_FIXED8
        ? (rowCapacity + 7) >> 3
        : 0,
    );
    this.itemOffsets = new Int32Array(this.kind === STRING_ARRAY ? itemCapacity + 1 : 0);
    this.itemData = new Uint8Array(this.kind === STRING_ARRAY ? dataCapacity : 0);
  }

  /** Forgets rows from `rows` on (a row that did not fit in the bytes at hand). */
  truncate(rows: number): void {
    if (rows === 0) {
      this.size = this.items = this.itemSize = 0;
    } else if (this.kind === STRING || this.kind === NULLABLE_STRING || this.kind === JSON_TEXT)
      this.size = this.offsets[rows]!;
    else if (this.kind === STRING_ARRAY) {
      this.items = this.offsets[rows]!;
      this.itemSize = this.itemOffsets[this.items]!;
    }
  }

  /** The first `rows` rows as Arrow-shaped values (views of this builder's buffers). */
  values(rows: number): ColumnValues {
    const validity = this.validity.length > 0 ? this.validity.subarray(0, (rows + 7) >> 3) : null;
    const nullCount = validity ? rows - countSetBits(validity, rows) : 0;
    const maybeValidity = nullCount > 0 ? validity : null;
    switch (this.kind) {
      case FIXED8:
      case NULLABLE_FIXED8:
        return {
          type: 'fixed8',
          length: rows,
          data: this.data.subarray(0, rows * 8),
          validity: maybeValidity,
          nullCount,
        };
      case BOOL:
        return { type: 'bool', length: rows, bits: this.data.subarray(0, (rows + 7) >> 3) };
      case STRING_ARRAY:
        return {
          type: 'utf8List',
          length: rows,
          offsets: this.offsets.subarray(0, rows + 1),
          items: {
            type: 'utf8',
            length: this.items,
            offsets: this.itemOffsets.subarray(0, this.items + 1),
            data: this.itemData.subarray(0, this.itemSize),
            validity: null,
            nullCount: 0,
          },
        };
      default:
        return {
          type: 'utf8',
          length: rows,
          offsets: this.offsets.subarray(0, rows + 1),
          data: this.data.subarray(0, this.size),
          validity: maybeValidity,
          nullCount,
        };
    }
  }
}

function countSetBits(bits: Uint8Array, n: number): number {
  let count = 0;
  const whole = n >> 3;
  for (let i = 0; i < whole; i++) {
    let b = bits[i]!;
    b = b - ((b >> 1) & 0x55);
    b = (b & 0x33) + ((b >> 2) & 0x33);
    count += (b + (b >> 4)) & 0x0f;
  }
  for (let i = whole << 3; i < n; i++) if (bits[i >> 3]! & (1 << (i & 7))) count++;
  return count;
}

const grow = (buffer: Uint8Array, needed: number): Uint8Array => {
  const next = new Uint8Array(Math.max(needed, buffer.length * 2, 1024));
  next.set(buffer);
  return next;
};
const growOffsets = (offsets: Int32Array, needed: number): Int32Array => {
  const next = new Int32Array(Math.max(needed, offsets.length * 2, 64));
  next.set(offsets);
  return next;
};

export interface DecoderOptions {
  /** A batch ends at this many rows… */
  batchRows: number;
  /** …or once its rows took this many RowBinary bytes (plus what `weigh` adds). */
  batchBytes: number;
  /**
   * Extra bytes a row stands for, read from one of its string columns when that value is longer
   * than 2 bytes (claim-checked payloads, fetched later, weigh their stored size).
   */
  weigh?: { column: string; bytes: (value: Uint8Array) => number };
}

/** Where the last readVarint stopped: the byte after the varint. */
let varintEnd = 0;

/** The LEB128 varint (a length or an item count) at buf[p]; -1 when the bytes end inside it. Sets varintEnd. */
function readVarint(buf: Buffer, p: number, end: number): number {
  let value = 0;
  for (let shift = 0; ; shift += 7) {
    if (p >= end) return -1;
    const byte = buf[p++]!;
    value |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) {
      varintEnd = p;
      return value;
    }
  }
}

/** Feeds on RowBinary chunks, yields batches of whole rows. */
export class RowBinaryDecoder {
  readonly #options: DecoderOptions;
  readonly #builders: ColumnBuilder[];
  #rows = 0;
  /** RowBinary bytes of the rows in the current batch. */
  #batchBytes = 0;
  /** Bytes not yet decoded (the start of a row that did not fit), and chunks received since. */
  #leftover: Buffer | null = null;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** How many bytes (from the leftover's start) the unfinished row needs at least. */
  #need = 0;

  constructor(columns: readonly QueryColumn[], options: DecoderOptions) {
    this.#options = options;
    this.#builders = columns.map((c) => new ColumnBuilder(c, options.batchRows, 64 * 1024, 1024));
  }

  /**
   * Decodes a chunk; yields every batch it completes. A batch's buffers are the decoder's: they
   * are written over once decoding goes on, so a batch is used (or copied) before that.
   */
  *push(chunk: Buffer): Generator<DecodedBatch> {
    let buf = chunk;
    let pos = 0;
    if (this.#leftover !== null) {
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.length;
      if (this.#leftover.length + this.#pendingBytes < this.#need) return;
      const next = this.#pending.length === 1 ? this.#finishSplitRow(chunk) : -1;
      if (next >= 0) pos = next;
      else buf = Buffer.concat([this.#leftover, ...this.#pending]);
      this.#leftover = null;
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    for (;;) {
      pos = this.#decodeRows(buf, pos, Infinity);
      if (this.#batchFull()) yield this.#takeBatch();
      else break;
    }
    if (pos < buf.length) this.#leftover = buf.subarray(pos);
  }

  /**
   * Decodes the row split between the leftover bytes and `chunk` from a copy of the leftover and
   * only as much of the chunk as the row needs (copying whole chunks would copy the stream twice);
   * returns where the chunk's next row starts, or -1 when the row goes on past the chunk.
   */
  #finishSplitRow(chunk: Buffer): number {
    const left = this.#leftover!;
    for (let take = Math.max(this.#need - left.length, 256); ; take *= 2) {
      const end = this.#decodeRows(Buffer.concat([left, chunk.subarray(0, Math.min(take, chunk.length))]), 0, 1);
      if (end > 0) return end - left.length;
      if (take >= chunk.length) return -1;
    }
  }

  /** The last, partial batch (null when empty). Throws when the stream stopped inside a row. */
  end(): DecodedBatch | null {
    if (this.#leftover !== null || this.#pendingBytes > 0)
      throw new Error(
        `ClickHouse's RowBinary stream ended inside a row (${(this.#leftover?.length ?? 0) + this.#pendingBytes} bytes left over)`,
      );
    return this.#rows > 0 ? this.#takeBatch() : null;
  }

  #batchFull(): boolean {
    return this.#rows >= this.#options.batchRows || this.#batchBytes >= this.#options.batchBytes;
  }

  #takeBatch(): DecodedBatch {
    const columns = new Map<string, ColumnValues>();
    for (const b of this.#builders) {
      columns.set(b.name, b.values(this.#rows));
      b.truncate(0);
    }
    const batch = { rows: this.#rows, columns };
    this.#rows = 0;
    this.#batchBytes = 0;
    return batch;
  }

  /**
   * Decodes whole rows from `pos` until the batch is full, `rowLimit` rows are done or the bytes
   * run out; returns where it stopped (the start of an unfinished row, whose partial values are undone).
   */
  #decodeRows(buf: Buffer, pos: number, rowLimit: number): number {
    const end = buf.length;
    const builders = this.#builders;
    const ncols = builders.length;
    const maxRows = this.#options.batchRows;
    const maxBytes = this.#options.batchBytes;
    const weigh = this.#options.weigh;
    const weighed = weigh ? builders.find((b) => b.name === weigh.column)! : null;
    let bytes = this.#batchBytes;
    let rows = this.#rows;
    const lastRow = Math.min(maxRows, rows + rowLimit);
    /** True while a row is being decoded: still true after the loop when the bytes ran out inside one. */
    let inRow = false;
    rows: while (rows < lastRow && bytes < maxBytes) {
      inRow = true;
      const rowStart = pos;
      let p = pos;
      for (let c = 0; c < ncols; c++) {
        const b = builders[c]!;
        const kind = b.kind;
        if (kind === FIXED8 || kind === NULLABLE_FIXED8) {
          if (kind === NULLABLE_FIXED8) {
            if (p >= end) break rows;
            const isNull = buf[p++]!;
            if (isNull > 1) throw badByte(b.name, isNull);
            if (isNull === 1) {
              b.validity[rows >> 3]! &= ~(1 << (rows & 7));
              continue;
            }
            b.validity[rows >> 3]! |= 1 << (rows & 7);
          }
          if (p + 8 > end) {
            this.#need = p + 8 - rowStart;
            break rows;
          }
          const d = b.data;
          const o = rows * 8;
          for (let k = 0; k < 8; k++) d[o + k] = buf[p + k]!;
          p += 8;
        } else if (kind === BOOL) {
          if (p >= end) break rows;
          const v = buf[p++]!;
          if (v > 1) throw badByte(b.name, v);
          if (v === 1) b.data[rows >> 3]! |= 1 << (rows & 7);
          else b.data[rows >> 3]! &= ~(1 << (rows & 7));
        } else if (kind === STRING_ARRAY) {
          // Item count, then each item as a string.
          const count = readVarint(buf, p, end);
          if (count < 0) break rows;
          p = varintEnd;
          if (b.items + count + 1 > b.itemOffsets.length)
            b.itemOffsets = growOffsets(b.itemOffsets, b.items + count + 1);
          for (let i = 0; i < count; i++) {
            const len = readVarint(buf, p, end);
            if (len < 0) break rows;
            p = varintEnd;
            if (p + len > end) {
              this.#need = p + len - rowStart;
              break rows;
            }
            if (b.itemSize + len > b.itemData.length) b.itemData = grow(b.itemData, b.itemSize + len);
            copyBytes(buf, p, len, b.itemData, b.itemSize);
            p += len;
            b.itemSize += len;
            b.itemOffsets[++b.items] = b.itemSize;
          }
          b.offsets[rows + 1] = b.items;
        } else {
          // STRING, NULLABLE_STRING, JSON_TEXT
          if (kind === NULLABLE_STRING) {
            if (p >= end) break rows;
            const isNull = buf[p++]!;
            if (isNull > 1) throw badByte(b.name, isNull);
            if (isNull === 1) {
              b.validity[rows >> 3]! &= ~(1 << (rows & 7));
              b.offsets[rows + 1] = b.size;
              continue;
            }
            b.validity[rows >> 3]! |= 1 << (rows & 7);
          }
          const len = readVarint(buf, p, end);
          if (len < 0) break rows;
          p = varintEnd;
          if (p + len > end) {
            this.#need = p + len - rowStart;
            break rows;
          }
          if (kind === JSON_TEXT) {
            if (len === 0) b.validity[rows >> 3]! &= ~(1 << (rows & 7));
            else b.validity[rows >> 3]! |= 1 << (rows & 7);
          }
          if (b.size + len > b.data.length) b.data = grow(b.data, b.size + len);
          copyBytes(buf, p, len, b.data, b.size);
          p += len;
          b.size += len;
          b.offsets[rows + 1] = b.size;
        }
      }
      if (weighed !== null) {
        const from = weighed.offsets[rows]!;
        const to = weighed.offsets[rows + 1]!;
        if (to - from > 2) bytes += weigh!.bytes(weighed.data.subarray(from, to));
      }
      inRow = false;
      rows++;
      bytes += p - pos;
      pos = p;
      this.#need = 0;
    }
    this.#batchBytes = bytes;
    if (inRow) {
      // The row at `pos` did not fit: undo its partial values. It needs at least one more byte.
      for (const b of builders) b.truncate(rows);
      this.#need = Math.max(this.#need, end - pos + 1);
    } else this.#need = 0;
    this.#rows = rows;
    return pos;
  }
}

function copyBytes(src: Buffer, from: number, len: number, dst: Uint8Array, to: number): void {
  if (len < SHORT_COPY) for (let k = 0; k < len; k++) dst[to + k] = src[from + k]!;
  else src.copy(dst, to, from, from + len);
}

const badByte = (column: string, value: number) =>
  new Error(`unexpected byte ${value} in column ${column} of ClickHouse's RowBinary stream`);
