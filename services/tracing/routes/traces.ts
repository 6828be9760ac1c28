// v2 trace routes, as the official client's `client.traces` resource calls them:
//   POST /api/v2/traces/query        a project's traces, newest first, keyset-paged ({items, next_cursor}),
//                                    as JSON or streamed (`client.traces.streaming`, read/queryStream.ts)
//   GET  /api/v2/traces/{id}/runs    every run of a trace in tree order ({items})
// Also the pieces the other read routes of this folder share: the page size and time span of the
// v2 read routes, and the v2 run shape (selected fields of the run built by read/runResponse.ts).
// Their input checks are platform/http/routeInput.ts (the v2 routes show 80 characters of a bad
// UUID, the v1 routes 64), their cursors query/cursor.ts.
import { errorResponses, jsonOrEventStream, timeSchema, uuidSchema } from '../../../platform/http/openapi.ts';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../../platform/errors.ts';
import type { BlobStore } from '../../../platform/blobStore.ts';
import { emptyRow } from '../../../projections/runs/runRow.ts';
import type { RunRow } from '../../../projections/shared/runRow.ts';
import {
  rootRunsQuery,
  traceExistsQuery,
  traceRunsQuery,
  type RunColumn,
} from '../../../projections/runs/traceRunsQueries.ts';
import {
  tracePageQuery,
  TRACE_SORTS,
  type SortOrder,
  type TracePageKey,
  type TraceSort,
} from '../../../projections/traces/traceQueries.ts';
import type { TraceSummary } from '../../../projections/shared/tracePages.ts';
import { parseFilter } from '../../../projections/runs/filter/filterParser.ts';
import { compileTraceCondition } from '../../../projections/runs/filter/filterSql.ts';
import { runColumnsFor, runItemsV2, v2SourceField, V2_RUN_SELECTS, type V2RunSelect } from '../read/runResponse.ts';
import { toUuid } from '../../../platform/ids.ts';
import { formatIsoMicros } from '../../../platform/time.ts';
import { sendJsonBytes } from '../../../platform/http/jsonPayload.ts';
import { list, pageSize, rejectUnsupported, time, timeWindow, uuid } from '../../../platform/http/routeInput.ts';
import { requireProject, type RouteDeps } from './routeDeps.ts';
import { decodeCursor, encodeCursor, timeIdKey } from '../query/cursor.ts';
import { tenantOf } from '../../tenancy/index.ts';
import { answerPagedQuery, queryAnswerForm, type PageReader } from '../read/queryStream.ts';

export const DAY_MICROS = 86_400_000_000;

/** The largest page_size of the trace and thread routes, as the clients define it. */
export const MAX_PAGE_SIZE = 100;

export const pageSizeSchema = { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 } as const;

// ---- the v2 Run shape (langsmith resources/runs: Run; selects listed in read/runResponse.ts) ----

/**
 * Runs of a trace when a request names no `selects` (the official default is the id alone): what
 * drawing the tree needs. The trace and project are the request's; more fields by `selects`.
 */
export const DEFAULT_RUN_SELECTS: readonly V2RunSelect[] = [
  'ID',
  'NAME',
  'RUN_TYPE',
  'STATUS',
  'START_TIME',
  'END_TIME',
  'LATENCY_SECONDS',
  'FIRST_TOKEN_TIME',
  'ERROR',
  'PARENT_RUN_IDS',
  'TOTAL_TOKENS',
  'TOTAL_COST',
];

type RunJson = Record<string, unknown>;

/** How to read and shape runs for a set of selected fields (computed once per request). */
export interface V2RunShape {
  /** Columns of `runs` to read. */
  columns: RunColumn[];
  /** The rows as items, in their order (one promise for them all). */
  shape(rows: readonly RunRow[]): Promise<RunJson[]>;
  /** The same for rows by key (a page's root runs by trace): the items by the same keys. */
  shapeByKey<K>(rows: ReadonlyMap<K, RunRow>): Promise<Map<K, RunJson>>;
}

/**
 * Runs as v2 items with the selected fields, built by runResponse from the columns they need:
 * object storage is read only for selected payloads. Selects this service does not keep are left out.
 */
export function v2RunShape(selects: readonly V2RunSelect[], blobs: BlobStore): V2RunShape {
  const fields = [...new Set(selects.map(v2SourceField).filter((f): f is string => f !== null))];
  const columns = [...runColumnsFor(fields)].filter((c): c is RunColumn => c !== 'tenant_id');
  const shape = (rows: readonly RunRow[]) => runItemsV2(rows, selects, blobs);
  return {
    columns,
    shape,
    shapeByKey: async (rows) => {
      const items = await shape([...rows.values()]);
      return new Map([...rows.keys()].map((key, i) => [key, items[i]!]));
    },
  };
}

