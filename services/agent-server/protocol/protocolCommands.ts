// The agent streaming protocol's commands as the server takes them: `{id, method, params}`,
// answered with `{type:"success", id, result, meta?}` or `{type:"error", id, error, message}`
// (langchain-ai/agent-protocol, wire names snake_case). This file reads commands and their
// params; ./protocolService.ts carries them out.
import { z } from 'zod';

export type ProtocolErrorCode =
  | 'invalid_argument'
  | 'unknown_command'
  | 'unknown_error'
  | 'no_such_run'
  | 'no_such_interrupt'
  | 'no_such_checkpoint'
  | 'not_supported';

export interface ErrorResponse {
  type: 'error';
  id: number | null;
  error: ProtocolErrorCode;
  message: string;
}

export interface SuccessResponse {
  type: 'success';
  id: number;
  result: Record<string, unknown>;
  /** The thread, and the newest event seq the server had produced for it when it took the command. */
  meta?: { thread_id: string; applied_through_seq: number };
}

/** The commands this server carries out; every other method is `unknown_command`. */
export const SERVED_COMMANDS = [
  'run.start',
  'input.respond',
  'state.get',
  'state.listCheckpoints',
  'state.fork',
] as const;
export type ServedCommand = (typeof SERVED_COMMANDS)[number];

/** The multitask strategies a `run.start` may name (the SDK's `multitaskStrategy`). */
export const MULTITASK_STRATEGIES = ['reject', 'rollback', 'interrupt', 'enqueue'] as const;

const command = z.object({
  id: z
    .number({ error: '"id" must be a number' })
    .int('"id" must be an integer')
    .min(0, '"id" must not be negative')
    .max(Number.MAX_SAFE_INTEGER, '"id" is too large'),
  method: z.string({ error: '"method" must be a string' }).min(1, '"method" must not be empty'),
  params: z.record(z.string(), z.unknown(), { error: '"params" must be an object' }).optional(),
});

const jsonObject = (what: string) => z.record(z.string(), z.unknown(), { error: `"${what}" must be an object` });

const runConfig = z.object(
  {
    configurable: jsonObject('config.configurable').optional(),
    recursion_limit: z
      .number({ error: '"config.recursion_limit" must be a number' })
      .int('"config.recursion_limit" must be an integer')
      .positive('"config.recursion_limit" must be positive')
      .max(Number.MAX_SAFE_INTEGER, '"config.recursion_limit" is too large')
      .optional(),
    tags: z.array(z.string(), { error: '"config.tags" must be a list of strings' }).optional(),
  },
  { error: '"config" must be an object' },
);
export type ProtocolRunConfig = z.infer<typeof runConfig>;

const namespace = z.array(z.string(), { error: '"namespace" must be a list of strings' });
const multitaskStrategy = z.enum(MULTITASK_STRATEGIES, {
  error: `"multitaskStrategy" must be one of ${MULTITASK_STRATEGIES.join(', ')}`,
});

// The params the SDK sends (its client adds multitaskStrategy, camelCase); anything else is refused by name.
const runStartParams = z.strictObject({
  assistant_id: z.string({ error: '"assistant_id" must be a string' }).min(1, '"assistant_id" must not be empty'),
  input: z.unknown().optional(),
  config: runConfig.optional(),
  metadata: jsonObject('metadata').optional(),
  multitaskStrategy: multitaskStrategy.optional(),
  multitask_strategy: multitaskStrategy.optional(),
  langsmith_tracer: jsonObject('langsmith_tracer').optional(),
});
export type RunStartParams = z.infer<typeof runStartParams>;

const resumeExtras = {
  update: jsonObject('update').optional(),
  goto: z.unknown().optional(),
  config: runConfig.optional(),
  metadata: jsonObject('metadata').optional(),
};
const interruptId = z.string({ error: '"interrupt_id" must be a string' }).min(1, '"interrupt_id" must not be empty');
const inputRespondParams = z.union(
  [
    z.strictObject({
      responses: z
        .array(z.object({ namespace: namespace.optional(), interrupt_id: interruptId, response: z.unknown() }), {
          error: '"responses" must be a list of {interrupt_id, response}',
        })
        .min(1, '"responses" must not be empty'),
      ...resumeExtras,
    }),
    z.strictObject({
      namespace: namespace.optional(),
      interrupt_id: interruptId,
      response: z.unknown(),
      ...resumeExtras,
    }),
  ],
  { error: 'input.respond takes {interrupt_id, response} or {responses: [{interrupt_id, response}, …]}' },
);
export type InputRespondParams = z.infer<typeof inputRespondParams>;

