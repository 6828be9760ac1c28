// The store as graphs see it: LangGraph's BaseStore, scoped to one workspace, given to a run as
// its `store` (as runs/runManager.ts does). A node reaches it by `getStore()` and by
// `config.store`; what a run of one thread writes, a run of another thread of the workspace
// reads, and a run of another workspace never does. Every BaseStore operation maps to the
// backend: get, put (with its `index`), delete, search, listNamespaces (prefix/suffix/depth).
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Annotation, getStore, MemorySaver, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { MemoryLongTermStore } from '../../../../services/agent-server/longTermStore/memoryLongTermStore.ts';
import { WorkspaceStore } from '../../../../services/agent-server/longTermStore/workspaceStore.ts';

const ttl = { refreshOnRead: true, defaultTtlMinutes: null, sweepIntervalMinutes: 5 };

const State = Annotation.Root({
  remember: Annotation<string | undefined>(),
  recalled: Annotation<string[]>({ reducer: (_, b) => b, default: () => [] }),
});

/** Writes with getStore(), reads with config.store: both are the run's store. */
const graph = new StateGraph(State)
  .addNode('write', async (state: typeof State.State) => {
    if (state.remember) await getStore()!.put(['memories', 'u1'], state.remember, { text: state.remember });
    return {};
  })
  .addNode('read', async (_state: typeof State.State, config: LangGraphRunnableConfig) => {
    const items = await config.store!.search(['memories'], { limit: 10 });
    return { recalled: items.map((i) => String(i.value.text)).sort() };
  })
  .addEdge('__start__', 'write')
  .addEdge('write', 'read')
  .addEdge('read', '__end__')
  .compile({ checkpointer: new MemorySaver() });

describe('the store of a run', () => {
  it('is shared by the threads of a workspace, and by no other workspace', async () => {
    const backend = new MemoryLongTermStore({ ttl });
    const [a, b] = [randomUUID(), randomUUID()];
    const run = (workspaceId: string, threadId: string, remember?: string) =>
      graph.invoke(
        { remember },
        { configurable: { thread_id: threadId }, store: new WorkspaceStore(backend, workspaceId) },
      );
    expect((await run(a, 't1', 'tea')).recalled).toEqual(['tea']);
    expect((await run(a, 't2')).recalled).toEqual(['tea']); // another thread of the workspace
    expect((await run(b, 't1')).recalled).toEqual([]); // another workspace, even on a thread of the same id
    expect((await run(b, 't3', 'coffee')).recalled).toEqual(['coffee']);
    expect((await run(a, 't2', 'cake')).recalled).toEqual(['cake', 'tea']);
    expect((await backend.search(b, [], { limit: 10, offset: 0 })).map((i) => i.key)).toEqual(['coffee']);
  });

  it('answers every BaseStore operation from the backend, in the workspace', async () => {
    const backend = new MemoryLongTermStore({ ttl });
    const ws = randomUUID();
    const store = new WorkspaceStore(backend, ws);
    await store.put(['a', 'b'], 'k1', { n: 1 });
    await store.put(['a', 'c'], 'k2', { n: 2 }, false);
    expect(await store.get(['a', 'b'], 'k1')).toMatchObject({ namespace: ['a', 'b'], key: 'k1', value: { n: 1 } });
    expect(await store.get(['a', 'b'], 'nope')).toBeNull();
    expect((await store.search(['a'], { filter: { n: { $gt: 1 } } })).map((i) => i.key)).toEqual(['k2']);
    expect(await store.listNamespaces()).toEqual([
      ['a', 'b'],
      ['a', 'c'],
    ]);
    expect(await store.listNamespaces({ suffix: ['c'] })).toEqual([['a', 'c']]);
    expect(await store.listNamespaces({ prefix: ['a'], maxDepth: 1 })).toEqual([['a']]);
    // in order within a batch: the get sees the put before it, and the delete after it
    const [, seen, , gone] = await store.batch([
      { namespace: ['x'], key: 'k', value: { v: 1 } },
      { namespace: ['x'], key: 'k' },
      { namespace: ['x'], key: 'k', value: null },
      { namespace: ['x'], key: 'k' },
    ]);
    expect(seen).toMatchObject({ value: { v: 1 } });
    expect(gone).toBeNull();
    await store.delete(['a', 'b'], 'k1');
    expect(await backend.get(ws, ['a', 'b'], 'k1')).toBeNull();
  });
});
