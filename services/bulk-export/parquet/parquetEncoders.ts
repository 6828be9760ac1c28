// The process's Parquet encoder threads (parquetEncoderThread.ts): a small pool, started on first
// use, each thread encoding the files opened on it. A file goes to the thread with the fewest
// open files. A thread holds the process open only while it has files; one that dies fails its
// files (their uploads are aborted, the export run is retried) and is replaced on next use.
import { Worker } from 'node:worker_threads';
import type { ExportCompression } from '../exportTypes.ts';

/** What the encoder thread needs of a file's options (structured-cloneable). */
export interface EncoderFileOptions {
  compression: ExportCompression;
  columns: readonly { name: string; dictionary: boolean; statistics: boolean }[];
  rowGroupRows: number;
  rowGroupBytes: number;
}

export type EncoderRequest =
  | { op: 'open'; id: number; options: EncoderFileOptions }
  | { op: 'batch'; id: number; ipc: Uint8Array }
  | { op: 'end'; id: number }
  | { op: 'abort'; id: number; message: string };

export type EncoderReply =
  | { op: 'took'; id: number }
  | { op: 'bytes'; id: number; bytes: Uint8Array }
  | { op: 'done'; id: number }
  | { op: 'failed'; id: number; message: string };

/** What a file on an encoder thread hears back. */
export interface EncodedFileListener {
  /** The writer took a batch (the next one may be sent). */
  took(): void;
  bytes(bytes: Uint8Array): void;
  /** The file's last bytes (its footer) have come. */
  done(): void;
  failed(error: Error): void;
}

/** One file open on an encoder thread. */
export interface EncodingFile {
  /** Moves an Arrow IPC stream (one record batch) to the thread: `ipc` is unusable afterwards. */
  write(ipc: Uint8Array): void;
  end(): void;
  abort(message: string): void;
}

const THREAD_URL = new URL('./parquetEncoderThread.ts', import.meta.url);

class EncoderThread {
  readonly #worker: Worker;
  readonly #files = new Map<number, EncodedFileListener>();
  #dead = false;

  constructor(onDeath: (thread: EncoderThread) => void) {
    this.#worker = new Worker(THREAD_URL);
    this.#worker.unref();
    this.#worker.on('message', (reply: EncoderReply) => {
      const file = this.#files.get(reply.id);
      if (!file) return;
      switch (reply.op) {
        case 'took':
          return file.took();
        case 'bytes':
          return file.bytes(reply.bytes);
        case 'done':
          this.#forget(reply.id);
          return file.done();
        case 'failed':
          this.#forget(reply.id);
          return file.failed(new Error(`Parquet encoding failed: ${reply.message}`));
      }
    });
    const die = (reason: Error) => {
      if (this.#dead) return;
      this.#dead = true;
      onDeath(this);
      const files = [...this.#files.values()];
      this.#files.clear();
      for (const f of files) f.failed(reason);
    };
    this.#worker.on('error', (err) =>
      die(new Error(`the Parquet encoder thread failed: ${err.message}`, { cause: err })),
    );
    this.#worker.on('exit', (code) => die(new Error(`the Parquet encoder thread exited (code ${code})`)));
  }

  get load(): number {
    return this.#files.size;
  }

  open(id: number, options: EncoderFileOptions, listener: EncodedFileListener): EncodingFile {
    if (this.#files.size === 0) this.#worker.ref();
    this.#files.set(id, listener);
    this.#post({ op: 'open', id, options });
    return {
      write: (ipc) => this.#post({ op: 'batch', id, ipc }, [ipc.buffer as ArrayBuffer]),
      end: () => this.#post({ op: 'end', id }),
      abort: (message) => {
        if (!this.#files.has(id)) return;
        this.#forget(id);
        this.#post({ op: 'abort', id, message });
      },
    };
  }

  terminate(): Promise<number> {
    return this.#worker.terminate();
  }

  #forget(id: number): void {
    this.#files.delete(id);
    if (this.#files.size === 0) this.#worker.unref();
  }

  #post(request: EncoderRequest, transfer: ArrayBuffer[] = []): void {
    if (!this.#dead) this.#worker.postMessage(request, transfer);
  }
}

export class ParquetEncoders {
  readonly #size: number;
  readonly #threads: EncoderThread[] = [];
  #nextId = 1;

  /** `size` threads at most (started as files open). */
  constructor(size: number) {
    this.#size = size;
  }

  /** Opens a file on the least busy thread (starting one if fewer than `size` run and all are busy). */
  open(options: EncoderFileOptions, listener: EncodedFileListener): EncodingFile {
    let thread = this.#threads.reduce<EncoderThread | undefined>(
      (best, t) => (best === undefined || t.load < best.load ? t : best),
      undefined,
    );
    if (!thread || (thread.load > 0 && this.#threads.length < this.#size)) {
      thread = new EncoderThread((dead) => {
        const i = this.#threads.indexOf(dead);
        if (i >= 0) this.#threads.splice(i, 1);
      });
      this.#threads.push(thread);
    }
    return thread.open(this.#nextId++, options, listener);
  }

  /** Stops every thread (their files fail). */
  async close(): Promise<void> {
    await Promise.all(this.#threads.splice(0).map((t) => t.terminate()));
  }
}
