// The Parquet encoder threads: a file's batches go in as Arrow IPC and come back as one Parquet
// file (read back with parquet-wasm); a thread that dies fails the files open on it (so their
// uploads are aborted) and the next file gets a thread that works.
import { afterEach, describe, expect, test } from 'vitest';
import { tableFromArrays, tableFromIPC, RecordBatchStreamWriter } from 'apache-arrow';
import * as pq from 'parquet-wasm';
import {
  ParquetEncoders,
  type EncodedFileListener,
  type EncoderFileOptions,
} from '../../../../services/bulk-export/parquet/parquetEncoders.ts';

const OPTIONS: EncoderFileOptions = {
  compression: 'zstandard',
  columns: [
    { name: 'id', dictionary: false, statistics: true },
    { name: 'name', dictionary: true, statistics: true },
  ],
  rowGroupRows: 1000,
  rowGroupBytes: 1024 * 1024,
};

const batchIpc = (from: number, rows: number): Uint8Array => {
  const table = tableFromArrays({
    id: BigInt64Array.from({ length: rows }, (_, i) => BigInt(from + i)),
    name: Array.from({ length: rows }, (_, i) => `run-${(from + i) % 7}`),
  });
  return RecordBatchStreamWriter.writeAll(table.batches).toUint8Array(true);
};

/** A listener that collects a file's bytes and settles once it is done or failed. */
function collector() {
  const chunks: Uint8Array[] = [];
  let took = 0;
  const settled = Promise.withResolvers<Uint8Array>();
  const listener: EncodedFileListener = {
    took: () => void took++,
    bytes: (b) => void chunks.push(b),
    done: () => settled.resolve(Buffer.concat(chunks)),
    failed: (err) => settled.reject(err),
  };
  return { listener, file: settled.promise, took: () => took };
}

let encoders: ParquetEncoders;
afterEach(async () => {
  await encoders.close();
});

describe('Parquet encoder threads', () => {
  test('encode a file’s batches, in order, into one Parquet file', async () => {
    encoders = new ParquetEncoders(1);
    const c = collector();
    const file = encoders.open(OPTIONS, c.listener);
    for (let b = 0; b < 3; b++) file.write(batchIpc(b * 1000, 1000));
    file.end();
    const bytes = await c.file;
    expect(c.took()).toBe(3);
    expect(Buffer.from(bytes.subarray(0, 4)).toString()).toBe('PAR1');
    const table = tableFromIPC(pq.readParquet(bytes).intoIPCStream());
    expect(table.numRows).toBe(3000);
    expect(table.getChild('id')!.toArray()).toEqual(BigInt64Array.from({ length: 3000 }, (_, i) => BigInt(i)));
    expect(table.getChild('name')!.get(2999)).toBe('run-3');
  });

  test('a thread that dies fails the files open on it; the next file gets a working thread', async () => {
    encoders = new ParquetEncoders(1);
    const c = collector();
    const file = encoders.open(OPTIONS, c.listener);
    file.write(batchIpc(0, 1000));
    await encoders.close(); // the thread is terminated with the file open
    await expect(c.file).rejects.toThrow(/Parquet encoder thread exited/);

    const next = collector();
    const again = encoders.open(OPTIONS, next.listener);
    again.write(batchIpc(0, 10));
    again.end();
    expect(tableFromIPC(pq.readParquet(await next.file).intoIPCStream()).numRows).toBe(10);
  });

  test('aborting a file leaves the other files on its thread to finish', async () => {
    encoders = new ParquetEncoders(1);
    const aborted = collector();
    const kept = collector();
    const a = encoders.open(OPTIONS, aborted.listener);
    const k = encoders.open(OPTIONS, kept.listener);
    a.write(batchIpc(0, 1000));
    k.write(batchIpc(0, 1000));
    a.abort('stop');
    k.write(batchIpc(1000, 1000));
    k.end();
    expect(tableFromIPC(pq.readParquet(await kept.file).intoIPCStream()).numRows).toBe(2000);
  });
});
