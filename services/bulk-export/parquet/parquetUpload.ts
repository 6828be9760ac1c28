// One Parquet file written straight into an S3 object: an encoder thread (parquetEncoders.ts)
// runs parquet-wasm's streaming writer on the batches (row groups of about a batch, flushed as
// they fill) and its bytes go into a multipart upload from this thread. The main thread reads
// and decodes the next batch while the thread encodes the last one. Memory stays bounded: a
// batch is sent only once the writer took the one before it (so at most one waits for it while
// it encodes another), and only while the upload keeps up (the Parquet bytes not yet taken by
// the upload stay under a part, and at most PARTS_IN_FLIGHT parts are being sent).
//
// The upload is S3's multipart API driven here rather than @aws-sdk/lib-storage: lib-storage
// copies each part's chunks into one buffer, and a buffer body is hashed (SHA-256, for the
// signature) before it is sent; a part sent as a stream of the encoder's own chunks is neither
// (UNSIGNED-PAYLOAD; the SDK's CRC32 checksum, where it applies, still covers it). Those copies
// and hashes were a third of the main thread's time on uncompressed files, and their garbage
// the rest of its peak RSS. A file of less than a part goes in one PutObject at the end. The
// object exists only once the upload completes, after the file's last byte (close()); a file
// abandoned before that leaves no object and no parts (its multipart upload is aborted).
import { Readable } from 'node:stream';
import { availableParallelism } from 'node:os';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import { retry, type RetryPolicy } from '../../../platform/retry.ts';
import type { ExportCompression } from '../exportTypes.ts';
import type { ExportColumn } from './exportColumns.ts';
import { ParquetEncoders, type EncodingFile } from './parquetEncoders.ts';

/** Upload part size (S3's minimum is 5 MiB; a part is whole chunks of the encoder, so a little more) and parts in flight. */
const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
/** Batches sent to the encoder thread that its writer has not taken yet: one, encoded next. */
const BATCHES_WAITING = 1;
/** No batch is sent while this many Parquet bytes wait for the upload to take them. */
const BYTES_WAITING = PART_SIZE;
/**
 * A part's body is a stream, which the SDK does not retry (it cannot rewind it): the part is
 * sent again from its chunks, which are kept until it is stored.
 */
