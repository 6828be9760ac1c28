// The bodies of POST /runs/query (v1, what `listRuns` / `list_runs` send) and
// POST /api/v2/runs/query, read into one RunsQuery. The JSON schemas check types (and feed the
// OpenAPI document); this module checks meaning: UUIDs, timestamps, field names, filters.
// Fields the clients send that we do not act on (query, execution_order, …) and unknown fields
// (Python passes extra kwargs through) are accepted and ignored.
import { errors } from '../../../platform/errors.ts';
import { timeSchema, uuidSchema } from '../../../platform/http/openapi.ts';
import { toUuid } from '../../../platform/ids.ts';
import { parseTimestampMicros } from '../../../platform/time.ts';
import type { RunPosition } from '../../../projections/runs/runQueries.ts';
import { isRunField, RUN_FIELDS, V2_RUN_SELECTS, v2SourceField } from '../read/runResponse.ts';
import { parseFilter, type FilterNode } from '../../../projections/runs/filter/filterParser.ts';
import { decodeRunCursor, type RunOrder } from './cursor.ts';

export interface RunsQuery {
  sessionIds: string[] | null;
  ids: string[] | null;
  traceId: string | null;
  parentRunId: string | null;
  runType: string | null;
  isRoot: boolean | null;
  error: boolean | null;
  /** Runs starting at or after (microseconds). */
  startTime: number | null;
  /** Runs starting at or before (microseconds). */
  endTime: number | null;
  referenceExampleIds: string[] | null;
  filter: FilterNode | null;
  traceFilter: FilterNode | null;
  treeFilter: FilterNode | null;
  /** Response fields (runResponse names). */
  fields: string[];
  limit: number;
  order: RunOrder;
  cursor: RunPosition | null;
}

export const MAX_PAGE_SIZE = 100;
/** page_size of /api/v2/runs/query as the clients define it: 100 by default, at most 1000 (a JSON page holds MAX_PAGE_SIZE). */
const V2_DEFAULT_PAGE_SIZE = 100;
const V2_MAX_PAGE_SIZE = 1000;
const MAX_IDS = 1000;
/** Always returned: the Python client's Run model requires them. */
const ALWAYS_FIELDS = ['id', 'trace_id', 'name', 'run_type', 'start_time'];

const nullable = (type: string | string[], extra: Record<string, unknown> = {}) => ({
  type: [...(Array.isArray(type) ? type : [type]), 'null'],
  ...extra,
});
/** Ids: a list, or one id alone. */
const uuidList = (description: string) => ({
  ...nullable(['array', 'string']),
  format: 'uuid',
  items: uuidSchema,
  maxItems: MAX_IDS,
  description,
});

export const runsQueryBodySchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    session: uuidList('project (session) ids; all projects of the workspace when absent'),
    id: { ...nullable('array'), items: uuidSchema, maxItems: MAX_IDS, description: 'run ids' },
    trace: nullable('string', { format: 'uuid', description: 'trace id' }),
    parent_run: nullable('string', { format: 'uuid', description: 'runs whose parent is this run' }),
    run_type: nullable('string'),
    reference_example: uuidList('runs of these dataset examples'),
    is_root: nullable(['boolean', 'integer'], { minimum: 0, maximum: 1, description: 'true or false (or 1 or 0)' }),
    error: nullable('boolean', { description: 'runs that errored (true) or did not (false)' }),
    start_time: timeSchema('query', 'runs starting at or after'),
    end_time: timeSchema('query', 'runs starting at or before'),
    filter: nullable('string', { description: 'filter language, e.g. and(eq(run_type, "llm"), gt(latency, "5s"))' }),
    trace_filter: nullable('string', { description: "the trace's root run must match" }),
    tree_filter: nullable('string', { description: 'some run of the trace must match' }),
    select: { ...nullable('array'), items: { type: 'string', enum: RUN_FIELDS }, description: 'fields to return' },
    limit: nullable('integer', { minimum: 1, description: `page size (at most ${MAX_PAGE_SIZE})` }),
    order: nullable('string', { enum: ['asc', 'desc', null], description: 'by start_time, then id (default desc)' }),
    cursor: nullable('string', { description: 'cursors.next of the previous page' }),
    query: nullable('string', { description: 'natural-language query: not supported, ignored' }),
    execution_order: nullable('integer', { description: 'deprecated, ignored' }),
  },
} as const;

