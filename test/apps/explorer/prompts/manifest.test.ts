// How the prompts pages read a commit's manifest (a chat prompt's messages, a string prompt's
// template, the model it was pushed with, the variables highlighted) and write one back from
// edited messages: the manifests are LangChain's own (toJSON of real templates), and an edited
// one is loaded back by LangChain and formatted.
import { ChatPromptTemplate, MessagesPlaceholder, PromptTemplate } from '@langchain/core/prompts';
import { load } from '@langchain/core/load';
import { ChatOpenAI } from '@langchain/openai';
import { expect, test } from 'vitest';
import {
  draftOf,
  editedManifest,
  emptyDraft,
  manifestText,
  readManifest,
  templateParts,
  templateVariables,
} from '../../../../apps/explorer/prompts/manifest.ts';

const json = (o: { toJSON(): unknown }) => JSON.parse(JSON.stringify(o.toJSON())) as Record<string, unknown>;
const chat = ChatPromptTemplate.fromMessages([
  ['system', 'You answer in {language}.'],
  new MessagesPlaceholder('history'),
  ['human', '{question}'],
]);

test('f-string variables: {name} highlighted, {{ and }} are braces, format specs and attributes name the variable', () => {
  expect(templateParts('Hi {name}, {{literal}} {n:>4} {user.id}!', 'f-string')).toEqual([
    { text: 'Hi ', variable: null },
    { text: '{name}', variable: 'name' },
    { text: ', {{literal}} ', variable: null },
    { text: '{n:>4}', variable: 'n' },
    { text: ' ', variable: null },
    { text: '{user.id}', variable: 'user' },
    { text: '!', variable: null },
  ]);
  expect(templateVariables('{a} {b} {a}', 'f-string')).toEqual(['a', 'b']);
  expect(templateParts('no variables', 'f-string')).toEqual([{ text: 'no variables', variable: null }]);
});

test('mustache and jinja2 variables: {{name}}, sections by their name, closing tags and comments as text', () => {
  expect(templateParts('{{#items}}{{ item.name }}{{/items}} {{! note}}', 'mustache')).toEqual([
    { text: '{{#items}}', variable: 'items' },
    { text: '{{ item.name }}', variable: 'item' },
    { text: '{{/items}} {{! note}}', variable: null },
  ]);
  expect(templateVariables('Hello {{ name | upper }} and {name}', 'jinja2')).toEqual(['name']);
});

test('a chat prompt: its messages by role, a placeholder, the variables in order', () => {
  const view = readManifest(json(chat));
  expect(view.kind).toBe('chat');
  if (view.kind !== 'chat') return;
  expect(view.messages.map((m) => [m.role, m.template, m.format])).toEqual([
    ['system', 'You answer in {language}.', 'f-string'],
    ['placeholder', 'history', 'f-string'],
    ['human', '{question}', 'f-string'],
  ]);
  expect(view.variables).toEqual(['language', 'history', 'question']);
  expect(view.model).toBeNull();
});

test('a prompt pushed with its model: the prompt, and the model’s settings (a secret by its name)', () => {
  const model = new ChatOpenAI({ model: 'gpt-4o-mini', temperature: 0.2, apiKey: 'sk-not-shown' });
  const manifest = json(chat.pipe(model));
  const view = readManifest(manifest);
  expect(view.kind).toBe('chat');
  expect(view.model?.name).toBe('ChatOpenAI');
  expect(view.model?.params).toEqual(
    expect.arrayContaining([
      ['model', 'gpt-4o-mini'],
      ['temperature', '0.2'],
      ['openai_api_key', 'secret OPENAI_API_KEY'],
    ]),
  );
  expect(JSON.stringify(view)).not.toContain('sk-not-shown');
  expect(manifestText(view, manifest)).toBe(
    [
      '[system]',
      'You answer in {language}.',
      '',
      '[placeholder] {history}',
      '',
      '[human]',
      '{question}',
      '',
      '[model] ChatOpenAI',
      ...view.model!.params.map(([k, v]) => `${k}: ${v}`),
    ].join('\n'),
  );
});

test('a string prompt, a mustache one, and a manifest of another kind', () => {
  expect(readManifest(json(PromptTemplate.fromTemplate('Summarize {text} in {n} words')))).toEqual({
    kind: 'string',
    template: 'Summarize {text} in {n} words',
    format: 'f-string',
    variables: ['text', 'n'],
    model: null,
  });
  const mustache = readManifest(json(PromptTemplate.fromTemplate('Hi {{name}}', { templateFormat: 'mustache' })));
  expect(mustache).toMatchObject({ kind: 'string', format: 'mustache', variables: ['name'] });
  const other = { lc: 1, type: 'constructor', id: ['langchain', 'schema', 'runnable', 'RunnableLambda'], kwargs: {} };
  expect(readManifest(other)).toEqual({ kind: 'other', type: 'RunnableLambda', model: null });
  expect(manifestText(readManifest(other), other)).toBe(JSON.stringify(other, null, 2));
});