const selectsSchema = { type: 'array', items: { type: 'string', enum: V2_RUN_SELECTS } } as const;
/** `?selects=A&selects=B` (or one alone). */
const repeatedSelectsSchema = selectsSchema;
// Items are free-form objects (their fields depend on `selects`); `{}` lets each go through JSON.stringify whole.
const itemSchema = { description: 'an object with the selected fields' } as const;

// ---- the routes ----

/** Selected fields that come from the trace row (`trace_aggregates`), not from the root run. */
const AGGREGATE_SELECTS = new Set<V2RunSelect>(['TOTAL_TOKENS', 'TOTAL_COST', 'FIRST_TOKEN_TIME']);

/**
 * Root-run fields the trace row holds: the root's name, type, status, times, project, thread and
 * tags, and the trace's usage (which is the root's rolled-up usage). Asking only for these
 * reads no run rows; other fields (error, payloads, dotted_order…) read the page's root runs.
 */
const TRACE_ROW_ROOT_FIELDS: readonly V2RunSelect[] = [
  'ID',
  'NAME',
  'RUN_TYPE',
  'STATUS',
  'START_TIME',
  'END_TIME',
  'LATENCY_SECONDS',
  'PARENT_RUN_IDS',
  'PROJECT_ID',
  'TRACE_ID',
  'THREAD_ID',
  'IS_ROOT',
  'PROMPT_TOKENS',
  'COMPLETION_TOKENS',
  'TOTAL_TOKENS',
  'PROMPT_COST',
  'COMPLETION_COST',
  'TOTAL_COST',
  'TAGS',
];
/** root_run when a request names no `selects`: every field the trace row holds (the totals are under trace_aggregates). */
const DEFAULT_ROOT_SELECTS = TRACE_ROW_ROOT_FIELDS.filter((f) => !AGGREGATE_SELECTS.has(f));

/** The root run as far as the trace row knows it (only for traces whose root has been projected). */
function rootRowOf(tenantId: string, t: TraceSummary): RunRow {
  return {
    ...emptyRow(tenantId, t.trace_id, t.trace_id),
    session_id: t.session_id,
    name: t.name,
    run_type: t.run_type,
    status: t.status,
    start_time: t.start_time,
    end_time: t.end_time,
    thread_id: t.thread_id,
    tags: t.tags,
    prompt_tokens: t.prompt_tokens,
    completion_tokens: t.completion_tokens,
    total_tokens: t.total_tokens,
    prompt_cost: t.prompt_cost,
    completion_cost: t.completion_cost,
    total_cost: t.total_cost,
    is_root: 1,
    has_post: 1,
  };
}

/** The page's root runs in the v2 shape: from the trace rows when they hold every selected field, else read from `runs`. */
async function rootRuns(
  deps: RouteDeps,
  tenantId: string,
  page: TraceSummary[],
  selects: readonly V2RunSelect[],
): Promise<Map<string, RunJson>> {
  const shape = v2RunShape(selects.length ? selects : ['ID'], deps.blobs);
  const fromTraceRows = selects.every((f) => TRACE_ROW_ROOT_FIELDS.includes(f));
  const rows = fromTraceRows
    ? new Map(page.filter((t) => t.has_root).map((t) => [t.trace_id, rootRowOf(tenantId, t)]))
    : await rootRunsQuery(
        deps.ch,
        deps.tables,
        tenantId,
        page.map((t) => t.trace_id),
        shape.columns,
      );
  return shape.shapeByKey(rows);
}

function traceAggregates(t: TraceSummary, selects: readonly V2RunSelect[] | null): RunJson {
  const all = selects === null;
  const picked = new Set(selects ?? []);
  return {
    ...(all || picked.has('TOTAL_TOKENS') ? { total_tokens: t.total_tokens } : {}),
    ...(all || picked.has('TOTAL_COST') ? { total_cost: t.total_cost } : {}),
    ...(all || picked.has('FIRST_TOKEN_TIME')
      ? { first_token_time: t.first_token_time === null ? null : formatIsoMicros(t.first_token_time) }
      : {}),
    // Beyond the official three, always: how big the trace is and how many of its runs failed.
    run_count: t.run_count,
    error_count: t.error_count,
  };
}

interface TraceQueryBody {
  project_id?: string;
  project_ids?: string[];
  min_start_time?: string;
  max_start_time?: string;
  selects?: V2RunSelect[];
  trace_ids?: string[];
  thread_id?: string;
  has_error?: boolean;
  trace_filter?: string;
  tree_filter?: string;
  sort_by?: TraceSort;
  sort_order?: SortOrder;
  cursor?: string;
  page_size?: number;
  [unsupported: string]: unknown;
}

