// One export run of runs: a project's runs in [startMicros, endMicros) from ClickHouse, read per
// UTC day (so every file lies in one day's partition) in slices of an hour, payloads kept in the
// payload store and feedback_stats filled per batch; written as Parquet by exportFiles.ts.
import type { S3Client } from '@aws-sdk/client-s3';
import type { Sql } from '../../../platform/clickhouse/sql.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import type { BlobStore } from '../../../platform/blobStore.ts';
import type { DestinationLocation, ExportRunTask } from '../exportTypes.ts';
import { CURSOR_COLUMNS, exportColumns, queryColumnsFor } from './exportColumns.ts';
import { exportFilterCondition, exportRunsQuery, feedbackFlagColumn, projectHasFeedback } from './exportQuery.ts';
import { batchValues, type BatchSources } from './batchValues.ts';
import { writeExportFiles, type ExportPlan, type ExportRunOptions, type ExportRunResult } from './exportFiles.ts';

export interface RunsExportDeps {
  ch: ClickHouseClient;
  tables: { runs: string; runKeys: string; feedback: string };
  blobs: BlobStore;
  /** A client for the destination (its endpoint, region and credentials). */
  s3: S3Client;
}

const DAY_MICROS = 86_400_000_000;
/**
 * A day is read as slices of this much start time, one query each: ClickHouse sorts a query's
 * rows before it sends the first, so one query per day left the export idle for ~0.6 s of each
 * day's ~1.3 s read (200,000 runs); a slice sorts in a fraction of that, while the slice before
 * it is being read (dayStreams sends each query as the one before it answers).
 */
const SLICE_MICROS = 3_600_000_000;

export async function exportPlan(
  deps: Pick<RunsExportDeps, 'ch' | 'tables'>,
  task: ExportRunTask,
): Promise<ExportPlan> {
  const columns = exportColumns(task.exportFields);
  const queryColumns = queryColumnsFor(columns);
  // feedback_stats: ClickHouse flags the runs that have feedback, unless the project has none at all (checked once).
  if (
    columns.some((c) => c.source === 'feedback_stats') &&
    (await projectHasFeedback(deps.ch, deps.tables.feedback, task))
  )
    queryColumns.push(feedbackFlagColumn(deps.tables.feedback, task));
  const filter = task.filter === null ? null : exportFilterCondition(task.filter, deps.tables, task);
  // Per UTC day, so that every file lies in one day's partition; all versions of a run share its
  // start time, so FINAL over a slice is exact.
  const days: ExportPlan['days'] = [];
  for (let startMicros = task.startMicros; startMicros < task.endMicros; ) {
    const dayEnd = Math.min(task.endMicros, (Math.floor(startMicros / DAY_MICROS) + 1) * DAY_MICROS);
    const day = { startMicros, queries: [] as Sql[] };
    for (let from = startMicros; from < dayEnd; ) {
      const to = Math.min(dayEnd, (Math.floor(from / SLICE_MICROS) + 1) * SLICE_MICROS);
      const window = {
        tenantId: task.tenantId,
        sessionId: task.sessionId,
        startMicros: from,
        endMicros: to,
        after: task.resumeAfter,
        filter,
      };
      day.queries.push(exportRunsQuery(deps.tables.runs, queryColumns, window));
      from = to;
    }
    days.push(day);
    startMicros = dayEnd;
  }
  return { columns, queryColumns, days, cursor: { time: CURSOR_COLUMNS.startTime.name, id: CURSOR_COLUMNS.id.name } };
}

/** Exports the task's runs (exportPlan) as Parquet files, payloads and feedback_stats filled per batch. */
export async function exportRunsToParquet(
  deps: RunsExportDeps,
  task: ExportRunTask,
  location: DestinationLocation,
  options: ExportRunOptions,
): Promise<ExportRunResult> {
  options.signal.throwIfAborted();
  const plan = await exportPlan(deps, task);
  const sources: BatchSources = {
    ch: deps.ch,
    feedbackTable: deps.tables.feedback,
    blobs: deps.blobs,
    tenantId: task.tenantId,
  };
  return writeExportFiles(deps, task, location, options, plan, (batch) => batchValues(batch, plan.columns, sources));
}
