// Protocol commands as the app takes them: `{id, method, params}`, answered with
// `{type:"success", id, result}` or `{type:"error", id, error, message}`. Only `run.start` is
// served (as the reference app does); every other method is `unknown_command`.
import { z } from 'zod';

export type ErrorCode = 'invalid_argument' | 'unknown_command' | 'unknown_error' | 'no_such_run' | 'not_supported';

export interface ErrorResponse {
  type: 'error';
  id: number | null;
  error: ErrorCode;
  message: string;
}

export interface SuccessResponse {
  type: 'success';
  id: number;
  result: Record<string, unknown>;
}

const command = z.object({
  id: z.number({ error: '"id" must be a number' }).int('"id" must be an integer'),
  method: z.string({ error: '"method" must be a string' }).min(1, '"method" must not be empty'),
  params: z.record(z.string(), z.unknown(), { error: '"params" must be an object' }).optional(),
});

const runStartParams = z.strictObject({
  assistant_id: z.string({ error: '"assistant_id" must be a string' }).min(1, '"assistant_id" must not be empty'),
  input: z
    .union([z.record(z.string(), z.unknown()), z.null()], { error: '"input" must be an object (or null)' })
    .optional(),
  config: z
    .object({
      configurable: z.record(z.string(), z.unknown()).optional(),
      recursion_limit: z.number().int().positive().optional(),
      tags: z.array(z.string()).optional(),
    })
    .optional(),
  metadata: z.record(z.string(), z.unknown(), { error: '"metadata" must be an object' }).optional(),
});

export type RunStartParams = z.infer<typeof runStartParams>;

const problem = (error: z.ZodError) =>
  error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ` : '') + i.message).join('; ');

export const errorResponse = (id: number | null, error: ErrorCode, message: string): ErrorResponse => ({
  type: 'error',
  id,
  error,
  message,
});

/** A command, or the error that answers a body that is not one. */
export function parseCommand(
  body: unknown,
): { id: number; method: string; params: Record<string, unknown> } | ErrorResponse {
  // The answer names the command's id only when it is one (an integer): a fraction is no id to echo.
  const id = Number.isInteger((body as { id?: unknown })?.id) ? (body as { id: number }).id : null;
  const parsed = command.safeParse(body);
  if (!parsed.success) return errorResponse(id, 'invalid_argument', `not a protocol command: ${problem(parsed.error)}`);
  return { id: parsed.data.id, method: parsed.data.method, params: parsed.data.params ?? {} };
}

export function parseRunStart(
  id: number,
  params: Record<string, unknown>,
  assistants: readonly string[],
): RunStartParams | ErrorResponse {
  const parsed = runStartParams.safeParse(params);
  if (!parsed.success) return errorResponse(id, 'invalid_argument', `run.start: ${problem(parsed.error)}`);
  if (!assistants.includes(parsed.data.assistant_id))
    return errorResponse(
      id,
      'invalid_argument',
      `run.start: unknown assistant "${parsed.data.assistant_id}"; this app serves ${assistants.map((a) => `"${a}"`).join(', ')}`,
    );
  return parsed.data;
}
