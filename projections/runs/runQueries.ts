// Reads of the runs read model.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql, type Sql } from '../../platform/clickhouse/sql.ts';
import { rowFromClickHouse } from './runRow.ts';
import type { RunRow } from '../shared/runRow.ts';
import type { ReadModelTables } from '../shared/readModelTables.ts';
import {
  RUN_KEY_COLUMNS,
  RUN_KEYS_TABLE,
  RUN_LOCATIONS_TABLE,
  RUNS_TABLE,
  runsOfThreads,
  runsOfTraces,
  threadRunsWhere,
  traceSpanQuery,
  type ThreadRuns,
  type TraceSpan,
} from './runsTable.ts';

/**
 * The merged run, once its post has been projected; null otherwise. Key lookups, no scan: its
 * trace from run_locations, its places from run_keys, the row from `runs` (FINAL: a place it
 * has left holds a tombstone, has_post = 0).
 */
export async function runByIdQuery(
  ch: ClickHouseClient,
  tenantId: string,
  runId: string,
  tables: Pick<ReadModelTables, 'runs' | 'runKeys' | 'runLocations'> = {
    runs: RUNS_TABLE,
    runKeys: RUN_KEYS_TABLE,
    runLocations: RUN_LOCATIONS_TABLE,
  },
): Promise<RunRow | null> {
  const trace = sql`SELECT trace_id FROM ${ident(tables.runLocations)} WHERE tenant_id = toUUID(${tenantId}) AND id = toUUID(${runId})`;
  const rows = await ch.query(
    sql`SELECT * FROM ${ident(tables.runs)} FINAL
        WHERE tenant_id = toUUID(${tenantId}) AND ${runsOfTraces(tables.runKeys, tenantId, trace, sql`id = toUUID(${runId})`)}
          AND has_post = 1
        LIMIT 1`,
  );
  return rows[0] ? rowFromClickHouse(rows[0]) : null;
}

/**
 * Of these run ids, those of the workspace's stored runs (projected, their project not deleted):
 * a key lookup in run_locations, ten thousand ids a statement.
 */
export async function storedRunIdsQuery(
  ch: ClickHouseClient,
  tenantId: string,
  ids: readonly string[],
  table: string = RUN_LOCATIONS_TABLE,
): Promise<Set<string>> {
  const stored = new Set<string>();
  for (let i = 0; i < ids.length; i += 10_000) {
    const chunk = ids.slice(i, i + 10_000);
    // (an alias named as the column would stand for it in WHERE too)
    const rows = await ch.query<{ run_id: string }>(
      sql`SELECT DISTINCT toString(id) AS run_id FROM ${ident(table)}
          WHERE tenant_id = toUUID(${tenantId}) AND id IN (${join(chunk.map((id) => sql`toUUID(${id})`))})`,
    );
    for (const row of rows) stored.add(row.run_id);
  }
  return stored;
}

/**
 * The runs meeting the conditions (their newest version: FINAL) that name a dataset example, each
 * with that example: an experiment's runs by example, to filter and sort a dataset's examples by.
 */
export async function runExamplesQuery(
  ch: ClickHouseClient,
  runsTable: string,
  tenantId: string,
  conditions: readonly Sql[],
): Promise<Map<string, string>> {
  // (aliases other than the columns' names: an alias named as a column stands for it in WHERE too)
  const rows = await ch.query<{ run: string; example: string }>(
    sql`SELECT toString(id) AS run, toString(assumeNotNull(reference_example_id)) AS example
        FROM ${ident(runsTable)} FINAL
        WHERE tenant_id = toUUID(${tenantId}) AND has_post = 1 AND isNotNull(reference_example_id)
          ${conditions.length > 0 ? sql`AND ${join([...conditions], ' AND ')}` : raw('')}`,
  );
  return new Map(rows.map((r) => [r.run, r.example]));
}

/** A run's place in /runs/query order: (start_time, id), compared by ClickHouse (its UUID order). */
export interface RunPosition {
  startTime: number;
  id: string;
}

