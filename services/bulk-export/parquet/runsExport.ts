// One export run: a project's runs in [startMicros, endMicros) from ClickHouse, streamed (never
// the whole export in memory) into Arrow record batches, into Parquet files, into S3 multipart
// uploads. Files are partitioned by the UTC day of the runs' start time and rolled once they
// reach maxFileBytes; each completed file is reported to `onFile` (awaited) before the next one
// is started, with the cursor of its last row, so a retry resumes after the last reported file.
import type { S3Client } from '@aws-sdk/client-s3';
import type { Sql } from '../../../platform/clickhouse/sql.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import type { BlobStore } from '../../../platform/blobStore.ts';
import type { DestinationLocation, ExportCursor, ExportedFile, ExportRunTask } from '../exportTypes.ts';
import {
  CURSOR_COLUMNS,
  PAYLOAD_REFS_COLUMN,
  exportColumns,
  queryColumnsFor,
  type ExportColumn,
  type QueryColumn,
} from './exportColumns.ts';
import { exportFilterCondition, exportRunsQuery, feedbackFlagColumn, projectHasFeedback } from './exportQuery.ts';
import { RowBinaryDecoder } from './rowBinaryDecoder.ts';
import { int64At, utf8At, type DecodedBatch, type FixedValues, type Utf8Values } from './columnData.ts';
import { batchValues, claimCheckedBytes, type BatchSources } from './batchValues.ts';
import { arrowRecordBatch, exportSchema, toArrowIpc } from './arrowBatch.ts';
import { ParquetUpload, type ParquetFileOptions } from './parquetUpload.ts';
import { exportObjectKey } from './objectKey.ts';

export interface RunsExportDeps {
  ch: ClickHouseClient;
  tables: { runs: string; runKeys: string; feedback: string };
  blobs: BlobStore;
  /** A client for the destination (its endpoint, region and credentials). */
  s3: S3Client;
}

export interface RunsExportOptions {
  signal: AbortSignal;
  /**
   * A file is closed, and the next one begun, at the first batch after its Parquet bytes reach
   * this (the writer works a batch or two behind, so a file may exceed it by that much).
   */
  maxFileBytes: number;
  /** Called (and awaited) after each file's upload completed. */
  onFile(file: ExportedFile): Promise<void>;
  /** Called (and awaited) once a file's rows are all written, before its upload is completed. */
  beforeFileCompletes?(file: Omit<ExportedFile, 'bytes'>): Promise<void>;
}

export interface RunsExportResult {
  rows: number;
  files: ExportedFile[];
}

/** Rows per batch (and at most per Parquet row group); a batch also ends at BATCH_BYTES of ClickHouse data. */
const BATCH_ROWS = 10_000;
const BATCH_BYTES = 4 * 1024 * 1024;
const DAY_MICROS = 86_400_000_000;
/**
 * A day is read as slices of this much start time, one query each: ClickHouse sorts a query's
 * rows before it sends the first, so one query per day left the export idle for ~0.6 s of each
 * day's ~1.3 s read (200,000 runs); a slice sorts in a fraction of that, while the slice before
 * it is being read (dayStreams sends each query as the one before it answers).
 */
const SLICE_MICROS = 3_600_000_000;

/** What an export run reads: the columns it writes, those it selects, and per UTC day of its window the queries of its slices. */
export interface ExportPlan {
  columns: ExportColumn[];
  queryColumns: QueryColumn[];
  days: { startMicros: number; queries: Sql[] }[];
}

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
  return { columns, queryColumns, days };
}

/**
 * Each day of the plan as one RowBinary stream (its slices' responses one after the other: each
 * ends at a row's end). Every query is sent as soon as the one before it answered, across days
 * too, so ClickHouse sorts the next slice while this one is read (an unread response waits in
 * the socket's buffers). A day's stream is to be read to its end before the next is asked for;
 * leaving early cancels the query sent ahead.
 */
export async function* dayStreams(
  ch: ClickHouseClient,
  days: ExportPlan['days'],
  signal?: AbortSignal,
): AsyncGenerator<{ startMicros: number; body: AsyncIterable<Buffer> }> {
  const queries = days.flatMap((d, day) => d.queries.map((query) => ({ day, query })));
  let sent = 0;
  const send = () => {
    if (sent >= queries.length) return null;
    const answer = { day: queries[sent]!.day, body: ch.queryStream(queries[sent++]!.query, 'RowBinary', { signal }) };
    answer.body.catch(() => {}); // seen when awaited, or dropped with the query
    return answer;
  };
  let next = send();
  async function* dayBody(day: number): AsyncGenerator<Buffer> {
    while (next && next.day === day) {
      const body = await next.body;
      next = send();
      yield* body;
    }
  }
  try {
    for (let day = 0; day < days.length; day++) yield { startMicros: days[day]!.startMicros, body: dayBody(day) };
  } finally {
    void next?.body.then(
      (body) => body[Symbol.asyncIterator]().return?.(),
      () => {},
    );
  }
}

