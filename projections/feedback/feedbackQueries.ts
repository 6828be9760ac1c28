// Reads of the `feedback` read model: one item, a filtered page, and feedback_stats per run and
// per project. Only live items count: the newest row of an id, unless it is a deletion's
// tombstone (`deleted = 1`). Feedback that reached the projector before its run has no project
// in its row (session_id null); the project is then the run's, looked up in run_locations.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql, uuidList, uuidSet, type Sql } from '../../platform/clickhouse/sql.ts';
import type { ReadModelTables } from '../shared/readModelTables.ts';
import { ZERO_UUID } from '../shared/runRow.ts';
import { traceSetSource, traceSetWhere, type TraceSet } from '../shared/traceSet.ts';
import { feedbackRowFromClickHouse, type FeedbackRow } from './feedbackRow.ts';
import type { FeedbackTokenRow } from './feedbackTokenTable.ts';

/** Per feedback key: count, mean and spread of scores, counts of categorical values (LangSmith's feedback_stats). */
export interface FeedbackStat {
  n: number;
  avg: number | null;
  stdev: number | null;
  errors: number;
  values: Record<string, number>;
}

type FeedbackTables = Pick<ReadModelTables, 'feedback' | 'runLocations'>;

/** `column IN (ids)` for a Nullable(UUID) column: ClickHouse 18.16 refuses IN there, has() works on both. */
const nullableIn = (column: string, ids: readonly string[]): Sql => sql`has([${uuidList(ids)}], ${ident(column)})`;

/** The live item of that id in the workspace; null when there is none or it was deleted. */
export async function feedbackByIdQuery(
  ch: ClickHouseClient,
  table: string,
  tenantId: string,
  id: string,
): Promise<FeedbackRow | null> {
  // By id alone (the table is ordered by run): the newest version, read without FINAL.
  const [row] = await ch.query(
    sql`SELECT * FROM ${ident(table)} WHERE tenant_id = toUUID(${tenantId}) AND id = toUUID(${id}) ORDER BY version DESC LIMIT 1`,
  );
  if (!row) return null;
  const item = feedbackRowFromClickHouse(row);
  return item.deleted ? null : item;
}

export interface FeedbackFilter {
  runIds?: string[] | undefined;
  keys?: string[] | undefined;
  sessionIds?: string[] | undefined;
  /** feedback_source.type: api, model, app, … */
  sources?: string[] | undefined;
  hasComment?: boolean | undefined;
  hasScore?: boolean | undefined;
  /** run: feedback on runs; session: feedback on a project. */
  level?: 'run' | 'session' | undefined;
}

/** A page of the workspace's live items, newest first. */
export async function feedbackListQuery(
  ch: ClickHouseClient,
  tables: FeedbackTables,
  tenantId: string,
  f: FeedbackFilter,
  offset: number,
  limit: number,
): Promise<FeedbackRow[]> {
  const texts = (values: string[]) => join(values.map((v) => sql`${v}`));
  const where: Sql[] = [sql`tenant_id = toUUID(${tenantId})`, raw('deleted = 0')];
  if (f.runIds) where.push(f.runIds.length ? sql`run_id IN (${uuidSet(f.runIds)})` : raw('0'));
  if (f.keys) where.push(f.keys.length ? sql`key IN (${texts(f.keys)})` : raw('0'));
  if (f.sessionIds) where.push(f.sessionIds.length ? inProjects(tables, tenantId, f.sessionIds) : raw('0'));
  if (f.sources)
    where.push(
      f.sources.length ? sql`visitParamExtractString(feedback_source, 'type') IN (${texts(f.sources)})` : raw('0'),
    );
  if (f.hasComment !== undefined)
    where.push(raw(f.hasComment ? "ifNull(comment, '') != ''" : "ifNull(comment, '') = ''"));
  if (f.hasScore !== undefined) where.push(f.hasScore ? raw('isNotNull(score)') : raw('isNull(score)'));
  if (f.level) where.push(f.level === 'run' ? sql`run_id != toUUID(${ZERO_UUID})` : sql`run_id = toUUID(${ZERO_UUID})`);
  const rows = await ch.query(
    sql`SELECT * FROM ${ident(tables.feedback)} FINAL WHERE ${join(where, ' AND ')}
        ORDER BY created_at DESC, id DESC LIMIT ${offset}, ${limit}`,
  );
  return rows.map(feedbackRowFromClickHouse);
}

