// Decoded columns → an Arrow RecordBatch (apache-arrow, over the same buffers: no copy) →
// one Arrow IPC message (the copy), which an encoder thread moves into parquet-wasm's memory.
import { DataType, makeData, RecordBatch, RecordBatchStreamWriter, Schema, Struct, type Data } from 'apache-arrow';
import { arrowField, type ExportColumn } from './exportColumns.ts';
import type { ColumnValues, Utf8Values } from './columnData.ts';
import type { ExportFormatVersion } from '../exportTypes.ts';

export function exportSchema(columns: readonly ExportColumn[], formatVersion: ExportFormatVersion): Schema {
  return new Schema(columns.map((c) => arrowField(c, formatVersion)));
}

/** One Arrow RecordBatch of `rows` rows: `values[i]` holds the values of the schema's field i. */
export function arrowRecordBatch(schema: Schema, values: readonly ColumnValues[], rows: number): RecordBatch {
  const children = schema.fields.map((field, i) => columnData(field.type, values[i]!, field.name));
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: rows, nullCount: 0, children }));
}

function columnData(type: DataType, values: ColumnValues, name: string): Data {
  switch (values.type) {
    case 'utf8':
      return utf8Data(type, values);
    case 'fixed8': {
      const { buffer, byteOffset } = values.data;
      // Int64 and timestamps are BigInt64Array in Arrow JS, Float64 a Float64Array: views of the same bytes.
      const data = DataType.isFloat(type)
        ? new Float64Array(buffer, byteOffset, values.length)
        : new BigInt64Array(buffer, byteOffset, values.length);
      return makeData({
        type,
        length: values.length,
        nullCount: values.nullCount,
        nullBitmap: values.validity ?? undefined,
        data,
      } as never);
    }
    case 'bool':
      return makeData({ type, length: values.length, nullCount: 0, data: values.bits } as never);
    case 'utf8List': {
      const child = utf8Data((type as unknown as { children: { type: DataType }[] }).children[0]!.type, values.items);
      return makeData({ type, length: values.length, nullCount: 0, valueOffsets: values.offsets, child } as never);
    }
    default:
      throw new Error(`column ${name}: unexpected values`);
  }
}

function utf8Data(type: DataType, values: Utf8Values): Data {
  return makeData({
    type,
    length: values.length,
    nullCount: values.nullCount,
    nullBitmap: values.validity ?? undefined,
    valueOffsets: values.offsets,
    data: values.data,
  } as never);
}

/**
 * The batch as an Arrow IPC stream in a buffer of its own (a copy: the decoder reuses its
 * buffers), to be moved to an encoder thread.
 */
export function toArrowIpc(batch: RecordBatch): Uint8Array {
  const ipc = RecordBatchStreamWriter.writeAll([batch]).toUint8Array(true);
  return ipc.byteOffset === 0 && ipc.byteLength === ipc.buffer.byteLength ? ipc : ipc.slice();
}