export const v2RunsQueryBodySchema = {
  type: 'object',
  additionalProperties: true,
  required: ['project_ids'],
  properties: {
    project_ids: { type: 'array', minItems: 1, maxItems: MAX_IDS, items: uuidSchema, description: 'project ids' },
    filter: { type: 'string' },
    trace_filter: { type: 'string' },
    tree_filter: { type: 'string' },
    has_error: { type: 'boolean' },
    ids: { type: 'array', maxItems: MAX_IDS, items: uuidSchema },
    is_root: { type: 'boolean' },
    trace_id: uuidSchema,
    run_type: { type: 'string', description: 'TOOL, CHAIN, LLM, … (any case)' },
    reference_examples: { type: 'array', maxItems: MAX_IDS, items: uuidSchema },
    min_start_time: timeSchema('query', 'runs starting at or after; default one day ago', {
      nullable: false,
      text: true,
    }),
    max_start_time: timeSchema('query', 'runs starting at or before', { nullable: false, text: true }),
    page_size: {
      type: 'integer',
      minimum: 1,
      description: `default ${V2_DEFAULT_PAGE_SIZE}; a JSON page holds at most ${MAX_PAGE_SIZE} (fewer with next_cursor), a stream up to ${V2_MAX_PAGE_SIZE}`,
    },
    cursor: { type: 'string' },
    selects: {
      type: 'array',
      items: { type: 'string', enum: V2_RUN_SELECTS },
      description: 'fields to return; only id when absent',
    },
  },
} as const;

const uuid = (value: string, field: string): string => {
  const id = toUuid(value);
  if (!id) throw errors.invalidField(`${field} is not a UUID: "${value.slice(0, 64)}"`);
  return id;
};
const uuids = (values: readonly string[] | string | null | undefined, field: string): string[] | null => {
  if (values === null || values === undefined) return null;
  const list = typeof values === 'string' ? [values] : values;
  if (list.length > MAX_IDS) throw errors.invalidField(`${field} holds more than ${MAX_IDS} ids`);
  return list.map((v, i) => uuid(v, `${field}[${i}]`));
};
const time = (value: string | null | undefined, field: string): number | null => parseTimestampMicros(value, field);
const filter = (text: string | null | undefined, where: string): FilterNode | null =>
  text && text.trim() !== '' ? parseFilter(text, where) : null;
const pageSize = (value: number | null | undefined): number => Math.min(value ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);

/** What /runs/query returns without `select`: what the clients select by default, plus thread_id. */
const DEFAULT_QUERY_FIELDS = [
  'app_path',
  'completion_cost',
  'completion_tokens',
  'dotted_order',
  'end_time',
  'error',
  'events',
  'extra',
  'feedback_stats',
  'first_token_time',
  'id',
  'inputs',
  'name',
  'outputs',
  'parent_run_id',
  'parent_run_ids',
  'prompt_cost',
  'prompt_tokens',
  'reference_example_id',
  'run_type',
  'session_id',
  'start_time',
  'status',
  'tags',
  'total_cost',
  'total_tokens',
  'trace_id',
  'thread_id',
  'is_root',
];

interface V1Body {
  session?: string[] | string | null;
  id?: string[] | null;
  trace?: string | null;
  parent_run?: string | null;
  run_type?: string | null;
  reference_example?: string[] | string | null;
  is_root?: boolean | number | null;
  error?: boolean | null;
  start_time?: string | null;
  end_time?: string | null;
  filter?: string | null;
  trace_filter?: string | null;
  tree_filter?: string | null;
  select?: string[] | null;
  limit?: number | null;
  order?: RunOrder | null;
  cursor?: string | null;
}

