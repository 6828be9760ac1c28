// Wire JSON: LangChain messages as their dicts plus `type`, anywhere in a value, as
// JSON.stringify would put everything else (toJSON honoured, undefined and functions left out).
import { describe, expect, it } from 'vitest';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { toWireJson, toWireValue } from '../../../services/agent-server/wireJson.ts';

describe('toWireJson', () => {
  it('puts messages as dicts with their type, at any depth, and everything else as JSON.stringify does', () => {
    const human = new HumanMessage({ content: 'hi', id: 'h1' });
    const ai = new AIMessage({ content: 'yo', id: 'a1', tool_calls: [{ name: 't', args: { x: 1 }, id: 'c1' }] });
    const value = {
      messages: [human, ai],
      nested: [[{ last: ai }]],
      at: new Date(0),
      gone: undefined,
      fn: () => 1,
      list: [1, undefined],
    };
    const wire = toWireValue<Record<string, unknown>>(value);
    expect(wire.messages).toEqual([
      { ...human.toDict().data, type: 'human' },
      { ...ai.toDict().data, type: 'ai' },
    ]);
    expect(wire.nested).toEqual([[{ last: { ...ai.toDict().data, type: 'ai' } }]]);
    expect(wire.at).toBe('1970-01-01T00:00:00.000Z');
    expect(Object.keys(wire)).toEqual(['messages', 'nested', 'at', 'list']);
    expect(wire.list).toEqual([1, null]);
    expect(toWireJson(undefined)).toBe('null');
  });

  it('refuses a cycle as JSON.stringify does, and writes an object seen twice (not a cycle) twice', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => toWireJson(cyclic)).toThrow(TypeError);
    const shared = { x: 1 };
    expect(toWireJson({ a: shared, b: [shared] })).toBe('{"a":{"x":1},"b":[{"x":1}]}');
  });
});
