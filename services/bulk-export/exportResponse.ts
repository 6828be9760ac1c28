// Destinations, exports and export runs as the API returns them (LangSmith's field names), with
// the JSON schemas the routes declare. Credentials never appear: only the names of the fields given.
import { formatIsoMicros } from '../../platform/time.ts';
import type { ExportCursor } from './exportTypes.ts';
import { exportFinishedAt, exportStatus, type BulkExport, type Destination, type ExportRun } from './exportState.ts';
import { splitAtUtcMidnights } from './exportSchedule.ts';

const cursorText = (c: ExportCursor) => `${formatIsoMicros(c.startTime)}|${c.id}`;
const iso = (micros: number | null): string | null => (micros === null ? null : formatIsoMicros(micros));
const nullable = (type: string, description?: string) => ({
  type: [type, 'null'],
  ...(description ? { description } : {}),
});
const isoTime = (description = 'ISO 8601, UTC') => ({ type: 'string', description });

export const destinationSchema = {
  type: 'object',
  description: 'A bulk-export destination. Credentials are write-only: only the names of the fields given are shown.',
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'UUID' },
    tenant_id: { type: 'string' },
    destination_type: { type: 'string', enum: ['s3'] },
    display_name: { type: 'string' },
    config: {
      type: 'object',
      additionalProperties: false,
      properties: {
        bucket_name: { type: 'string' },
        prefix: { type: 'string' },
        endpoint_url: nullable('string'),
        region: nullable('string'),
      },
    },
    credentials_keys: { type: 'array', items: { type: 'string' } },
    created_at: isoTime(),
    updated_at: isoTime(),
  },
} as const;

export function destinationResponse(d: Destination): Record<string, unknown> {
  return {
    id: d.id,
    tenant_id: d.tenantId,
    destination_type: d.type,
    display_name: d.displayName,
    config: { bucket_name: d.bucket, prefix: d.prefix, endpoint_url: d.endpointUrl, region: d.region },
    credentials_keys: d.credentialsKeys,
    created_at: iso(d.createdAt),
    updated_at: iso(d.updatedAt),
  };
}

const exportStatuses = ['Created', 'Running', 'Completed', 'Failed', 'Cancelled', 'TimedOut', 'IntervalScheduled'];

export const exportSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'UUID' },
    tenant_id: { type: 'string' },
    bulk_export_destination_id: { type: 'string' },
    resource: {
      type: 'string',
      enum: ['runs', 'examples'],
      description: 'not in LangSmith’s API: what is exported, a project’s runs or a dataset’s examples at a version',
    },
    session_id: nullable('string', 'the project exported; null for an examples export'),
    dataset_id: nullable('string', 'the dataset exported; null for a runs export'),
    as_of: nullable(
      'string',
      'ISO 8601, UTC: the version of the dataset an examples export reads, pinned when it was created; null for a runs export',
    ),
    start_time: nullable('string', 'ISO 8601, UTC, inclusive; null for an examples export'),
    end_time: nullable('string', 'ISO 8601, UTC, exclusive; null for a scheduled export and for an examples export'),
    interval_hours: nullable('integer'),
    format: { type: 'string', enum: ['Parquet'] },
    format_version: { type: 'string', enum: ['v1', 'v2_beta'] },
    compression: { type: 'string', enum: ['none', 'gzip', 'snappy', 'zstandard'] },
    export_fields: { type: ['array', 'null'], items: { type: 'string' } },
    filter: nullable('string', 'only runs that match this, in the runs filter language'),
    status: { type: 'string', enum: exportStatuses },
    created_at: isoTime(),
    updated_at: isoTime(),
    finished_at: nullable('string'),
    source_bulk_export_id: { type: 'null' },
    progress: {
      type: 'object',
      additionalProperties: false,
      description:
        'not in LangSmith’s API: the sums of the export’s runs, so a list shows how far each export is without a request per export',
      properties: {
        runs_planned: nullable(
          'integer',
          'the runs a one-time export is cut into (one per UTC day of its range; one for an examples export); null for a scheduled export, which has no end',
        ),
        runs_scheduled: {
          type: 'integer',
          description: 'runs created so far (a window is due once it has ended and the lag buffer passed)',
        },
        runs_completed: { type: 'integer' },
        runs_failed: { type: 'integer', description: 'runs that ended Failed or TimedOut' },
        rows_written: { type: 'integer' },
        bytes_written: { type: 'integer' },
        files_written: { type: 'integer' },
        last_error: nullable('string', 'the latest error of any of its runs (a failed attempt, retried or not)'),
      },
    },
  },
} as const;