/** `body` has passed runsQueryBodySchema (types are checked there). */
export function runsQueryFromBody(raw: unknown): RunsQuery {
  const body = (raw ?? {}) as V1Body;
  const order = body.order ?? 'desc';
  const select = body.select ?? null;
  for (const f of select ?? [])
    if (!isRunField(f)) throw errors.invalidField(`select: unknown field "${f}" (fields: ${RUN_FIELDS.join(', ')})`);
  return {
    sessionIds: uuids(body.session, 'session'),
    ids: uuids(body.id, 'id'),
    traceId: body.trace ? uuid(body.trace, 'trace') : null,
    parentRunId: body.parent_run ? uuid(body.parent_run, 'parent_run') : null,
    runType: body.run_type ?? null,
    isRoot: body.is_root === null || body.is_root === undefined ? null : Boolean(body.is_root),
    error: body.error ?? null,
    startTime: time(body.start_time, 'start_time'),
    endTime: time(body.end_time, 'end_time'),
    referenceExampleIds: uuids(body.reference_example, 'reference_example'),
    filter: filter(body.filter, 'filter'),
    traceFilter: filter(body.trace_filter, 'trace_filter'),
    treeFilter: filter(body.tree_filter, 'tree_filter'),
    fields: select
      ? [...new Set([...ALWAYS_FIELDS, ...select])]
      : [...new Set([...ALWAYS_FIELDS, ...DEFAULT_QUERY_FIELDS])],
    limit: pageSize(body.limit),
    order,
    cursor: body.cursor ? decodeRunCursor(body.cursor, order) : null,
  };
}

interface V2Body {
  project_ids?: string[];
  filter?: string;
  trace_filter?: string;
  tree_filter?: string;
  has_error?: boolean;
  ids?: string[];
  is_root?: boolean;
  trace_id?: string;
  run_type?: string;
  reference_examples?: string[];
  min_start_time?: string;
  max_start_time?: string;
  page_size?: number;
  cursor?: string;
  selects?: (typeof V2_RUN_SELECTS)[number][];
  reference_dataset_id?: string;
  ai_search?: string;
}

export interface V2RunsQuery {
  query: RunsQuery;
  /** The v2 selects asked for (ID when none). */
  selects: readonly string[];
  /** Runs the request asks for in one answer (its page_size, at most 1000); `query.limit` is what one read gives. */
  pageSize: number;
}

/** `body` has passed v2RunsQueryBodySchema. */
export function runsQueryFromV2Body(raw: unknown, now = Date.now()): V2RunsQuery {
  const body = (raw ?? {}) as V2Body;
  if (body.reference_dataset_id !== undefined)
    throw errors.badRequest('reference_dataset_id is not supported here; send project_ids');
  if (body.ai_search !== undefined) throw errors.badRequest('ai_search is not supported');
  const selects = body.selects && body.selects.length > 0 ? [...new Set(body.selects)] : ['ID'];
  const fields = selects.map(v2SourceField).filter((f): f is string => f !== null);
  const order: RunOrder = 'desc';
  return {
    selects,
    pageSize: Math.min(body.page_size ?? V2_DEFAULT_PAGE_SIZE, V2_MAX_PAGE_SIZE),
    query: {
      sessionIds: uuids(body.project_ids, 'project_ids'),
      ids: uuids(body.ids, 'ids'),
      traceId: body.trace_id ? uuid(body.trace_id, 'trace_id') : null,
      parentRunId: null,
      // The v2 RunType enum is upper case ('LLM'); runs keep the ingested lower case.
      runType: body.run_type?.toLowerCase() ?? null,
      isRoot: body.is_root ?? null,
      error: body.has_error ?? null,
      startTime: time(body.min_start_time, 'min_start_time') ?? (now - 86_400_000) * 1000,
      endTime: time(body.max_start_time, 'max_start_time'),
      referenceExampleIds: uuids(body.reference_examples, 'reference_examples'),
      filter: filter(body.filter, 'filter'),
      traceFilter: filter(body.trace_filter, 'trace_filter'),
      treeFilter: filter(body.tree_filter, 'tree_filter'),
      fields: [...new Set(['id', 'start_time', ...fields])],
      limit: pageSize(body.page_size),
      order,
      cursor: body.cursor ? decodeRunCursor(body.cursor, order) : null,
    },
  };
}
