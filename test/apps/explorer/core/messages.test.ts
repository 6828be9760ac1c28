// Chat messages in run payloads (apps/explorer/core/messages.ts), in the shapes the clients send:
// OpenAI dicts with tool calls, LangChain dicts and serialised messages, LLM generations, OpenAI
// choices; and values that are not messages stay JSON (null). A retriever's documents likewise.
import { describe, expect, test } from 'vitest';
import { findDocuments, findMessages, previewOf } from '../../../../apps/explorer/core/messages.ts';

const lc = (cls: string, kwargs: Record<string, unknown>) => ({
  lc: 1,
  type: 'constructor',
  id: ['langchain_core', 'messages', cls],
  kwargs,
});

describe('findMessages', () => {
  test('OpenAI-style messages with a tool call (arguments as JSON text) and its result', () => {
    const found = findMessages({
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather?' },
            { type: 'image_url', image_url: { url: 'x' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search', arguments: '{"q":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
      ],
    });
    expect(found).toEqual([
      { role: 'system', content: 'Be brief.', name: null, toolCalls: [], toolCallId: null },
      { role: 'user', content: 'Weather?\n[image_url]', name: null, toolCalls: [], toolCallId: null },
      {
        role: 'assistant',
        content: '',
        name: null,
        toolCalls: [{ id: 'c1', name: 'search', args: { q: 'Paris' } }],
        toolCallId: null,
      },
      { role: 'tool', content: 'sunny', name: null, toolCalls: [], toolCallId: 'c1' },
    ]);
  });

  test('LangChain chat model inputs: a list of lists of serialised messages', () => {
    const found = findMessages({
      messages: [[lc('SystemMessage', { content: 'sys' }), lc('HumanMessage', { content: 'hi' })]],
    });
    expect(found?.map((m) => [m.role, m.content])).toEqual([
      ['system', 'sys'],
      ['user', 'hi'],
    ]);
  });

  test('LangChain LLM results: generations with an AIMessage and its tool calls (args as an object)', () => {
    const found = findMessages({
      generations: [
        [
          {
            text: '',
            message: lc('AIMessage', {
              content: 'Looking.',
              tool_calls: [{ id: 'c1', name: 'search', args: { q: 'x' } }],
            }),
          },
        ],
      ],
      llm_output: null,
    });
    expect(found).toEqual([
      {
        role: 'assistant',
        content: 'Looking.',
        name: null,
        toolCalls: [{ id: 'c1', name: 'search', args: { q: 'x' } }],
        toolCallId: null,
      },
    ]);
  });

  test('LangChain message dicts ({type, content}), OpenAI choices, a generation of text only, a single message', () => {
    expect(
      findMessages({
        messages: [
          { type: 'human', content: 'a' },
          { type: 'ai', content: 'b' },
        ],
      })?.map((m) => m.role),
    ).toEqual(['user', 'assistant']);
    expect(
      findMessages({ choices: [{ index: 0, message: { role: 'assistant', content: 'hello' } }] })?.map(
        (m) => m.content,
      ),
    ).toEqual(['hello']);
    expect(findMessages({ generations: [[{ text: 'plain completion' }]] })?.map((m) => [m.role, m.content])).toEqual([
      ['assistant', 'plain completion'],
    ]);
    expect(findMessages({ output: { role: 'assistant', content: 'done' } })?.map((m) => m.content)).toEqual(['done']);
  });

  test('anything else is not messages', () => {
    for (const value of [
      null,
      'text',
      42,
      {},
      { question: 'q' },
      { messages: [] },
      { messages: ['a', 'b'] },
      { messages: [{ role: 'user', content: 'a' }, { foo: 1 }] },
      [{ role: 'user' }],
    ])
      expect(findMessages(value), JSON.stringify(value)).toBeNull();
  });
});

test('a role or type named like an object’s own property is text, not a lookup', () => {
  const found = findMessages({ messages: [{ role: 'constructor', content: 'hi' }] });
  expect(found).toEqual([{ role: 'constructor', content: 'hi', name: null, toolCalls: [], toolCallId: null }]);
  expect(findMessages({ messages: [{ type: 'toString', content: 'hi' }] })).toBeNull();
});

describe('findDocuments', () => {
  test("a retriever's documents: dicts or serialised Documents, with their metadata", () => {
    expect(
      findDocuments({
        documents: [
          { page_content: 'Paris is sunny.', metadata: { source: 'wiki' } },
          {
            lc: 1,
            type: 'constructor',
            id: ['langchain_core', 'documents', 'Document'],
            kwargs: { page_content: 'Rain later.' },
          },
        ],
      }),
    ).toEqual([
      { content: 'Paris is sunny.', metadata: { source: 'wiki' } },
      { content: 'Rain later.', metadata: null },
    ]);
    expect(findDocuments([{ page_content: 'a', metadata: {} }])).toEqual([{ content: 'a', metadata: {} }]);
  });

  test('anything else is not documents', () => {
    for (const value of [
      null,
      { documents: [] },
      { documents: [{ text: 'a' }] },
      { documents: [{ page_content: 'a' }, 'b'] },
      ['a'],
    ])
      expect(findDocuments(value), JSON.stringify(value)).toBeNull();
  });
});

describe('findMessages: the shapes the threads view reads', () => {
  test.each([
    [
      'a list of OpenAI-style messages',
      {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello' },
        ],
      },
      [
        ['user', 'Hi'],
        ['assistant', 'Hello'],
      ],
    ],
    ["one message (a chat turn's output)", { role: 'assistant', content: 'Done.' }, [['assistant', 'Done.']]],
    [
      'LangChain messages, batched',
      {
        messages: [
          [
            { type: 'human', content: 'Q' },
            { type: 'ai', content: 'A' },
          ],
        ],
      },
      [
        ['user', 'Q'],
        ['assistant', 'A'],
      ],
    ],
    [
      'LangChain serialised',
      {
        messages: [
          { lc: 1, type: 'constructor', id: ['langchain', 'schema', 'SystemMessage'], kwargs: { content: 'Be brief' } },
        ],
      },
      [['system', 'Be brief']],
    ],
    [
      'content parts',
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      [['user', 'a\nb']],
    ],
    [
      'an image part without text',
      { role: 'user', content: [{ type: 'image_url', image_url: 'x' }] },
      [['user', '[image_url]']],
    ],
  ])('%s', (_name, payload, expected) => {
    expect(findMessages(payload)?.map((m) => [m.role, m.content])).toEqual(expected);
  });

  test.each([
    ['plain fields', { question: 'Q', k: 3 }],
    ['a message list with a non-message in it', { messages: [{ role: 'user', content: 'Hi' }, { foo: 1 }] }],
    ['a string', 'text'],
    ['null', null],
  ])('none in %s', (_name, payload) => {
    expect(findMessages(payload)).toBeNull();
  });
});

describe('previewOf', () => {
  test('the last message, the sole string, or the JSON; one line, shortened', () => {
    expect(
      previewOf({
        messages: [
          { role: 'user', content: 'first' },
          { role: 'user', content: 'last\n  line' },
        ],
      }),
    ).toBe('last line');
    expect(
      previewOf({ role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'search', args: { q: 'x' } }] }),
    ).toBe('search(…)');
    expect(previewOf({ output: 'answer' })).toBe('answer');
    expect(previewOf({ a: 1, b: 'x' })).toBe('{"a":1,"b":"x"}');
    expect(previewOf({ q: 'x'.repeat(200) }, 10)).toBe(`${'x'.repeat(9)}…`);
    expect(previewOf(undefined)).toBe('');
  });
});
