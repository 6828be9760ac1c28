// Crons as the LangGraph API returns them, what a store keeps beside each (its workspace, and the
// user its runs act as), and the store's contract: memory (memoryCronStore.ts) or PostgreSQL
// (postgresCronStore.ts). Every read and write names the workspace it acts in; a cron of another
// workspace, or one the auth module's filter hides (matched on the cron's metadata), is as absent
// as an unknown one. The scheduler (cronScheduler.ts) claims due crons through `claimDue`, which
// advances each one's next_run_date as it claims it, so a tick is claimed once across replicas.
import type { AuthContext } from '../auth/customAuth.ts';
import type { RecordScope } from '../store/agentRecords.ts';
import { nextFireTime } from './cronSchedule.ts';

export type Json = Record<string, unknown>;
export type OnRunCompleted = 'delete' | 'keep';

export interface CronRecord {
  cron_id: string;
  /** The assistant its runs run (resolved from a graph name to the assistant's id). */
  assistant_id: string;
  /** The thread its runs run on; null: each run on a new thread. */
  thread_id: string | null;
  /** What happens to a run's new thread when the run ends (crons without a thread; default delete). */
  on_run_completed: OnRunCompleted | null;
  end_time: string | null;
  schedule: string;
  /** IANA time zone the schedule is read in; null: UTC. */
  timezone: string | null;
  created_at: string;
  updated_at: string;
  /** The run each tick starts, as it was sent (assistant_id, input, config, context, metadata, …). */
  payload: Json;
  user_id: string | null;
  /** When it next fires; null once past its end_time. */
  next_run_date: string | null;
  metadata: Json;
  enabled: boolean;
}

export type CronSortBy =
  | 'cron_id'
  | 'assistant_id'
  | 'thread_id'
  | 'next_run_date'
  | 'end_time'
  | 'created_at'
  | 'updated_at';

export const CRON_SORT_FIELDS: readonly CronSortBy[] = [
  'cron_id',
  'assistant_id',
  'thread_id',
  'next_run_date',
  'end_time',
  'created_at',
  'updated_at',
];

/** A cron with what the store keeps beside it. */
export interface StoredCron {
  workspaceId: string;
  /** Whom its runs act as: the caller that created it (what the graph sees as `langgraph_auth_user`). */
  auth: AuthContext;
  cron: CronRecord;
}

export interface CronFilter {
  assistantId?: string;
  threadId?: string;
  enabled?: boolean;
  /** Crons whose metadata contains this. */
  metadata?: Json;
}

export interface CronSearch extends CronFilter {
  limit: number;
  offset: number;
  sortBy: CronSortBy;
  sortOrder: 'asc' | 'desc';
}

/** The new version of a cron, made from the current one at `now`. */
export type CronChange = (cron: CronRecord, now: Date) => CronRecord;

export interface CronStore {
  create(stored: StoredCron): Promise<void>;
  get(scope: RecordScope, cronId: string): Promise<CronRecord | undefined>;
  /** Replaces the cron with `change(current)`, atomically; undefined when the scope does not see it. */
  update(scope: RecordScope, cronId: string, change: CronChange): Promise<CronRecord | undefined>;
  delete(scope: RecordScope, cronId: string): Promise<boolean>;
  search(scope: RecordScope, search: CronSearch): Promise<{ crons: CronRecord[]; total: number }>;
  count(scope: RecordScope, filter: CronFilter): Promise<number>;
  /**
   * Claims up to `limit` due crons (enabled, next_run_date reached) and, in the same
   * transaction, moves each one's next_run_date to its next tick after now (nextRunDate), so no
   * other replica claims the same tick. Returns the crons to start a run of now: those claimed,
   * less the ones past their end_time (which stop: next_run_date null).
   */
  claimDue(limit: number): Promise<StoredCron[]>;
  /** Milliseconds until the earliest next_run_date of an enabled cron (≤ 0: due); undefined when none. */
  msUntilNextDue(): Promise<number | undefined>;
}

/**
 * When a cron next fires after `now`: its schedule's next tick, or null when that is past its
 * end_time (the cron is kept, and fires no more).
 */
export function nextRunDate(cron: Pick<CronRecord, 'schedule' | 'timezone' | 'end_time'>, now: Date): string | null {
  const next = nextFireTime(cron.schedule, cron.timezone, now);
  if (cron.end_time !== null && next.getTime() > Date.parse(cron.end_time)) return null;
  return next.toISOString();
}

/**
 * What claiming a due cron at `now` does: start a run unless its end_time has passed, and move
 * next_run_date to its next tick after now (once: ticks missed while no server ran are not made
 * up), or to null when there is none before end_time.
 */
export function claimAt(cron: CronRecord, now: Date): { fires: boolean; next: string | null } {
  const fires = cron.end_time === null || now.getTime() <= Date.parse(cron.end_time);
  let next: string | null = null;
  try {
    if (fires) next = nextRunDate(cron, now);
  } catch {
    // a schedule checked when it was set always has a next tick; if not, the cron stops rather than the scheduler
  }
  return { fires, next };
}
