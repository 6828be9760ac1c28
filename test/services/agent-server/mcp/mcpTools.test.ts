// Assistants as MCP tools (services/agent-server/mcp/mcpTools.ts): names made valid tool names as
// LangGraph's server makes them, input schemas with lists of messages as the one message to send,
// one tool per name, and pages of 100.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  assistantsNamed,
  toolInputSchema,
  toolName,
  toolsPage,
} from '../../../../services/agent-server/mcp/mcpTools.ts';
import type { ServedAssistant } from '../../../../services/agent-server/mcp/servedAssistants.ts';
import { graphJsonSchemas } from '../../../../services/agent-server/graphSchemas.ts';
import { graph as chatAgent } from '../../../../examples/agent-server/chatAgent.ts';
import { graph as counter } from '../../../../examples/agent-server/counterGraph.ts';

function served(name: string, graph: unknown = counter, description: string | null = null): ServedAssistant {
  return {
    assistant: {
      assistant_id: randomUUID(),
      graph_id: 'counter',
      name,
      description,
      config: {},
      context: {},
      metadata: {},
      version: 1,
      created_at: '2025-01-01T00:00:00Z',
      updated_at: '2025-01-01T00:00:00Z',
    },
    graph: graph as ServedAssistant['graph'],
  };
}

describe('toolName', () => {
  it('keeps letters, digits, _, - and .; whitespace runs become _; the rest goes; 128 at most', () => {
    expect(toolName('agent')).toBe('agent');
    expect(toolName('  my  research\tagent ')).toBe('my_research_agent');
    expect(toolName('Résumé writer (v2.1)!')).toBe('Rsum_writer_v2.1');
    expect(toolName('x'.repeat(200))).toHaveLength(128);
    expect(toolName('¿?')).toBe('');
  });
});

describe('toolInputSchema', () => {
  it('turns each list of messages into the user message to send, and keeps the rest', () => {
    const schema = toolInputSchema(graphJsonSchemas(chatAgent).input_schema);
    expect(schema).toMatchObject({
      type: 'object',
      properties: {
        messages: { type: 'string', title: 'messages', description: 'The user message to send to the agent.' },
        user_id: {},
      },
    });
    // the graph's own schema is left as it was
    expect((graphJsonSchemas(chatAgent).input_schema?.properties as any).messages.type).toBe('array');
  });

  it('is an object schema even for a graph without one', () => {
    expect(toolInputSchema(null)).toEqual({ type: 'object' });
  });
});

describe('toolsPage', () => {
  it('one tool per assistant: name, title, description (or LangGraph’s default), input schema, annotations', () => {
    const { tools, nextCursor } = toolsPage(
      [served('chat agent', chatAgent, 'Answers each message.'), served('counter')],
      0,
    );
    expect(nextCursor).toBeUndefined();
    expect(tools).toEqual([
      {
        name: 'chat_agent',
        title: 'chat agent',
        description: 'Answers each message.',
        inputSchema: toolInputSchema(graphJsonSchemas(chatAgent).input_schema),
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      },
      expect.objectContaining({
        name: 'counter',
        title: 'counter',
        description: 'Tool based on the counter assistant',
      }),
    ]);
  });

  it('lists the first of assistants whose names make one tool name, and none for a name that makes no tool name', () => {
    const all = [served('my agent'), served('my_agent'), served('???'), served('other')];
    expect(toolsPage(all, 0).tools.map((t) => [t.name, t.title])).toEqual([
      ['my_agent', 'my agent'],
      ['other', 'other'],
    ]);
    expect(assistantsNamed(all, 'my_agent').map((s) => s.assistant.name)).toEqual(['my agent', 'my_agent']);
    expect(assistantsNamed(all, 'other')).toHaveLength(1);
  });

  it('pages of 100, the cursor the offset of the next', () => {
    const all = Array.from({ length: 230 }, (_, i) => served(`agent-${i}`));
    const first = toolsPage(all, 0);
    expect(first.tools).toHaveLength(100);
    expect(first.nextCursor).toBe('100');
    const last = toolsPage(all, 200);
    expect(last.tools.map((t) => t.name)).toEqual(Array.from({ length: 30 }, (_, i) => `agent-${200 + i}`));
    expect(last.nextCursor).toBeUndefined();
  });
});
