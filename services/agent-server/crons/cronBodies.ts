// The bodies of the cron routes, as both LangGraph SDKs send them (JS CronsClient, Python
// CronClient), and the cron record they answer: JSON schemas fastify checks requests with (a
// failure is a 422 naming the field) and the OpenAPI document shows. A cron's run fields are the
// run-creating routes' own (runs/runBody.ts), so a cron takes what a run takes. Unknown fields
// are kept and ignored (newer SDKs add some).
import { errors } from '../../../platform/errors.ts';
import { runCreateBodySchema, type RunCreateBody } from '../runs/runBody.ts';
import { CRON_SORT_FIELDS, type Json, type OnRunCompleted } from './cronRecords.ts';
import { RUN_FIELDS } from './cronRun.ts';

type RunFields = Pick<RunCreateBody, (typeof RUN_FIELDS)[number] | 'metadata'>;

export interface CronCreateBody extends RunFields {
  assistant_id: string;
  schedule: string;
  timezone?: string | null;
  end_time?: string | null;
  enabled?: boolean | null;
  on_run_completed?: OnRunCompleted | null;
}

export type CronPatchBody = Partial<Omit<CronCreateBody, 'assistant_id'>>;

export const CRON_SELECT_FIELDS = [
  'cron_id',
  'assistant_id',
  'thread_id',
  'on_run_completed',
  'end_time',
  'schedule',
  'timezone',
  'created_at',
  'updated_at',
  'payload',
  'user_id',
  'next_run_date',
  'metadata',
  'enabled',
  'now',
] as const;

export interface CronSearchBody {
  assistant_id?: string | null;
  thread_id?: string | null;
  enabled?: boolean | null;
  metadata?: Json | null;
  limit: number;
  offset: number;
  sort_by?: (typeof CRON_SORT_FIELDS)[number] | null;
  sort_order?: 'asc' | 'desc' | null;
  select?: (typeof CRON_SELECT_FIELDS)[number][] | null;
}

export type CronCountBody = Pick<CronSearchBody, 'assistant_id' | 'thread_id' | 'enabled' | 'metadata'>;

const run = runCreateBodySchema.properties;
const nullable = (type: string) => [type, 'null'];
const runFields = {
  ...Object.fromEntries(RUN_FIELDS.map((field) => [field, run[field]])),
  multitask_strategy: {
    ...run.multitask_strategy,
    description: 'a cron on a thread, when the thread is running a run at a tick (default enqueue: after it)',
  },
  metadata: { ...run.metadata, description: 'the cron’s metadata, which each of its runs carries (with cron_id)' },
};

const cronFields = {
  schedule: {
    type: 'string',
    minLength: 1,
    maxLength: 256,
    description:
      'five-field cron (minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5"), or @hourly, @daily, @weekly, @monthly, @yearly; read in UTC unless timezone says otherwise',
  },
  timezone: {
    type: nullable('string'),
    minLength: 1,
    maxLength: 64,
    description: 'IANA time zone the schedule is read in (default UTC)',
  },
  end_time: {
    type: nullable('string'),
    format: 'date-time',
    description: 'no run starts after this (the cron is kept; next_run_date becomes null)',
  },
  enabled: { type: nullable('boolean'), description: 'false: no runs until enabled again (default true)' },
  on_run_completed: {
    type: nullable('string'),
    enum: ['delete', 'keep', null],
    description: 'a cron without a thread: delete (default) or keep the new thread each run makes, once the run ends',
  },
};

export const cronCreateBodySchema = {
  type: 'object',
  required: ['assistant_id', 'schedule'],
  additionalProperties: true,
  properties: { assistant_id: run.assistant_id, ...cronFields, ...runFields },
} as const;

export const cronPatchBodySchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    ...cronFields,
    end_time: { ...cronFields.end_time, description: 'no run starts after this; null: none (the cron runs on)' },
    ...runFields,
    metadata: { ...run.metadata, description: 'merged into the cron’s metadata' },
  },
} as const;

const filterFields = {
  assistant_id: { type: nullable('string'), description: 'crons of this assistant (its id or its graph name)' },
  thread_id: { type: nullable('string'), format: 'uuid', description: 'crons of this thread' },
  enabled: { type: nullable('boolean') },
  metadata: { type: nullable('object'), additionalProperties: true, description: 'crons whose metadata contains this' },
};

export const cronSearchBodySchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    ...filterFields,
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 10 },
    offset: { type: 'integer', minimum: 0, maximum: 999_999_999, default: 0 },
    sort_by: { type: nullable('string'), enum: [...CRON_SORT_FIELDS, null], description: 'default created_at' },
    sort_order: { type: nullable('string'), enum: ['asc', 'desc', null], description: 'default desc' },
    select: {
      type: nullable('array'),
      items: { type: 'string', enum: CRON_SELECT_FIELDS },
      description: 'the fields to answer with (now: the server’s time)',
    },
  },
} as const;

export const cronCountBodySchema = { type: 'object', additionalProperties: true, properties: filterFields } as const;

const timestamp = (description: string) => ({ type: nullable('string'), format: 'date-time', description });

export const cronSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    cron_id: { type: 'string', format: 'uuid' },
    assistant_id: { type: 'string', description: 'the assistant its runs run' },
    thread_id: { type: nullable('string'), format: 'uuid', description: 'null: each run on a new thread' },
    on_run_completed: { type: nullable('string'), enum: ['delete', 'keep', null] },
    end_time: timestamp('no run starts after this'),
    schedule: { type: 'string' },
    timezone: { type: nullable('string'), description: 'null: UTC' },
    created_at: timestamp('when it was created'),
    updated_at: timestamp('when it last changed'),
    payload: { type: 'object', additionalProperties: true, description: 'the run each tick starts' },
    user_id: { type: nullable('string'), description: 'the auth module’s user who created it' },
    next_run_date: timestamp('when it next starts a run; null once past end_time'),
    metadata: { type: 'object', additionalProperties: true },
    enabled: { type: 'boolean' },
  },
} as const;

/**
 * Refuses a body holding a NUL character (U+0000) in a string or a key, naming where: PostgreSQL
 * keeps none in text or jsonb, and a cron is refused alike in memory mode.
 */
export function refuseNul(value: unknown, path = 'body'): void {
  if (typeof value === 'string') {
    if (value.includes('\0'))
      throw errors.validation(`${path} holds a NUL character (\\u0000), which cannot be stored`);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => refuseNul(item, `${path}/${i}`));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      refuseNul(key, `${path} (a key)`);
      refuseNul(item, `${path}/${key}`);
    }
  }
}