/** Items of these projects: by their own project, or, where the row has none yet, by their run's. */
const inProjects = (tables: FeedbackTables, tenantId: string, projectIds: readonly string[]): Sql =>
  sql`(${nullableIn('session_id', projectIds)} OR (isNull(session_id) AND run_id IN (
        SELECT id FROM ${ident(tables.runLocations)}
        WHERE tenant_id = toUUID(${tenantId}) AND session_id IN (${uuidSet(projectIds)}))))`;

/** Where these runs live (trace, project), for items whose row does not say yet. */
export interface RunPlace {
  traceId: string;
  sessionId: string;
}

export async function runPlacesQuery(
  ch: ClickHouseClient,
  table: string,
  tenantId: string,
  runIds: readonly string[],
): Promise<Map<string, RunPlace>> {
  const places = new Map<string, RunPlace>();
  for (let i = 0; i < runIds.length; i += 2000) {
    const rows = await ch.query<{ id: string; trace_id: string; session_id: string }>(
      sql`SELECT id, trace_id, session_id FROM ${ident(table)} FINAL
          WHERE tenant_id = toUUID(${tenantId}) AND id IN (${uuidSet(runIds.slice(i, i + 2000))})`,
    );
    for (const r of rows) places.set(r.id, { traceId: r.trace_id, sessionId: r.session_id });
  }
  return places;
}

// ---- feedback_stats ----

interface StatGroup {
  key: string;
  value: string;
  n: string;
  scored: string;
  total: number | null;
  squares: number | null;
}

const statColumns = raw(
  'key, value, count() AS n, count(score) AS scored, sum(score) AS total, sum(score * score) AS squares',
);

/** Folds (owner, key, value) groups into feedback_stats per owner (a run or a project). */
function foldStats(groups: Array<StatGroup & { owner: string }>): Map<string, Record<string, FeedbackStat>> {
  type Sums = { n: number; scored: number; total: number; squares: number; values: Record<string, number> };
  const sums = new Map<string, Map<string, Sums>>();
  for (const g of groups) {
    const byKey = sums.get(g.owner) ?? new Map();
    sums.set(g.owner, byKey);
    const s = byKey.get(g.key) ?? { n: 0, scored: 0, total: 0, squares: 0, values: {} };
    byKey.set(g.key, s);
    s.n += Number(g.n);
    s.scored += Number(g.scored);
    s.total += Number(g.total ?? 0);
    s.squares += Number(g.squares ?? 0);
    const category = categoricalValue(g.value);
    if (category !== null) s.values[category] = (s.values[category] ?? 0) + Number(g.n);
  }
  const stats = new Map<string, Record<string, FeedbackStat>>();
  for (const [owner, byKey] of sums) {
    const out: Record<string, FeedbackStat> = {};
    for (const [key, s] of byKey) {
      const avg = s.scored > 0 ? s.total / s.scored : null;
      const stdev = avg === null ? null : Math.sqrt(Math.max(0, s.squares / s.scored - avg * avg));
      out[key] = { n: s.n, avg, stdev, errors: 0, values: s.values };
    }
    stats.set(owner, out);
  }
  return stats;
}

/** A feedback value (JSON text) counted in `values`: strings, numbers and booleans; not objects. */
function categoricalValue(json: string): string | null {
  if (json === '') return null;
  try {
    const v: unknown = JSON.parse(json);
    return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
  } catch {
    return null;
  }
}

