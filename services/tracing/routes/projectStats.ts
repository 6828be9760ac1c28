// Project analytics over a time range, from the `traces` table (one row per trace; `runs` is
// never scanned):
//   POST /runs/stats            the body of the clients' getRunStats / get_run_stats ({session:[ids], start_time, end_time, …})
//   GET  /sessions/{id}/stats   one project, ?start_time&end_time&bucket
//   POST /sessions/activity     trace and error counts per bucket for a list of projects (the
//                               projects page's activity charts, one request for the page)
// Both answer the same shape: LangSmith's run-stats fields (run_count, latency_p50, …,
// error_rate, feedback_stats) plus trace counts, counts by run type and status, and a
// time-bucketed series.
import { errorResponses, timeSchema, uuidSchema } from '../../../platform/http/openapi.ts';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../../platform/errors.ts';
import {
  activityPerProjectQuery,
  NO_TRACES,
  runBreakdownQuery,
  traceSetSeriesQuery,
  traceSetStatsQuery,
  type StatsBucket,
  type TraceSetStats,
} from '../../../projections/traces/statsQueries.ts';
import type { TraceSet } from '../../../projections/shared/traceSet.ts';
import { traceSetFeedbackStatsQuery } from '../../../projections/feedback/feedbackQueries.ts';
import { SharedRollups } from '../../../projections/traces/hourStatsQueries.ts';
import { formatIsoMicros, nowMicros } from '../../../platform/time.ts';
import { tenantOf } from '../../tenancy/index.ts';
import { rejectUnsupported, time, uuid } from '../../../platform/http/routeInput.ts';
import { requireProject, type RouteDeps } from './routeDeps.ts';

// ---- buckets ----

const MINUTE = 60_000_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** Bucket sizes a caller can name, smallest first; `auto` picks the smallest giving at most AUTO_BUCKETS buckets. */
const BUCKETS: Record<string, number> = {
  '1m': MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '30m': 30 * MINUTE,
  '1h': HOUR,
  '3h': 3 * HOUR,
  '6h': 6 * HOUR,
  '12h': 12 * HOUR,
  '1d': DAY,
  '7d': 7 * DAY,
};
const BUCKET_ALIASES: Record<string, string> = { minute: '1m', hour: '1h', day: '1d', week: '7d' };
export const BUCKET_NAMES = ['auto', ...Object.keys(BUCKETS), ...Object.keys(BUCKET_ALIASES)];
const AUTO_BUCKETS = 100;
const MAX_BUCKETS = 1000;

function bucketLabel(micros: number): string {
  if (micros % DAY === 0) return `${micros / DAY}d`;
  if (micros % HOUR === 0) return `${micros / HOUR}h`;
  return `${micros / MINUTE}m`;
}

/** The bucket size in microseconds for a span: named, a {days, hours, minutes} stride, or auto. */
function bucketFor(spanMicros: number, name: string | undefined, stride: Stride | undefined): number {
  let size: number;
  if (stride) {
    size = ((stride.days ?? 0) * 24 * 60 + (stride.hours ?? 0) * 60 + (stride.minutes ?? 0)) * MINUTE;
    if (size <= 0) throw errors.badRequest('stride must be at least one minute');
  } else if (name && name !== 'auto') {
    size = BUCKETS[BUCKET_ALIASES[name] ?? name]!;
  } else {
    const fits = Object.values(BUCKETS).find((b) => spanMicros / b <= AUTO_BUCKETS);
    return fits ?? Math.ceil(spanMicros / AUTO_BUCKETS / DAY) * DAY;
  }
  if (spanMicros / size > MAX_BUCKETS)
    throw errors.badRequest(
      `the time range holds more than ${MAX_BUCKETS} buckets of ${bucketLabel(size)}; pick a larger bucket or a shorter range`,
    );
  return size;
}

// ---- the response ----

interface Stride {
  days?: number;
  hours?: number;
  minutes?: number;
}

interface StatsRequest {
  tenantId: string;
  projectIds: string[];
  start?: number | undefined;
  end?: number | undefined;
  /** Only root runs count as runs (LangSmith's is_root: true): run counts become trace counts. */
  isRoot: boolean;
  hasError?: boolean | undefined;
  traceId?: string | undefined;
  bucket?: string | undefined;
  stride?: Stride | undefined;
}

const iso = (micros: number | null | undefined): string | null =>
  micros === null || micros === undefined ? null : formatIsoMicros(micros);
const rate = (part: number, whole: number): number | null => (whole === 0 ? null : part / whole);

