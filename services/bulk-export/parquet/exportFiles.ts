// What every export run does with its plan, whatever it exports (runs: runsExport.ts; examples:
// examplesExport.ts): its ClickHouse queries streamed as RowBinary (never the whole export in
// memory), decoded into Arrow record batches, into Parquet files, into S3 multipart uploads.
// Files lie in one UTC day partition each and roll once they reach maxFileBytes; each completed
// file is reported to `onFile` (awaited) before the next one is started, with the cursor of its
// last row, so a retry resumes after the last reported file.
import type { S3Client } from '@aws-sdk/client-s3';
import type { Sql } from '../../../platform/clickhouse/sql.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import type { DestinationLocation, ExportCursor, ExportedFile, ExportTaskBase } from '../exportTypes.ts';
import { PAYLOAD_REFS_COLUMN, type ExportColumn, type QueryColumn } from './exportColumns.ts';
import { RowBinaryDecoder } from './rowBinaryDecoder.ts';
import {
  int64At,
  utf8At,
  type ColumnValues,
  type DecodedBatch,
  type FixedValues,
  type Utf8Values,
} from './columnData.ts';
import { claimCheckedBytes } from './batchValues.ts';
import { arrowRecordBatch, exportSchema, toArrowIpc } from './arrowBatch.ts';
import { ParquetUpload, type ParquetFileOptions } from './parquetUpload.ts';
import { exportObjectKey } from './objectKey.ts';

export interface ExportRunOptions {
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

export interface ExportRunResult {
  rows: number;
  files: ExportedFile[];
}

/** What an export run reads: the columns it writes, those it selects, and per UTC day the queries of its slices. */
export interface ExportPlan {
  columns: ExportColumn[];
  queryColumns: QueryColumn[];
  days: { startMicros: number; queries: Sql[] }[];
  /** The query columns of a row's cursor (its time, Int64 microseconds, and its id), in query order. */
  cursor: { time: string; id: string };
}

/** An export run's task as its files are named: the task and what it exports (the day comes with each batch). */
export type FileNaming = ExportTaskBase & ({ sessionId: string } | { datasetId: string });

/** Rows per batch (and at most per Parquet row group); a batch also ends at BATCH_BYTES of ClickHouse data. */
export const BATCH_ROWS = 10_000;
const BATCH_BYTES = 4 * 1024 * 1024;

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

/**
 * Writes the plan's rows as Parquet files: `values` gives each decoded batch's values of the
 * plan's columns, in order (what is not read from ClickHouse as it arrives is filled there).
 */
export async function writeExportFiles(
  deps: { ch: ClickHouseClient; s3: S3Client },
  task: FileNaming,
  location: DestinationLocation,
  options: ExportRunOptions,
  plan: ExportPlan,
  values: (batch: DecodedBatch) => Promise<ColumnValues[]>,
): Promise<ExportRunResult> {
  const { signal } = options;
  const { columns, queryColumns, days } = plan;
  const schema = exportSchema(columns, task.formatVersion);
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
        const batchValues = await values(batch);
        signal.throwIfAborted();
        await files.write(
          day.startMicros,
          toArrowIpc(arrowRecordBatch(schema, batchValues, batch.rows)),
          batch.rows,
          lastRow(batch, plan.cursor),
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
  readonly #task: FileNaming;
  readonly #hooks: Pick<ExportRunOptions, 'onFile' | 'beforeFileCompletes'>;
  readonly #options: ParquetFileOptions;

  constructor(
    s3: S3Client,
    location: DestinationLocation,
    task: FileNaming,
    hooks: Pick<ExportRunOptions, 'onFile' | 'beforeFileCompletes'>,
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

  /** Writes a batch of rows of the day of `dayStart`, to the current file or a new one. */
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

function lastRow(batch: DecodedBatch, cursor: ExportPlan['cursor']): ExportCursor {
  const i = batch.rows - 1;
  return {
    startTime: int64At(batch.columns.get(cursor.time) as FixedValues, i)!,
    id: utf8At(batch.columns.get(cursor.id) as Utf8Values, i)!,
  };
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error
    ? reason
    : Object.assign(new Error('export aborted'), { name: 'AbortError', cause: reason });
}