const PART_RETRY: RetryPolicy = { initialDelayMs: 200, backoffCoefficient: 2, maxDelayMs: 2000, maxAttempts: 4 };
const CONTENT_TYPE = 'application/vnd.apache.parquet';

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
  /** Ends the requests in flight once the file is abandoned. */
  readonly #requests = new AbortController();
  readonly #done: Promise<void>;

  /** Starts a file at `key`: its upload begins once a part's worth of bytes is encoded. */
  constructor(s3: S3Client, bucket: string, key: string, options: ParquetFileOptions) {
    this.key = key;
    const columns = options.columns.map((c) => ({ name: c.name, dictionary: c.dictionary, statistics: c.statistics }));
    this.#file = encoders.open(
      {
        compression: options.compression,
        columns,
        rowGroupRows: options.rowGroupRows,
        rowGroupBytes: options.rowGroupBytes,
      },
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
    this.#done = this.#upload(s3, bucket);
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
    while (!this.#failure && (this.#sent - this.#taken >= BATCHES_WAITING || this.#outputBytes >= BYTES_WAITING))
      await this.#changed.promise;
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

  /** Abandons the file; resolves once the upload has given up (its multipart upload aborted). */
  async abort(reason: Error): Promise<void> {
    this.#fail(reason);
    await this.#done.catch(() => {});
  }

  #fail(reason: Error): void {
    if (this.#failure) return;
    this.#failure = reason;
    this.#file.abort(reason.message);
    this.#output.length = 0;
    this.#outputBytes = 0;
    this.#requests.abort(reason);
    this.#notify();
  }

  #notify(): void {
    this.#changed.resolve();
    this.#changed = Promise.withResolvers<void>();
  }

  /** The encoder's next part (whole chunks, PART_SIZE or more unless it is the last); waits for it; null once all is taken. */
  async #nextPart(): Promise<{ chunks: Uint8Array[]; bytes: number } | null> {
    while (!this.#failure && !this.#encoded && this.#outputBytes < PART_SIZE) await this.#changed.promise;
    if (this.#failure) throw this.#failure;
    if (this.#outputBytes === 0) return null;
    const chunks: Uint8Array[] = [];
    let bytes = 0;
    while (bytes < PART_SIZE && this.#output.length > 0) {
      const chunk = this.#output.shift()!;
      chunks.push(chunk);
      bytes += chunk.byteLength;
    }
    this.#outputBytes -= bytes;
    this.#notify();
    return { chunks, bytes };
  }

  /** Uploads the encoder's bytes: one PutObject for a file under a part, else a multipart upload, aborted on failure. */
  async #upload(s3: S3Client, bucket: string): Promise<void> {
    const abortSignal = this.#requests.signal;
    const first = await this.#nextPart();
    const object = { Bucket: bucket, Key: this.key };
    if (!first) throw new Error('the Parquet encoder ended without writing a file');
    if (this.#encoded && this.#outputBytes === 0) {
      await this.#send((signal) =>
        s3.send(
          new PutObjectCommand({
            ...object,
            Body: Readable.from(first.chunks),
            ContentLength: first.bytes,
            ContentType: CONTENT_TYPE,
          }),
          { abortSignal: signal },
        ),
      );
      release(first.chunks);
      return;
    }
    // As lib-storage does: where the client sends checksums by default, the upload is declared a CRC32 one (each part then carries its own).
    const checksums = (await s3.config.requestChecksumCalculation()) === 'WHEN_SUPPORTED';
    const created = new CreateMultipartUploadCommand({
      ...object,
      ContentType: CONTENT_TYPE,
      ...(checksums ? { ChecksumAlgorithm: 'CRC32' } : {}),
    });
    const { UploadId } = await s3.send(created, { abortSignal });
    const parts: CompletedPart[] = [];
    const inFlight = new Set<Promise<void>>();
    try {
      for (let part: typeof first | null = first, n = 1; part; part = await this.#nextPart(), n++) {
        const { chunks, bytes } = part,
          PartNumber = n;
        const sending = this.#send((signal) =>
          s3.send(
            new UploadPartCommand({
              ...object,
              UploadId,
              PartNumber,
              Body: Readable.from(chunks),
              ContentLength: bytes,
            }),
            { abortSignal: signal },
          ),
        )
          .then((stored) => {
            parts[PartNumber - 1] = {
              PartNumber,
              ETag: stored.ETag,
              ...(stored.ChecksumCRC32 ? { ChecksumCRC32: stored.ChecksumCRC32 } : {}),
            };
            release(chunks);
          })
          .catch((err: unknown) => this.#fail(err instanceof Error ? err : new Error(String(err))))
          .finally(() => inFlight.delete(sending));
        inFlight.add(sending);
        while (inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
      if (this.#failure) throw this.#failure;
      await s3.send(new CompleteMultipartUploadCommand({ ...object, UploadId, MultipartUpload: { Parts: parts } }), {
        abortSignal,
      });
    } catch (err) {
      this.#fail(err instanceof Error ? err : new Error(String(err)));
      await Promise.all(inFlight);
      // No parts left behind; a failure here leaves them to the bucket's lifecycle rule for incomplete uploads.
      await s3.send(new AbortMultipartUploadCommand({ ...object, UploadId })).catch(() => {});
      throw err;
    }
  }

  /** Sends a request whose body is a stream, made anew for each attempt. */
  #send<T>(request: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const signal = this.#requests.signal;
    return retry(PART_RETRY, () => request(signal), { what: `upload of ${this.key}`, signal, retryIf: isTransient });
  }
}

/**
 * Frees stored chunks' memory now. Each chunk owns its buffer (moved from the encoder thread);
 * left to the garbage collector, the buffers of parts that lived long enough to be promoted
 * wait for a full collection: 20–40 MB more peak RSS on uncompressed files.
 */
function release(chunks: readonly Uint8Array[]): void {
  for (const chunk of chunks)
    if (chunk.byteLength === chunk.buffer.byteLength && chunk.buffer instanceof ArrayBuffer) chunk.buffer.transfer(0);
}

/** A network failure or an answer that says "try again" (5xx, 408, 429, S3's RequestTimeout); never an abort. */
function isTransient(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  if (e?.name === 'AbortError') return false;
  const status = e?.$metadata?.httpStatusCode;
  return status === undefined || status >= 500 || status === 408 || status === 429 || e.name === 'RequestTimeout';
}