export interface RunConditions {
  sql: Sql[];
  /** Columns the conditions read. */
  columns: Set<string>;
}

/** What a phase asks of the conditions. */
export interface ConditionsPhase {
  /** false: may match a superset (evaluated on every stored version of a run); true: exact. */
  exact: boolean;
  /** Bounds the traces that can matter (for subqueries). */
  traceIds: readonly string[] | null;
  /** Only the run's own conditions, none on its trace (a superset). */
  ownOnly?: boolean;
  /**
   * The start times (µs) of every place of every run of the traces that matter: trace subqueries
   * may read only the runs that started in it (a range of `runs`' key). They then answer for
   * those traces alone; a caller must not ask them of runs of other traces.
   */
  traceSpan?: TraceSpan | null;
}

export interface RunPageRequest {
  tenantId: string;
  runsTable: string;
  /** run_keys of the same set of tables. */
  runKeysTable: string;
  /** The conditions a run must meet, built for a phase. */
  conditions: (phase: ConditionsPhase) => RunConditions;
  /** Whether some conditions are on a run's trace (trace_filter, tree_filter): those `ownOnly` leaves out. */
  onTraces?: boolean;
  /** The threads every matching run names (a filter on thread_id), with what else the conditions require of their places. */
  threads?: ThreadRuns | null;
  /** The `runs` columns to return. */
  columns: readonly string[];
  order: 'asc' | 'desc';
  /** Start after this position (exclusive): the cursor. */
  after: RunPosition | null;
  limit: number;
}

export interface RunPage {
  rows: Partial<RunRow>[];
  /** The last returned run's position when more runs follow; null on the last page. */
  next: RunPosition | null;
}

/** A row of phase 1: a run's place in `runs` (its key) and its trace. */
interface Candidate {
  trace_id: string;
  session_id: string;
  is_root: number;
  id: string;
  start_time: string;
}

/**
 * One page of runs in (start_time, id) order, in two phases.
 *
 * 1. Candidates: the keys (and trace ids) of the first matching rows, from narrow columns and
 *    without FINAL. Unmerged older versions of a run are rows too, so this finds every run
 *    whose newest version matches, plus perhaps some whose older version matched (a superset).
 * 2. Rows: the newest version at each candidate's key, by primary key, with the conditions
 *    checked again, exactly, on it; only here are the wide columns read, and only those asked
 *    for. A run that moved (its project or start time changed) has a tombstone (has_post = 0)
 *    as the newest version at its old key, so a candidate from there drops out here.
 *
 * A run whose newest version lies past the last candidate is left to a later window, so the
 * result is exactly what `FINAL` would give. If stale candidates left the page short, the rest
 * comes from one exact (FINAL) candidate query.
 *
 * Phase 1 first looks only at runs that started within RECENT_WINDOW_US of where the page
 * starts (now, or the cursor), as PREWHERE on start_time: the scan then reads the other
 * columns only of granules holding recent runs. When that window holds a full batch, every
 * run up to the last candidate lies inside it, so the page is the same; otherwise phase 1 looks
 * again over a window as much wider as the runs it found were too few (EMPTY_WINDOW_GROWTH
 * times when it found none), up to a week, and then over all runs. `runs` is ordered by time
 * within a project, so a window is a range of the primary index: an empty one costs next to
 * nothing, and a project idle for hours still gets its first page from a window. (Descending
 * order only: an ascending first page has no place to start.) With a filter on thread_id, the
 * runs' places come from run_threads instead (a key lookup per run), and the first look reaches
 * back to the threads' newest places, as many as the page needs: a thread's runs are spread over
 * its whole life, where windows of time would widen again and again. Phase 2 is a few key lookups
 * reading wide columns of neighbouring granules, again and again for the newest pages: it uses
 * ClickHouse's uncompressed block cache.
 */
