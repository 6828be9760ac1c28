// JSON schemas the agent server's routes share: path parameters, the records the LangGraph API
// returns, and the error body. Fastify validates requests with them (a failure is a 422 naming
// the field) and the OpenAPI document is generated from them. Response schemas keep every
// property (`additionalProperties: true`) and type arbitrary JSON as `{}`: they describe the
// answer without dropping anything the SDKs read.
import type { FastifySchemaValidationError } from 'fastify';
import { errorBody, serverSentEvent } from '../../../platform/http/openapi.ts';

const uuid = (description: string) => ({ type: 'string', format: 'uuid', description }) as const;
const anyJson = (description: string) => ({ description }) as const;
const jsonObject = (description: string) => ({ type: 'object', additionalProperties: true, description }) as const;
const timestamp = { type: 'string', format: 'date-time' } as const;

/** Every failure's body (platform/http/openapi.ts): a stable code and a message. */
export const errorResponse = (description: string) => ({ description, ...errorBody }) as const;

// ---- path parameters ----

export const threadIdParams = {
  type: 'object',
  required: ['thread_id'],
  properties: { thread_id: uuid('the thread') },
} as const;
export const runIdParams = {
  type: 'object',
  required: ['thread_id', 'run_id'],
  properties: { thread_id: uuid('the thread'), run_id: uuid('the run') },
} as const;
/** An assistant id is a UUID or, as on the LangGraph server, the name of its graph. */
export const assistantIdParams = {
  type: 'object',
  required: ['assistant_id'],
  properties: {
    assistant_id: { type: 'string', minLength: 1, description: 'the assistant: its UUID, or its graph name' },
  },
} as const;

// ---- records ----

export const assistantSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    assistant_id: uuid('UUIDv5 of the graph id in the LangGraph namespace'),
    graph_id: { type: 'string' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    config: jsonObject('the assistant config'),
    context: jsonObject('the assistant context'),
    metadata: jsonObject('metadata; system assistants have created_by: system'),
    version: { type: 'integer' },
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;

export const threadSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    thread_id: uuid('the thread'),
    created_at: timestamp,
    updated_at: timestamp,
    state_updated_at: timestamp,
    metadata: jsonObject('metadata; graph_id and assistant_id once a run used it'),
    status: { type: 'string', enum: ['idle', 'busy', 'interrupted', 'error'] },
    config: jsonObject('config'),
    values: anyJson('the state values after the last run ({} before any)'),
    interrupts: jsonObject('pending interrupts, by the id of the run that raised them'),
    error: anyJson('the last run’s error, when it failed'),
  },
} as const;

const checkpointSchema = {
  type: ['object', 'null'],
  additionalProperties: true,
  properties: {
    thread_id: { type: 'string' },
    checkpoint_ns: { type: 'string' },
    checkpoint_id: { type: ['string', 'null'] },
    checkpoint_map: anyJson('checkpoint ids by namespace'),
  },
} as const;

export const threadStateSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    values: anyJson('the state values at the checkpoint'),
    next: { type: 'array', items: { type: 'string' }, description: 'nodes to run next' },
    tasks: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        description: 'a pending task, with its interrupts',
        properties: {
          id: { type: 'string' },
          name: { type: 'string', description: 'the node' },
          path: anyJson('where in the graph the task was scheduled'),
          error: anyJson('its error, when it failed'),
          interrupts: { type: 'array', items: anyJson('an interrupt') },
          checkpoint: anyJson('the checkpoint of its subgraph, if any'),
          state: anyJson('the state of its subgraph, if any'),
          result: anyJson('what it wrote, once done'),
        },
      },
    },
    metadata: anyJson('checkpoint metadata'),
    created_at: { type: ['string', 'null'] },
    checkpoint: checkpointSchema,
    parent_checkpoint: checkpointSchema,
    interrupts: { type: 'array', items: anyJson('an interrupt') },
  },
} as const;

export const runSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    run_id: uuid('the run (UUIDv7)'),
    thread_id: uuid('its thread (a temporary one for stateless runs)'),
    assistant_id: uuid('the assistant it runs'),
    created_at: timestamp,
    updated_at: timestamp,
    status: { type: 'string', enum: ['pending', 'running', 'error', 'success', 'timeout', 'interrupted'] },
    metadata: jsonObject('run metadata (also the trace’s)'),
    kwargs: jsonObject('what the run was created with'),
    multitask_strategy: { type: 'string', enum: ['reject', 'rollback', 'interrupt', 'enqueue'] },
  },
} as const;

/** The final values a run's /wait and /join answer, `{__error__}` when it failed (written by hand, see runRoutes.ts). */
export const runValuesResponse = {
  description:
    'the thread’s final state values; __interrupt__ when waiting for input; {__error__: {error, message}} when the run failed',
  type: 'object',
  additionalProperties: true,
  properties: {
    __interrupt__: anyJson('the interrupts the run is waiting on'),
    __error__: anyJson('{error, message}: why the run failed'),
  },
} as const;

/** An SSE stream (written by hand: it is not serialized by fastify). */
export const eventStreamResponse = (description: string) => ({
  description,
  content: { 'text/event-stream': { schema: serverSentEvent } },
});

export const noContent = { description: 'done', type: 'null' } as const;

/**
 * The message of a request that does not match its schema. A value that may take several forms
 * (`anyOf`, e.g. stream_mode: a mode or a list of modes) fails once per form, then once for
 * "anyOf"; only the failure inside the form whose type matched says what is wrong, so it is kept
 * alone (first in `errors` too, which the HTTP layer reads the allowed values from).
 */
export function schemaErrorMessage(errors: FastifySchemaValidationError[], dataVar: string): Error {
  const anyOf = errors.find((e) => e.keyword === 'anyOf');
  if (anyOf) {
    const inside = errors.filter(
      (e) => e.keyword !== 'anyOf' && e.keyword !== 'type' && e.instancePath.startsWith(anyOf.instancePath),
    );
    if (inside.length > 0) {
      const deepest = Math.max(...inside.map((e) => e.instancePath.length));
      errors.splice(0, errors.length, ...inside.filter((e) => e.instancePath.length === deepest));
    } else {
      const types = errors
        .filter((e) => e.keyword === 'type' && e.instancePath === anyOf.instancePath)
        .map((e) => String(e.params.type));
      return new Error(`${dataVar}${anyOf.instancePath} must be ${types.join(' or ')}`);
    }
  }
  return new Error(errors.map((e) => `${dataVar}${e.instancePath} ${e.message}`).join(', '));
}
