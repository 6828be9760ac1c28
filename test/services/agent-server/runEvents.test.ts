// From what `graph.stream` yields to the LangGraph API's stream events, per stream mode.
import { describe, expect, it } from 'vitest';
import { AIMessage, AIMessageChunk, HumanMessage } from '@langchain/core/messages';
import { libraryStreamModes, RunEventTranslator } from '../../../services/agent-server/runs/runEvents.ts';
import { toWireValue } from '../../../services/agent-server/wireJson.ts';

function translate(modes: Parameters<typeof libraryStreamModes>[0], items: unknown[], subgraphs = false) {
  const translator = new RunEventTranslator(modes);
  const events: { event: string; data: unknown }[] = [];
  for (const item of items)
    translator.translate(item, subgraphs, (event, data) => events.push({ event, data: toWireValue(data) }));
  return { events, lastValues: translator.lastValues };
}

describe('libraryStreamModes', () => {
  it('always asks for values and maps both message modes onto the library’s', () => {
    expect(libraryStreamModes(['updates'])).toEqual(['values', 'updates']);
    expect(libraryStreamModes(['messages', 'messages-tuple', 'custom'])).toEqual(['values', 'messages', 'custom']);
  });
});

describe('RunEventTranslator', () => {
  const human = new HumanMessage({ content: 'hi', id: 'h1' });
  const chunk = (content: string) => new AIMessageChunk({ content, id: 'a1' });

  it('accumulates token chunks into messages/partial after one messages/metadata, and completes new messages from values', () => {
    const { events } = translate(
      ['messages'],
      [
        ['values', { messages: [human] }],
        ['messages', [chunk('Hel'), { langgraph_node: 'agent' }]],
        ['messages', [chunk('lo'), { langgraph_node: 'agent' }]],
        ['messages', [new AIMessage({ content: 'whole', id: 'x' }), {}]], // whole messages come from values only
        ['values', { messages: [human, new AIMessage({ content: 'Hello', id: 'a1' })] }],
      ],
    );
    expect(events.map((e) => e.event)).toEqual([
      'messages/complete',
      'messages/metadata',
      'messages/partial',
      'messages/partial',
      'messages/complete',
    ]);
    expect(events[1]!.data).toEqual({ a1: { metadata: { langgraph_node: 'agent' } } });
    expect((events[3]!.data as any)[0]).toMatchObject({ type: 'ai', content: 'Hello', id: 'a1' });
    expect((events[4]!.data as any).map((m: any) => m.id)).toEqual(['a1']);
  });

  it('passes messages-tuple chunks as `messages` events and only the asked modes through', () => {
    const { events, lastValues } = translate(
      ['messages-tuple', 'updates'],
      [
        ['values', { messages: [human] }],
        ['messages', [chunk('tok'), { langgraph_node: 'agent' }]],
        ['updates', { agent: { messages: [] } }],
        ['custom', { ignored: true }],
      ],
    );
    expect(events.map((e) => e.event)).toEqual(['messages', 'updates']);
    expect((events[0]!.data as any)[0]).toMatchObject({ type: 'ai', content: 'tok' });
    expect(lastValues).toEqual({ messages: [human] });
  });

  it('names subgraph events mode|namespace and keeps the root’s values as the run’s', () => {
    const { events, lastValues } = translate(
      ['values', 'updates'],
      [
        [[], 'values', { n: 1 }],
        [['child:1'], 'values', { n: 99 }],
        [['child:1'], 'updates', { inner: {} }],
      ],
      true,
    );
    expect(events.map((e) => e.event)).toEqual(['values', 'values|child:1', 'updates|child:1']);
    expect(lastValues).toEqual({ n: 1 });
  });

  it('sends checkpoint configs without their `__` keys (the thread’s workspace among them)', () => {
    const config = (id: string) => ({
      configurable: { thread_id: 't1', checkpoint_ns: '', checkpoint_id: id, __workspace_id: 'ws', user_key: 'kept' },
    });
    const checkpoint = {
      config: config('c2'),
      parentConfig: config('c1'),
      values: {},
      metadata: {},
      next: [],
      tasks: [],
    };
    const { events } = translate(
      ['checkpoints', 'debug'],
      [
        ['checkpoints', checkpoint],
        ['debug', { type: 'checkpoint', step: 1, payload: checkpoint }],
        ['debug', { type: 'task', step: 1, payload: { id: 'x' } }],
      ],
    );
    const shown = { thread_id: 't1', checkpoint_ns: '', user_key: 'kept' };
    expect((events[0]!.data as any).config.configurable).toEqual({ ...shown, checkpoint_id: 'c2' });
    expect((events[0]!.data as any).parentConfig.configurable).toEqual({ ...shown, checkpoint_id: 'c1' });
    expect((events[1]!.data as any).payload.config.configurable).toEqual({ ...shown, checkpoint_id: 'c2' });
    expect(events[2]!.data).toEqual({ type: 'task', step: 1, payload: { id: 'x' } });
  });
});