/**
 * feedback_stats of each run (runs without feedback are absent from the map); of only the
 * feedback of a comparative experiment (pairwise scores) when one is named.
 */
export async function feedbackStatsQuery(
  ch: ClickHouseClient,
  tenantId: string,
  feedbackTable: string,
  runIds: readonly string[],
  comparativeExperimentId: string | null = null,
): Promise<Map<string, Record<string, FeedbackStat>>> {
  if (runIds.length === 0) return new Map();
  const groups = await ch.query<StatGroup & { owner: string }>(
    sql`SELECT toString(run_id) AS owner, ${statColumns}
        FROM ${ident(feedbackTable)} FINAL
        WHERE tenant_id = toUUID(${tenantId}) AND deleted = 0
          AND run_id IN (SELECT toUUID(arrayJoin([${join(runIds.map((id) => sql`${id}`))}])))
          ${comparativeExperimentId === null ? raw('') : sql`AND ${nullableIn('comparative_experiment_id', [comparativeExperimentId])}`}
        GROUP BY owner, key, value`,
  );
  return foldStats(groups);
}

/** feedback_stats of each comparative experiment: the feedback that names it (those without any are absent from the map). */
export async function comparativeFeedbackStatsQuery(
  ch: ClickHouseClient,
  tenantId: string,
  feedbackTable: string,
  comparativeExperimentIds: readonly string[],
): Promise<Map<string, Record<string, FeedbackStat>>> {
  if (comparativeExperimentIds.length === 0) return new Map();
  const groups = await ch.query<StatGroup & { owner: string }>(
    sql`SELECT toString(assumeNotNull(comparative_experiment_id)) AS owner, ${statColumns}
        FROM ${ident(feedbackTable)} FINAL
        WHERE tenant_id = toUUID(${tenantId}) AND deleted = 0
          AND ${nullableIn('comparative_experiment_id', comparativeExperimentIds)}
        GROUP BY owner, key, value`,
  );
  return foldStats(groups);
}

/**
 * feedback_stats of each project: the feedback on its runs (projects without any are absent
 * from the map). Items without a project yet count for their run's.
 */
export async function projectFeedbackStatsQuery(
  ch: ClickHouseClient,
  tables: FeedbackTables,
  tenantId: string,
  projectIds: readonly string[],
): Promise<Map<string, Record<string, FeedbackStat>>> {
  if (projectIds.length === 0) return new Map();
  const groups = await ch.query<StatGroup & { session: string | null; orphan_run: string }>(
    sql`SELECT toString(session_id) AS session, if(isNull(session_id), toString(run_id), '') AS orphan_run, ${statColumns}
        FROM ${ident(tables.feedback)} FINAL
        WHERE tenant_id = toUUID(${tenantId}) AND deleted = 0 AND run_id != toUUID(${ZERO_UUID})
          AND (${nullableIn('session_id', projectIds)} OR isNull(session_id))
        GROUP BY session, orphan_run, key, value`,
  );
  const orphanRuns = [...new Set(groups.filter((g) => g.session === null).map((g) => g.orphan_run))];
  const places = await runPlacesQuery(ch, tables.runLocations, tenantId, orphanRuns);
  const wanted = new Set(projectIds);
  const owned = groups.flatMap((g) => {
    const owner = g.session ?? places.get(g.orphan_run)?.sessionId;
    return owner !== undefined && wanted.has(owner) ? [{ ...g, owner }] : [];
  });
  return foldStats(owned);
}

/**
 * feedback_stats of the feedback given on each project itself rather than on a run (an
 * experiment's summary evaluators give it): LangSmith's session_feedback_stats. Projects without
 * any are absent from the map.
 */