test('Python’s manifests: `langchain` ids, a ChatMessagePromptTemplate’s own role, a literal message, parts', () => {
  const lc = (id: string[], kwargs: Record<string, unknown>) => ({ lc: 1, type: 'constructor', id, kwargs });
  const tpl = (template: string) =>
    lc(['langchain', 'prompts', 'prompt', 'PromptTemplate'], { template, template_format: 'f-string' });
  const manifest = lc(['langchain', 'prompts', 'chat', 'ChatPromptTemplate'], {
    messages: [
      lc(['langchain', 'prompts', 'chat', 'ChatMessagePromptTemplate'], { role: 'critic', prompt: tpl('Judge {x}') }),
      lc(['langchain', 'schema', 'messages', 'SystemMessage'], { content: 'Braces {stay} text' }),
      lc(['langchain', 'prompts', 'chat', 'HumanMessagePromptTemplate'], {
        prompt: [tpl('Look at {what}'), lc(['langchain', 'prompts', 'image', 'ImagePromptTemplate'], {})],
      }),
    ],
  });
  const view = readManifest(manifest);
  if (view.kind !== 'chat') throw new Error(view.kind);
  expect(view.messages.map((m) => [m.role, m.template, m.literal, m.multipart])).toEqual([
    ['critic', 'Judge {x}', false, false],
    ['system', 'Braces {stay} text', true, false],
    ['human', 'Look at {what}\n[image]', false, true],
  ]);
  expect(view.variables).toEqual(['x', 'what']);
  // Edited: the namespace kept, the changed message's template replaced, the others as they were.
  const drafts = view.messages.map(draftOf);
  drafts[0]!.template = 'Judge {x} and {y}';
  const edited = editedManifest(manifest, [...drafts, { ...emptyDraft('ai'), template: 'Noted.' }]);
  const kwargs = edited.kwargs as { messages: any[]; input_variables: string[] };
  expect(kwargs.messages[0].kwargs.prompt.kwargs).toEqual({
    template: 'Judge {x} and {y}',
    template_format: 'f-string',
    input_variables: ['x', 'y'],
  });
  expect(kwargs.messages[1]).toBe(view.messages[1]!.source);
  expect(kwargs.messages[2]).toBe(view.messages[2]!.source);
  expect(kwargs.messages[3].id).toEqual(['langchain', 'prompts', 'chat', 'AIMessagePromptTemplate']);
  expect(kwargs.input_variables).toEqual(['x', 'y', 'what']);
});

test('an edited chat prompt loads back into LangChain and formats, its model kept', async () => {
  const model = new ChatOpenAI({ model: 'gpt-4o-mini', temperature: 0, apiKey: 'sk-x' });
  const manifest = json(chat.pipe(model));
  const view = readManifest(manifest);
  if (view.kind !== 'chat') throw new Error(view.kind);
  const drafts = view.messages.map(draftOf);
  drafts[0]!.template = 'You answer in {language}, in {style} style.';
  drafts.splice(1, 1); // the placeholder removed
  drafts.push({ ...emptyDraft('ai'), template: 'Understood.' });
  const edited = editedManifest(manifest, drafts);
  expect((edited.kwargs as any).last).toEqual((manifest.kwargs as any).last);
  const prompt = await load<ChatPromptTemplate>(JSON.stringify((edited.kwargs as any).first));
  expect(prompt.inputVariables).toEqual(['language', 'style', 'question']);
  const messages = await prompt.formatMessages({ language: 'French', style: 'terse', question: 'Why?' });
  expect(messages.map((m) => [m.getType(), m.content])).toEqual([
    ['system', 'You answer in French, in terse style.'],
    ['human', 'Why?'],
    ['ai', 'Understood.'],
  ]);
});

test('new prompts: a chat prompt from drafts, a string prompt, both loaded by LangChain', async () => {
  const manifest = editedManifest(null, [
    { ...emptyDraft('system'), template: 'Be {mood}.' },
    { ...emptyDraft('placeholder'), template: 'history' },
    { ...emptyDraft('human'), template: '{q}' },
  ]);
  const chatPrompt = await load<ChatPromptTemplate>(JSON.stringify(manifest));
  expect(chatPrompt.inputVariables).toEqual(['mood', 'history', 'q']);
  const formatted = await chatPrompt.formatMessages({ mood: 'kind', history: [], q: 'Hi?' });
  expect(formatted.map((m) => m.content)).toEqual(['Be kind.', 'Hi?']);

  const stringManifest = editedManifest(null, [{ ...emptyDraft('human'), template: 'Hello {{name}}' }], {
    asString: true,
    format: 'mustache',
  });
  const stringPrompt = await load<PromptTemplate>(JSON.stringify(stringManifest));
  expect(await stringPrompt.format({ name: 'Ada' })).toBe('Hello Ada');
  // And a string prompt edited keeps being one.
  const again = editedManifest(stringManifest, [{ ...emptyDraft('human'), template: 'Bye {{name}}' }]);
  expect(readManifest(again)).toMatchObject({ kind: 'string', template: 'Bye {{name}}', variables: ['name'] });
});
