// Deleting a project's rows deletes those rows only. Feedback that came before its run has no
// project in its row (session_id NULL): it belongs to whichever project its run turns out to be
// in, so deleting some other project must leave it. (ClickHouse 18.16 runs ALTER … DELETE as
// "keep where NOT condition", so a condition that is NULL for a row deleted it.)
import { expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import { ident, sql } from '../../../platform/clickhouse/sql.ts';
import { createFeedbackTable } from '../../../projections/feedback/feedbackTable.ts';
import { deleteProjectRows } from '../../../projections/shared/projectRows.ts';
import { provideInfra } from '../../support/infra.ts';
import { waitFor } from '../../support/serviceProcess.ts';

test("a project's deletion leaves rows without a project, and other projects' and workspaces' rows", async () => {
  const infra = await provideInfra();
  const database = `project_rows_${randomBytes(4).toString('hex')}`;
  const ch = new ClickHouseClient({ url: infra.clickhouseUrl, database });
  const [tenant, otherTenant] = ['9e07b0a5-7a1e-5e86-877d-fe30e64d77bf', '1b2c3d4e-0000-4000-8000-000000000002'];
  const [doomed, kept] = ['8843ebdb-1b62-542c-bc22-4bd9ab88ead7', '5d1f0c2a-0000-4000-8000-000000000003'];
  const item = (n: number, tenant_id: string, session_id: string | null) => ({
    tenant_id,
    run_id: `01973000-0000-7000-8000-00000000010${n}`,
    id: `01973000-0000-7000-8000-000000000f0${n}`,
    session_id,
    key: 'quality',
    version: 1,
  });
  try {
    await ch.exec(sql`CREATE DATABASE ${ident(database)}`, { database: null });
    await ch.exec(createFeedbackTable());
    await ch.insert('feedback', [
      item(1, tenant, doomed),
      item(2, tenant, null),
      item(3, tenant, kept),
      item(4, otherTenant, doomed),
      item(5, otherTenant, null),
    ]);

    await deleteProjectRows(ch, 'feedback', tenant, doomed);
    const left = () => ch.query<{ id: string }>(sql`SELECT toString(id) AS id FROM feedback ORDER BY id`);
    await waitFor(
      'the deletion to be done',
      async () => {
        const [pending] = await ch.query<{ n: string }>(
          sql`SELECT count() AS n FROM system.mutations WHERE database = ${database} AND NOT is_done`,
        );
        return Number(pending!.n) === 0 && (await left()).length < 5;
      },
      30_000,
      50,
    );
    expect((await left()).map((r) => r.id.slice(-3))).toEqual(['f02', 'f03', 'f04', 'f05']);
  } finally {
    await ch.exec(sql`DROP DATABASE IF EXISTS ${ident(database)}`, { database: null });
    await ch.close();
  }
});
