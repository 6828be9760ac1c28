// v2 thread routes, as the official client's `client.threads` resource calls them:
//   POST /api/v2/threads/query          a project's threads over a time window, most recent activity first,
//                                       as JSON or streamed (`client.threads.streaming`, read/queryStream.ts)
//   GET  /api/v2/threads/{id}/traces    the traces (turns) of a thread, oldest first
//   GET  /api/v2/threads/{id}/stats     totals, latency percentiles and errors of a thread
//   POST /api/v2/threads/stats          aggregate stats over a project's threads in a time window
// A thread is the traces of one project sharing a thread_id (see docs/read-models.md); all of
// this is read from the `traces` table, plus root runs when payload fields are selected.
import { errorResponses, jsonOrEventStream, timeSchema, uuidSchema } from '../../../platform/http/openapi.ts';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../../platform/errors.ts';
import {
  threadPageQuery,
  threadTracesQuery,
  type ThreadPageKey,
  type ThreadSummary,
} from '../../../projections/threads/threadQueries.ts';
import { rootRunsQuery } from '../../../projections/runs/traceRunsQueries.ts';
import type { TraceSummary } from '../../../projections/shared/tracePages.ts';
import type { RunRow } from '../../../projections/shared/runRow.ts';
import {
  threadSetStatsQuery,
  traceSetStatsQuery,
  type ThreadSetStats,
} from '../../../projections/traces/statsQueries.ts';
import { formatIsoMicros } from '../../../platform/time.ts';
import { requireProject, type RouteDeps } from './routeDeps.ts';
import { tenantOf } from '../../tenancy/index.ts';
import { list, pageSize, rejectUnsupported, timeWindow, uuid } from '../../../platform/http/routeInput.ts';
import { decodeCursor, encodeCursor, timeIdKey } from '../query/cursor.ts';
import { DAY_MICROS, MAX_PAGE_SIZE, pageSizeSchema, v2RunShape } from './traces.ts';
import type { V2RunSelect } from '../read/runResponse.ts';
import { answerPagedQuery, queryAnswerForm, type PageReader } from '../read/queryStream.ts';

const iso = (micros: number | null): string | null => (micros === null ? null : formatIsoMicros(micros));
const itemSchema = { type: 'object', additionalProperties: true } as const;
const pageSchema = {
  type: 'object',
  properties: { items: { type: 'array', items: itemSchema }, next_cursor: { type: ['string', 'null'] } },
} as const;
const threadIdParams = { type: 'object', properties: { thread_id: { type: 'string', minLength: 1 } } } as const;

/** langsmith resources/threads: Thread. Fields beyond the official ones: last_activity, run and error counts, token and cost parts. */
function threadItem(t: ThreadSummary): Record<string, unknown> {
  return {
    thread_id: t.thread_id,
    count: t.trace_count,
    first_trace_id: t.first_trace_id,
    last_trace_id: t.latest_root_run_id,
    trace_id: t.latest_root_run_id,
    min_start_time: iso(t.first_activity),
    max_start_time: iso(t.last_trace_start_time),
    start_time: iso(t.last_activity),
    latency_p50: t.latency_p50,
    latency_p99: t.latency_p99,
    num_errored_turns: t.errored_traces,
    total_tokens: t.total_tokens,
    total_cost: t.total_cost,
    last_activity: iso(t.last_activity),
    run_count: t.run_count,
    error_count: t.error_count,
    prompt_tokens: t.prompt_tokens,
    completion_tokens: t.completion_tokens,
    prompt_cost: t.prompt_cost,
    completion_cost: t.completion_cost,
  };
}

// langsmith resources/threads: ThreadListTracesParams.selects
const THREAD_TRACE_SELECTS = [
  'THREAD_ID',
  'TRACE_ID',
  'OP',
  'PROMPT_TOKENS',
  'COMPLETION_TOKENS',
  'TOTAL_TOKENS',
  'START_TIME',
  'END_TIME',
  'LATENCY',
  'FIRST_TOKEN_TIME',
  'INPUTS_PREVIEW',
  'OUTPUTS_PREVIEW',
  'INPUTS',
  'OUTPUTS',
  'ERROR',
  'PROMPT_COST',
  'COMPLETION_COST',
  'TOTAL_COST',
  'PROMPT_TOKEN_DETAILS',
  'COMPLETION_TOKEN_DETAILS',
  'PROMPT_COST_DETAILS',
  'COMPLETION_COST_DETAILS',
  'NAME',
  'ERROR_PREVIEW',
  'TURN_NUMBER',
] as const;
type ThreadTraceSelect = (typeof THREAD_TRACE_SELECTS)[number];

