// The JSON Schemas of a compiled graph (input, output, state, config and context), derived from
// what the graph carries at run time, for GET /assistants/{id}/schemas and the MCP tools' input
// schemas. A graph built from zod (a zod object, or LangGraph's StateSchema) has its fields'
// types: they are converted as LangGraph's own helpers do (`@langchain/langgraph/zod/schema`),
// except that a type JSON Schema cannot say (`z.custom()`) becomes "any" instead of failing the
// whole schema. A graph built from `Annotation.Root` has no types at run time: its schemas name
// its channels (the input and output ones, where the graph narrows them), type the channels of
// messages (MessagesAnnotation's reducer) as lists of messages, and type the others of the
// state by their default value where they have one. Every schema is JSON Schema draft-07.
import { StateSchema } from '@langchain/langgraph';
import { type SchemaMetaRegistry, schemaMetaRegistry } from '@langchain/langgraph/zod';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { isInteropZodObject } from '@langchain/core/utils/types';

export type JsonSchema = Record<string, unknown>;

/** What GET /assistants/{id}/schemas answers besides graph_id; null where the graph declares nothing. */
export interface GraphJsonSchemas {
  input_schema: JsonSchema | null;
  output_schema: JsonSchema | null;
  state_schema: JsonSchema | null;
  config_schema: JsonSchema | null;
  context_schema: JsonSchema | null;
}

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/** The `langgraph_type` LangGraph marks a channel of messages with (MessagesZodMeta, MessagesValue). */
export const MESSAGES_TYPE = 'messages';

/** One message as the API takes and returns it: LangChain's serialized form, or OpenAI's `{role, content}`. */
const MESSAGE_SCHEMA: JsonSchema = {
  type: 'object',
  title: 'Message',
  description:
    'A chat message: {"type": "human", "content": "…"} (type human, ai, system or tool), or {"role": "user", "content": "…"}',
  properties: {
    type: { type: 'string', description: 'human, ai, system, tool (LangChain’s message types)' },
    role: { type: 'string', description: 'user, assistant, system, tool (instead of type)' },
    content: {
      anyOf: [
        { type: 'string' },
        { type: 'array', items: { type: 'object', additionalProperties: true }, description: 'content blocks' },
      ],
    },
    id: { type: ['string', 'null'] },
    name: { type: ['string', 'null'] },
    tool_calls: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: { id: { type: ['string', 'null'] }, name: { type: 'string' }, args: { type: 'object' } },
      },
    },
    tool_call_id: { type: 'string', description: 'the tool call a tool message answers' },
    additional_kwargs: { type: 'object', additionalProperties: true },
    response_metadata: { type: 'object', additionalProperties: true },
  },
  required: ['content'],
  additionalProperties: true,
};

const messagesSchema = (description?: unknown): JsonSchema => ({
  type: 'array',
  items: MESSAGE_SCHEMA,
  description: typeof description === 'string' ? description : 'A list of chat messages',
  langgraph_type: MESSAGES_TYPE,
});

/** The parts of a StateGraph (the compiled graph's `builder`) the schemas come from. */
interface Builder {
  channels?: Record<string, unknown>;
  _schemaDefinition?: Record<string, unknown>;
  _inputDefinition?: Record<string, unknown>;
  _outputDefinition?: Record<string, unknown>;
  _schemaRuntimeDefinition?: unknown;
  _inputRuntimeDefinition?: unknown;
  _outputRuntimeDefinition?: unknown;
  _configRuntimeSchema?: unknown;
  _metaRegistry?: SchemaMetaRegistry;
}

/** StateGraph's mark for "the input is the state, every field optional". */
const PARTIAL_STATE = Symbol.for('langgraph.state.partial');

/** A state (every field), or an update (what a node or the input may write: reducers' inputs, all optional). */
type Form = 'values' | 'update';

const cache = new WeakMap<object, GraphJsonSchemas>();

/** The graph's schemas (computed once per graph). */
export function graphJsonSchemas(graph: { builder?: unknown }): GraphJsonSchemas {
  const cached = cache.get(graph);
  if (cached) return cached;
  const builder = (graph.builder ?? {}) as Builder;
  const schemas = builder._schemaRuntimeDefinition !== undefined ? fromTypes(builder) : fromChannels(builder);
  cache.set(graph, schemas);
  return schemas;
}

// ---- graphs with types: zod objects and StateSchema ----

