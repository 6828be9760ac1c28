// The JSON Schemas derived from graphs (services/agent-server/graphSchemas.ts): the example
// assistants (Annotation.Root graphs, one with input and output narrowed), graphs built from zod
// objects and from LangGraph's StateSchema. Each schema is checked with a JSON Schema validator
// against what the graph really takes and returns (a run's output, in the API's wire form).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Validator } from '@langchain/core/utils/json_schema';
import type { BaseMessage } from '@langchain/core/messages';
import {
  Annotation,
  MessagesAnnotation,
  MessagesValue,
  MessagesZodMeta,
  ReducedValue,
  StateGraph,
  StateSchema,
} from '@langchain/langgraph';
import { withLangGraph } from '@langchain/langgraph/zod';
import { graphJsonSchemas, type JsonSchema } from '../../../services/agent-server/graphSchemas.ts';
import { toWireValue } from '../../../services/agent-server/wireJson.ts';
import { graph as chatAgent } from '../../../examples/agent-server/chatAgent.ts';
import { graph as counter } from '../../../examples/agent-server/counterGraph.ts';
import { graph as noop } from '../../../examples/agent-server/noopGraph.ts';
import { graph as adkEcho } from '../../../examples/adk-agent/echoAgent.ts';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';
const human = (content: string) => ({ messages: [{ type: 'human', content }] });

function valid(schema: JsonSchema | null, value: unknown): boolean {
  expect(schema).not.toBeNull();
  return new Validator(schema as never, '7').validate(value).valid;
}
const keys = (schema: JsonSchema | null) => Object.keys((schema?.properties ?? {}) as object).sort();
const property = (schema: JsonSchema | null, key: string) => (schema?.properties as Record<string, JsonSchema>)[key];