export async function sessionFeedbackStatsQuery(
  ch: ClickHouseClient,
  feedbackTable: string,
  tenantId: string,
  projectIds: readonly string[],
): Promise<Map<string, Record<string, FeedbackStat>>> {
  if (projectIds.length === 0) return new Map();
  const groups = await ch.query<StatGroup & { owner: string }>(
    sql`SELECT toString(assumeNotNull(session_id)) AS owner, ${statColumns}
        FROM ${ident(feedbackTable)} FINAL
        WHERE tenant_id = toUUID(${tenantId}) AND run_id = toUUID(${ZERO_UUID}) AND deleted = 0
          AND ${nullableIn('session_id', projectIds)}
        GROUP BY owner, key, value`,
  );
  return foldStats(groups);
}

/**
 * feedback_stats over a set of traces (project stats over a time range): the feedback on the
 * runs of those traces, or only on their roots. Items whose row has no trace yet are left out.
 * The traces with feedback in the set's projects (or whose run was not found when it came, with
 * the trace id its client sent) are found first (most projects have none): up to
 * FEEDBACK_TRACES_BY_KEY of them are checked against the set by their key in `traces`, so the
 * cost follows the feedback, not the project; beyond, the set's traces are read.
 */
export async function traceSetFeedbackStatsQuery(
  ch: ClickHouseClient,
  tables: Pick<
    ReadModelTables,
    'feedback' | 'traces' | 'tracesByHour' | 'traceHourWrites' | 'traceHourStats' | 'tracesByThread'
  >,
  set: TraceSet,
  of: 'all' | 'roots',
): Promise<Record<string, FeedbackStat>> {
  const live = sql`tenant_id = toUUID(${set.tenantId}) AND deleted = 0 AND run_id != toUUID(${ZERO_UUID})${of === 'roots' ? raw(' AND run_id = trace_id') : raw('')}`;
  const traced = await ch.query<{ id: string }>(
    // (18.16 compares a Nullable(UUID) with UUIDs in IN only once it is not nullable)
    sql`SELECT DISTINCT toString(assumeNotNull(trace_id)) AS id FROM ${ident(tables.feedback)}
        WHERE ${live} AND isNotNull(trace_id)
          AND (isNull(session_id) OR assumeNotNull(session_id) IN (${uuidSet(set.projectIds)}))
        LIMIT ${FEEDBACK_TRACES_BY_KEY + 1}`,
  );
  if (traced.length === 0) return {};
  let traces: Sql;
  if (traced.length <= FEEDBACK_TRACES_BY_KEY) {
    traces = sql`SELECT trace_id FROM ${ident(tables.traces)} FINAL WHERE ${traceSetWhere(set)} AND trace_id IN (${uuidSet(traced.map((t) => t.id))})`;
  } else {
    const source = await traceSetSource(ch, tables, set);
    traces = sql`SELECT trace_id FROM ${source.table} FINAL WHERE ${source.where}`;
  }
  const groups = await ch.query<StatGroup>(
    sql`SELECT ${statColumns}
        FROM ${ident(tables.feedback)} FINAL
        WHERE ${live} AND trace_id IN (${traces})
        GROUP BY key, value`,
  );
  return foldStats(groups.map((g) => ({ ...g, owner: '' }))).get('') ?? {};
}

/** Traces with feedback up to which project stats look their traces up by key (see traceSetFeedbackStatsQuery). */
const FEEDBACK_TRACES_BY_KEY = 5000;

/** A presigned feedback token, by its id alone (whoever holds it acts in its workspace); null when there is none. */
export async function feedbackTokenQuery(
  ch: ClickHouseClient,
  table: string,
  tokenId: string,
): Promise<FeedbackTokenRow | null> {
  const [row] = await ch.query(
    sql`SELECT * FROM ${ident(table)} WHERE id = toUUID(${tokenId}) ORDER BY version DESC LIMIT 1`,
  );
  if (!row) return null;
  const r = row as Record<string, unknown>;
  return {
    ...(r as unknown as FeedbackTokenRow),
    expires_at: Number(r.expires_at),
    created_at: Number(r.created_at),
    version: Number(r.version),
  };
}