/** Run counts: all runs of the traces, or only their roots when is_root. */
function runCounts(s: TraceSetStats, isRoot: boolean) {
  const runs = isRoot ? s.trace_count : s.run_count;
  const errored = isRoot ? s.trace_error_count : s.run_error_count;
  return { run_count: runs, error_count: errored, error_rate: rate(errored, runs) };
}

function bucketItem(b: StatsBucket, isRoot: boolean): Record<string, unknown> {
  return {
    start_time: iso(b.bucket_start),
    trace_count: b.trace_count,
    ...runCounts(b, isRoot),
    trace_error_count: b.trace_error_count,
    latency_p50: b.latency_p50,
    latency_p99: b.latency_p99,
    total_tokens: b.total_tokens,
    total_cost: b.total_cost,
  };
}

/** Every bucket from the one holding `from` to the one holding `to - 1` (or the last with traces), empty ones included. */
function filledSeries(
  buckets: StatsBucket[],
  from: number,
  to: number,
  size: number,
  isRoot: boolean,
): Record<string, unknown>[] {
  const byStart = new Map(buckets.map((b) => [b.bucket_start, b]));
  const end = Math.max(to, ...buckets.map((b) => b.bucket_start + 1)); // a trace stamped ahead of the clock still shows
  const out: Record<string, unknown>[] = [];
  for (let start = Math.floor(from / size) * size; start < end; start += size)
    out.push(bucketItem(byStart.get(start) ?? { bucket_start: start, ...NO_TRACES }, isRoot));
  return out;
}

async function projectStats(deps: RouteDeps, req: StatsRequest): Promise<Record<string, unknown>> {
  if (req.start !== undefined && req.end !== undefined && req.start >= req.end)
    throw errors.badRequest('start_time must be before end_time');
  const set: TraceSet = {
    tenantId: req.tenantId,
    projectIds: req.projectIds,
    minStartTime: req.start,
    maxStartTime: req.end,
    hasError: req.hasError,
    traceId: req.traceId,
  };
  const seriesTo = req.end ?? nowMicros();
  const sizeFrom = (from: number) => bucketFor(Math.max(seriesTo - from, 1), req.bucket, req.stride);
  // Totals, run counts and (with a start) the series from one read of the hour stats.
  const shared = new SharedRollups(deps.ch, deps.tables);
  if (req.start !== undefined) shared.readBuckets(set, sizeFrom(req.start));
  const seriesOf = (from: number) => {
    const size = sizeFrom(from);
    return traceSetSeriesQuery(deps.ch, deps.tables, set, size, shared).then((buckets) => ({ size, from, buckets }));
  };
  // With a start, the series is asked for at once; without, it starts at the first trace.
  const [totals, breakdown, feedback, early] = await Promise.all([
    traceSetStatsQuery(deps.ch, deps.tables, set, shared),
    runBreakdownQuery(deps.ch, deps.tables, set, req.isRoot ? 'roots' : 'all', shared),
    traceSetFeedbackStatsQuery(deps.ch, deps.tables, set, req.isRoot ? 'roots' : 'all'),
    req.start !== undefined ? seriesOf(req.start) : null,
  ]);
  const from = totals.first_start_time;
  const series = early ?? (from !== null ? await seriesOf(from) : null);
  const t = totals;
  return {
    start_time: iso(req.start),
    end_time: iso(req.end),
    trace_count: t.trace_count,
    ...runCounts(t, req.isRoot),
    trace_error_count: t.trace_error_count,
    trace_error_rate: rate(t.trace_error_count, t.trace_count),
    run_type_counts: breakdown.run_types,
    status_counts: breakdown.statuses,
    latency_p50: t.latency_p50,
    latency_p99: t.latency_p99,
    latency_avg: t.latency_avg,
    first_token_p50: t.first_token_p50,
    first_token_p99: t.first_token_p99,
    streaming_rate: rate(t.streaming_trace_count, t.trace_count),
    prompt_tokens: t.prompt_tokens,
    completion_tokens: t.completion_tokens,
    total_tokens: t.total_tokens,
    median_tokens: t.tokens_p50,
    tokens_p99: t.tokens_p99,
    prompt_cost: t.prompt_cost,
    completion_cost: t.completion_cost,
    total_cost: t.total_cost,
    cost_p50: t.cost_p50,
    cost_p99: t.cost_p99,
    last_run_start_time: iso(t.last_run_start_time),
    feedback_stats: Object.keys(feedback).length ? feedback : null,
    interval: series ? bucketLabel(series.size) : null,
    series: series ? filledSeries(series.buckets, series.from, seriesTo, series.size, req.isRoot) : [],
  };
}

