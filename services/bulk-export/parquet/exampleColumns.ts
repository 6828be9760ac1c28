// The Parquet columns of an examples export: what reloading the dataset at the version read
// needs, how ClickHouse computes each from an example's version (exampleTables.ts), and its Arrow
// type (timestamps per format version, as for runs: exportColumns.ts).
import { sql } from '../../../platform/clickhouse/sql.ts';
import { type ExportColumn, exportColumn as column, type QueryColumn } from './exportColumns.ts';
/** JSON text, not for statistics (long values would bloat the footer). */
const json = (name: string, kind: 'string' | 'nullableString') =>
  column(name, name, kind, 'utf8', { statistics: false });

/** The column written as the version the export read: the same value in every row (set per export). */
export const AS_OF_COLUMN = 'as_of';

/**
 * Every column, in the default order. `attachments` is read as stored (null for none) and written
 * as a JSON array of `{name, mime_type, size}` (examplesExport.ts); `as_of` is the export's version.
 */
const COLUMNS: readonly ExportColumn[] = [
  column('id', 'toString(id)', 'string', 'utf8'),
  column('dataset_id', 'toString(dataset_id)', 'string', 'utf8', { dictionary: true }),
  json('inputs', 'string'),
  json('outputs', 'nullableString'),
  json('metadata', 'string'),
  column('splits', 'splits', 'stringArray', 'utf8List'),
  column('source_run_id', 'toString(source_run_id)', 'nullableString', 'utf8'),
  {
    ...column('attachments', `if(attachments = '[]', NULL, attachments)`, 'nullableString', 'utf8'),
    statistics: false,
  },
  column('created_at', 'created_at', 'int64', 'timestamp'),
  column('modified_at', 'modified_at', 'int64', 'timestamp'),
  column(AS_OF_COLUMN, '0', 'int64', 'timestamp'),
];

const BY_NAME = new Map(COLUMNS.map((c) => [c.name, c]));

/** The default column names of an examples export, in order. */
export const DEFAULT_EXAMPLE_FIELDS: readonly string[] = COLUMNS.map((c) => c.name);

/** The names in `fields` that are not columns of an examples export (for the API to refuse). */
export function unknownExampleFields(fields: readonly string[]): string[] {
  return fields.filter((f) => !BY_NAME.has(f));
}

/** The columns to write, in the order asked (all when null), `as_of` holding the version `asOf` (microseconds). */
export function exampleColumns(fields: readonly string[] | null, asOf: number): ExportColumn[] {
  const unknown = unknownExampleFields(fields ?? []);
  if (unknown.length > 0) throw new Error(`unknown export fields of examples: ${unknown.join(', ')}`);
  return (fields === null ? COLUMNS : [...new Set(fields)].map((f) => BY_NAME.get(f)!)).map((c) =>
    c.name === AS_OF_COLUMN
      ? { ...c, source: { ...(c.source as QueryColumn), select: sql`toInt64(${asOf})` } }
      : { ...c },
  );
}

/** The query columns of a row's cursor: its created_at and id. */
export const EXAMPLE_CURSOR = { time: 'created_at', id: 'id' } as const;

/** What the query selects for these columns (each once), plus the cursor's. */
export function exampleQueryColumns(columns: readonly ExportColumn[]): QueryColumn[] {
  const out = new Map<string, QueryColumn>();
  for (const c of columns) out.set(c.name, c.source as QueryColumn);
  for (const name of [EXAMPLE_CURSOR.time, EXAMPLE_CURSOR.id])
    if (!out.has(name)) out.set(name, BY_NAME.get(name)!.source as QueryColumn);
  return [...out.values()];
}
