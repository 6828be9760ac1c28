// A run row as the clients' Run model expects it. One place, used by every route that returns runs.
// Each response field names the `runs` columns it is built from, so a query that returns a
// subset of fields (/runs/query `select`) reads only those columns, and payloads held in object
// storage are fetched only for the fields asked for.
import type { BlobStore } from '../../../platform/blobStore.ts';
import type { Attachment, BlobRef } from '../../../schemas/events.generated.ts';
import { PAYLOAD_FIELDS, type RunRow } from '../../../projections/shared/runRow.ts';
import type { FeedbackStat } from '../../../projections/feedback/feedbackQueries.ts';
import { formatIsoMicros } from '../../../platform/time.ts';
import { parseStoredJson } from '../../../platform/json/jsonNesting.ts';

/** The key of the object a payload renders as when its stored text cannot be read as JSON. */
export const UNREADABLE_KEY = '__unreadable__';

export interface RunResponseOptions {
  /** The fields to return; DEFAULT_RUN_FIELDS when absent. */
  fields?: readonly string[];
  /** The run's feedback_stats (null when it has none). */
  feedbackStats?: Record<string, FeedbackStat> | null;
}

type Row = Partial<RunRow>;
type PayloadField = (typeof PAYLOAD_FIELDS)[number];

interface Context {
  blobs: BlobStore;
  options: RunResponseOptions;
  refs: () => Partial<Record<PayloadField, BlobRef>>;
}

interface FieldSpec {
  columns: readonly (keyof RunRow)[];
  value: (row: Row, ctx: Context) => unknown;
}

const iso = (micros: number | null | undefined) =>
  micros === null || micros === undefined ? null : formatIsoMicros(micros);
const column = <K extends keyof RunRow>(key: K, map: (v: RunRow[K] | undefined) => unknown = (v) => v): FieldSpec => ({
  columns: [key],
  value: (row) => map(row[key]),
});
const constant = (value: unknown): FieldSpec => ({ columns: [], value: () => value });

/**
 * A stored payload as a value. Whatever is stored renders: JSON nested deeper than the limit
 * (kept before the limit existed) is cut at the limit, and text that is not JSON at all says so,
 * rather than failing the response of every run beside it.
 */
function storedPayload(text: string, field: PayloadField): unknown {
  try {
    return parseStoredJson(text);
  } catch {
    return { [UNREADABLE_KEY]: `the stored ${field} is not valid JSON` };
  }
}

/** A payload field (inputs, outputs, …): inline JSON text, or a blob in object storage (only then a promise). */
const payload = (field: PayloadField, whenEmpty: unknown): FieldSpec => ({
  columns: [field, 'payload_refs'],
  value: (row, ctx) => {
    const ref = ctx.refs()[field];
    const parse = (text: string) => (text === '' ? whenEmpty : storedPayload(text, field));
    return ref ? ctx.blobs.getText(ref).then(parse) : parse(row[field] ?? '');
  },
});

/**
 * Where the web UI shows a run (the clients' getRunUrl / get_run_url append it to the UI's base
 * URL): LangSmith's path shape, with ?poll=true because the run may not be projected yet.
 */
export function runAppPath(tenantId: string, projectId: string, runId: string): string {
  return `/o/${tenantId}/projects/p/${projectId}/r/${runId}?poll=true`;
}

/** Ancestors, root first: every dotted_order segment but the run's own ends with an ancestor's id. */
export function parentRunIds(dottedOrder: string): string[] {
  return dottedOrder === ''
    ? []
    : dottedOrder
        .split('.')
        .slice(0, -1)
        .map((segment) => segment.slice(-36));
}