const stateGetParams = z.strictObject({
  namespace: namespace.optional(),
  keys: z.array(z.string(), { error: '"keys" must be a list of strings' }).optional(),
});
export type StateGetParams = z.infer<typeof stateGetParams>;

const listCheckpointsParams = z.strictObject({
  namespace: namespace.optional(),
  limit: z
    .number({ error: '"limit" must be a number' })
    .int('"limit" must be an integer')
    .min(1, '"limit" must be at least 1')
    .max(1000, '"limit" must be at most 1000')
    .optional(),
  before: z.string({ error: '"before" must be a checkpoint id' }).min(1, '"before" must not be empty').optional(),
});
export type ListCheckpointsParams = z.infer<typeof listCheckpointsParams>;

const stateForkParams = z.strictObject({
  checkpoint_id: z.string({ error: '"checkpoint_id" must be a string' }).min(1, '"checkpoint_id" must not be empty'),
  input: z.unknown().optional(),
  config: runConfig.optional(),
  metadata: jsonObject('metadata').optional(),
});
export type StateForkParams = z.infer<typeof stateForkParams>;

const PARAMS = {
  'run.start': runStartParams,
  'input.respond': inputRespondParams,
  'state.get': stateGetParams,
  'state.listCheckpoints': listCheckpointsParams,
  'state.fork': stateForkParams,
} as const;

export type ServedParams = { [M in ServedCommand]: z.infer<(typeof PARAMS)[M]> };

/** A command this server carries out, its params read. */
export type ParsedCommand = { [M in ServedCommand]: { id: number; method: M; params: ServedParams[M] } }[ServedCommand];

const problem = (error: z.ZodError) =>
  error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ` : '') + i.message).join('; ');

export const errorResponse = (id: number | null, error: ProtocolErrorCode, message: string): ErrorResponse => ({
  type: 'error',
  id,
  error,
  message,
});

const isServed = (method: string): method is ServedCommand => (SERVED_COMMANDS as readonly string[]).includes(method);

/** The command in `body`, its params read; or the error that answers a body that is not one. */
export function parseCommand(body: unknown): ParsedCommand | ErrorResponse {
  // The answer names the command's id only when it is one (an integer): a fraction is no id to echo.
  const raw = (body as { id?: unknown } | null)?.id;
  const id = Number.isSafeInteger(raw) && (raw as number) >= 0 ? (raw as number) : null;
  const parsed = command.safeParse(body);
  if (!parsed.success) return errorResponse(id, 'invalid_argument', `not a protocol command: ${problem(parsed.error)}`);
  const { method } = parsed.data;
  if (!isServed(method))
    return errorResponse(
      parsed.data.id,
      'unknown_command',
      `this server does not serve "${method}"; it serves ${SERVED_COMMANDS.map((m) => `"${m}"`).join(', ')} (subscriptions are the event stream's: POST …/stream/events)`,
    );
  const params = PARAMS[method].safeParse(parsed.data.params ?? {});
  if (!params.success) return errorResponse(parsed.data.id, 'invalid_argument', `${method}: ${problem(params.error)}`);
  return { id: parsed.data.id, method, params: params.data } as ParsedCommand;
}

/** The HTTP status that answers a protocol error. */
export function errorStatus(response: ErrorResponse): number {
  switch (response.error) {
    case 'no_such_run':
    case 'no_such_interrupt':
    case 'no_such_checkpoint':
      return 404;
    case 'unknown_error':
      return 500;
    default:
      return 400;
  }
}

// ---- For the OpenAPI document: the commands' bodies and answers ----