/**
 * A traces cursor: the order it was issued for and the last trace's key in it. A cursor of an
 * earlier release ({t, id}) is a start_time, newest-first one.
 */
function traceCursorKey(cursor: unknown, sortBy: TraceSort, order: SortOrder): TracePageKey | undefined {
  let issuedFor = 'start_time desc';
  const key = decodeCursor<TracePageKey>(cursor, (raw) => {
    if (raw.s === undefined) {
      const k = timeIdKey(raw);
      return k && { value: k.time, traceId: k.id };
    }
    issuedFor = `${String(raw.s)} ${String(raw.o)}`;
    const id = typeof raw.id === 'string' ? toUuid(raw.id) : null;
    return Number.isSafeInteger(raw.v) && id ? { value: raw.v as number, traceId: id } : null;
  });
  if (key && issuedFor !== `${sortBy} ${order}`)
    throw errors.badRequest(
      `cursor was issued for sort ${issuedFor}; send the same sort_by and sort_order to continue`,
    );
  return key;
}

export function v2TraceRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.post<{ Body: TraceQueryBody }>(
    '/traces/query',
    {
      schema: {
        tags: ['traces'],
        summary: "A project's traces (root runs), newest first, with trace-wide aggregates; keyset-paged",
        description:
          'Traces whose root started in [min_start_time, max_start_time) (default: the last 24 hours). Without `selects`, ' +
          '`root_run` carries every field the trace row holds (name, type, status, times, project, thread, tags, usage); ' +
          '`trace_aggregates` always carries `run_count` and `error_count`. `trace_filter` (the root run must match) and ' +
          '`tree_filter` (some run of the trace must match) take the filter language; `ai_search` is not supported (400). ' +
          'Extension: `sort_by` (start_time, latency, total_tokens, total_cost) and `sort_order` (desc, asc), then by trace id; ' +
          'a cursor continues the order it was issued for. ' +
          'With `Accept: text/event-stream` the page is streamed as JSON Patch events (docs/read-api.md); ' +
          '406 when Accept admits neither JSON nor that.',
        body: {
          type: 'object',
          anyOf: [{ required: ['project_id'] }, { required: ['project_ids'] }],
          properties: {
            project_id: { ...uuidSchema, description: 'project (session) UUID; or project_ids' },
            project_ids: {
              type: 'array',
              items: uuidSchema,
              minItems: 1,
              maxItems: 100,
              description: 'several projects (extension)',
            },
            min_start_time: timeSchema('query', 'inclusive lower bound of the root start time', {
              nullable: false,
              text: true,
            }),
            max_start_time: timeSchema('query', 'exclusive upper bound; default now', { nullable: false, text: true }),
            selects: selectsSchema,
            trace_ids: { type: 'array', items: uuidSchema, maxItems: 1000 },
            thread_id: { type: 'string', description: 'only traces of this thread (extension)' },
            has_error: {
              type: 'boolean',
              description: 'only traces whose root run errored (true) or did not (false) (extension)',
            },
            trace_filter: {
              type: 'string',
              description: 'filter language; the root run must match, e.g. eq(status, "error")',
            },
            tree_filter: { type: 'string', description: 'filter language; some run of the trace must match' },
            sort_by: {
              type: 'string',
              enum: TRACE_SORTS,
              description: 'order of the traces (extension); default start_time',
            },
            sort_order: { type: 'string', enum: ['desc', 'asc'], description: 'default desc (extension)' },
            cursor: { type: 'string' },
            page_size: pageSizeSchema,
          },
        },
        response: {
          200: jsonOrEventStream(
            {
              type: 'object',
              properties: { items: { type: 'array', items: itemSchema }, next_cursor: { type: ['string', 'null'] } },
            },
            'a page of traces; with Accept: text/event-stream, the same page as JSON Patch operations',
          ),
          ...errorResponses(404, 406, 503),
        },
      },
    },
    async (request, reply) => {
      const form = queryAnswerForm(request);
      const body = request.body ?? {};
      rejectUnsupported(body, ['ai_search', 'min_feedback_modified_at', 'max_feedback_modified_at']);
      const tenantId = tenantOf(request);
      const projectIds = [
        ...new Set([...(body.project_id !== undefined ? [body.project_id] : []), ...(body.project_ids ?? [])]),
      ].map((p) => uuid(p, 'project_id', 80));
      for (const p of projectIds) requireProject(deps, tenantId, p);
      const window = timeWindow(body.min_start_time, body.max_start_time, DAY_MICROS);
      const size = pageSize(body.page_size, MAX_PAGE_SIZE);
      const traceIds = body.trace_ids?.map((id, i) => uuid(id, `trace_ids[${i}]`, 80));
      const selects = body.selects ? [...new Set(body.selects)] : null;
      const sortBy = body.sort_by ?? 'start_time';
      const order = body.sort_order ?? 'desc';
      traceCursorKey(body.cursor, sortBy, order); // a bad cursor is a 400 before any stream
      // Parsed here so a bad filter is a 400 (INVALID_FILTER) before any query; compiled as
      // `trace_id IN (matching runs)`, exactly (FINAL), within the asked projects.
      const scope = {
        tenantId,
        runsTable: deps.tables.runs,
        runKeysTable: deps.tables.runKeys,
        feedbackTable: deps.tables.feedback,
        sessionIds: projectIds,
        exact: true,
        traceIds: null,
      };
      const conditions = (['trace_filter', 'tree_filter'] as const).flatMap((field) => {
        const text = body[field];
        if (text === undefined || text.trim() === '') return [];
        return [
          compileTraceCondition(parseFilter(text, field), scope, { root: field === 'trace_filter', where: field }).sql,
        ];
      });
      const read: PageReader = async (cursor, limit) => {
        const after = traceCursorKey(cursor, sortBy, order);
        const sorted = await tracePageQuery(deps.ch, deps.tables, {
          tenantId,
          projectIds,
          minStartTime: window.min,
          maxStartTime: window.max,
          threadId: body.thread_id,
          hasError: body.has_error,
          traceIds,
          conditions,
          sortBy,
          order,
          after,
          limit: limit + 1,
        });
        const page = sorted.slice(0, limit).map((s) => s.trace);
        const roots = await rootRuns(
          deps,
          tenantId,
          page,
          selects ? selects.filter((f) => !AGGREGATE_SELECTS.has(f)) : DEFAULT_ROOT_SELECTS,
        );
        const items = page.map((t) => ({
          root_run: roots.get(t.trace_id) ?? { id: t.trace_id },
          trace_aggregates: traceAggregates(t, selects),
          query_metadata: null,
        }));
        const last = sorted[page.length - 1];
        const next =
          sorted.length > limit && last
            ? encodeCursor({ s: sortBy, o: order, v: last.key, id: last.trace.trace_id })
            : null;
        return { items, next };
      };
      return answerPagedQuery(request, reply, {
        form,
        cursor: body.cursor || undefined,
        pageSize: size,
        maxPerRead: MAX_PAGE_SIZE,
        read,
      });
    },
  );

  app.get<{ Params: { trace_id: string }; Querystring: Record<string, unknown> }>(
    '/traces/:trace_id/runs',
    {
      schema: {
        tags: ['traces'],
        summary: 'Every run of a trace, in tree order (dotted_order)',
        description:
          'Without `selects`, each run carries id, name, run_type, status, start and end time, latency, first token time, error, ' +
          'parent_run_ids, total_tokens and total_cost. `filter` is not supported (400).',
        params: { type: 'object', properties: { trace_id: uuidSchema } },
        querystring: {
          type: 'object',
          properties: {
            project_id: { ...uuidSchema, description: 'project (session) UUID that owns the trace' },
            min_start_time: timeSchema('query', 'inclusive lower bound of run start_time; with max_start_time', {
              nullable: false,
              text: true,
            }),
            max_start_time: timeSchema('query', 'inclusive upper bound of run start_time; with min_start_time', {
              nullable: false,
              text: true,
            }),
            selects: repeatedSelectsSchema,
          },
          required: ['project_id'],
        },
        response: {
          200: { type: 'object', properties: { items: { type: 'array', items: itemSchema } } },
          ...errorResponses(404, 503),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      rejectUnsupported(q, ['filter']);
      const tenantId = tenantOf(request);
      const traceId = uuid(request.params.trace_id, 'trace_id', 80);
      const projectId = uuid(q.project_id, 'project_id', 80);
      requireProject(deps, tenantId, projectId);
      const minStartTime = time(q.min_start_time, 'min_start_time') ?? undefined;
      const maxStartTime = time(q.max_start_time, 'max_start_time') ?? undefined;
      if ((minStartTime === undefined) !== (maxStartTime === undefined))
        throw errors.badRequest('min_start_time and max_start_time go together');
      const selects = q.selects === undefined ? DEFAULT_RUN_SELECTS : (list(q.selects) as V2RunSelect[]);
      const run = v2RunShape(selects, deps.blobs);
      const rows = await traceRunsQuery(deps.ch, deps.tables, {
        tenantId,
        traceId,
        projectId,
        minStartTime,
        maxStartTime,
        columns: run.columns,
      });
      if (rows.length === 0 && !(await traceExistsQuery(deps.ch, deps.tables, tenantId, traceId, projectId)))
        throw errors.notFound(`trace ${traceId}`);
      return sendJsonBytes(reply, { items: await run.shape(rows) });
    },
  );
}