const FIELDS: Record<string, FieldSpec> = {
  id: column('id'),
  name: column('name'),
  run_type: column('run_type'),
  start_time: column('start_time', iso),
  end_time: column('end_time', iso),
  status: column('status'),
  trace_id: column('trace_id'),
  dotted_order: column('dotted_order'),
  parent_run_id: column('parent_run_id'),
  parent_run_ids: column('dotted_order', (v) => parentRunIds(v ?? '')),
  session_id: column('session_id'),
  thread_id: column('thread_id', (v) => (v ? v : null)),
  inputs: payload('inputs', {}),
  outputs: payload('outputs', null),
  events: payload('events', []),
  extra: payload('extra', {}),
  serialized: payload('serialized', null),
  error: column('error'),
  tags: column('tags'),
  reference_example_id: column('reference_example_id'),
  is_root: column('is_root', (v) => v === 1),
  prompt_tokens: column('prompt_tokens'),
  completion_tokens: column('completion_tokens'),
  total_tokens: column('total_tokens'),
  prompt_cost: column('prompt_cost'),
  completion_cost: column('completion_cost'),
  total_cost: column('total_cost'),
  first_token_time: column('first_token_time', iso),
  latency: {
    columns: ['start_time', 'end_time'],
    value: (row) =>
      row.end_time === null || row.end_time === undefined || row.start_time === undefined
        ? null
        : (row.end_time - row.start_time) / 1e6,
  },
  feedback_stats: { columns: [], value: (_row, ctx) => ctx.options.feedbackStats ?? null },
  app_path: {
    columns: ['tenant_id', 'session_id', 'id'],
    value: (row) =>
      row.tenant_id && row.session_id && row.id ? runAppPath(row.tenant_id, row.session_id, row.id) : null,
  },
  child_run_ids: constant(null),
  s3_urls: {
    columns: ['attachments'],
    value: (row, ctx) => {
      const attachments = JSON.parse(row.attachments ?? '[]') as Attachment[];
      if (attachments.length === 0) return {};
      return (async () => {
        const s3Urls: Record<string, { presigned_url: string; mime_type: string }> = {};
        for (const a of attachments)
          s3Urls[`attachment.${a.name}`] = {
            presigned_url: await ctx.blobs.presignedUrl(a.blob),
            mime_type: a.blob.content_type,
          };
        return s3Urls;
      })();
    },
  },
  // LangSmith fields this service does not keep: selectable, always null.
  ...Object.fromEntries(
    [
      'manifest_id',
      'manifest',
      'in_dataset',
      'share_token',
      'trace_tier',
      'price_model_id',
      'last_queued_at',
      'reference_dataset_id',
      'prompt_token_details',
      'completion_token_details',
      'prompt_cost_details',
      'completion_cost_details',
      'inputs_preview',
      'outputs_preview',
      'messages',
      'ttl_seconds',
      'trace_upgrade',
    ].map((f) => [f, constant(null)]),
  ),
};

/** Every field a caller may ask for. */
export const RUN_FIELDS: readonly string[] = Object.keys(FIELDS);

/** What GET /runs/{id} returns, and /runs/query when `select` is absent. */
export const DEFAULT_RUN_FIELDS: readonly string[] = [
  'id',
  'name',
  'run_type',
  'start_time',
  'end_time',
  'status',
  'trace_id',
  'dotted_order',
  'parent_run_id',
  'parent_run_ids',
  'session_id',
  'thread_id',
  'inputs',
  'outputs',
  'events',
  'extra',
  'serialized',
  'error',
  'tags',
  'reference_example_id',
  'is_root',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'prompt_cost',
  'completion_cost',
  'total_cost',
  'first_token_time',
  'feedback_stats',
  'app_path',
  'child_run_ids',
  's3_urls',
];

const spec = (name: string): FieldSpec | undefined => (Object.hasOwn(FIELDS, name) ? FIELDS[name] : undefined);
export const isRunField = (name: string): boolean => spec(name) !== undefined;

/** The `runs` columns the given response fields are built from. */
export function runColumnsFor(fields: readonly string[]): Set<keyof RunRow> {
  const columns = new Set<keyof RunRow>();
  for (const f of fields) for (const c of spec(f)?.columns ?? []) columns.add(c);
  return columns;
}

/** The specs of a list of fields (those this service knows), per list: a page builds every run from the same one. */
const specsOf = new WeakMap<readonly string[], Array<[string, FieldSpec]>>();

export async function runResponse(
  row: Row,
  blobs: BlobStore,
  options: RunResponseOptions = {},
): Promise<Record<string, unknown>> {
  return (await runResponses([row], blobs, () => options))[0]!;
}

/**
 * runResponse of each row, built in one pass: only fields read from object storage are waited
 * on, together, so a page of a thousand runs makes one promise rather than one per run (or tens
 * of thousands, one per field).
 */
export async function runResponses(
  rows: readonly Row[],
  blobs: BlobStore,
  optionsOf: (row: Row) => RunResponseOptions,
): Promise<Array<Record<string, unknown>>> {
  const pending: Array<Promise<void>> = [];
  const out = rows.map((row) => buildRun(row, blobs, optionsOf(row), pending));
  if (pending.length > 0) await Promise.all(pending);
  return out;
}

