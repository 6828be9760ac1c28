// An export as the API returns it: its `progress`, the sums of its runs (services/bulk-export/
// exportResponse.ts), from the fold of its events as the routes read it.
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../platform/config.ts';
import { createLogger } from '../../../platform/logger.ts';
import { ExportState } from '../../../services/bulk-export/exportState.ts';
import { exportResponse } from '../../../services/bulk-export/exportResponse.ts';
import type { DecodedEvent } from '../../../schemas/registry.ts';
import type { EventPayloads } from '../../../schemas/events.generated.ts';

const states: ExportState[] = [];
afterAll(async () => Promise.all(states.map((s) => s.close())));

const T = '00000000-0000-4000-8000-000000000001';
const HOUR = 3600 * 1_000_000;
/** 2026-11-01T12:00Z, in microseconds. */
const NOON = Date.UTC(2026, 10, 1, 12) * 1000;

function fold(...events: DecodedEvent[]): ExportState {
  const state = new ExportState(loadConfig({}), createLogger('test', 'silent'));
  states.push(state);
  for (const e of events) state.apply(e);
  return state;
}

const ev = <N extends keyof EventPayloads>(name: N, payload: Partial<EventPayloads[N]>): DecodedEvent =>
  ({ name, version: 1, payload: { tenant_id: T, export_id: 'x1', ...payload } }) as unknown as DecodedEvent;
const created = (overrides: Partial<EventPayloads['ExportCreated']>) =>
  ev('ExportCreated', {
    destination_id: 'd1',
    session_id: 's1',
    start_time: NOON,
    end_time: null,
    interval_hours: null,
    format: 'Parquet',
    format_version: 'v1',
    compression: 'gzip',
    export_fields: null,
    created_at: 1,
    ...overrides,
  });
const scheduled = (run_id: string, at: number) =>
  ev('ExportRunScheduled', { run_id, start_time: NOON, end_time: NOON + HOUR, scheduled_at: at });
const started = (run_id: string, attempt: number, at: number) =>
  ev('ExportRunStarted', { run_id, attempt, worker_id: 'w1', started_at: at });
const file = (run_id: string, name: string, attempt = 0) =>
  ev('ExportRunProgressed', {
    run_id,
    attempt,
    worker_id: 'w1',
    file: name,
    file_rows: 10,
    file_bytes: 1000,
    cursor_start_time: NOON,
    cursor_id: `id-${name}`,
    recorded_at: 4,
  });
const finished = (
  run_id: string,
  status: 'Completed' | 'Failed',
  attempt: number,
  at: number,
  extra: { error?: string; retry_at?: number } = {},
) =>
  ev('ExportRunFinished', {
    run_id,
    attempt,
    status,
    error: extra.error ?? null,
    retry_at: extra.retry_at ?? null,
    finished_at: at,
  });

describe('an export’s progress', () => {
  it('a one-time export: the runs its range is cut into (one per UTC day), those done and failed, rows, bytes, files, the latest error', () => {
    // Noon on day 1 to 06:00 on day 3: three day partitions.
    const s = fold(
      created({ end_time: NOON + 42 * HOUR }),
      scheduled('r1', 2),
      scheduled('r2', 2),
      started('r1', 0, 3),
      file('r1', 'f1'),
      file('r1', 'f2'),
      finished('r1', 'Completed', 0, 5),
      started('r2', 0, 3),
      finished('r2', 'Failed', 0, 6, { error: 'store unreachable', retry_at: 7 }),
      started('r2', 1, 8),
      finished('r2', 'Failed', 1, 9, { error: 'Access denied' }),
    );
    expect(exportResponse(s.export(T, 'x1')!).progress).toEqual({
      runs_planned: 3,
      runs_scheduled: 2,
      runs_completed: 1,
      runs_failed: 1,
      rows_written: 20,
      bytes_written: 2000,
      files_written: 2,
      last_error: 'Access denied',
    });
  });

  it('an examples export: its dataset and version, no project or range, one run planned', () => {
    const s = fold(
      created({
        resource: 'examples',
        session_id: null,
        dataset_id: 'ds1',
        as_of: NOON,
        start_time: null,
        end_time: null,
      }),
      scheduled('r1', 2),
    );
    expect(exportResponse(s.export(T, 'x1')!)).toMatchObject({
      resource: 'examples',
      session_id: null,
      dataset_id: 'ds1',
      as_of: '2026-11-01T12:00:00.000000Z',
      start_time: null,
      end_time: null,
      interval_hours: null,
      status: 'Created',
      progress: { runs_planned: 1, runs_scheduled: 1 },
    });
  });

  it('a scheduled export has no planned total; before its first window nothing is counted', () => {
    const s = fold(created({ interval_hours: 6 }));
    expect(exportResponse(s.export(T, 'x1')!).progress).toEqual({
      runs_planned: null,
      runs_scheduled: 0,
      runs_completed: 0,
      runs_failed: 0,
      rows_written: 0,
      bytes_written: 0,
      files_written: 0,
      last_error: null,
    });
  });
});