describe('Annotation.Root graphs (no types at run time)', () => {
  it('the chat agent: its channels, messages typed as lists of messages in every schema, no context', async () => {
    const schemas = graphJsonSchemas(chatAgent);
    for (const schema of [schemas.input_schema, schemas.output_schema, schemas.state_schema]) {
      expect(schema).toMatchObject({ $schema: DRAFT_07, type: 'object' });
      expect(keys(schema)).toEqual(['messages', 'user_id']);
      expect(property(schema, 'messages')).toMatchObject({
        type: 'array',
        langgraph_type: 'messages',
        items: { type: 'object', required: ['content'] },
      });
    }
    expect(schemas.config_schema).toBeNull();
    expect(schemas.context_schema).toBeNull();

    const input = human('hello');
    expect(valid(schemas.input_schema, input)).toBe(true);
    expect(valid(schemas.input_schema, { messages: [{ role: 'user', content: 'hello' }] })).toBe(true);
    expect(valid(schemas.input_schema, { messages: [{ role: 'user' }] })).toBe(false);
    expect(valid(schemas.input_schema, { messages: 'hello' })).toBe(false);
    const output = toWireValue(await chatAgent.invoke(input));
    expect(valid(schemas.output_schema, output)).toBe(true);
    expect(valid(schemas.state_schema, output)).toBe(true);
  });

  it('the counter: a channel with a default is typed by it in the state and output, left open in the input', async () => {
    const schemas = graphJsonSchemas(counter);
    expect(property(schemas.state_schema, 'count')).toEqual({ type: 'number' });
    expect(property(schemas.output_schema, 'count')).toEqual({ type: 'number' });
    expect(property(schemas.input_schema, 'count')).toEqual({});
    expect(valid(schemas.output_schema, await counter.invoke({}))).toBe(true);
    expect(valid(schemas.output_schema, { count: 'one' })).toBe(false);
  });

  it('MessagesAnnotation alone (noop)', () => {
    const schemas = graphJsonSchemas(noop);
    expect(keys(schemas.input_schema)).toEqual(['messages']);
    expect(property(schemas.state_schema, 'messages')).toMatchObject({ type: 'array', langgraph_type: 'messages' });
  });

  it('a graph that narrows its input and output (the ADK wrapper): each schema has its own channels', () => {
    const schemas = graphJsonSchemas(adkEcho);
    expect(keys(schemas.input_schema)).toEqual(['messages', 'state_delta']);
    expect(keys(schemas.output_schema)).toEqual(['last_reply', 'messages']);
    expect(keys(schemas.state_schema)).toEqual(['adk_session', 'last_reply', 'messages', 'state_delta']);
  });

  it('an input annotation of its own', () => {
    const State = Annotation.Root({
      ...MessagesAnnotation.spec,
      notes: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const Input = Annotation.Root({ question: Annotation<string>() });
    const graph = new StateGraph({ stateSchema: State, input: Input, output: State })
      .addNode('answer', () => ({}))
      .addEdge('__start__', 'answer')
      .compile();
    const schemas = graphJsonSchemas(graph);
    expect(keys(schemas.input_schema)).toEqual(['question']);
    expect(property(schemas.state_schema, 'notes')).toEqual({ type: 'array' });
  });
});

describe('zod graphs', () => {
  const State = z.object({
    messages: withLangGraph(z.custom<BaseMessage[]>(), MessagesZodMeta),
    topic: z.string().describe('what to talk about'),
    turns: z.number().int().default(0),
    notes: withLangGraph(z.array(z.string()), {
      reducer: {
        fn: (a: string[], b: string | string[]) => a.concat(b),
        schema: z.union([z.string(), z.array(z.string())]),
      },
      default: () => [],
    }),
  });
  const graph = new StateGraph(State, { context: z.object({ model: z.enum(['small', 'large']) }) })
    .addNode('talk', () => ({}))
    .addEdge('__start__', 'talk')
    .compile();
  const schemas = graphJsonSchemas(graph);

  it('the fields’ types; z.custom messages as lists of messages (not a conversion failure)', () => {
    expect(schemas.state_schema).toMatchObject({
      $schema: DRAFT_07,
      type: 'object',
      properties: {
        topic: { type: 'string', description: 'what to talk about' },
        turns: { type: 'integer', default: 0 },
        notes: { type: 'array', items: { type: 'string' } },
        messages: { type: 'array', langgraph_type: 'messages', items: { title: 'Message' } },
      },
    });
    expect(schemas.state_schema?.required).toEqual(expect.arrayContaining(['topic', 'messages']));
    expect(JSON.stringify(schemas.state_schema)).not.toContain('lg:');
  });

  it('the input: every field optional, a reducer’s field as its reducer takes it', () => {
    expect(schemas.input_schema?.required).toBeUndefined();
    expect(property(schemas.input_schema, 'notes')).toEqual({
      anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    });
    expect(valid(schemas.input_schema, { notes: 'one', ...human('hi') })).toBe(true);
    expect(valid(schemas.input_schema, { turns: 'many' })).toBe(false);
  });

  it('the context schema, as the config schema too (a JS graph declares one)', () => {
    expect(schemas.context_schema).toMatchObject({
      type: 'object',
      properties: { model: { enum: ['small', 'large'] } },
      required: ['model'],
    });
    expect(schemas.config_schema).toEqual(schemas.context_schema);
  });

  it('input and output objects of their own', async () => {
    const narrowed = new StateGraph({
      state: z.object({ question: z.string(), answer: z.string(), scratch: z.array(z.string()) }),
      input: z.object({ question: z.string() }),
      output: z.object({ answer: z.string() }),
    })
      .addNode('reply', (s: { question: string }) => ({ answer: `re: ${s.question}`, scratch: [] }))
      .addEdge('__start__', 'reply')
      .compile();
    const own = graphJsonSchemas(narrowed);
    expect(keys(own.input_schema)).toEqual(['question']);
    expect(keys(own.output_schema)).toEqual(['answer']);
    expect(keys(own.state_schema)).toEqual(['answer', 'question', 'scratch']);
    expect(valid(own.output_schema, await narrowed.invoke({ question: 'why' }))).toBe(true);
  });
});

describe('StateSchema graphs', () => {
  it('values and updates: MessagesValue as messages, a ReducedValue’s input as its input schema', () => {
    const State = new StateSchema({
      messages: MessagesValue,
      topic: z.string(),
      history: new ReducedValue(
        z.array(z.string()).default(() => []),
        {
          inputSchema: z.string(),
          reducer: (all: string[], one: string) => [...all, one],
        },
      ),
    });
    const graph = new StateGraph(State)
      .addNode('n', () => ({}))
      .addEdge('__start__', 'n')
      .compile();
    const schemas = graphJsonSchemas(graph);
    expect(property(schemas.state_schema, 'history')).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(property(schemas.input_schema, 'history')).toEqual({ type: 'string' });
    expect(property(schemas.input_schema, 'messages')).toMatchObject({ type: 'array', langgraph_type: 'messages' });
    expect(JSON.stringify(schemas.state_schema).match(/\$schema/g)).toHaveLength(1);
    expect(schemas.context_schema).toBeNull();
  });
});

it('a graph’s schemas are computed once', () => {
  expect(graphJsonSchemas(chatAgent)).toBe(graphJsonSchemas(chatAgent));
});