/** Fields read from the trace row; the root-run fields (payloads, error) come from the root run. */
const TRACE_ROW_FIELDS: Partial<Record<ThreadTraceSelect, (t: TraceSummary, turn: number) => unknown>> = {
  THREAD_ID: (t) => t.thread_id,
  TRACE_ID: (t) => t.trace_id,
  NAME: (t) => t.name,
  START_TIME: (t) => iso(t.start_time),
  END_TIME: (t) => iso(t.end_time),
  LATENCY: (t) => (t.end_time === null ? null : (t.end_time - t.start_time) / 1e6),
  FIRST_TOKEN_TIME: (t) => iso(t.first_token_time),
  PROMPT_TOKENS: (t) => t.prompt_tokens,
  COMPLETION_TOKENS: (t) => t.completion_tokens,
  TOTAL_TOKENS: (t) => t.total_tokens,
  PROMPT_COST: (t) => t.prompt_cost,
  COMPLETION_COST: (t) => t.completion_cost,
  TOTAL_COST: (t) => t.total_cost,
  TURN_NUMBER: (_t, turn) => turn,
};
const ROOT_RUN_FIELDS = new Set<ThreadTraceSelect>([
  'INPUTS',
  'OUTPUTS',
  'INPUTS_PREVIEW',
  'OUTPUTS_PREVIEW',
  'ERROR',
  'ERROR_PREVIEW',
]);
const DEFAULT_THREAD_TRACE_SELECTS = Object.keys(TRACE_ROW_FIELDS) as ThreadTraceSelect[];

// langsmith resources/threads: ThreadStatsParams.selects -> ThreadStats fields
const THREAD_STATS_SELECTS = [
  'TURNS',
  'FIRST_START_TIME',
  'LAST_START_TIME',
  'LAST_END_TIME',
  'LATENCY_P50',
  'LATENCY_P99',
  'PROMPT_TOKENS',
  'PROMPT_COST',
  'COMPLETION_TOKENS',
  'COMPLETION_COST',
  'TOTAL_TOKENS',
  'TOTAL_COST',
  'PROMPT_TOKEN_DETAILS',
  'COMPLETION_TOKEN_DETAILS',
  'PROMPT_COST_DETAILS',
  'COMPLETION_COST_DETAILS',
  'FEEDBACK_STATS',
] as const;
type ThreadStatsSelect = (typeof THREAD_STATS_SELECTS)[number];

// langsmith resources/threads: ThreadAggregateStatsParams.select -> ThreadAggregateStatsResponse fields
const THREAD_AGGREGATE_SELECTS = [
  'THREAD_COUNT',
  'TRACE_COUNT',
  'TOTAL_TOKENS',
  'TOTAL_COST',
  'ERROR_RATE',
  'STREAMING_RATE',
  'LATENCY_P50',
  'LATENCY_P99',
  'MEDIAN_TOKENS',
  'FIRST_TOKEN_P50',
  'FIRST_TOKEN_P99',
  'PROMPT_TOKENS',
  'COMPLETION_TOKENS',
  'PROMPT_COST',
  'COMPLETION_COST',
  'PROMPT_TOKEN_DETAILS',
  'COMPLETION_TOKEN_DETAILS',
  'PROMPT_COST_DETAILS',
  'COMPLETION_COST_DETAILS',
  'THREAD_FEEDBACK_STATS',
] as const;
type ThreadAggregateSelect = (typeof THREAD_AGGREGATE_SELECTS)[number];

const rate = (part: number, whole: number): number => (whole === 0 ? 0 : part / whole);

