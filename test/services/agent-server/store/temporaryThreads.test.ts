// Stateless runs' checkpoints stay in memory while the run holds its temporary thread; every other
// thread's go to the durable checkpointer (PostgreSQL in production; a second in-memory one here,
// so what reached it can be looked at).
import { describe, expect, it } from 'vitest';
import { MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { MemoryCheckpointer } from '../../../../services/agent-server/store/memoryCheckpointer.ts';
import { TemporaryThreadCheckpointer } from '../../../../services/agent-server/store/temporaryThreads.ts';

function graphWith(checkpointer: TemporaryThreadCheckpointer) {
  return new StateGraph(MessagesAnnotation)
    .addNode('reply', (state) => ({ messages: [{ role: 'ai', content: `seen ${state.messages.length}` }] }))
    .addEdge('__start__', 'reply')
    .compile({ checkpointer });
}

const input = { messages: [{ role: 'user', content: 'hi' }] };
const config = (thread_id: string) => ({ configurable: { thread_id } });

describe('TemporaryThreadCheckpointer', () => {
  it('keeps a held thread in memory, nothing of it in the durable checkpointer, until it is deleted', async () => {
    const durable = new MemoryCheckpointer();
    const router = new TemporaryThreadCheckpointer(durable);
    const graph = graphWith(router);
    router.hold('temporary');
    await graph.invoke(input, config('temporary'));
    expect((await graph.getState(config('temporary'))).values.messages).toHaveLength(2);
    expect(await durable.getTuple(config('temporary'))).toBeUndefined();

    await router.deleteThread('temporary');
    expect(await router.getTuple(config('temporary'))).toBeUndefined();
    // released: the id is an ordinary thread again
    await graph.invoke(input, config('temporary'));
    expect(await durable.getTuple(config('temporary'))).toBeDefined();
  });

  it('sends every other thread to the durable checkpointer, history and deletion included', async () => {
    const durable = new MemoryCheckpointer();
    const router = new TemporaryThreadCheckpointer(durable);
    const graph = graphWith(router);
    router.hold('someone-else');
    await graph.invoke(input, config('kept'));
    await graph.invoke(input, config('kept'));
    expect((await durable.getTuple(config('kept')))?.checkpoint.channel_values.messages).toHaveLength(4);
    const history = [];
    for await (const snapshot of graph.getStateHistory(config('kept'))) history.push(snapshot);
    expect(history.length).toBeGreaterThan(2);
    await router.deleteThread('kept');
    expect(await durable.getTuple(config('kept'))).toBeUndefined();
  });
});
