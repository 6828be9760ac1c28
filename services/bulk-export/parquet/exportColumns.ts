// The Parquet columns of a runs export: the default set and order (LangSmith's), how ClickHouse
// computes each one, how its bytes arrive (RowBinary), and its Arrow type per format version.
// Times are Int64 microseconds in `runs`, written as Timestamp(MICROSECOND): tz 'UTC' for
// v2_beta, naive for v1. JSON payloads are text, null when empty.
import { Bool, Field, Float64, Int64, List, TimestampMicrosecond, Utf8, type DataType } from 'apache-arrow';
import { raw, type Sql } from '../../../platform/clickhouse/sql.ts';
import type { ExportFormatVersion } from '../exportTypes.ts';

/** How a value arrives in ClickHouse's RowBinary, and so how the decoder reads it. */
export type WireKind =
  | 'string' // String
  | 'nullableString' // Nullable(String)
  | 'jsonText' // String, '' read as null
  | 'int64' // Int64 or UInt64 (values below 2^63)
  | 'nullableInt64' // Nullable(Int64)
  | 'float64' // Float64
  | 'bool' // UInt8
  | 'stringArray'; // Array(String)

/** A column the export query selects: its name, its SQL expression, how its values arrive. */
export interface QueryColumn {
  name: string;
  select: Sql;
  kind: WireKind;
}

/** Columns not read from ClickHouse: filled per batch after reading. */
export type FilledColumn = 'feedback_stats' | 'always_null';

export type ArrowKind = 'utf8' | 'int64' | 'float64' | 'bool' | 'timestamp' | 'utf8List';

export interface ExportColumn {
  name: string;
  /** Where the values come from: a query column, or filled after reading. */
  source: QueryColumn | FilledColumn;
  arrow: ArrowKind;
  nullable: boolean;
  /** Few distinct values per file: worth a Parquet dictionary (costly for unique values). */
  dictionary: boolean;
  /**
   * Min/max statistics are worth writing (readers prune row groups by them): not for payloads,
   * whose long values would bloat the footer. (Lists keep theirs: parquet-wasm sets per-column
   * properties by top-level name only.)
   */
  statistics: boolean;
}

/** A column read by a query: its name, what ClickHouse selects, how it comes and how it is written. */
export const exportColumn = (
  name: string,
  select: string,
  kind: WireKind,
  arrow: ArrowKind,
  options: { dictionary?: boolean; statistics?: boolean } = {},
): ExportColumn => ({
  name,
  source: { name, select: raw(select), kind },
  arrow,
  nullable: kind === 'nullableString' || kind === 'jsonText' || kind === 'nullableInt64',
  dictionary: options.dictionary ?? false,
  statistics: options.statistics ?? kind !== 'jsonText',
});
const uuid = (name: string) => exportColumn(name, `toString(${name})`, 'string', 'utf8');
const nullableUuid = (name: string) => exportColumn(name, `toString(${name})`, 'nullableString', 'utf8');
const json = (name: string) => exportColumn(name, name, 'jsonText', 'utf8');

