// The in-memory checkpointer deletes exactly one thread's checkpoints and writes (by its own
// index of MemorySaver's keys: this fails if MemorySaver files writes differently).
import { describe, expect, it } from 'vitest';
import { interrupt, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { MemoryCheckpointer } from '../../../services/agent-server/store/memoryCheckpointer.ts';

const graph = new StateGraph(MessagesAnnotation)
  .addNode('ask', () => ({ messages: [{ role: 'ai', content: String(interrupt('ok?')) }] }))
  .addEdge('__start__', 'ask')
  .compile();

describe('MemoryCheckpointer', () => {
  it('deletes a thread’s checkpoints and pending writes and keeps the others’', async () => {
    const saver = new MemoryCheckpointer();
    graph.checkpointer = saver;
    for (const thread_id of ['a', 'b'])
      await graph.invoke({ messages: [{ type: 'human', content: 'hi' }] }, { configurable: { thread_id } });
    const writesOf = (thread: string) =>
      Object.keys((saver as unknown as { writes: Record<string, unknown> }).writes).filter(
        (k) => JSON.parse(k)[0] === thread,
      );
    expect(writesOf('a').length).toBeGreaterThan(0); // the interrupt left pending writes
    await saver.deleteThread('a');
    expect(writesOf('a')).toEqual([]);
    expect(await saver.getTuple({ configurable: { thread_id: 'a' } })).toBeUndefined();
    expect(writesOf('b').length).toBeGreaterThan(0);
    expect((await graph.getState({ configurable: { thread_id: 'b' } })).next).toEqual(['ask']);
  });
});