function buildRun(
  row: Row,
  blobs: BlobStore,
  options: RunResponseOptions,
  pending: Array<Promise<void>>,
): Record<string, unknown> {
  let refs: Partial<Record<PayloadField, BlobRef>> | undefined;
  const ctx: Context = {
    blobs,
    options,
    refs: () => (refs ??= JSON.parse(row.payload_refs || '{}') as Partial<Record<PayloadField, BlobRef>>),
  };
  const fields = options.fields ?? DEFAULT_RUN_FIELDS;
  let specs = specsOf.get(fields);
  if (!specs)
    specsOf.set(fields, (specs = fields.flatMap((f) => (isRunField(f) ? [[f, spec(f)!] as [string, FieldSpec]] : []))));
  // Fields in the order asked; a value from object storage is filled in when it comes.
  const out: Record<string, unknown> = {};
  for (const [f, s] of specs) {
    const value = s.value(row, ctx);
    out[f] = value;
    if (value instanceof Promise) pending.push(value.then((v) => void (out[f] = v)));
  }
  return out;
}

const upperCase = (v: unknown) => (typeof v === 'string' ? v.toUpperCase() : v);

/** /api/v2 items: v2 select name -> the field it is built from, its name in the item, and how. */
const V2_ITEM: Record<string, { from: string; as: string; map?: (value: unknown) => unknown }> = {
  LATENCY_SECONDS: { from: 'latency', as: 'latency_seconds' },
  PROJECT_ID: { from: 'session_id', as: 'project_id' },
  ERROR_PREVIEW: { from: 'error', as: 'error_preview', map: (v) => (typeof v === 'string' ? v.slice(0, 500) : null) },
  METADATA: { from: 'extra', as: 'metadata', map: (v) => (v as { metadata?: unknown } | null)?.metadata ?? null },
  // The v2 Run model's enums are upper case (RunType 'LLM', status 'SUCCESS'); the Python client validates them.
  RUN_TYPE: { from: 'run_type', as: 'run_type', map: upperCase },
  STATUS: { from: 'status', as: 'status', map: upperCase },
  ATTACHMENTS: {
    from: 's3_urls',
    as: 'attachments',
    map: (v) =>
      Object.fromEntries(
        Object.entries(v as Record<string, { presigned_url: string }>).map(([k, a]) => [
          k.replace(/^attachment\./, ''),
          a.presigned_url,
        ]),
      ),
  },
  ...Object.fromEntries(
    [
      'ID',
      'NAME',
      'START_TIME',
      'END_TIME',
      'FIRST_TOKEN_TIME',
      'ERROR',
      'EXTRA',
      'EVENTS',
      'INPUTS',
      'OUTPUTS',
      'PARENT_RUN_IDS',
      'TRACE_ID',
      'THREAD_ID',
      'DOTTED_ORDER',
      'IS_ROOT',
      'REFERENCE_EXAMPLE_ID',
      'TOTAL_TOKENS',
      'PROMPT_TOKENS',
      'COMPLETION_TOKENS',
      'TOTAL_COST',
      'PROMPT_COST',
      'COMPLETION_COST',
      'TAGS',
      'APP_PATH',
      'FEEDBACK_STATS',
    ].map((s) => [s, { from: s.toLowerCase(), as: s.toLowerCase() }]),
  ),
};

/** The response field a v2 select is built from; null for selects this service does not keep (omitted). */
/** The `selects` names of the v2 API (runs, trace runs), as the clients' typed resources list them. */
export const V2_RUN_SELECTS = [
  'ID',
  'NAME',
  'RUN_TYPE',
  'STATUS',
  'START_TIME',
  'END_TIME',
  'LATENCY_SECONDS',
  'FIRST_TOKEN_TIME',
  'ERROR',
  'ERROR_PREVIEW',
  'EXTRA',
  'METADATA',
  'EVENTS',
  'INPUTS',
  'INPUTS_PREVIEW',
  'OUTPUTS',
  'OUTPUTS_PREVIEW',
  'MANIFEST',
  'PARENT_RUN_IDS',
  'PROJECT_ID',
  'TRACE_ID',
  'THREAD_ID',
  'DOTTED_ORDER',
  'IS_ROOT',
  'REFERENCE_EXAMPLE_ID',
  'REFERENCE_DATASET_ID',
  'TOTAL_TOKENS',
  'PROMPT_TOKENS',
  'COMPLETION_TOKENS',
  'TOTAL_COST',
  'PROMPT_COST',
  'COMPLETION_COST',
  'PROMPT_TOKEN_DETAILS',
  'COMPLETION_TOKEN_DETAILS',
  'PROMPT_COST_DETAILS',
  'COMPLETION_COST_DETAILS',
  'PRICE_MODEL_ID',
  'TAGS',
  'APP_PATH',
  'ATTACHMENTS',
  'THREAD_EVALUATION_TIME',
  'IS_IN_DATASET',
  'LAST_QUEUED_AT',
  'SHARE_URL',
  'FEEDBACK_STATS',
  'LS_USER_ID',
] as const;
export type V2RunSelect = (typeof V2_RUN_SELECTS)[number];