/** Every exportable column, in the default order. */
const COLUMNS: readonly ExportColumn[] = [
  uuid('id'),
  { ...uuid('tenant_id'), dictionary: true },
  { ...uuid('session_id'), dictionary: true },
  uuid('trace_id'),
  nullableUuid('parent_run_id'),
  // Ancestors, root first: every dotted_order segment but the last (a segment is a 22-character
  // timestamp and the run's 36-character id), as the read API's parentRunIds does.
  exportColumn(
    'parent_run_ids',
    `arrayMap(s -> substring(s, 23, 36), arrayPopBack(splitByChar('.', dotted_order)))`,
    'stringArray',
    'utf8List',
  ),
  nullableUuid('reference_example_id'),
  exportColumn('name', 'name', 'string', 'utf8', { dictionary: true }),
  exportColumn('run_type', 'run_type', 'string', 'utf8', { dictionary: true }),
  exportColumn('start_time', 'start_time', 'int64', 'timestamp'),
  exportColumn('end_time', 'end_time', 'nullableInt64', 'timestamp'),
  exportColumn('status', 'status', 'string', 'utf8', { dictionary: true }),
  exportColumn('is_root', 'is_root', 'bool', 'bool'),
  exportColumn('dotted_order', 'dotted_order', 'string', 'utf8', { statistics: false }),
  // This service keeps no retention tiers (the read API returns null too).
  { name: 'trace_tier', source: 'always_null', arrow: 'utf8', nullable: true, dictionary: false, statistics: true },
  json('inputs'),
  json('outputs'),
  exportColumn('error', 'error', 'nullableString', 'utf8', { statistics: false }),
  json('extra'),
  json('events'),
  exportColumn('tags', 'tags', 'stringArray', 'utf8List'),
  {
    name: 'feedback_stats',
    source: 'feedback_stats',
    arrow: 'utf8',
    nullable: true,
    dictionary: false,
    statistics: false,
  },
  exportColumn('total_tokens', 'total_tokens', 'int64', 'int64'),
  exportColumn('prompt_tokens', 'prompt_tokens', 'int64', 'int64'),
  exportColumn('completion_tokens', 'completion_tokens', 'int64', 'int64'),
  exportColumn('total_cost', 'total_cost', 'float64', 'float64'),
  exportColumn('prompt_cost', 'prompt_cost', 'float64', 'float64'),
  exportColumn('completion_cost', 'completion_cost', 'float64', 'float64'),
  exportColumn('first_token_time', 'first_token_time', 'nullableInt64', 'timestamp'),
];

const BY_NAME = new Map(COLUMNS.map((c) => [c.name, c]));

/** The default column names, in order. */
export const DEFAULT_EXPORT_FIELDS: readonly string[] = COLUMNS.map((c) => c.name);

/** The names in `fields` that are not export columns (for the API to reject). */
export function unknownExportFields(fields: readonly string[]): string[] {
  return fields.filter((f) => !BY_NAME.has(f));
}

/** The columns to write, in the order asked (the default set when null). */
export function exportColumns(fields: readonly string[] | null): ExportColumn[] {
  if (fields === null) return [...COLUMNS];
  const unknown = unknownExportFields(fields);
  if (unknown.length > 0) throw new Error(`unknown export fields: ${unknown.join(', ')}`);
  return [...new Set(fields)].map((f) => BY_NAME.get(f)!);
}

/** Payload columns: '' in ClickHouse with a `payload_refs` entry when the payload sits in object storage. */
export const CLAIM_CHECKED_COLUMNS: ReadonlySet<string> = new Set(['inputs', 'outputs', 'extra', 'events']);

/** Query columns the export needs whatever is written: the cursor, and where big payloads are. */
export const CURSOR_COLUMNS = {
  startTime: BY_NAME.get('start_time')!.source as QueryColumn,
  id: BY_NAME.get('id')!.source as QueryColumn,
};
export const PAYLOAD_REFS_COLUMN: QueryColumn = { name: 'payload_refs', select: raw('payload_refs'), kind: 'string' };

/** What the query selects for these export columns (each once), plus the cursor and payload_refs when needed. */
export function queryColumnsFor(columns: readonly ExportColumn[]): QueryColumn[] {
  const out = new Map<string, QueryColumn>();
  for (const c of columns) if (typeof c.source !== 'string') out.set(c.source.name, c.source);
  for (const c of [CURSOR_COLUMNS.startTime, CURSOR_COLUMNS.id]) if (!out.has(c.name)) out.set(c.name, c);
  if (columns.some((c) => CLAIM_CHECKED_COLUMNS.has(c.name))) out.set(PAYLOAD_REFS_COLUMN.name, PAYLOAD_REFS_COLUMN);
  return [...out.values()];
}

/** The Arrow type of a column in a format version. */
export function arrowType(column: ExportColumn, formatVersion: ExportFormatVersion): DataType {
  switch (column.arrow) {
    case 'utf8':
      return new Utf8();
    case 'int64':
      return new Int64();
    case 'float64':
      return new Float64();
    case 'bool':
      return new Bool();
    case 'timestamp':
      return new TimestampMicrosecond(formatVersion === 'v2_beta' ? 'UTC' : null);
    case 'utf8List':
      return new List(new Field('item', new Utf8(), false));
  }
}

export const arrowField = (column: ExportColumn, formatVersion: ExportFormatVersion): Field =>
  new Field(column.name, arrowType(column, formatVersion), column.nullable);
