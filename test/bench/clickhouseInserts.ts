// How many inserts ClickHouse took, per table of a database: each insert into a MergeTree table
// is a part (a file or two per column on disk), whatever its size, and on a small machine the
// part, not the row, is most of what ClickHouse spends on an insert. A table's block counter
// grows by one per insert and never goes back (a merged part keeps its sources' highest block
// number), so two readings of max(max_block_number) differ by the inserts between them.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { sql } from '../../platform/clickhouse/sql.ts';
import { round } from './measure.ts';

export type InsertCounts = Record<string, number>;

/** Every MergeTree table of the database and the inserts it has taken so far. */
export async function insertCounts(ch: ClickHouseClient, database: string): Promise<InsertCounts> {
  const rows = await ch.query<{ table: string; inserts: string | number }>(
    sql`SELECT table, max(max_block_number) AS inserts FROM system.parts WHERE database = ${database} GROUP BY table`,
  );
  return Object.fromEntries(rows.map((r) => [r.table, Number(r.inserts)]));
}

/**
 * Inserts per 1,000 runs between two readings, by table (tables with none left out) and in all
 * (`total`); tables named in `except` are not counted.
 */
export function insertsPer1kRuns(
  before: InsertCounts,
  after: InsertCounts,
  runs: number,
  except: readonly string[] = [],
): Record<string, number> | null {
  if (runs <= 0) return null;
  const perThousand = (inserts: number) => round((inserts * 1000) / runs, 2)!;
  const per: Record<string, number> = {};
  let total = 0;
  for (const [table, n] of Object.entries(after)) {
    if (except.includes(table)) continue;
    const inserts = n - (before[table] ?? 0);
    if (inserts <= 0) continue;
    per[table] = perThousand(inserts);
    total += inserts;
  }
  return { ...per, total: perThousand(total) };
}
