// How a cron's tick becomes a run: the one place the crons reach into the run manager (its
// assistant resolution when a cron is created, its create() at each tick). A tick's run is the
// cron's stored payload, in the cron's workspace, acting as the user who created the cron; it
// carries the cron's metadata and its id (`metadata.cron_id`, which the run's new thread takes
// too). A cron on a thread queues behind a run already there (multitask_strategy enqueue unless
// it says otherwise); a cron without one runs on a new thread, deleted when the run ends unless
// on_run_completed is "keep".
import { Caller } from '../auth/callers.ts';
import type { ActiveRun } from '../runs/activeRun.ts';
import type { RunCreateBody } from '../runs/runBody.ts';
import type { RunManager } from '../runs/runManager.ts';
import type { CronRecord, StoredCron } from './cronRecords.ts';

/** The fields of a cron's body that are its runs' (kept in its payload as sent). */
export const RUN_FIELDS = [
  'input',
  'config',
  'context',
  'interrupt_before',
  'interrupt_after',
  'webhook',
  'multitask_strategy',
  'stream_mode',
  'stream_subgraphs',
  'stream_resumable',
  'durability',
  'checkpoint_during',
] as const satisfies readonly (keyof RunCreateBody)[];

/** The id of the assistant a cron names (its id or its graph's name), in the caller's workspace; 404 when there is none. */
export async function cronAssistantId(runs: RunManager, assistantId: string, workspaceId: string): Promise<string> {
  return (await runs.assistantFor(workspaceId, assistantId)).assistant_id;
}

/** The run body of a cron's tick. */
export function cronRunBody(cron: CronRecord): RunCreateBody {
  const body: RunCreateBody = { assistant_id: cron.assistant_id };
  for (const field of RUN_FIELDS) {
    const value = cron.payload[field];
    if (value !== undefined && value !== null) (body as unknown as Record<string, unknown>)[field] = value;
  }
  body.metadata = { ...cron.metadata, cron_id: cron.cron_id };
  if (cron.thread_id !== null) body.multitask_strategy ??= 'enqueue';
  else body.on_completion = cron.on_run_completed ?? 'delete';
  return body;
}

/** Starts (admits) the run of a cron's tick; it runs in the background. */
export function startCronRun(runs: RunManager, stored: StoredCron): Promise<ActiveRun> {
  const { cron } = stored;
  return runs.create(cron.thread_id ?? undefined, cronRunBody(cron), new Caller(stored.workspaceId, stored.auth));
}
