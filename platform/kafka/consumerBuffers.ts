// The buffer pool of a process that consumes a topic at a high rate (the projectors, a replay).
// @platformatic/kafka copies each record's value out of the fetch response with
// Buffer.allocUnsafe, which carves small buffers out of Node's shared pool and allocates a new
// ArrayBuffer each time the pool's slab (8 KiB by default) is used up: at a replay's rate that
// is tens of thousands of ArrayBuffers a second, each with its malloc and its share of garbage
// collection. In a 1M-run replay, 2.5 s of the 50 s of CPU went to making those slabs. With 1 MiB
// slabs the same replay took 4–6 % less CPU (bench:query's replay). A slab lives while any buffer cut
// from it does; the projectors hold a batch's records only until the batch is committed.
import { Buffer } from 'node:buffer';

export const CONSUMER_BUFFER_POOL_BYTES = 1024 * 1024;

/** Sets this process's Buffer pool slab to CONSUMER_BUFFER_POOL_BYTES: call once, at the entry point. */
export function useConsumerBufferPool(): void {
  Buffer.poolSize = CONSUMER_BUFFER_POOL_BYTES;
}
