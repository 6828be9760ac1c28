// Export of the traces table: rows as JSON Lines or CSV. No CSV library is installed, so the
// quoting of RFC 4180 is here: a field holding a comma, a quote, CR or LF is quoted, quotes
// inside it doubled; records end with CRLF. Objects and lists go into a CSV cell as JSON.
import type { TraceRow } from './tracesApi.ts';

export type ExportFormat = 'jsonl' | 'csv';

/** The columns of a CSV export, in order (a JSONL line carries every field of the row). */
export const CSV_COLUMNS = [
  'id',
  'trace_id',
  'name',
  'run_type',
  'status',
  'start_time',
  'end_time',
  'latency_seconds',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'total_cost',
  'run_count',
  'error_count',
  'tags',
  'thread_id',
  'error',
  'metadata',
  'inputs',
  'outputs',
] as const;

/** The root-run fields an export reads (the table itself reads only what the trace row holds). */
export const EXPORT_SELECTS = [
  'ID',
  'TRACE_ID',
  'NAME',
  'RUN_TYPE',
  'STATUS',
  'START_TIME',
  'END_TIME',
  'LATENCY_SECONDS',
  'PROMPT_TOKENS',
  'COMPLETION_TOKENS',
  'TOTAL_TOKENS',
  'TOTAL_COST',
  'TAGS',
  'THREAD_ID',
  'ERROR',
  'METADATA',
  'INPUTS',
  'OUTPUTS',
];

export function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(rows: readonly Record<string, unknown>[], columns: readonly string[] = CSV_COLUMNS): string {
  const lines = [columns.map(csvField).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvField(row[c])).join(','));
  return lines.join('\r\n') + '\r\n';
}

export function toJsonl(rows: readonly Record<string, unknown>[]): string {
  return rows.map((r) => JSON.stringify(r)).join('\n') + (rows.length ? '\n' : '');
}

export function exportText(rows: readonly TraceRow[], format: ExportFormat): { text: string; mime: string } {
  return format === 'csv'
    ? { text: toCsv(rows), mime: 'text/csv' }
    : { text: toJsonl(rows), mime: 'application/x-ndjson' };
}
