// Reads of the examples read model (exampleTables.ts): a dataset as it was at a version (`as_of`,
// microseconds; the newest when absent), its examples by id, how many it holds, its versions, its
// splits, and what changed between two versions; and the statement a bulk export of a version
// streams. Every read names the workspace, and each one takes, per example id, the newest version
// at or before `as_of`, then leaves out the deleted.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, raw, sql, type Sql } from '../../platform/clickhouse/sql.ts';
import type { ReadModelTables } from '../shared/readModelTables.ts';
import { exampleRowFromClickHouse, type ExampleRow } from './exampleRow.ts';

type Tables = Pick<ReadModelTables, 'examples' | 'exampleIds'>;

export interface ExampleSelection {
  datasetId: string;
  /** Microseconds: the dataset as it was then; its newest version when absent. */
  asOf?: number | null;
  /** Only these example ids. */
  ids?: readonly string[];
  /** Only examples in any of these splits. */
  splits?: readonly string[];
}

const inList = (values: readonly string[]): Sql => join(values.map((v) => sql`${v}`));

/** The newest version at or before `asOf` of each example of the selection, deleted ones included. */
function versionsAt(tables: Tables, tenantId: string, s: ExampleSelection, columns: Sql = raw('*')): Sql {
  return sql`SELECT ${columns} FROM ${ident(tables.examples)} FINAL
    WHERE tenant_id = ${tenantId} AND dataset_id = ${s.datasetId}
      ${s.ids ? sql`AND id IN (${inList(s.ids)})` : raw('')}
      ${s.asOf != null ? sql`AND modified_at <= ${s.asOf}` : raw('')}
    ORDER BY id, modified_at DESC LIMIT 1 BY id`;
}

const splitFilter = (splits: readonly string[] | undefined): Sql =>
  splits && splits.length > 0 ? sql`AND hasAny(splits, ${splits})` : raw('');

/** The live examples of a selection, oldest first (ties by id): a stable order for offset paging. */
export async function examplesQuery(
  ch: ClickHouseClient,
  tables: Tables,
  tenantId: string,
  selection: ExampleSelection,
  page?: { offset: number; limit: number },
): Promise<ExampleRow[]> {
  if (selection.ids?.length === 0) return [];
  if (!page) {
    const rows = await ch.query(
      sql`SELECT * FROM (${versionsAt(tables, tenantId, selection)})
          WHERE deleted = 0 ${splitFilter(selection.splits)}
          ORDER BY created_at, id`,
    );
    return rows.map(exampleRowFromClickHouse);
  }
  // A page: its keys (id, version) chosen from the light columns, then only its rows read whole.
  // PREWHERE reads the payloads of the granules that hold them alone (an example's versions share
  // its id and modified_at, so filtering before FINAL collapses them changes nothing).
  const keys = sql`SELECT id, modified_at FROM (${versionsAt(tables, tenantId, selection, raw('id, modified_at, created_at, deleted, splits'))})
      WHERE deleted = 0 ${splitFilter(selection.splits)}
      ORDER BY created_at, id
      LIMIT ${page.offset}, ${page.limit}`;
  const rows = await ch.query(
    sql`SELECT * FROM ${ident(tables.examples)} FINAL
        PREWHERE (id, modified_at) IN (${keys})
        WHERE tenant_id = ${tenantId} AND dataset_id = ${selection.datasetId}
        ORDER BY created_at, id`,
  );
  return rows.map(exampleRowFromClickHouse);
}

/** The ids of examplesQuery's examples, in its order, without their payloads: for pages cut outside SQL. */
export async function exampleIdsQuery(
  ch: ClickHouseClient,
  tables: Tables,
  tenantId: string,
  selection: ExampleSelection,
): Promise<string[]> {
  if (selection.ids?.length === 0) return [];
  const rows = await ch.query<{ id: string }>(
    sql`SELECT id FROM (${versionsAt(tables, tenantId, selection, raw('id, modified_at, created_at, deleted, splits'))})
        WHERE deleted = 0 ${splitFilter(selection.splits)}
        ORDER BY created_at, id`,
  );
  return rows.map((r) => r.id);
}

/** Bytes a sort may hold in memory before ClickHouse spills it to disk (a dataset of any size is read whole). */
const SORT_MEMORY_BYTES = 1_000_000_000;