// ---- the routes ----

// ---- activity of several projects ----

/** The window the activity of projects covers when the caller names none. */
const DEFAULT_ACTIVITY_SPAN = 7 * DAY;

interface ActivityBody {
  session: string[];
  start_time?: string | number | null;
  end_time?: string | number | null;
  bucket?: string | null;
}

/** Every project's trace and errored-trace counts over the same buckets, zeros included. */
async function projectsActivity(
  deps: RouteDeps,
  tenantId: string,
  projectIds: string[],
  body: ActivityBody,
): Promise<Record<string, unknown>> {
  const end = time(body.end_time, 'end_time') ?? nowMicros();
  const start = time(body.start_time, 'start_time') ?? end - DEFAULT_ACTIVITY_SPAN;
  if (start >= end) throw errors.badRequest('start_time must be before end_time');
  const size = bucketFor(end - start, body.bucket ?? undefined, undefined);
  const first = Math.floor(start / size) * size;
  const starts: number[] = [];
  for (let b = first; b < end; b += size) starts.push(b);
  const index = new Map(starts.map((b, i) => [b, i]));
  const counts = new Map(projectIds.map((id) => [id, { traces: starts.map(() => 0), errors: starts.map(() => 0) }]));
  const buckets = await activityPerProjectQuery(
    deps.ch,
    deps.tables,
    { tenantId, projectIds, minStartTime: start, maxStartTime: end },
    size,
  );
  for (const b of buckets) {
    const i = index.get(b.bucket_start);
    const c = counts.get(b.project_id);
    if (i === undefined || !c) continue;
    c.traces[i] = b.trace_count;
    c.errors[i] = b.trace_error_count;
  }
  return {
    start_time: iso(start),
    end_time: iso(end),
    interval: bucketLabel(size),
    bucket_starts: starts.map(iso),
    projects: projectIds.map((id) => ({
      session_id: id,
      trace_count: counts.get(id)!.traces,
      trace_error_count: counts.get(id)!.errors,
    })),
  };
}

const countsSchema = { type: 'array', items: { type: 'integer' } } as const;
const activityResponse = {
  200: {
    type: 'object',
    required: ['start_time', 'end_time', 'interval', 'bucket_starts', 'projects'],
    properties: {
      start_time: { type: 'string' },
      end_time: { type: 'string' },
      interval: { type: 'string', description: 'the bucket size, e.g. 6h' },
      bucket_starts: {
        type: 'array',
        items: { type: 'string' },
        description: 'start of each bucket (UTC), oldest first',
      },
      projects: {
        type: 'array',
        items: {
          type: 'object',
          required: ['session_id', 'trace_count', 'trace_error_count'],
          properties: { session_id: { type: 'string' }, trace_count: countsSchema, trace_error_count: countsSchema },
        },
      },
    },
  },
  ...errorResponses(404, 503),
} as const;

const statsResponse = { 200: { type: 'object', additionalProperties: true }, ...errorResponses(404, 503) } as const;
const bucketSchema = {
  type: 'string',
  enum: BUCKET_NAMES,
  description: 'bucket size of the series; auto (default) aims at 100 buckets',
} as const;

/** Fields of the clients' run-stats body that select runs in ways a per-trace table cannot answer. */
const UNSUPPORTED_RUN_FILTERS = [
  'id',
  'parent_run',
  'run_type',
  'reference_example',
  'query',
  'filter',
  'trace_filter',
  'tree_filter',
  'execution_order',
  'group_by',
  'groups',
  'search_filter',
  'reference_dataset_id',
];

interface RunStatsBody {
  session: string[];
  start_time?: string | number | null;
  end_time?: string | number | null;
  is_root?: boolean | null;
  error?: boolean | null;
  trace?: string | null;
  interval?: string | null;
  stride?: Stride | null;
  [other: string]: unknown;
}

