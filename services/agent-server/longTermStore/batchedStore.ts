// LangGraph wraps a run's store in an AsyncBatchedStore (PregelLoop), which gathers the
// operations its nodes ask in one turn into one `batch()` call. As @langchain/langgraph-checkpoint
// writes it, it polls its queue with `setTimeout(0)` for as long as the run lasts, whether or not
// a node ever touches the store: every run of every graph then wakes the event loop once a
// millisecond, and at 16 concurrent runs of the no-op graph that cost more CPU than the run
// itself. Here the same class flushes when an operation is queued instead: the same batches
// (what is queued before the next timer phase goes in one call, in order), nothing scheduled
// while nothing is asked. Applied to the copy of the class this process's LangGraph uses (a
// graph bundling another copy keeps the original: correct, only dearer).
import { AsyncBatchedStore, type Operation } from '@langchain/langgraph-checkpoint';

interface Pending {
  operation: Operation;
  resolve(value: unknown): void;
  reject(reason: unknown): void;
}

/** The fields of the class this replaces the methods of (as batch.js declares them). */
interface BatchedStoreFields {
  store: { batch(operations: Operation[]): Promise<unknown[]> };
  queue: Map<number, Pending>;
  nextKey: number;
  running: boolean;
  processingTask: Promise<void> | null;
}

async function flush(self: BatchedStoreFields): Promise<void> {
  try {
    await new Promise((resolve) => setTimeout(resolve, 0)); // gather what this turn asks
    while (self.queue.size > 0) {
      const batch = [...self.queue.values()];
      self.queue.clear();
      try {
        const results = await self.store.batch(batch.map((p) => p.operation));
        batch.forEach((p, i) => p.resolve(results[i]));
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    }
  } finally {
    // in the turn that found the queue empty: whatever is queued next starts a flush of its own
    self.processingTask = null;
  }
}

const proto = AsyncBatchedStore.prototype as unknown as BatchedStoreFields & Record<string, unknown>;
proto.start = function start(this: BatchedStoreFields) {
  this.running = true;
};
proto.stop = async function stop(this: BatchedStoreFields) {
  this.running = false;
  await this.processingTask;
};
proto.enqueueOperation = function enqueueOperation(this: BatchedStoreFields, operation: Operation) {
  return new Promise((resolve, reject) => {
    this.queue.set(this.nextKey++, { operation, resolve, reject });
    this.processingTask ??= flush(this);
  });
};

export { AsyncBatchedStore };
