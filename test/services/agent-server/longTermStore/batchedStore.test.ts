// LangGraph's AsyncBatchedStore, which wraps every run's store, as the agent server runs it
// (longTermStore/batchedStore.ts): the operations nodes ask in one turn reach the store in one
// batch, in order, each answered with its own result (or the batch's error); nothing is
// scheduled while nothing is asked (the library's own polled its queue every millisecond of
// every run, store used or not); stop waits for the batch in flight.
import { describe, expect, it } from 'vitest';
import type { Operation } from '@langchain/langgraph-checkpoint';
import { AsyncBatchedStore } from '../../../../services/agent-server/longTermStore/batchedStore.ts';
import { MemoryLongTermStore } from '../../../../services/agent-server/longTermStore/memoryLongTermStore.ts';
import { WorkspaceStore } from '../../../../services/agent-server/longTermStore/workspaceStore.ts';

const ttl = { refreshOnRead: true, defaultTtlMinutes: null, sweepIntervalMinutes: 5 };

/** A WorkspaceStore that records the batches it is asked. */
function recordingStore() {
  const batches: Operation[][] = [];
  const inner = new WorkspaceStore(new MemoryLongTermStore({ ttl }), 'ws');
  const batch = inner.batch.bind(inner);
  inner.batch = (async (ops: Operation[]) => {
    batches.push(ops);
    return batch(ops);
  }) as typeof inner.batch;
  return { inner, batches };
}

const idle = (store: AsyncBatchedStore) => (store as unknown as { processingTask: unknown }).processingTask === null;

describe('the batched store of a run', () => {
  it('sends what is asked in one turn as one batch, in order, and later asks as later batches', async () => {
    const { inner, batches } = recordingStore();
    const store = new AsyncBatchedStore(inner);
    store.start();
    const [put, got, none] = await Promise.all([
      store.put(['a'], 'k', { v: 1 }),
      store.get(['a'], 'k'),
      store.get(['a'], 'missing'),
    ]);
    expect(put).toBeUndefined();
    expect(got).toMatchObject({ key: 'k', value: { v: 1 } });
    expect(none).toBeNull();
    expect(batches.map((b) => b.length)).toEqual([3]);
    expect((await store.search(['a'])).map((i) => i.key)).toEqual(['k']);
    expect(batches.map((b) => b.length)).toEqual([3, 1]);
    await store.stop();
  });

  it('schedules nothing while nothing is asked', async () => {
    const { inner } = recordingStore();
    const store = new AsyncBatchedStore(inner);
    store.start();
    expect(store.isRunning).toBe(true);
    expect(idle(store)).toBe(true);
    const asked = store.get(['a'], 'k');
    expect(idle(store)).toBe(false);
    await asked;
    expect(idle(store)).toBe(true);
    await store.stop();
    expect(store.isRunning).toBe(false);
  });

  it('rejects every operation of a batch that fails, and goes on with the next', async () => {
    const { inner } = recordingStore();
    const store = new AsyncBatchedStore(inner);
    store.start();
    const results = await Promise.allSettled([store.get(['a'], 'k'), store.put(['bad.label'] as string[], 'k', {})]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    const failing = await Promise.allSettled([
      store.get(['a'], 'k'),
      // the label check of put() throws before it queues; a raw batch op with one fails the batch
      (store as unknown as { enqueueOperation(op: Operation): Promise<unknown> }).enqueueOperation({
        namespace: ['x.y'],
        key: 'k',
        value: {},
      }),
    ]);
    expect(failing.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await store.get(['a'], 'k')).toBeNull();
    await store.stop();
  });

  it('stops once the batch in flight is answered', async () => {
    const { inner } = recordingStore();
    const store = new AsyncBatchedStore(inner);
    store.start();
    const put = store.put(['a'], 'k', { v: 2 });
    await store.stop();
    await put;
    expect((await inner.get(['a'], 'k'))?.value).toEqual({ v: 2 });
  });
});