export async function runPageQuery(ch: ClickHouseClient, q: RunPageRequest): Promise<RunPage> {
  const want = q.limit + 1;
  const desc = q.order === 'desc';
  const dir = raw(desc ? 'DESC' : 'ASC');
  const tenant = sql`tenant_id = toUUID(${q.tenantId})`;
  const position = (p: RunPosition, op: '<' | '>' | '<=' | '>=') =>
    sql`(start_time, id) ${raw(op)} (${p.startTime}, toUUID(${p.id}))`;
  const afterOp = desc ? '<' : '>';
  const untilOp = desc ? '>=' : '<=';
  const table = ident(q.runsTable);
  const at = (c: Candidate): RunPosition => ({ startTime: Number(c.start_time), id: c.id });
  const batch = 2 * want; // an unmerged post and patch of one run are two rows
  const fills = (rows: Candidate[]) => rows.length === batch || distinctRuns(rows).length > want;

  /**
   * Candidates after `after` (and at or before `until`); `since`: only runs that started then or
   * later (PREWHERE); `traceSpan`, `ownOnly`: as the conditions take them.
   */
  const candidates = async (
    exact: boolean,
    after: RunPosition | null,
    limit: number,
    since: number | null = null,
    bounds: { traceSpan?: TraceSpan; ownOnly?: boolean; until?: RunPosition | null } = {},
  ): Promise<Candidate[]> => {
    const where = [
      tenant,
      raw('has_post = 1'),
      ...q.conditions({ exact, traceIds: null, ownOnly: bounds.ownOnly, traceSpan: bounds.traceSpan }).sql,
    ];
    if (after) where.push(position(after, afterOp));
    if (bounds.until) where.push(position(bounds.until, untilOp));
    // Key columns: the primary index narrows the read to the window and to the threads' runs.
    const prewhere: Sql[] = [];
    if (since !== null) prewhere.push(sql`start_time >= ${since}`);
    if (q.threads) prewhere.push(runsOfThreads(q.tenantId, q.threads, since));
    return ch.query<Candidate>(
      sql`SELECT trace_id, ${KEY} FROM ${exact ? sql`${table} FINAL` : table} ${prewhere.length ? sql`PREWHERE ${join(prewhere, ' AND ')}` : raw('')} WHERE ${join(where, ' AND ')}
          ORDER BY start_time ${dir}, id ${dir} LIMIT ${limit}`,
    );
  };

  /** The newest version of each candidate that (still) matches, between `after` and `until`. */
  const rows = async (
    found: Candidate[],
    after: RunPosition | null,
    until: RunPosition | null,
    limit: number,
    span: TraceSpan | null = null,
  ): Promise<Partial<RunRow>[]> => {
    if (found.length === 0) return [];
    const traceIds = [...new Set(found.map((c) => c.trace_id))];
    // A short span of the candidates' traces bounds trace conditions to one range of `runs` (FINAL
    // over it); a long one (a trace that lasted hours) costs more than their runs' places.
    const traceSpan = span && span.to - span.from <= NARROW_SPAN_US ? span : null;
    const conditions = q.conditions({ exact: true, traceIds, traceSpan });
    const outer = new Set(['trace_id', 'id', 'start_time', ...q.columns]);
    const inner = new Set([...outer, ...RUN_KEY_COLUMNS, ...conditions.columns, 'has_post', 'version']);
    const where = [raw('has_post = 1'), ...conditions.sql];
    if (after) where.push(position(after, afterOp));
    if (until) where.push(position(until, untilOp));
    // UUIDs as string literals: the list parses as one constant (uuidSet).
    const keyList = join(
      found.map((c) => sql`(${c.session_id}, ${Number(c.is_root)}, ${Number(c.start_time)}, ${c.id})`),
    );
    // Every version of the candidates, in page order and newest first, each saying whether it
    // meets the page's conditions: the newest version of each place decides (what LIMIT 1 BY did
    // in a subquery, whose conditions then ran outside it; ~5 ms of a ~25 ms read more at 1M).
    const read = await ch.query<Record<string, unknown>>(
      sql`SELECT ${join([...inner].map((c) => ident(c)))}, ${join(where, ' AND ')} AS page_match FROM ${table}
          PREWHERE ${tenant} AND (${KEY}) IN (${keyList})
          ORDER BY start_time ${dir}, id ${dir}, version DESC`,
      { cacheBlocks: true },
    );
    const page: Partial<RunRow>[] = [];
    const seen = new Set<string>();
    for (const r of read) {
      const place = `${r.session_id as string}|${r.is_root as number}|${r.start_time as string}|${r.id as string}`;
      if (seen.has(place)) continue; // an older version of a place already decided
      seen.add(place);
      if (Number(r.page_match) !== 1) continue;
      const row: Record<string, unknown> = {};
      for (const c of outer) row[c] = r[c];
      page.push(partialRowFromClickHouse(row));
      if (page.length === limit) break;
    }
    return page;
  };

  /** A look's candidates, and the span of their traces' runs when it bounded their trace conditions. */
  type Look = { found: Candidate[]; span: TraceSpan | null };
  /**
   * Conditions on a run's trace (trace_filter, tree_filter) are subqueries that read a column of
   * every run of the projects, however small the look. So a look first takes its newest runs by
   * their own conditions alone (narrow columns, a superset). When their traces are few, the time
   * span of those traces' runs (from run_keys) bounds the trace conditions to one range of
   * `runs`, and the candidates are taken up to the last of those runs: every run before it that
   * meets its own conditions is in one of those traces. Null when that cannot tell: too many
   * traces, or more runs met their own conditions and the candidates up to there do not fill.
   */
  const byTheirTraces = async (since: number | null): Promise<Look | null> => {
    const ownLimit = OWN_BATCH_PER_RUN * want;
    const own = await candidates(false, q.after, ownLimit, since, { ownOnly: true });
    if (own.length === 0) return { found: [], span: null }; // nothing in the look meets even its own conditions
    const traceIds = [...new Set(own.map((c) => c.trace_id))];
    if (traceIds.length > MAX_BOUNDING_TRACES) return null;
    const traceSpan = await traceSpanQuery(ch, q.runKeysTable, q.tenantId, traceIds);
    if (!traceSpan) return null;
    // Fewer than asked for: these are all the look's runs that meet their own conditions.
    const all = own.length < ownLimit;
    const found = await candidates(false, q.after, batch, since, {
      traceSpan,
      until: all ? null : at(own[own.length - 1]!),
    });
    return all || fills(found) ? { found, span: traceSpan } : null;
  };
  /** Phase 1's candidates of a look (`since`: over the runs that started then or later; null: all). */
  const look = async (since: number | null): Promise<Look> =>
    (q.onTraces ? await byTheirTraces(since) : null) ?? {
      found: await candidates(false, q.after, batch, since),
      span: null,
    };

  /**
   * With a filter on thread_id: the start of its threads' newest places (run_threads) before the
   * page, as many as THREAD_PLACES_PER_RUN per candidate wanted, where a look likely fills; null
   * when the threads have no more than that (a look over all of them reads just those).
   */
  const threadSince = async (threads: ThreadRuns): Promise<number | null> => {
    const where = threadRunsWhere(q.tenantId, threads);
    if (q.after) where.push(position(q.after, afterOp));
    const places = THREAD_PLACES_PER_RUN * batch;
    const [row] = await ch.query<{ n: string; oldest: string }>(
      sql`SELECT count() AS n, min(start_time) AS oldest FROM (
            SELECT start_time FROM ${ident(threads.table)} WHERE ${join(where, ' AND ')} ORDER BY start_time DESC, id DESC LIMIT ${places})`,
    );
    return row && Number(row.n) >= places ? Number(row.oldest) : null;
  };

  let first: Look | null = null;
  let whole = false; // the look was over all runs
  if (desc && q.threads) {
    // The threads' runs are spread over their whole life: windows of time would widen again
    // and again. Their newest places say where a look fills.
    const since = await threadSince(q.threads);
    first = await look(since);
    whole = since === null;
  } else if (desc) {
    // The first look; then, while it does not fill, one as much wider as the runs found were too
    // few (EMPTY_WINDOW_GROWTH times wider when none: a window without runs costs only the
    // primary index), up to the widest; then all.
    const from = q.after?.startTime ?? Date.now() * 1000;
    let window = RECENT_WINDOW_US;
    first = await look(from - window);
    while (!fills(first.found) && window < WIDEST_WINDOW_US) {
      const found = distinctRuns(first.found).length;
      window = Math.min(
        WIDEST_WINDOW_US,
        found > 0 ? window * Math.ceil((2 * want) / found) : window * EMPTY_WINDOW_GROWTH,
      );
      first = await look(from - window);
    }
  }
  if (!first || (!whole && !fills(first.found))) first = await look(null);
  // The first `want` distinct runs; the window ends at the last of them unless that was all there is.
  const distinct = distinctRuns(first.found);
  const taken = distinct.slice(0, want);
  const windowEnd = fills(first.found) ? at(taken[taken.length - 1]!) : null;
  // The span, when the look had one, holds every run of the taken candidates' traces.
  const page = await rows(taken, q.after, windowEnd, want, first.span);
  if (page.length < want && windowEnd)
    page.push(
      ...(await rows(await candidates(true, windowEnd, want - page.length), windowEnd, null, want - page.length)),
    );

  const more = page.length > q.limit;
  const out = page.slice(0, q.limit);
  const last = out[out.length - 1];
  return { rows: out, next: more && last ? { startTime: last.start_time!, id: last.id! } : null };
}