/**
 * The statement (not run here: a bulk export streams it) of a dataset's live examples at `asOf`,
 * `columns` selected from each one's version there, oldest first (created_at, id; an example's
 * created_at is the same in all its versions), after the example `after` when given.
 */
export function examplesAtVersionStatement(
  tables: Tables,
  tenantId: string,
  datasetId: string,
  asOf: number,
  columns: Sql,
  after: { createdAt: number; id: string } | null,
): Sql {
  return sql`SELECT ${columns} FROM (${versionsAt(tables, tenantId, { datasetId, asOf })})
    WHERE deleted = 0${after ? sql` AND (created_at, id) > (${after.createdAt}, toUUID(${after.id}))` : raw('')}
    ORDER BY created_at, id
    SETTINGS max_bytes_before_external_sort = ${SORT_MEMORY_BYTES}`;
}

/** The datasets that hold these example ids (whether the examples are live or not), by id. */
export async function exampleDatasetsQuery(
  ch: ClickHouseClient,
  tables: Tables,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await ch.query<{ id: string; dataset_id: string }>(
    sql`SELECT id, dataset_id FROM ${ident(tables.exampleIds)} FINAL
        WHERE tenant_id = ${tenantId} AND id IN (${inList(ids)})`,
  );
  return new Map(rows.map((r) => [r.id, r.dataset_id]));
}

/** Live examples per dataset at its newest version. */
export async function exampleCountsQuery(
  ch: ClickHouseClient,
  tables: Tables,
  tenantId: string,
  datasetIds: readonly string[],
): Promise<Map<string, number>> {
  if (datasetIds.length === 0) return new Map();
  const rows = await ch.query<{ dataset_id: string; n: string }>(
    sql`SELECT dataset_id, count() AS n FROM (
          SELECT dataset_id, deleted FROM ${ident(tables.examples)} FINAL
          WHERE tenant_id = ${tenantId} AND dataset_id IN (${inList(datasetIds)})
          ORDER BY dataset_id, id, modified_at DESC LIMIT 1 BY dataset_id, id)
        WHERE deleted = 0 GROUP BY dataset_id`,
  );
  return new Map(rows.map((r) => [r.dataset_id, Number(r.n)]));
}

/** The dataset's versions, newest first: each write's time and how many examples it changed. */
export async function datasetVersionsQuery(
  ch: ClickHouseClient,
  tables: Tables,
  tenantId: string,
  datasetId: string,
  page: { offset: number; limit: number; before?: number | null },
): Promise<Array<{ modifiedAt: number; changed: number }>> {
  const rows = await ch.query<{ modified_at: string; n: string }>(
    sql`SELECT modified_at, count() AS n FROM ${ident(tables.examples)} FINAL
        WHERE tenant_id = ${tenantId} AND dataset_id = ${datasetId}
          ${page.before != null ? sql`AND modified_at <= ${page.before}` : raw('')}
        GROUP BY modified_at ORDER BY modified_at DESC LIMIT ${page.offset}, ${page.limit}`,
  );
  return rows.map((r) => ({ modifiedAt: Number(r.modified_at), changed: Number(r.n) }));
}

/** The splits the dataset's live examples are in at `asOf`, sorted. */
export async function datasetSplitsQuery(
  ch: ClickHouseClient,
  tables: Tables,
  tenantId: string,
  datasetId: string,
  asOf: number | null,
): Promise<string[]> {
  const rows = await ch.query<{ split: string }>(
    sql`SELECT DISTINCT arrayJoin(splits) AS split FROM (${versionsAt(tables, tenantId, { datasetId, asOf }, raw('id, modified_at, deleted, splits'))})
        WHERE deleted = 0 ORDER BY split`,
  );
  return rows.map((r) => r.split);
}

/** The live example ids at `asOf`, each with the time of its version there. */
export async function exampleVersionsAtQuery(
  ch: ClickHouseClient,
  tables: Tables,
  tenantId: string,
  datasetId: string,
  asOf: number | null,
): Promise<Map<string, number>> {
  const rows = await ch.query<{ id: string; modified_at: string }>(
    sql`SELECT id, modified_at FROM (${versionsAt(tables, tenantId, { datasetId, asOf }, raw('id, modified_at, deleted'))})
        WHERE deleted = 0`,
  );
  return new Map(rows.map((r) => [r.id, Number(r.modified_at)]));
}
