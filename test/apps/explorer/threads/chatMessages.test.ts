// The chat messages the threads view finds in a payload, and its one-line previews.
import { describe, expect, test } from 'vitest';
import { messagesOf, previewOf } from '../../../../apps/explorer/threads/chatMessages.ts';

describe('messagesOf', () => {
  test.each([
    ['a list of OpenAI-style messages', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }] }, [['user', 'Hi'], ['assistant', 'Hello']]],
    ['one message (a chat turn\'s output)', { role: 'assistant', content: 'Done.' }, [['assistant', 'Done.']]],
    ['LangChain messages, batched', { messages: [[{ type: 'human', content: 'Q' }, { type: 'ai', content: 'A' }]] }, [['user', 'Q'], ['assistant', 'A']]],
    ['LangChain serialised', { messages: [{ lc: 1, type: 'constructor', id: ['langchain', 'schema', 'SystemMessage'], kwargs: { content: 'Be brief' } }] }, [['system', 'Be brief']]],
    ['content parts', { role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }, [['user', 'ab']]],
    ['OpenAI choices', { choices: [{ message: { role: 'assistant', content: 'Yes' } }] }, [['assistant', 'Yes']]],
  ])('%s', (_name, payload, expected) => {
    expect(messagesOf(payload)?.map((m) => [m.role, m.text])).toEqual(expected);
  });

  test.each([
    ['plain fields', { question: 'Q', k: 3 }],
    ['a message list with a non-message in it', { messages: [{ role: 'user', content: 'Hi' }, { foo: 1 }] }],
    ['an image part without text', { role: 'user', content: [{ type: 'image_url', image_url: 'x' }] }],
    ['a string', 'text'],
    ['null', null],
  ])('none in %s', (_name, payload) => {
    expect(messagesOf(payload)).toBeNull();
  });
});

describe('previewOf', () => {
  test('the last message, the sole string, or the JSON; one line, shortened', () => {
    expect(previewOf({ messages: [{ role: 'user', content: 'first' }, { role: 'user', content: 'last\n  line' }] })).toBe('last line');
    expect(previewOf({ output: 'answer' })).toBe('answer');
    expect(previewOf({ a: 1, b: 'x' })).toBe('{"a":1,"b":"x"}');
    expect(previewOf({ q: 'x'.repeat(200) }, 10)).toBe(`${'x'.repeat(9)}…`);
    expect(previewOf(undefined)).toBe('');
  });
});
