// The body of every run-creating route (`/threads/{id}/runs[/stream|/wait]`, `/runs[/stream|/wait]`,
// each item of `/runs/batch`), as the LangGraph SDKs send it: the JSON schema fastify checks it
// with (and the OpenAPI document shows), and its type. Unknown fields are kept (newer SDKs add
// some) and ignored.

// `events` is LangChain's raw streamEvents (v2), every callback event of the run's runnables.
export const STREAM_MODES = [
  'values',
  'updates',
  'messages',
  'messages-tuple',
  'custom',
  'debug',
  'tasks',
  'checkpoints',
  'events',
] as const;
/**
 * Not a mode a client may ask for: the mode of a run the agent streaming protocol started
 * (protocol/), which streams protocol events to the thread's subscriptions instead.
 */
export const PROTOCOL_STREAM_MODE = 'protocol';
export type StreamMode = (typeof STREAM_MODES)[number] | typeof PROTOCOL_STREAM_MODE;

type Json = Record<string, unknown>;
type InterruptNodes = '*' | string[];

export interface RunCreateBody {
  assistant_id: string;
  input?: unknown;
  command?: { resume?: unknown; update?: unknown; goto?: unknown } | null;
  config?: { tags?: string[]; recursion_limit?: number; configurable?: Json } | null;
  context?: Json | null;
  metadata?: Json | null;
  checkpoint_id?: string | null;
  checkpoint?: { checkpoint_id?: string; checkpoint_ns?: string } | null;
  stream_mode?: StreamMode | StreamMode[] | null;
  stream_subgraphs?: boolean | null;
  stream_resumable?: boolean | null;
  on_disconnect?: 'cancel' | 'continue' | null;
  multitask_strategy?: 'reject' | 'rollback' | 'interrupt' | 'enqueue' | null;
  if_not_exists?: 'reject' | 'create' | null;
  on_completion?: 'delete' | 'keep' | null;
  after_seconds?: number | null;
  interrupt_before?: InterruptNodes | null;
  interrupt_after?: InterruptNodes | null;
  webhook?: string | null;
  feedback_keys?: string[] | null;
  durability?: 'sync' | 'async' | 'exit' | null;
  checkpoint_during?: boolean | null;
}

/** The longest delay of a run: Node's longest timer (2^31 − 1 ms), which the run queues wait on. */
export const MAX_AFTER_SECONDS = 2_147_483;

const maybe = (type: string) => [type, 'null'];
const choice = (values: readonly string[], description: string) => ({
  type: maybe('string'),
  enum: [...values, null],
  description,
});
const json = (description: string) => ({ type: maybe('object'), additionalProperties: true, description });
const interruptNodes = (description: string) => ({
  type: ['string', 'array', 'null'],
  pattern: '^\\*$',
  items: { type: 'string' },
  description: `${description}: "*" for all, or node names`,
});

export const runCreateBodySchema = {
  type: 'object',
  required: ['assistant_id'],
  additionalProperties: true,
  properties: {
    assistant_id: { type: 'string', minLength: 1, description: 'the assistant: its UUID, or its graph name' },
    input: { description: 'the graph’s input' },
    command: {
      type: maybe('object'),
      additionalProperties: true,
      properties: { resume: {}, update: {}, goto: {} },
      description: 'a Command instead of input: resume an interrupt, update, goto',
    },
    config: {
      type: maybe('object'),
      additionalProperties: true,
      properties: {
        tags: { type: 'array', items: { type: 'string' } },
        recursion_limit: { type: 'integer', minimum: 1 },
        configurable: { type: 'object', additionalProperties: true },
      },
    },
    context: json('the run’s context'),
    metadata: json('run metadata (also the trace’s; thread_id there names the tracing thread)'),
    checkpoint_id: { type: maybe('string'), description: 'run from this checkpoint' },
    checkpoint: {
      type: maybe('object'),
      additionalProperties: true,
      properties: { checkpoint_id: { type: 'string' }, checkpoint_ns: { type: 'string' } },
    },
    stream_mode: {
      anyOf: [
        { type: 'string', enum: STREAM_MODES },
        { type: 'array', items: { type: 'string', enum: STREAM_MODES } },
        { type: 'null' },
      ],
      description: `one or several of ${STREAM_MODES.join(', ')} (default values)`,
    },
    stream_subgraphs: { type: maybe('boolean') },
    stream_resumable: { type: maybe('boolean') },
    on_disconnect: choice(
      ['cancel', 'continue'],
      'cancel: the run is cancelled when the streaming or waiting client goes away',
    ),
    multitask_strategy: choice(
      ['reject', 'rollback', 'interrupt', 'enqueue'],
      'when the thread is running a run (default reject: 422)',
    ),
    if_not_exists: choice(['reject', 'create'], 'when the thread does not exist (default reject: 404)'),
    on_completion: choice(['delete', 'keep'], 'stateless runs: keep or delete the temporary thread (default delete)'),
    after_seconds: {
      type: maybe('number'),
      minimum: 0,
      maximum: MAX_AFTER_SECONDS,
      description: 'start the run this much later (at most 2,147,483 s, about 24 days: a cron for later)',
    },
    interrupt_before: interruptNodes('interrupt before these nodes'),
    interrupt_after: interruptNodes('interrupt after these nodes'),
    webhook: {
      type: maybe('string'),
      maxLength: 2048,
      description:
        'an absolute http(s) URL the run is POSTed to when it ends, on a host the outbound host policy allows (else a 422 naming webhook)',
    },
    feedback_keys: { type: maybe('array'), items: { type: 'string' } },
    durability: choice(['sync', 'async', 'exit'], 'when checkpoints are written (default sync)'),
    checkpoint_during: { type: maybe('boolean'), description: 'false: durability exit' },
  },
} as const;

export function streamModesOf(body: RunCreateBody): StreamMode[] {
  const modes = body.stream_mode ?? ['values'];
  return Array.isArray(modes) ? [...new Set(modes)] : [modes];
}

/**
 * When checkpoints are written. Unless the request says otherwise, "sync": each step's
 * checkpoint is stored before the next step starts, so a server killed mid-run loses no step
 * that finished (the input message included).
 */
export function durabilityOf(body: RunCreateBody): 'sync' | 'async' | 'exit' {
  if (body.durability) return body.durability;
  if (body.checkpoint_during === false) return 'exit';
  return 'sync';
}
