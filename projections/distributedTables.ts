// Sharding the read models over a cluster of several shards: a Distributed table over each
// read-model table, `<table>_all`, made when CLICKHOUSE_CLUSTER is set (ensureReadModels). Rows
// are spread by workspace, `cityHash64(tenant_id)`: every read-model table's sort key begins with
// tenant_id, so the versions of a row (ReplacingMergeTree) always meet on one shard, and a
// workspace's reads, which all name their workspace, are answered by one shard. A workspace
// larger than one shard is beyond this layout. Writes through a `_all` table go to the shard of
// their workspace; reads through it ask every shard. On a cluster of one shard (the local
// replicated pair), the `_all` tables answer as the tables themselves.
import { ident, raw, type Sql } from '../platform/clickhouse/sql.ts';

export const DISTRIBUTED_SUFFIX = '_all';
export const SHARDING_KEY = 'cityHash64(tenant_id)';

/**
 * The Distributed table over `table` of `database` on `cluster`. Its source is named with its
 * database (ON CLUSTER DDL runs in each server's default database); the client adds ON CLUSTER.
 */
export function createDistributedTable(table: string, database: string, cluster: string): Sql {
  const source = `${ident(database).text}.${ident(table).text}`;
  return raw(
    `CREATE TABLE IF NOT EXISTS ${ident(`${table}${DISTRIBUTED_SUFFIX}`).text} AS ${source} ` +
      `ENGINE = Distributed(${ident(cluster).text}, ${ident(database).text}, ${ident(table).text}, ${SHARDING_KEY})`,
  );
}
