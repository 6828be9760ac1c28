// The traces table's view as the URL holds it (TracesView, its query parameters read and
// written for core/route.ts), and what it asks of the API: the order, the time window of its
// range, and the filter its box and quick filters compose, in the filter language (shown to the
// person, so they learn it). Pure functions: no DOM, no requests.

/**
 * The traces table's view beyond filter and page (apps/explorer/traces/); absent = the default.
 * Each field is one query parameter of the same name.
 */
export interface TracesView {
  /** latency, total_tokens, total_cost (default start_time). */
  sort?: string;
  /** asc (default desc). */
  order?: string;
  /** 1h, 24h, 7d, 30d, all, or custom with from/to (default 7d). */
  range?: string;
  from?: string;
  to?: string;
  /** Quick filters, composed into the filter language. */
  errors?: boolean;
  run_type?: string;
  tag?: string;
  meta_key?: string;
  meta_value?: string;
  /** Rows checked for export, comma-separated ids. */
  selected?: string;
}

/** Its query parameters (the same names), parsed and formatted by core/route.ts. */
const TRACES_VIEW_TEXT = [
  'sort',
  'order',
  'range',
  'from',
  'to',
  'run_type',
  'tag',
  'meta_key',
  'meta_value',
  'selected',
] as const;

export function tracesViewOf(params: URLSearchParams): TracesView {
  const view: TracesView = {};
  for (const k of TRACES_VIEW_TEXT) {
    const v = params.get(k);
    if (v) view[k] = v;
  }
  if (params.get('errors') === '1') view.errors = true;
  return view;
}

export function tracesViewParams(view: TracesView): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const k of TRACES_VIEW_TEXT) out[k] = view[k] ?? null;
  out.errors = view.errors ? '1' : null;
  return out;
}

export const SORTS = ['start_time', 'latency', 'total_tokens', 'total_cost'] as const;
export type SortBy = (typeof SORTS)[number];
export type SortOrder = 'asc' | 'desc';

export function sortOf(view: TracesView): { by: SortBy; order: SortOrder } {
  const by = (SORTS as readonly string[]).includes(view.sort ?? '') ? (view.sort as SortBy) : 'start_time';
  return { by, order: view.order === 'asc' ? 'asc' : 'desc' };
}

/** The view's URL fields for an order (the default, start time newest first, left out). */
export function sortFields(by: SortBy, order: SortOrder): Pick<TracesView, 'sort' | 'order'> {
  return { sort: by === 'start_time' ? undefined : by, order: order === 'asc' ? 'asc' : undefined };
}

const HOUR = 3_600_000;
export const RANGES = [
  { id: '1h', label: 'Last hour', span: HOUR },
  { id: '24h', label: 'Last 24 hours', span: 24 * HOUR },
  { id: '7d', label: 'Last 7 days', span: 7 * 24 * HOUR },
  { id: '30d', label: 'Last 30 days', span: 30 * 24 * HOUR },
  { id: 'all', label: 'All time', span: null },
] as const;
export const DEFAULT_RANGE = '7d';

export type RangeChoice = (typeof RANGES)[number]['id'] | 'custom';

export function rangeOf(view: TracesView): RangeChoice {
  if (view.range === 'custom' || ((view.from || view.to) && !view.range)) return 'custom';
  return RANGES.some((r) => r.id === view.range) ? (view.range as RangeChoice) : DEFAULT_RANGE;
}

/**
 * The root start-time window of the view: [min, max) as ISO strings (max absent = now). A
 * relative range is measured back from `now`; a custom one's bounds are the URL's.
 */
export function windowOf(view: TracesView, now: number): { min_start_time: string; max_start_time?: string } {
  const range = rangeOf(view);
  if (range === 'custom') {
    const from = view.from ? Date.parse(view.from) : NaN;
    const to = view.to ? Date.parse(view.to) : NaN;
    return {
      min_start_time: new Date(Number.isNaN(from) ? 0 : from).toISOString(),
      ...(Number.isNaN(to) ? {} : { max_start_time: new Date(to).toISOString() }),
    };
  }
  const span = RANGES.find((r) => r.id === range)!.span;
  return { min_start_time: new Date(span === null ? 0 : now - span).toISOString() };
}

/** Whether traces sent from now on can fall in the view's window (then the table polls for them). */
export const windowIsOpen = (view: TracesView): boolean => rangeOf(view) !== 'custom' || !view.to;

/** A string literal of the filter language (JSON's escapes are the language's). */
const quote = (s: string) => JSON.stringify(s);

/** The quick filters of the view as clauses of the filter language. */
export function quickClauses(view: TracesView): string[] {
  const out: string[] = [];
  if (view.errors) out.push('eq(status, "error")');
  if (view.run_type) out.push(`eq(run_type, ${quote(view.run_type)})`);
  if (view.tag) out.push(`has(tags, ${quote(view.tag)})`);
  if (view.meta_key && view.meta_value !== undefined && view.meta_value !== '')
    out.push(`and(eq(metadata_key, ${quote(view.meta_key)}), eq(metadata_value, ${quote(view.meta_value)}))`);
  else if (view.meta_key) out.push(`eq(metadata_key, ${quote(view.meta_key)})`);
  return out;
}

/** The filter the table sends: the box's expression and the quick filters, all of which must hold. */
export function composedFilter(filter: string, view: TracesView): string {
  const parts = [...(filter.trim() ? [filter.trim()] : []), ...quickClauses(view)];
  return parts.length <= 1 ? (parts[0] ?? '') : `and(${parts.join(', ')})`;
}