export function projectStatsRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.post<{ Body: RunStatsBody }>(
    '/runs/stats',
    {
      schema: {
        tags: ['runs'],
        summary: 'Stats of the runs of one or more projects over a time range (per trace: latencies are of traces)',
        description:
          'Traces whose root started in [start_time, end_time) count, with all their runs (only the roots with is_root: true). ' +
          'Latency percentiles are of traces (root runs); error_rate is errored runs over runs; trace_error_rate errored ' +
          'roots over traces. `series` buckets the same figures by `interval` or `stride`. Filters that select single runs ' +
          `(${UNSUPPORTED_RUN_FILTERS.join(', ')}) are not supported (400).`,
        body: {
          type: 'object',
          required: ['session'],
          properties: {
            session: {
              type: 'array',
              items: uuidSchema,
              minItems: 1,
              maxItems: 100,
              description: 'project (session) UUIDs',
            },
            start_time: timeSchema('query', 'inclusive'),
            end_time: timeSchema('query', 'exclusive'),
            is_root: { type: ['boolean', 'null'], description: 'true: count root runs only; false is not supported' },
            error: {
              type: ['boolean', 'null'],
              description: 'only traces whose root errored (true) or did not (false)',
            },
            trace: { type: ['string', 'null'], format: 'uuid', description: 'only this trace' },
            interval: { anyOf: [bucketSchema, { type: 'null' }] },
            stride: {
              anyOf: [
                {
                  type: 'object',
                  additionalProperties: false,
                  properties: {
                    days: { type: 'integer', minimum: 0 },
                    hours: { type: 'integer', minimum: 0 },
                    minutes: { type: 'integer', minimum: 0 },
                  },
                },
                { type: 'null' },
              ],
            },
          },
        },
        response: statsResponse,
      },
    },
    async (request) => {
      const body = request.body;
      rejectUnsupported(body, UNSUPPORTED_RUN_FILTERS);
      if (body.is_root === false)
        throw errors.badRequest('is_root: false is not supported (stats are computed per trace)');
      const tenantId = tenantOf(request);
      const projectIds = [...new Set(body.session.map((s, i) => uuid(s, `session[${i}]`, 80)))];
      for (const p of projectIds) requireProject(deps, tenantId, p);
      return projectStats(deps, {
        tenantId,
        projectIds,
        start: time(body.start_time, 'start_time') ?? undefined,
        end: time(body.end_time, 'end_time') ?? undefined,
        isRoot: body.is_root === true,
        hasError: body.error ?? undefined,
        traceId: body.trace === undefined || body.trace === null ? undefined : uuid(body.trace, 'trace', 80),
        bucket: body.interval ?? undefined,
        stride: body.stride ?? undefined,
      });
    },
  );

  app.post<{ Body: ActivityBody }>(
    '/sessions/activity',
    {
      schema: {
        tags: ['sessions'],
        summary: 'Traces and errored traces per time bucket for each of several projects (activity charts)',
        description:
          'Traces whose root started in [start_time, end_time) (default: the 7 days before now), counted per project and ' +
          "bucket; every bucket is listed, empty ones as 0, and each project's counts line up with `bucket_starts`. " +
          "An unknown project (or another workspace's) is a 404.",
        body: {
          type: 'object',
          required: ['session'],
          additionalProperties: false,
          properties: {
            session: {
              type: 'array',
              items: uuidSchema,
              minItems: 1,
              maxItems: 100,
              description: 'project (session) UUIDs',
            },
            start_time: timeSchema('query', 'inclusive; default 7 days before end_time'),
            end_time: timeSchema('query', 'exclusive; default now'),
            bucket: { anyOf: [bucketSchema, { type: 'null' }] },
          },
        },
        response: activityResponse,
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const projectIds = [...new Set(request.body.session.map((s, i) => uuid(s, `session[${i}]`, 80)))];
      for (const p of projectIds) requireProject(deps, tenantId, p);
      return projectsActivity(deps, tenantId, projectIds, request.body);
    },
  );

  app.get<{ Params: { session_id: string }; Querystring: { start_time?: string; end_time?: string; bucket?: string } }>(
    '/sessions/:session_id/stats',
    {
      schema: {
        tags: ['sessions'],
        summary: "A project's stats over a time range, with a time-bucketed series",
        description:
          'The figures of POST /runs/stats for one project: traces whose root started in [start_time, end_time).',
        params: { type: 'object', properties: { session_id: uuidSchema } },
        querystring: {
          type: 'object',
          properties: {
            start_time: timeSchema('query', 'inclusive; default: the first trace', { nullable: false, text: true }),
            end_time: timeSchema('query', 'exclusive; default: now', { nullable: false, text: true }),
            bucket: bucketSchema,
          },
        },
        response: statsResponse,
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const projectId = uuid(request.params.session_id, 'session_id', 80);
      requireProject(deps, tenantId, projectId);
      const q = request.query;
      return projectStats(deps, {
        tenantId,
        projectIds: [projectId],
        start: time(q.start_time, 'start_time') ?? undefined,
        end: time(q.end_time, 'end_time') ?? undefined,
        isRoot: false,
        bucket: q.bucket,
      });
    },
  );
}
