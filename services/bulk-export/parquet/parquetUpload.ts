// One Parquet file written straight into an S3 object: an encoder thread (parquetEncoders.ts)
// runs parquet-wasm's streaming writer on the batches (row groups of about a batch, flushed as
// they fill) and its bytes go into a multipart upload (@aws-sdk/lib-storage) from this thread.
// The main thread reads and decodes the next batch while the thread encodes the last one.
// Memory stays bounded: a batch is sent only once the writer took the one before it (so at
// most one waits for it while it encodes another), and only while the upload keeps up (the
// Parquet bytes not yet taken by the upload stay under a part). Aborting fails the upload's
// body, so lib-storage aborts the multipart upload (no object, no parts left behind) before
// `done()` settles.
import { availableParallelism } from 'node:os';
import type { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { ExportCompression } from '../exportTypes.ts';
import type { ExportColumn } from './exportColumns.ts';
import { ParquetEncoders, type EncodingFile } from './parquetEncoders.ts';

/** Upload part size (S3's minimum is 5 MiB) and parts in flight: at most ~3 parts of memory. */
const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
/** Batches sent to the encoder thread that its writer has not taken yet: one, encoded next. */
const BATCHES_WAITING = 1;
/** No batch is sent while this many Parquet bytes wait for the upload to take them. */
const BYTES_WAITING = PART_SIZE;

/**
 * Encoder threads of the process: one per core but the one that reads and decodes, at most two
 * (ClickHouse and the upload need CPU too); exports running at once share them.
 */
const encoders = new ParquetEncoders(Math.max(1, Math.min(2, availableParallelism() - 1)));

/** Stops the encoder threads: the files being written fail (their uploads are aborted); the next file starts a new one. */
export function stopParquetEncoders(): Promise<void> {
  return encoders.close();
}

export interface ParquetFileOptions {
  compression: ExportCompression;
  columns: readonly ExportColumn[];
  /** A row group ends at this many rows or bytes (about a batch, so each batch is flushed soon after it is written). */
  rowGroupRows: number;
  rowGroupBytes: number;
}

export class ParquetUpload {
  readonly key: string;
  #bytes = 0;
  readonly #file: EncodingFile;
  #sent = 0;
  #taken = 0;
  /** Parquet bytes from the encoder not yet taken by the upload. */
  readonly #output: Uint8Array[] = [];
  #outputBytes = 0;
  #encoded = false;
  #failure: Error | null = null;
  /** Resolved (and replaced) at every change of the above. */
  #changed = Promise.withResolvers<void>();
  readonly #done: Promise<unknown>;

  /** Starts a file at `key`: its upload begins with the first batch written. */
  constructor(s3: S3Client, bucket: string, key: string, options: ParquetFileOptions) {
    this.key = key;
    const columns = options.columns.map((c) => ({ name: c.name, dictionary: c.dictionary, statistics: c.statistics }));
    this.#file = encoders.open(
      { compression: options.compression, columns, rowGroupRows: options.rowGroupRows, rowGroupBytes: options.rowGroupBytes },
      {
        took: () => {
          this.#taken++;
          this.#notify();
        },
        bytes: (bytes) => {
          this.#bytes += bytes.byteLength;
          this.#output.push(bytes);
          this.#outputBytes += bytes.byteLength;
          this.#notify();
        },
        done: () => {
          this.#encoded = true;
          this.#notify();
        },
        failed: (err) => this.#fail(err),
      },
    );
    const upload = new Upload({
      client: s3,
      params: { Bucket: bucket, Key: key, Body: ReadableStream.from(this.#body()), ContentType: 'application/vnd.apache.parquet' },
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

  /**
   * Hands a batch (an Arrow IPC stream of one record batch, moved: unusable afterwards) to the
   * encoder once it has room for it (backpressure).
   */
  async write(ipc: Uint8Array): Promise<void> {
    while (!this.#failure && (this.#sent - this.#taken >= BATCHES_WAITING || this.#outputBytes >= BYTES_WAITING)) await this.#changed.promise;
    if (this.#failure) throw this.#failure;
    this.#file.write(ipc);
    this.#sent++;
  }

  /** Ends the file and waits for its upload to complete; returns the object's size. */
  async close(): Promise<number> {
    if (this.#failure) throw this.#failure;
    this.#file.end();
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
    this.#file.abort(reason.message);
    this.#output.length = 0;
    this.#notify();
  }

  #notify(): void {
    this.#changed.resolve();
    this.#changed = Promise.withResolvers<void>();
  }

  /** The upload's body: the encoder's bytes; fails (never just ends) once the file is abandoned. */
  async *#body(): AsyncGenerator<Uint8Array> {
    for (;;) {
      if (this.#failure) throw this.#failure;
      const next = this.#output.shift();
      if (next) {
        this.#outputBytes -= next.byteLength;
        this.#notify();
        yield next;
      } else if (this.#encoded) return;
      else await this.#changed.promise;
    }
  }
}
