// Waits for ClickHouse's background merges in a database to end before a timed phase: merges of
// the parts a seeding or an earlier phase left use the cores the phase is timed on, and count as
// ClickHouse's CPU in whatever is metered meanwhile.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { sql } from '../../platform/clickhouse/sql.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until ClickHouse runs no merge in `database` for three seconds in a row, or `timeoutMs`
 * is up; answers how long it waited and whether the merges ended.
 */
export async function settleMerges(
  ch: ClickHouseClient,
  database: string,
  timeoutMs: number,
): Promise<{ seconds: number; settled: boolean }> {
  const started = performance.now();
  let quiet = 0;
  while (performance.now() - started < timeoutMs) {
    const [row] = await ch.query<{ n: string }>(
      sql`SELECT count() AS n FROM system.merges WHERE database = ${database}`,
    );
    quiet = Number(row?.n ?? 0) === 0 ? quiet + 1 : 0;
    if (quiet >= 3) return { seconds: (performance.now() - started) / 1000, settled: true };
    await sleep(1000);
  }
  return { seconds: (performance.now() - started) / 1000, settled: false };
}