/** Each select this service computes, as its response field; token and cost details and feedback stats are not stored. */
const THREAD_AGGREGATES: Partial<Record<ThreadAggregateSelect, [string, (s: ThreadSetStats) => unknown]>> = {
  THREAD_COUNT: ['thread_count', (s) => s.thread_count],
  TRACE_COUNT: ['trace_count', (s) => s.trace_count],
  TOTAL_TOKENS: ['total_tokens', (s) => s.total_tokens],
  TOTAL_COST: ['total_cost', (s) => s.total_cost],
  ERROR_RATE: ['error_rate', (s) => rate(s.traces_with_errors, s.trace_count)],
  STREAMING_RATE: ['streaming_rate', (s) => rate(s.finished_streaming_trace_count, s.finished_trace_count)],
  LATENCY_P50: ['latency_p50_seconds', (s) => s.latency_p50],
  LATENCY_P99: ['latency_p99_seconds', (s) => s.latency_p99],
  MEDIAN_TOKENS: ['median_tokens', (s) => s.tokens_p50],
  FIRST_TOKEN_P50: ['first_token_p50_seconds', (s) => s.first_token_p50],
  FIRST_TOKEN_P99: ['first_token_p99_seconds', (s) => s.first_token_p99],
  PROMPT_TOKENS: ['prompt_tokens', (s) => s.prompt_tokens],
  COMPLETION_TOKENS: ['completion_tokens', (s) => s.completion_tokens],
  PROMPT_COST: ['prompt_cost', (s) => s.prompt_cost],
  COMPLETION_COST: ['completion_cost', (s) => s.completion_cost],
};