const anyObject = { type: 'object', additionalProperties: true } as const;
const namespaceSchema = { type: 'array', items: { type: 'string' } } as const;
const configSchema = {
  type: 'object',
  properties: {
    configurable: anyObject,
    recursion_limit: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    tags: { type: 'array', items: { type: 'string' } },
  },
} as const;

const commandId = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
/** A command of `method` with `params` (required when `paramsRequired`). */
const commandOf = (method: ServedCommand, params: Record<string, unknown>, paramsRequired: boolean) => ({
  title: method,
  type: 'object',
  required: paramsRequired ? ['id', 'method', 'params'] : ['id', 'method'],
  properties: { id: commandId, method: { type: 'string', enum: [method] }, params: { type: 'object', ...params } },
});
const resumeExtrasSchema = { update: anyObject, goto: {}, config: configSchema, metadata: anyObject };

/** A command's body, one form per served method (read by parseCommand, so a body that is not one gets the protocol's answer). */
export const commandBodySchema = {
  anyOf: [
    commandOf(
      'run.start',
      {
        required: ['assistant_id'],
        additionalProperties: false,
        properties: {
          assistant_id: {
            type: 'string',
            minLength: 1,
            description: 'an assistant of the server (its id or graph id)',
          },
          input: {
            type: ['object', 'null'],
            additionalProperties: true,
            description: 'the graph’s input; on a thread waiting for input, the resume value (any JSON)',
          },
          config: configSchema,
          metadata: anyObject,
          multitaskStrategy: { type: 'string', enum: [...MULTITASK_STRATEGIES] },
          multitask_strategy: { type: 'string', enum: [...MULTITASK_STRATEGIES] },
          langsmith_tracer: anyObject,
        },
      },
      true,
    ),
    commandOf(
      'input.respond',
      {
        anyOf: [
          {
            required: ['interrupt_id', 'response'],
            additionalProperties: false,
            properties: {
              namespace: namespaceSchema,
              interrupt_id: { type: 'string', minLength: 1 },
              response: {},
              ...resumeExtrasSchema,
            },
          },
          {
            required: ['responses'],
            additionalProperties: false,
            properties: {
              responses: {
                type: 'array',
                minItems: 1,
                items: {
                  type: 'object',
                  required: ['interrupt_id', 'response'],
                  properties: {
                    namespace: namespaceSchema,
                    interrupt_id: { type: 'string', minLength: 1 },
                    response: {},
                  },
                },
              },
              ...resumeExtrasSchema,
            },
          },
        ],
      },
      true,
    ),
    commandOf(
      'state.get',
      {
        additionalProperties: false,
        properties: { namespace: namespaceSchema, keys: { type: 'array', items: { type: 'string' } } },
      },
      false,
    ),
    commandOf(
      'state.listCheckpoints',
      {
        additionalProperties: false,
        properties: {
          namespace: namespaceSchema,
          limit: { type: 'integer', minimum: 1, maximum: 1000 },
          before: { type: 'string', minLength: 1 },
        },
      },
      false,
    ),
    commandOf(
      'state.fork',
      {
        required: ['checkpoint_id'],
        additionalProperties: false,
        properties: {
          checkpoint_id: { type: 'string', minLength: 1 },
          input: {},
          config: configSchema,
          metadata: anyObject,
        },
      },
      true,
    ),
  ],
};

export const successResponseSchema = {
  type: 'object',
  required: ['type', 'id', 'result'],
  properties: {
    type: { const: 'success' },
    id: { type: 'integer' },
    result: {
      type: 'object',
      additionalProperties: true,
      description:
        'run.start and state.fork: {run_id}; input.respond: {run_id}; state.get: {values, checkpoint?}; state.listCheckpoints: {checkpoints}',
    },
    meta: {
      type: 'object',
      properties: { thread_id: { type: 'string' }, applied_through_seq: { type: 'integer' } },
    },
  },
} as const;

export const errorResponseSchema = {
  type: 'object',
  required: ['type', 'error', 'message'],
  properties: {
    type: { const: 'error' },
    id: { type: ['integer', 'null'] },
    error: { type: 'string' },
    message: { type: 'string' },
  },
} as const;
