// Tool-call argument slices go out as `block-delta`s carrying the arguments so far, per block and
// per message, which @langchain/react 1.1.0 assembles (it loses a message with a `tool-call-delta`).
import { describe, expect, test } from 'vitest';
import { ToolCallDeltaRewriter } from '../../../../services/agent-server/protocol/toolCallDeltas.ts';

const ns = ['tools:a', 'model_request:b'];
const start = (index: number, args = '') => ({
  event: 'content-block-start',
  index,
  content: { type: 'tool_call_chunk', id: `call_${index}`, name: 'calculator', args },
});
const slice = (index: number, args: string) => ({
  event: 'content-block-delta',
  index,
  delta: { type: 'tool-call-delta', args },
});

describe('ToolCallDeltaRewriter', () => {
  test('each slice becomes a block-delta with the arguments so far, block by block', () => {
    const deltas = new ToolCallDeltaRewriter();
    expect(deltas.rewrite('messages', ns, 'model_request', start(1, '{"ex'))).toEqual(start(1, '{"ex'));
    deltas.rewrite('messages', ns, 'model_request', start(2));
    expect(deltas.rewrite('messages', ns, 'model_request', slice(1, 'pression":'))).toEqual({
      event: 'content-block-delta',
      index: 1,
      delta: { type: 'block-delta', fields: { type: 'tool_call_chunk', args: '{"expression":' } },
    });
    expect(deltas.rewrite('messages', ns, 'model_request', slice(2, '{"q"'))).toMatchObject({
      delta: { fields: { args: '{"q"' } },
    });
    expect(deltas.rewrite('messages', ns, 'model_request', slice(1, '"1+1"}'))).toMatchObject({
      delta: { fields: { args: '{"expression":"1+1"}' } },
    });
    // Another namespace's block 1 is another block.
    expect(deltas.rewrite('messages', ['tools:c'], 'model_request', slice(1, 'x'))).toMatchObject({
      delta: { fields: { args: 'x' } },
    });
  });

  test('a finished message starts the next one afresh; everything else passes unchanged', () => {
    const deltas = new ToolCallDeltaRewriter();
    deltas.rewrite('messages', ns, 'model_request', start(1));
    deltas.rewrite('messages', ns, 'model_request', slice(1, '{"a":1}'));
    deltas.rewrite('messages', ns, 'model_request', { event: 'message-finish' });
    deltas.rewrite('messages', ns, 'model_request', start(1));
    expect(deltas.rewrite('messages', ns, 'model_request', slice(1, '{"b"'))).toMatchObject({
      delta: { fields: { args: '{"b"' } },
    });
    const text = { event: 'content-block-delta', index: 0, delta: { type: 'text-delta', text: 'Hi' } };
    expect(deltas.rewrite('messages', ns, 'model_request', text)).toBe(text);
    const tools = { event: 'tool-started', tool_call_id: 'c', tool_name: 'task', input: '{}' };
    expect(deltas.rewrite('tools', ns, undefined, tools)).toBe(tools);
  });
});