export async function exportRunsToParquet(
  deps: RunsExportDeps,
  task: ExportRunTask,
  location: DestinationLocation,
  options: RunsExportOptions,
): Promise<RunsExportResult> {
  const { signal } = options;
  signal.throwIfAborted();
  const { columns, queryColumns, days } = await exportPlan(deps, task);
  const schema = exportSchema(columns, task.formatVersion);
  const sources: BatchSources = {
    ch: deps.ch,
    feedbackTable: deps.tables.feedback,
    blobs: deps.blobs,
    tenantId: task.tenantId,
  };
  // Batches (and row groups) small enough that a file ends near maxFileBytes.
  const batchBytes = Math.max(16 * 1024, Math.min(BATCH_BYTES, Math.floor(options.maxFileBytes / 4)));
  const files = new ExportFiles(deps.s3, location, task, options, {
    compression: task.compression,
    columns,
    rowGroupRows: BATCH_ROWS,
    rowGroupBytes: batchBytes,
  });
  const abandon = () => void files.abandon(abortError(signal));
  signal.addEventListener('abort', abandon);
  try {
    for await (const day of dayStreams(deps.ch, days, signal)) {
      for await (const batch of decodedBatches(day.body, columns, queryColumns, batchBytes)) {
        const values = await batchValues(batch, columns, sources);
        signal.throwIfAborted();
        await files.write(
          day.startMicros,
          toArrowIpc(arrowRecordBatch(schema, values, batch.rows)),
          batch.rows,
          lastRow(batch),
        );
        if (files.currentBytes >= options.maxFileBytes) await files.finish();
      }
      await files.finish();
    }
    return { rows: files.rows, files: files.done };
  } catch (err) {
    const reason = signal.aborted ? abortError(signal) : err instanceof Error ? err : new Error(String(err));
    await files.abandon(reason);
    throw reason;
  } finally {
    signal.removeEventListener('abort', abandon);
  }
}

/** An export run's files: the one being written, and those completed (and reported) so far. */
class ExportFiles {
  readonly done: ExportedFile[] = [];
  rows = 0;
  #current: { upload: ParquetUpload; rows: number; cursor: ExportCursor } | null = null;
  readonly #s3: S3Client;
  readonly #location: DestinationLocation;
  readonly #task: ExportRunTask;
  readonly #hooks: Pick<RunsExportOptions, 'onFile' | 'beforeFileCompletes'>;
  readonly #options: ParquetFileOptions;

  constructor(
    s3: S3Client,
    location: DestinationLocation,
    task: ExportRunTask,
    hooks: Pick<RunsExportOptions, 'onFile' | 'beforeFileCompletes'>,
    options: ParquetFileOptions,
  ) {
    this.#s3 = s3;
    this.#location = location;
    this.#task = task;
    this.#hooks = hooks;
    this.#options = options;
  }

  /** Parquet bytes of the file being written (0 when none is). */
  get currentBytes(): number {
    return this.#current?.upload.bytes ?? 0;
  }

  /** Writes a batch of runs that started on the day of `dayStart`, to the current file or a new one. */
  async write(dayStart: number, ipc: Uint8Array, rows: number, last: ExportCursor): Promise<void> {
    if (!this.#current) {
      const key = exportObjectKey(this.#location.prefix, { ...this.#task, startMicros: dayStart }, this.done.length);
      this.#current = {
        upload: new ParquetUpload(this.#s3, this.#location.bucket, key, this.#options),
        rows: 0,
        cursor: last,
      };
    }
    const file = this.#current;
    await file.upload.write(ipc);
    file.rows += rows;
    file.cursor = last;
    this.rows += rows;
  }

  /** Completes the current file's upload (if any) and reports it. */
  async finish(): Promise<void> {
    const file = this.#current;
    if (!file) return;
    // When this throws, the file is still current, so abandon() aborts its upload.
    await this.#hooks.beforeFileCompletes?.({ key: file.upload.key, rows: file.rows, cursor: file.cursor });
    this.#current = null;
    const bytes = await file.upload.close();
    const done: ExportedFile = { key: file.upload.key, rows: file.rows, bytes, cursor: file.cursor };
    this.done.push(done);
    await this.#hooks.onFile(done);
  }

  /** Abandons the current file: its multipart upload is aborted, no object is left. */
  async abandon(reason: Error): Promise<void> {
    const file = this.#current;
    this.#current = null;
    await file?.upload.abort(reason);
  }
}

/** ClickHouse's RowBinary stream as batches of whole rows. */
async function* decodedBatches(
  body: AsyncIterable<Buffer>,
  columns: readonly ExportColumn[],
  queryColumns: readonly QueryColumn[],
  batchBytes: number,
): AsyncGenerator<DecodedBatch> {
  const hasRefs = queryColumns.some((c) => c.name === PAYLOAD_REFS_COLUMN.name);
  const decoder = new RowBinaryDecoder(queryColumns, {
    batchRows: BATCH_ROWS,
    batchBytes,
    weigh: hasRefs ? { column: PAYLOAD_REFS_COLUMN.name, bytes: claimCheckedBytes(columns) } : undefined,
  });
  for await (const chunk of body) yield* decoder.push(chunk);
  const last = decoder.end();
  if (last) yield last;
}

function lastRow(batch: DecodedBatch): ExportCursor {
  const i = batch.rows - 1;
  return {
    startTime: int64At(batch.columns.get(CURSOR_COLUMNS.startTime.name) as FixedValues, i)!,
    id: utf8At(batch.columns.get(CURSOR_COLUMNS.id.name) as Utf8Values, i)!,
  };
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : Object.assign(new Error('export aborted'), { name: 'AbortError', cause: reason });
}
