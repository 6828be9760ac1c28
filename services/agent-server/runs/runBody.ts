// The body of every run-creating route (`/threads/{id}/runs[/stream|/wait]`, `/runs[/stream|/wait]`),
// as the LangGraph SDKs send it. Unknown fields are kept (newer SDKs add some) and ignored.
import { z } from 'zod';

// `events` (LangChain's raw streamEvents) is not served: a request for it is refused with the modes that are.
export const STREAM_MODES = ['values', 'updates', 'messages', 'messages-tuple', 'custom', 'debug', 'tasks', 'checkpoints'] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

const streamMode = z.enum(STREAM_MODES);
const json = z.record(z.string(), z.unknown());
const interruptNodes = z.union([z.literal('*'), z.array(z.string())]);

export const runCreateBody = z.looseObject({
  assistant_id: z.string().min(1, 'assistant_id is required'),
  input: z.unknown().optional(),
  command: z.looseObject({ resume: z.unknown().optional(), update: z.unknown().optional(), goto: z.unknown().optional() }).nullish(),
  config: z.looseObject({ tags: z.array(z.string()).optional(), recursion_limit: z.number().int().positive().optional(), configurable: json.optional() }).nullish(),
  context: json.nullish(),
  metadata: json.nullish(),
  checkpoint_id: z.string().nullish(),
  checkpoint: z.looseObject({ checkpoint_id: z.string().optional(), checkpoint_ns: z.string().optional() }).nullish(),
  stream_mode: z.union([streamMode, z.array(streamMode)]).nullish(),
  stream_subgraphs: z.boolean().nullish(),
  stream_resumable: z.boolean().nullish(),
  on_disconnect: z.enum(['cancel', 'continue']).nullish(),
  multitask_strategy: z.enum(['reject', 'rollback', 'interrupt', 'enqueue']).nullish(),
  if_not_exists: z.enum(['reject', 'create']).nullish(),
  on_completion: z.enum(['delete', 'keep']).nullish(),
  after_seconds: z.number().min(0).nullish(),
  interrupt_before: interruptNodes.nullish(),
  interrupt_after: interruptNodes.nullish(),
  webhook: z.string().nullish(),
  feedback_keys: z.array(z.string()).nullish(),
  durability: z.enum(['sync', 'async', 'exit']).nullish(),
  checkpoint_during: z.boolean().nullish(),
});

export type RunCreateBody = z.infer<typeof runCreateBody>;

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
