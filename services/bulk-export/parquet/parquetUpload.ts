// One Parquet file written straight into an S3 object: parquet-wasm's streaming writer takes
// record batches one at a time (row groups of about a batch, flushed as they fill) and its bytes
// go into a multipart upload (@aws-sdk/lib-storage). Memory stays bounded: the writer takes the
// next batch only when it asks for one, and asks only once the upload has taken its last bytes.
// Aborting fails the upload's body, so lib-storage aborts the multipart upload (no object, no
// parts left behind) before `done()` settles.
import * as pq from 'parquet-wasm';
import type { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { ExportCompression } from '../exportTypes.ts';
import type { ExportColumn } from './exportColumns.ts';

const CODECS: Record<ExportCompression, pq.Compression> = {
  none: pq.Compression.UNCOMPRESSED,
  snappy: pq.Compression.SNAPPY,
  gzip: pq.Compression.GZIP,
  zstandard: pq.Compression.ZSTD,
};

/** Upload part size (S3's minimum is 5 MiB) and parts in flight: at most ~3 parts of memory. */
const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

export interface ParquetFileOptions {
  compression: ExportCompression;
  columns: readonly ExportColumn[];
  /** A row group ends at this many rows or bytes (about a batch, so each batch is flushed soon after it is written). */
  rowGroupRows: number;
  rowGroupBytes: number;
}

function writerProperties(options: ParquetFileOptions): pq.WriterProperties {
  let builder = new pq.WriterPropertiesBuilder()
    .setCompression(CODECS[options.compression])
    .setMaxRowGroupSize(options.rowGroupRows)
    .setMaxRowGroupBytes(options.rowGroupBytes)
    // Min/max per column chunk (what readers prune row groups by), not per page: cheaper to write.
    .setStatisticsEnabled(pq.EnabledStatistics.Chunk)
    // Dictionaries only where values repeat: on ids and payloads they cost time and save nothing.
    .setDictionaryEnabled(false);
  for (const c of options.columns) {
    if (c.dictionary) builder = builder.setColumnDictionaryEnabled(c.name, true);
    if (!c.statistics) builder = builder.setColumnStatisticsEnabled(c.name, pq.EnabledStatistics.None);
  }
  return builder.build();
}

export class ParquetUpload {
  readonly key: string;
  #bytes = 0;
  readonly #batches: ReadableStreamDefaultController<pq.RecordBatch>;
  readonly #demand: Demand;
  /** Rejected once the file is aborted or its upload failed. */
  readonly #failed = Promise.withResolvers<never>();
  #failure: Error | null = null;
  readonly #done: Promise<unknown>;

  /** Starts a file at `key`: its upload begins with the first batch written. */
  constructor(s3: S3Client, bucket: string, key: string, options: ParquetFileOptions) {
    this.key = key;
    let batches!: ReadableStreamDefaultController<pq.RecordBatch>;
    const demand = new Demand();
    // highWaterMark 0: `pull` runs only when the writer reads, i.e. when it wants the next batch.
    const input = new ReadableStream<pq.RecordBatch>({ start: (c) => void (batches = c), pull: () => demand.signal() }, { highWaterMark: 0 });
    this.#batches = batches;
    this.#demand = demand;
    this.#failed.promise.catch(() => {});
    // Resolves once the writer has the first batch (it needs the schema).
    const parquet = pq.transformParquetStream(input, writerProperties(options)) as Promise<ReadableStream<Uint8Array>>;
    const upload = new Upload({
      client: s3,
      params: { Bucket: bucket, Key: key, Body: ReadableStream.from(this.#body(parquet)), ContentType: 'application/vnd.apache.parquet' },
      partSize: PART_SIZE,
      queueSize: PARTS_IN_FLIGHT,
      leavePartsOnError: false,
    });
    this.#done = upload.done();
    this.#done.catch((err: unknown) => this.#fail(err instanceof Error ? err : new Error(String(err))));
  }

  /** Parquet bytes produced so far (the writer works a batch or so behind the batches written). */
  get bytes(): number {
    return this.#bytes;
  }

  /** Hands a batch to the writer once it asks for one (backpressure); the batch is moved into it. */
  async write(batch: pq.RecordBatch): Promise<void> {
    await Promise.race([this.#demand.wait(), this.#failed.promise]);
    this.#batches.enqueue(batch);
  }

  /** Ends the file and waits for its upload to complete; returns the object's size. */
  async close(): Promise<number> {
    if (this.#failure) throw this.#failure;
    this.#batches.close();
    await this.#done;
    return this.#bytes;
  }

  /** Abandons the file; resolves once the upload has given up (and lib-storage aborted the multipart upload). */
  async abort(reason: Error): Promise<void> {
    this.#fail(reason);
    await this.#done.catch(() => {});
  }

  #fail(reason: Error): void {
    if (this.#failure) return;
    this.#failure = reason;
    this.#failed.reject(reason);
    try {
      this.#batches.error(reason);
    } catch {
      /* the input is already closed */
    }
  }

  /** The upload's body: the writer's bytes, counted; fails (never just ends) once the file is abandoned. */
  async *#body(parquet: Promise<ReadableStream<Uint8Array>>): AsyncGenerator<Uint8Array> {
    const reader = (await Promise.race([parquet, this.#failed.promise])).getReader();
    try {
      for (;;) {
        const next = await Promise.race([reader.read(), this.#failed.promise]);
        if (next.done) break;
        this.#bytes += next.value.byteLength;
        yield next.value;
      }
      if (this.#failure) throw this.#failure;
    } finally {
      reader.releaseLock();
    }
  }
}

/** The writer's requests for batches: `wait()` resolves once per `signal()`. */
class Demand {
  #next = Promise.withResolvers<void>();

  signal(): void {
    this.#next.resolve();
  }

  async wait(): Promise<void> {
    await this.#next.promise;
    this.#next = Promise.withResolvers<void>();
  }
}
