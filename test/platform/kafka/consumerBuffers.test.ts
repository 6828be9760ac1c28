import { Buffer } from 'node:buffer';
import { afterEach, expect, test } from 'vitest';
import { CONSUMER_BUFFER_POOL_BYTES, useConsumerBufferPool } from '../../../platform/kafka/consumerBuffers.ts';

const defaultPool = Buffer.poolSize;
afterEach(() => {
  Buffer.poolSize = defaultPool;
});

test('a consuming process cuts record-sized buffers out of 1 MiB slabs, not one ArrayBuffer per 8 KiB', () => {
  useConsumerBufferPool();
  expect(Buffer.poolSize).toBe(CONSUMER_BUFFER_POOL_BYTES);
  // what the Kafka client does per record value: allocUnsafe and copy
  const values = Array.from({ length: 200 }, () => Buffer.allocUnsafe(3000));
  const slabs = new Set(values.map((v) => v.buffer));
  // 200 values of 3 KB: 600 KB in one new slab, besides the rest of the pool made before (8 KiB slabs would take 100)
  expect(slabs.size).toBeLessThanOrEqual(2);
  expect([...slabs].filter((slab) => slab.byteLength >= CONSUMER_BUFFER_POOL_BYTES)).toHaveLength(1);
});