function fromTypes(builder: Builder): GraphJsonSchemas {
  const registry = builder._metaRegistry ?? schemaMetaRegistry;
  const convert = (definition: unknown, form: Form): JsonSchema | null => {
    try {
      if (StateSchema.isInstance(definition))
        return normalized(form === 'values' ? definition.getJsonSchema() : definition.getInputJsonSchema());
      if (!isInteropZodObject(definition)) return null;
      const extended = registry.getExtendedChannelSchemas(
        definition,
        form === 'values'
          ? { withJsonSchemaExtrasAsDescription: true }
          : { withReducerSchema: true, withJsonSchemaExtrasAsDescription: true, asPartial: true },
      );
      return normalized(toJsonSchema(extended, { unrepresentable: 'any', target: 'draft-7' } as never));
    } catch {
      return null; // a type beyond conversion: the channels' schema below says what is known
    }
  };
  const channels = fromChannels(builder);
  const state = builder._schemaRuntimeDefinition;
  const input = builder._inputRuntimeDefinition === PARTIAL_STATE ? state : builder._inputRuntimeDefinition;
  const context = convert(builder._configRuntimeSchema, 'values');
  return {
    input_schema: convert(input, 'update') ?? channels.input_schema,
    output_schema: convert(builder._outputRuntimeDefinition ?? state, 'values') ?? channels.output_schema,
    state_schema: convert(state, 'values') ?? channels.state_schema,
    // A JS graph declares one schema, its context (LangGraph's JS server answers it as both).
    config_schema: context,
    context_schema: context,
  };
}

/** LangGraph's extras (a `lg:{…}` description) as fields, one `$schema` at the top, channels of messages typed. */
function normalized(schema: unknown): JsonSchema | null {
  if (typeof schema !== 'object' || schema === null) return null;
  const out = withExtras(schema) as JsonSchema;
  const properties = out.properties as Record<string, JsonSchema> | undefined;
  if (properties)
    for (const [key, property] of Object.entries(properties))
      if (property?.langgraph_type === MESSAGES_TYPE)
        properties[key] = { ...messagesSchema(property.description), ...defaultOf(property) };
  return { $schema: DRAFT_07, ...out };
}

const defaultOf = (property: JsonSchema) => ('default' in property ? { default: property.default } : {});

/** A copy without nested `$schema`s, with `description: "lg:{json}"` (how LangGraph carries extras through zod) merged in. */
function withExtras(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withExtras);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (key !== '$schema') out[key] = withExtras(inner);
  if (typeof out.description === 'string' && out.description.startsWith('lg:')) {
    const extras = out.description.slice(3);
    delete out.description;
    try {
      Object.assign(out, JSON.parse(extras));
    } catch {
      out.description = extras;
    }
  }
  return out;
}

// ---- graphs without types: Annotation.Root (and channel objects) ----

function fromChannels(builder: Builder): GraphJsonSchemas {
  const channels = builder.channels ?? {};
  const state = builder._schemaDefinition ?? channels;
  const object = (definition: Record<string, unknown> | undefined, form: Form): JsonSchema => ({
    $schema: DRAFT_07,
    type: 'object',
    properties: Object.fromEntries(
      Object.keys(definition ?? state).map((key) => [key, channelSchema(channels[key], form)]),
    ),
  });
  return {
    input_schema: object(builder._inputDefinition, 'update'),
    output_schema: object(builder._outputDefinition, 'values'),
    state_schema: object(state, 'values'),
    config_schema: null,
    context_schema: null,
  };
}

interface ChannelLike {
  lc_graph_name?: string;
  operator?: { name?: string };
  initialValueFactory?: () => unknown;
}

/** A channel's schema: a list of messages for MessagesAnnotation's; else, in a state, its default value's type. */
function channelSchema(channel: unknown, form: Form): JsonSchema {
  const c = (channel ?? {}) as ChannelLike;
  // By name: the graph's module may hold its own copy of @langchain/langgraph.
  if (c.lc_graph_name === 'BinaryOperatorAggregate' && c.operator?.name === 'messagesStateReducer')
    return messagesSchema();
  if (form === 'update') return {};
  if (c.lc_graph_name === 'Topic') return { type: 'array' };
  if (typeof c.initialValueFactory !== 'function') return {};
  try {
    return typeOfValue(c.initialValueFactory());
  } catch {
    return {};
  }
}

function typeOfValue(value: unknown): JsonSchema {
  if (Array.isArray(value)) return { type: 'array' };
  if (value === null) return {};
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return { type };
  return type === 'object' ? { type: 'object' } : {};
}
