// A Parquet encoder thread (node:worker_threads, started by parquetEncoders.ts): it runs
// parquet-wasm's streaming writer for the files the main thread opens on it, so encoding and
// compression take a core of their own while the main thread reads and decodes the next batch.
// Batches arrive as Arrow IPC messages (moved, not copied); the Parquet bytes go back as they
// are flushed, a row group or so at a time. The main thread keeps the flow bounded: it sends a
// file's next batch only once the writer took the previous one (`took`).
import { parentPort } from 'node:worker_threads';
import * as pq from 'parquet-wasm';
import type { EncoderReply, EncoderRequest, EncoderFileOptions } from './parquetEncoders.ts';
import type { ExportCompression } from '../exportTypes.ts';

const CODECS: Record<ExportCompression, pq.Compression> = {
  none: pq.Compression.UNCOMPRESSED,
  snappy: pq.Compression.SNAPPY,
  gzip: pq.Compression.GZIP,
  zstandard: pq.Compression.ZSTD,
};

function writerProperties(options: EncoderFileOptions): pq.WriterProperties {
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

/** An Arrow IPC stream of one record batch, moved into parquet-wasm's memory. */
function wasmRecordBatch(ipc: Uint8Array): pq.RecordBatch {
  const table = pq.Table.fromIPCStream(ipc);
  try {
    const batch = table.recordBatch(0);
    if (!batch) throw new Error('parquet-wasm read no record batch from the Arrow IPC message');
    return batch;
  } finally {
    // Free the table now: left to the garbage collector, its wasm memory piles up.
    table.free();
  }
}

const port = parentPort!;
const post = (reply: EncoderReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

/** One file being encoded: the batches sent and not yet taken by the writer, and the writer's input. */
class EncodingFile {
  readonly #id: number;
  readonly #waiting: Uint8Array[] = [];
  #wake: (() => void) | null = null;
  #ended = false;
  #input!: ReadableStreamDefaultController<pq.RecordBatch>;
  #failed = false;

  constructor(id: number, options: EncoderFileOptions) {
    this.#id = id;
    // highWaterMark 0: `pull` runs once per read of the writer, so each `took` is one batch taken.
    const input = new ReadableStream<pq.RecordBatch>(
      { start: (c) => void (this.#input = c), pull: (c) => this.#next(c) },
      { highWaterMark: 0 },
    );
    void this.#run(input, options);
  }

  push(ipc: Uint8Array): void {
    this.#waiting.push(ipc);
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  abort(message: string): void {
    this.#failed = true;
    this.#waiting.length = 0;
    try {
      this.#input.error(new Error(message));
    } catch {
      /* already closed */
    }
    this.#wake?.();
  }

  async #next(controller: ReadableStreamDefaultController<pq.RecordBatch>): Promise<void> {
    while (this.#waiting.length === 0 && !this.#ended && !this.#failed)
      await new Promise<void>((r) => (this.#wake = r));
    this.#wake = null;
    if (this.#failed) return;
    const ipc = this.#waiting.shift();
    if (!ipc) return controller.close();
    const batch = wasmRecordBatch(ipc);
    // Its bytes are in wasm memory now: free the message at once (this thread allocates too little
    // for its garbage collector to run often, so moved-in buffers would pile up until it did).
    (ipc.buffer as ArrayBuffer).transfer(0);
    controller.enqueue(batch);
    post({ op: 'took', id: this.#id });
  }

  async #run(input: ReadableStream<pq.RecordBatch>, options: EncoderFileOptions): Promise<void> {
    try {
      // Resolves once the writer has the first batch (it needs the schema).
      const output = await (pq.transformParquetStream(input, writerProperties(options)) as Promise<
        ReadableStream<Uint8Array>
      >);
      for await (const chunk of output) {
        if (this.#failed) return;
        // The chunk is a view of wasm memory or a buffer of its own: copy into a buffer that can be moved.
        const bytes =
          chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength && chunk.buffer instanceof ArrayBuffer
            ? chunk
            : chunk.slice();
        post({ op: 'bytes', id: this.#id, bytes }, [bytes.buffer as ArrayBuffer]);
      }
      if (!this.#failed) post({ op: 'done', id: this.#id });
    } catch (err) {
      if (!this.#failed)
        post({ op: 'failed', id: this.#id, message: err instanceof Error ? err.message : String(err) });
    } finally {
      files.delete(this.#id);
    }
  }
}

const files = new Map<number, EncodingFile>();

port.on('message', (request: EncoderRequest) => {
  switch (request.op) {
    case 'open':
      files.set(request.id, new EncodingFile(request.id, request.options));
      break;
    case 'batch':
      files.get(request.id)?.push(request.ipc);
      break;
    case 'end':
      files.get(request.id)?.end();
      break;
    case 'abort':
      files.get(request.id)?.abort(request.message);
      files.delete(request.id);
      break;
  }
});