/** Phase 1's first look: runs that started at most this long (µs) before the page's start. */
export const RECENT_WINDOW_US = 15 * 60 * 1_000_000;
/** With trace conditions, the first look takes this many runs per run wanted by their own conditions alone. */
const OWN_BATCH_PER_RUN = 2;
/** … and bounds the trace conditions by their traces when there are at most this many. */
const MAX_BOUNDING_TRACES = 1000;
/** Phase 2 bounds trace conditions by the span of its candidates' traces up to this long (µs). */
const NARROW_SPAN_US = 3600 * 1_000_000;
/** With a filter on thread_id, the first look covers the threads' newest places, this many per candidate row wanted. */
const THREAD_PLACES_PER_RUN = 2;
/** The widest look (µs); past that, phase 1 reads all runs. */
const WIDEST_WINDOW_US = 7 * 24 * 3600 * 1_000_000;
/** How much wider the next look is when a window held no run at all (15 min, 8 h, then a week). */
const EMPTY_WINDOW_GROWTH = 32;

/** The key columns of `runs` after tenant_id. */
const KEY = raw(RUN_KEY_COLUMNS.join(', '));

/**
 * Candidates in order, each key once (at its first row): a run once, or once per place it had
 * (only the newest version at its current place can be posted; phase 2 drops the others).
 */
function distinctRuns(rows: Candidate[]): Candidate[] {
  const seen = new Set<string>();
  return rows.filter((c) => {
    const key = `${c.session_id}/${c.is_root}/${c.start_time}/${c.id}`;
    const fresh = !seen.has(key);
    seen.add(key);
    return fresh;
  });
}

const NUMERIC_COLUMNS = [
  'start_time',
  'end_time',
  'first_token_time',
  'is_root',
  'has_post',
  'received_at',
  'version',
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'prompt_cost',
  'completion_cost',
  'total_cost',
] as const;

/** Like rowFromClickHouse, for rows that carry only some columns. */
export function partialRowFromClickHouse(raw: Record<string, unknown>): Partial<RunRow> {
  const row = { ...raw } as Record<string, unknown>;
  for (const c of NUMERIC_COLUMNS) if (row[c] !== undefined && row[c] !== null) row[c] = Number(row[c]);
  return row as Partial<RunRow>;
}

// feedback_stats of runs is read from the feedback read model, where it lives.
