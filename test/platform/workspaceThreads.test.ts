// WorkspaceCheckpointer: a thread is its workspace and its id. Two workspaces' threads of one id
// keep apart in one checkpointer, stored under `<workspace>/<id>`; the graph and every config it
// answers name the thread by the caller's id; a call that does not name the workspace is refused.
import { describe, expect, it } from 'vitest';
import { MemorySaver, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import {
  storedThreadId,
  threadConfig,
  WORKSPACE_KEY,
  WorkspaceCheckpointer,
  type ThreadKey,
} from '../../platform/workspaceThreads.ts';

function setup() {
  const inner = new MemorySaver();
  const checkpointer = new WorkspaceCheckpointer(inner);
  const seen: string[] = [];
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('reply', (state, config) => {
      seen.push(String(config.configurable?.thread_id));
      return { messages: [{ role: 'ai', content: `seen ${state.messages.length}` }] };
    })
    .addEdge('__start__', 'reply')
    .compile({ checkpointer });
  return { inner, checkpointer, graph, seen };
}

const say = (content: string) => ({ messages: [{ role: 'user', content }] });
const texts = (values: any): string[] => values.messages.map((m: any) => m.content);
const A: ThreadKey = { workspaceId: 'a0000000-0000-4000-8000-000000000000', threadId: 't1' };
const B: ThreadKey = { workspaceId: 'b0000000-0000-4000-8000-000000000000', threadId: 't1' };

describe('WorkspaceCheckpointer', () => {
  it('keeps two workspaces’ threads of one id apart, stored under the workspace’s id, shown by the caller’s', async () => {
    const { inner, graph, seen } = setup();
    await graph.invoke(say('from A'), threadConfig(A));
    await graph.invoke(say('from B'), threadConfig(B));
    await graph.invoke(say('A again'), threadConfig(A));
    expect(seen).toEqual(['t1', 't1', 't1']);
    expect(Object.keys(inner.storage).sort()).toEqual([storedThreadId(A), storedThreadId(B)].sort());

    const stateA = await graph.getState(threadConfig(A));
    expect(texts(stateA.values)).toEqual(['from A', 'seen 1', 'A again', 'seen 3']);
    expect(texts((await graph.getState(threadConfig(B))).values)).toEqual(['from B', 'seen 1']);
    expect(stateA.config.configurable?.thread_id).toBe('t1');
    expect(stateA.parentConfig?.configurable?.thread_id).toBe('t1');
    expect((stateA.metadata as Record<string, unknown> | undefined)?.thread_id).toBe('t1');

    const history = [];
    for await (const snapshot of graph.getStateHistory(threadConfig(A))) history.push(snapshot);
    expect(history.length).toBeGreaterThan(3);
    for (const snapshot of history) {
      expect(snapshot.config.configurable?.thread_id).toBe('t1');
      expect(JSON.stringify(snapshot.values)).not.toContain('from B');
    }
    // a snapshot's config goes back in as it came out (time travel, a fork)
    const first = history.at(-1)!;
    await graph.updateState(first.config, say('forked'), 'reply');
    expect(texts((await graph.getState(threadConfig(A))).values)).toEqual(['forked']);
    expect(texts((await graph.getState(threadConfig(B))).values)).toEqual(['from B', 'seen 1']);
  });

  it('names the thread after whatever configurable a request brings', async () => {
    const { graph } = setup();
    await graph.invoke(say('from B'), threadConfig(B));
    const config = threadConfig(A, { thread_id: 'another', [WORKSPACE_KEY]: B.workspaceId, checkpoint_ns: '' });
    expect(config.configurable).toMatchObject({ thread_id: 't1', [WORKSPACE_KEY]: A.workspaceId });
    expect((await graph.getState(config)).values).toEqual({});
  });

  it('deletes one workspace’s thread only, and refuses calls that do not name the workspace', async () => {
    const { checkpointer, graph } = setup();
    await graph.invoke(say('from A'), threadConfig(A));
    await graph.invoke(say('from B'), threadConfig(B));
    await checkpointer.deleteThreadOf(A);
    expect(await checkpointer.getTuple(threadConfig(A))).toBeUndefined();
    expect(await checkpointer.getTuple(threadConfig(B))).toBeDefined();

    await expect(checkpointer.deleteThread('t1')).rejects.toThrow(/needs its workspace/);
    await expect(graph.getState({ configurable: { thread_id: 't1' } })).rejects.toThrow(
      /name the thread and its workspace/,
    );
    await expect(graph.invoke(say('no workspace'), { configurable: { thread_id: 't1' } })).rejects.toThrow(
      /name the thread and its workspace/,
    );
    await expect(checkpointer.getTuple({ configurable: { thread_id: storedThreadId(B) } })).rejects.toThrow(
      /name the thread and its workspace/,
    );
    expect(texts((await graph.getState(threadConfig(B))).values)).toEqual(['from B', 'seen 1']);
  });
});