/** How far an export is: the sums of its runs. */
export function exportProgress(e: BulkExport): Record<string, unknown> {
  const runs = [...e.runs.values()];
  let lastError: { at: number; text: string } | null = null;
  for (const run of runs) {
    // Keyed retry_<attempt>: the run's latest error is its highest attempt's.
    const attempts = Object.keys(run.errors).map((key) => Number(key.slice('retry_'.length)));
    if (attempts.length === 0 || (lastError !== null && run.updatedAt < lastError.at)) continue;
    lastError = { at: run.updatedAt, text: run.errors[`retry_${Math.max(...attempts)}`]! };
  }
  const sum = (value: (run: ExportRun) => number) => runs.reduce((total, run) => total + value(run), 0);
  return {
    runs_planned:
      e.resource === 'examples' ? 1 : e.endTime === null ? null : splitAtUtcMidnights(e.startTime!, e.endTime).length,
    runs_scheduled: runs.length,
    runs_completed: runs.filter((r) => r.status === 'Completed').length,
    runs_failed: runs.filter((r) => r.status === 'Failed' || r.status === 'TimedOut').length,
    rows_written: sum((r) => r.rowsWritten),
    bytes_written: sum((r) => r.bytesWritten),
    files_written: sum((r) => r.files.length),
    last_error: lastError?.text ?? null,
  };
}

export function exportResponse(e: BulkExport): Record<string, unknown> {
  return {
    id: e.id,
    tenant_id: e.tenantId,
    bulk_export_destination_id: e.destinationId,
    resource: e.resource,
    session_id: e.sessionId,
    dataset_id: e.datasetId,
    as_of: iso(e.asOf),
    start_time: iso(e.startTime),
    end_time: iso(e.endTime),
    interval_hours: e.intervalHours,
    format: e.format,
    format_version: e.formatVersion,
    compression: e.compression,
    export_fields: e.exportFields,
    filter: e.filter,
    status: exportStatus(e),
    created_at: iso(e.createdAt),
    updated_at: iso(e.updatedAt),
    finished_at: iso(exportFinishedAt(e)),
    source_bulk_export_id: null,
    progress: exportProgress(e),
  };
}

export const exportRunSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'UUID, derived from the export and the range' },
    bulk_export_id: { type: 'string' },
    status: { type: 'string', enum: exportStatuses.filter((s) => s !== 'IntervalScheduled') },
    retry_number: { type: 'integer', description: 'the attempt under way or last made: 0 first, n the n-th retry' },
    errors: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'error of each failed attempt, keyed retry_<n>',
    },
    start_time: isoTime('start of the runs range, inclusive; of an examples export, its as_of'),
    end_time: isoTime('end of the runs range, exclusive; of an examples export, its as_of'),
    metadata: {
      type: 'object',
      additionalProperties: false,
      properties: {
        prefix: { type: 'string' },
        start_time: isoTime(),
        end_time: isoTime(),
        result: {
          type: 'object',
          additionalProperties: false,
          properties: {
            rows_written: { type: 'integer' },
            bytes_written: { type: 'integer' },
            exported_files: { type: 'array', items: { type: 'string' } },
            export_path: { type: 'string', description: 'the folder (day partition) the files are in' },
            latest_cursor: nullable(
              'string',
              'start_time (examples: created_at) and id of the last row of the last completed file',
            ),
            pending_upload: {
              type: ['object', 'null'],
              description:
                'a file whose upload was being completed when its attempt ended; the next attempt records it if it exists',
              properties: {
                file_path: { type: 'string' },
                target_cursor: { type: 'string' },
                rows_count: { type: 'integer' },
              },
            },
          },
        },
      },
    },
    created_at: isoTime(),
    updated_at: isoTime(),
    finished_at: nullable('string'),
  },
} as const;

export function exportRunResponse(run: ExportRun, exportPath: string, prefix: string): Record<string, unknown> {
  return {
    id: run.id,
    bulk_export_id: run.exportId,
    status: run.status,
    retry_number: run.attempt,
    errors: run.errors,
    start_time: iso(run.startTime),
    end_time: iso(run.endTime),
    metadata: {
      prefix,
      start_time: iso(run.startTime),
      end_time: iso(run.endTime),
      result: {
        rows_written: run.rowsWritten,
        bytes_written: run.bytesWritten,
        exported_files: run.files,
        export_path: exportPath,
        latest_cursor: run.cursor === null ? null : cursorText(run.cursor),
        pending_upload:
          run.pendingFile === null
            ? null
            : {
                file_path: run.pendingFile.key,
                target_cursor: cursorText(run.pendingFile.cursor),
                rows_count: run.pendingFile.rows,
              },
      },
    },
    created_at: iso(run.createdAt),
    updated_at: iso(run.updatedAt),
    finished_at: iso(run.finishedAt),
  };
}