export const v2SourceField = (select: string): string | null =>
  Object.hasOwn(V2_ITEM, select) ? V2_ITEM[select]!.from : null;

/** A /api/v2/runs/query item from a run built with (at least) the selects' source fields. */
export function runItemV2(run: Record<string, unknown>, selects: readonly string[]): Record<string, unknown> {
  let specs = v2SpecsOf.get(selects);
  if (!specs)
    v2SpecsOf.set(selects, (specs = selects.flatMap((s) => (Object.hasOwn(V2_ITEM, s) ? [V2_ITEM[s]!] : []))));
  const item: Record<string, unknown> = {};
  for (const spec of specs) item[spec.as] = spec.map ? spec.map(run[spec.from]) : run[spec.from];
  return item;
}

/** The item specs of a list of selects, per list: a page builds every item from the same one. */
const v2SpecsOf = new WeakMap<readonly string[], Array<(typeof V2_ITEM)[string]>>();

/**
 * How v2 items are built straight from rows: the run fields the selects come from (each once,
 * though several selects may share one, as EXTRA and METADATA do), and per select the field's
 * index and the select's map.
 */
interface V2ItemPlan {
  fields: FieldSpec[];
  selects: Array<{ as: string; field: number; map: ((value: unknown) => unknown) | undefined }>;
}
const v2PlanOf = new WeakMap<readonly string[], V2ItemPlan>();

function v2ItemPlan(selects: readonly string[]): V2ItemPlan {
  let plan = v2PlanOf.get(selects);
  if (!plan) {
    const from: string[] = [];
    plan = { fields: [], selects: [] };
    for (const s of selects) {
      const item = Object.hasOwn(V2_ITEM, s) ? V2_ITEM[s]! : undefined;
      const field = item ? spec(item.from) : undefined;
      if (!item || !field) continue;
      let index = from.indexOf(item.from);
      if (index < 0) {
        index = from.push(item.from) - 1;
        plan.fields.push(field);
      }
      plan.selects.push({ as: item.as, field: index, map: item.map });
    }
    v2PlanOf.set(selects, plan);
  }
  return plan;
}

/**
 * The /api/v2 items of rows (runItemV2 of runResponse of each), built straight from the rows:
 * each selected field from the spec of the run field it comes from, with no run object in
 * between (a 1,000-run trace makes a thousand objects, not two thousand). Payloads read from
 * object storage are read once per run and field and awaited together, as runResponses does;
 * an item's fields are in the selects' order.
 */
export async function runItemsV2(
  rows: readonly Row[],
  selects: readonly string[],
  blobs: BlobStore,
): Promise<Array<Record<string, unknown>>> {
  const plan = v2ItemPlan(selects);
  const pending: Array<Promise<void>> = [];
  let row: Row = {};
  let refs: Partial<Record<PayloadField, BlobRef>> | undefined;
  // One context for every row: a payload's reference is read while its row is the current one.
  const ctx: Context = {
    blobs,
    options: {},
    refs: () => (refs ??= JSON.parse(row.payload_refs || '{}') as Partial<Record<PayloadField, BlobRef>>),
  };
  const values = new Array<unknown>(plan.fields.length);
  const items = new Array<Record<string, unknown>>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    row = rows[i]!;
    refs = undefined;
    for (let f = 0; f < plan.fields.length; f++) values[f] = plan.fields[f]!.value(row, ctx);
    const item: Record<string, unknown> = {};
    for (const { as, field, map } of plan.selects) {
      const value = values[field];
      if (value instanceof Promise) {
        item[as] = null;
        pending.push(value.then((v) => void (item[as] = map ? map(v) : v)));
      } else item[as] = map ? map(value) : value;
    }
    items[i] = item;
  }
  if (pending.length > 0) await Promise.all(pending);
  return items;
}