export function v2ThreadRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.post<{
    Body: {
      project_id: string;
      select: ThreadAggregateSelect[];
      min_start_time?: string;
      max_start_time?: string;
      [k: string]: unknown;
    };
  }>(
    '/threads/stats',
    {
      schema: {
        tags: ['threads'],
        summary:
          "Aggregate stats over a project's threads: counts, rates, latency and token percentiles, tokens and costs",
        description:
          'Over the traces that belong to a thread and whose root started in [min_start_time, max_start_time) (default: the ' +
          'last 24 hours). `error_rate` is the share of those traces with an errored run; `streaming_rate` the share of the ' +
          'finished ones that streamed. Token and cost details and thread feedback stats are not stored (left out); ' +
          '`filter`, `thread_filter`, `trace_filter` and `tree_filter` are not supported (400).',
        body: {
          type: 'object',
          required: ['project_id', 'select'],
          properties: {
            project_id: { ...uuidSchema, description: 'project (session) UUID' },
            select: { type: 'array', minItems: 1, items: { type: 'string', enum: THREAD_AGGREGATE_SELECTS } },
            min_start_time: timeSchema('query', 'inclusive lower bound', { nullable: false, text: true }),
            max_start_time: timeSchema('query', 'exclusive upper bound; default now', { nullable: false, text: true }),
          },
        },
        response: { 200: itemSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const body = request.body;
      rejectUnsupported(body, ['filter', 'thread_filter', 'trace_filter', 'tree_filter']);
      const tenantId = tenantOf(request);
      const projectId = uuid(body.project_id, 'project_id', 80);
      requireProject(deps, tenantId, projectId);
      const window = timeWindow(body.min_start_time, body.max_start_time, DAY_MICROS);
      const stats = await threadSetStatsQuery(deps.ch, deps.tables, {
        tenantId,
        projectIds: [projectId],
        minStartTime: window.min,
        maxStartTime: window.max,
      });
      const out: Record<string, unknown> = {};
      for (const select of new Set(body.select)) {
        const aggregate = THREAD_AGGREGATES[select];
        if (aggregate) out[aggregate[0]] = aggregate[1](stats);
      }
      return out;
    },
  );

  app.post<{
    Body: {
      project_id?: string;
      min_start_time?: string;
      max_start_time?: string;
      cursor?: string;
      page_size?: number;
      [k: string]: unknown;
    };
  }>(
    '/threads/query',
    {
      schema: {
        tags: ['threads'],
        summary: "A project's threads, most recent activity first; keyset-paged",
        description:
          'Threads with traces whose root started in [min_start_time, max_start_time) (default: the last 24 hours), summarised ' +
          'over those traces. `filter`, `thread_filter`, `trace_filter`, `tree_filter` and `ai_search` are not supported (400). ' +
          'With `Accept: text/event-stream` the page is streamed as JSON Patch events (docs/read-api.md); 406 when Accept ' +
          'admits neither JSON nor that.',
        body: {
          type: 'object',
          required: ['project_id'],
          properties: {
            project_id: { ...uuidSchema, description: 'project (session) UUID' },
            min_start_time: timeSchema('query', 'inclusive lower bound', { nullable: false, text: true }),
            max_start_time: timeSchema('query', 'exclusive upper bound; default now', { nullable: false, text: true }),
            cursor: { type: 'string' },
            page_size: pageSizeSchema,
          },
        },
        response: {
          200: jsonOrEventStream(
            pageSchema,
            'a page of threads; with Accept: text/event-stream, the same page as JSON Patch operations',
          ),
          ...errorResponses(404, 406, 503),
        },
      },
    },
    async (request, reply) => {
      const form = queryAnswerForm(request);
      const body = request.body;
      rejectUnsupported(body, ['filter', 'thread_filter', 'trace_filter', 'tree_filter', 'ai_search']);
      const tenantId = tenantOf(request);
      const projectId = uuid(body.project_id, 'project_id', 80);
      requireProject(deps, tenantId, projectId);
      const window = timeWindow(body.min_start_time, body.max_start_time, DAY_MICROS);
      const read: PageReader = async (cursor, limit) => {
        const after = decodeCursor<ThreadPageKey>(cursor, (raw) =>
          Number.isSafeInteger(raw.t) && typeof raw.id === 'string'
            ? { lastActivity: raw.t as number, threadId: raw.id }
            : null,
        );
        const threads = await threadPageQuery(deps.ch, deps.tables, {
          tenantId,
          projectId,
          minStartTime: window.min,
          maxStartTime: window.max,
          after,
          limit: limit + 1,
        });
        const page = threads.slice(0, limit);
        const last = page[page.length - 1];
        return {
          items: page.map(threadItem),
          next: threads.length > limit && last ? encodeCursor({ t: last.last_activity, id: last.thread_id }) : null,
        };
      };
      return answerPagedQuery(request, reply, {
        form,
        cursor: body.cursor || undefined,
        pageSize: pageSize(body.page_size, MAX_PAGE_SIZE),
        maxPerRead: MAX_PAGE_SIZE,
        read,
      });
    },
  );

  app.get<{ Params: { thread_id: string }; Querystring: Record<string, unknown> }>(
    '/threads/:thread_id/traces',
    {
      schema: {
        tags: ['threads'],
        summary: 'The traces (turns) of a thread, oldest first; keyset-paged',
        description:
          'Without `selects`, each trace carries every field read from the trace row (no payloads); `status` and `run_count` ' +
          'always. `filter`, `trace_filter` and `tree_filter` are not supported (400).',
        params: threadIdParams,
        querystring: {
          type: 'object',
          required: ['project_id'],
          properties: {
            project_id: { ...uuidSchema, description: 'project (session) UUID' },
            selects: { type: 'array', items: { type: 'string', enum: THREAD_TRACE_SELECTS } },
            cursor: { type: 'string' },
            page_size: { ...pageSizeSchema, description: 'default 20' },
          },
        },
        response: { 200: pageSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const q = request.query;
      rejectUnsupported(q, ['filter', 'trace_filter', 'tree_filter']);
      const tenantId = tenantOf(request);
      const threadId = request.params.thread_id;
      const projectId = uuid(q.project_id, 'project_id', 80);
      requireProject(deps, tenantId, projectId);
      const limit = pageSize(q.page_size, MAX_PAGE_SIZE);
      const after = decodeCursor(q.cursor, (raw) => {
        const k = timeIdKey(raw);
        return k && Number.isSafeInteger(raw.n) ? { startTime: k.time, traceId: k.id, turn: raw.n as number } : null;
      });
      const traces = await threadTracesQuery(deps.ch, deps.tables, {
        tenantId,
        projectId,
        threadId,
        after,
        limit: limit + 1,
      });
      if (traces.length === 0 && !after) throw errors.notFound(`thread ${threadId}`);
      const page = traces.slice(0, limit);
      const selects =
        q.selects === undefined ? DEFAULT_THREAD_TRACE_SELECTS : [...new Set(list(q.selects) as ThreadTraceSelect[])];
      const rootSelects = selects.filter((f) => ROOT_RUN_FIELDS.has(f)) as V2RunSelect[];
      const root = v2RunShape(rootSelects, deps.blobs);
      const roots = rootSelects.length
        ? await rootRunsQuery(
            deps.ch,
            deps.tables,
            tenantId,
            page.map((t) => t.trace_id),
            root.columns,
          )
        : new Map<string, RunRow>();
      const rootItems = await root.shapeByKey(roots);
      const firstTurn = (after?.turn ?? 0) + 1;
      const items = page.map((t, i) => {
        const item: Record<string, unknown> = { trace_id: t.trace_id };
        for (const f of selects) {
          const value = TRACE_ROW_FIELDS[f];
          if (value) item[f.toLowerCase()] = value(t, firstTurn + i);
        }
        const rootItem = rootItems.get(t.trace_id);
        if (rootItem) Object.assign(item, rootItem);
        return { ...item, status: t.status, run_count: t.run_count };
      });
      const last = page[page.length - 1];
      const next =
        traces.length > limit && last
          ? encodeCursor({ t: last.start_time, id: last.trace_id, n: firstTurn + page.length - 1 })
          : null;
      return { items, next_cursor: next };
    },
  );

  app.get<{ Params: { thread_id: string }; Querystring: Record<string, unknown> }>(
    '/threads/:thread_id/stats',
    {
      schema: {
        tags: ['threads'],
        summary: "A thread's totals: turns, times, latency percentiles, tokens, cost, errors",
        description:
          'Without `selects`, every stat this server computes. `run_count`, `error_count` (runs that errored) and ' +
          '`num_errored_turns` are always returned. Token and cost details and feedback stats are not stored (left out); ' +
          '`filter` is not supported (400).',
        params: threadIdParams,
        querystring: {
          type: 'object',
          required: ['session_id'],
          properties: {
            session_id: { ...uuidSchema, description: 'project (session) UUID' },
            selects: { type: 'array', items: { type: 'string', enum: THREAD_STATS_SELECTS } },
          },
        },
        response: { 200: itemSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const q = request.query;
      rejectUnsupported(q, ['filter']);
      const tenantId = tenantOf(request);
      const threadId = request.params.thread_id;
      const projectId = uuid(q.session_id, 'session_id', 80);
      requireProject(deps, tenantId, projectId);
      const s = await traceSetStatsQuery(deps.ch, deps.tables, { tenantId, projectIds: [projectId], threadId });
      if (s.trace_count === 0) throw errors.notFound(`thread ${threadId}`);
      const stats: Partial<Record<ThreadStatsSelect, [string, unknown]>> = {
        TURNS: ['turns', s.trace_count],
        FIRST_START_TIME: ['first_start_time', iso(s.first_start_time)],
        LAST_START_TIME: ['last_start_time', iso(s.last_start_time)],
        LAST_END_TIME: ['last_end_time', iso(s.last_end_time)],
        LATENCY_P50: ['latency_p50_seconds', s.latency_p50],
        LATENCY_P99: ['latency_p99_seconds', s.latency_p99],
        PROMPT_TOKENS: ['prompt_tokens', s.prompt_tokens],
        COMPLETION_TOKENS: ['completion_tokens', s.completion_tokens],
        TOTAL_TOKENS: ['total_tokens', s.total_tokens],
        PROMPT_COST: ['prompt_cost', s.prompt_cost],
        COMPLETION_COST: ['completion_cost', s.completion_cost],
        TOTAL_COST: ['total_cost', s.total_cost],
      };
      const selects =
        q.selects === undefined
          ? (Object.keys(stats) as ThreadStatsSelect[])
          : (list(q.selects) as ThreadStatsSelect[]);
      const out: Record<string, unknown> = {};
      for (const f of selects) {
        const stat = stats[f];
        if (stat) out[stat[0]] = stat[1];
      }
      return { ...out, run_count: s.run_count, error_count: s.run_error_count, num_errored_turns: s.trace_error_count };
    },
  );
}
