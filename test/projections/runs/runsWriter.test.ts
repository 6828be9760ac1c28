// The order of a part's inserts: places and threads, then rows, then locations. A reader that
// finds a run's location (an annotation queue counting stored runs, feedback placed on a run)
// reads its row: a CI run once counted a run by its location and then read no row for it.
import { expect, test } from 'vitest';
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import { emptyRow } from '../../../projections/runs/runRow.ts';
import { RunsWriter } from '../../../projections/runs/runsWriter.ts';
import { LIVE_TABLES } from '../../../projections/readModelTables.ts';

const T = '00000000-0000-4000-8000-00000000000a';
const TRACE = '00000000-0000-4000-8000-0000000000a1';
const RUN = '00000000-0000-4000-8000-000000000001';

test("a part's locations are inserted only once its rows are written", async () => {
  const log: string[] = [];
  const ch = {
    async insertRowBinary(table: string) {
      log.push(`start ${table}`);
      // the rows' insert is the slow one: a location sent beside it would be read first
      await new Promise((resolve) => setTimeout(resolve, table === 'runs' ? 30 : 1));
      log.push(`end ${table}`);
    },
  } as unknown as ClickHouseClient;
  const row = { ...emptyRow(T, TRACE, RUN), has_post: 1 };
  const writer = new RunsWriter(ch, LIVE_TABLES);
  await writer.write(
    {
      rows: [row],
      places: [{ tenant_id: T, trace_id: TRACE, session_id: row.session_id, is_root: 1, start_time: 0, id: RUN }],
      tombstones: [],
      threads: [],
      located: [{ tenant_id: T, id: RUN, trace_id: TRACE, session_id: row.session_id }],
    },
    (_what, step) => step(),
  );
  expect(log).toEqual([
    'start run_keys',
    'end run_keys',
    'start runs',
    'end runs',
    'start run_locations',
    'end run_locations',
  ]);
});
