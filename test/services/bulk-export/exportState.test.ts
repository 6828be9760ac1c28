// The fold of the bulk-export topic: events applied directly, in topic order.
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../platform/config.ts';
import { createLogger } from '../../../platform/logger.ts';
import { ExportState, exportFinishedAt, exportStatus } from '../../../services/bulk-export/exportState.ts';
import { decodeEvent, encodeEventAtVersion, type DecodedEvent } from '../../../schemas/registry.ts';
import type { EventPayloads } from '../../../schemas/events.generated.ts';

const config = loadConfig({});
const states: ExportState[] = [];
afterAll(async () => Promise.all(states.map((s) => s.close())));

const T = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';

function fold(...events: DecodedEvent[]): ExportState {
  const state = new ExportState(config, createLogger('test', 'silent'));
  states.push(state);
  for (const e of events) state.apply(e);
  return state;
}

const ev = <N extends keyof EventPayloads>(name: N, payload: Partial<EventPayloads[N]>): DecodedEvent =>
  ({ name, version: 1, payload: { tenant_id: T, export_id: 'x1', ...payload } }) as unknown as DecodedEvent;

const created = (overrides: Partial<EventPayloads['ExportCreated']> = {}) =>
  ev('ExportCreated', {
    destination_id: 'd1',
    session_id: 's1',
    start_time: 0,
    end_time: 100,
    interval_hours: null,
    format: 'Parquet',
    format_version: 'v1',
    compression: 'gzip',
    export_fields: null,
    created_at: 1,
    ...overrides,
  });
const scheduled = (run_id: string, at = 2) =>
  ev('ExportRunScheduled', { run_id, start_time: 0, end_time: 100, scheduled_at: at });
const started = (run_id: string, worker_id: string, attempt = 0, at = 3) =>
  ev('ExportRunStarted', { run_id, attempt, worker_id, started_at: at });
const progressed = (run_id: string, worker_id: string, file: string | null, attempt = 0) =>
  ev('ExportRunProgressed', {
    run_id,
    attempt,
    worker_id,
    file,
    file_rows: file ? 10 : 0,
    file_bytes: file ? 1000 : 0,
    cursor_start_time: file ? 50 : null,
    cursor_id: file ? `id-${file}` : null,
    recorded_at: 4,
  });
const finished = (
  run_id: string,
  status: 'Completed' | 'Failed' | 'Cancelled' | 'TimedOut',
  attempt = 0,
  extra: { error?: string; retry_at?: number } = {},
) =>
  ev('ExportRunFinished', {
    run_id,
    attempt,
    status,
    error: extra.error ?? null,
    retry_at: extra.retry_at ?? null,
    finished_at: 9,
  });

describe('ExportState fold', () => {
  it('keeps the first scheduling of a run id and the first claim of an attempt', () => {
    const s = fold(created(), scheduled('r1', 2), scheduled('r1', 7), started('r1', 'w1'), started('r1', 'w2'));
    const e = s.export(T, 'x1')!;
    expect(e.runs.size).toBe(1);
    const run = e.runs.get('r1')!;
    expect(run).toMatchObject({ createdAt: 2, owner: 'w1', phase: 'claimed', status: 'Running', attempt: 0 });
    expect(exportStatus(e)).toBe('Running');
  });

  it('counts progress only from the claimant of the current attempt', () => {
    const s = fold(
      created(),
      scheduled('r1'),
      started('r1', 'w1'),
      progressed('r1', 'w2', 'f-x'),
      progressed('r1', 'w1', 'f1'),
      progressed('r1', 'w1', null),
    );
    const run = s.export(T, 'x1')!.runs.get('r1')!;
    expect(run).toMatchObject({
      files: ['f1'],
      rowsWritten: 10,
      bytesWritten: 1000,
      cursor: { startTime: 50, id: 'id-f1' },
    });
  });

  it('a failed attempt with retry_at is retried from its cursor; without it the run has failed', () => {
    const s = fold(
      created(),
      scheduled('r1'),
      started('r1', 'w1'),
      progressed('r1', 'w1', 'f1'),
      finished('r1', 'Failed', 0, { error: 'boom', retry_at: 500 }),
      finished('r1', 'Completed', 0), // a stale end of attempt 0: ignored
    );
    const e = s.export(T, 'x1')!;
    let run = e.runs.get('r1')!;
    expect(run).toMatchObject({
      attempt: 1,
      phase: 'pending',
      retryAt: 500,
      errors: { retry_0: 'boom' },
      rowsWritten: 10,
      cursor: { id: 'id-f1' },
    });
    expect([...s.unfinishedRuns()].map((u) => u.run.id)).toEqual(['r1']);
    expect(exportStatus(e)).toBe('Running');
    s.apply(started('r1', 'w2', 1));
    s.apply(finished('r1', 'Failed', 1, { error: 'again' }));
    run = e.runs.get('r1')!;
    expect(run).toMatchObject({
      phase: 'done',
      status: 'Failed',
      errors: { retry_0: 'boom', retry_1: 'again' },
      finishedAt: 9,
    });
    expect([...s.unfinishedRuns()]).toEqual([]);
    expect(exportStatus(e)).toBe('Failed');
    expect(exportFinishedAt(e)).toBe(9);
  });

  it('keeps a file whose completion was under way across attempts, until a file is recorded', () => {
    const pending = (file: string, attempt = 0, worker_id = 'w1') =>
      ev('ExportRunFilePending', {
        run_id: 'r1',
        attempt,
        worker_id,
        file,
        file_rows: 10,
        cursor_start_time: 70,
        cursor_id: `id-${file}`,
        recorded_at: 5,
      });
    const s = fold(
      created(),
      scheduled('r1'),
      started('r1', 'w1'),
      progressed('r1', 'w1', 'f1'),
      pending('f2', 0, 'w2'),
      pending('f2'),
    );
    const run = s.export(T, 'x1')!.runs.get('r1')!;
    expect(run.pendingFile).toEqual({ key: 'f2', rows: 10, cursor: { startTime: 70, id: 'id-f2' } });
    s.apply(finished('r1', 'Failed', 0, { error: 'kafka away', retry_at: 6 }));
    expect(run.pendingFile?.key).toBe('f2'); // the next attempt looks for it
    s.apply(started('r1', 'w3', 1));
    s.apply(progressed('r1', 'w3', 'f2', 1));
    expect(run).toMatchObject({
      pendingFile: null,
      files: ['f1', 'f2'],
      rowsWritten: 20,
      cursor: { startTime: 50, id: 'id-f2' },
    });
  });

  it('a one-time export is Created, then Running, then Completed when all its runs are', () => {
    const s = fold(created(), scheduled('r1'), scheduled('r2'));
    const e = s.export(T, 'x1')!;
    expect(exportStatus(e)).toBe('Created');
    s.apply(started('r1', 'w1'));
    s.apply(finished('r1', 'Completed'));
    expect(exportStatus(e)).toBe('Running');
    s.apply(started('r2', 'w1'));
    s.apply(finished('r2', 'Completed'));
    expect(exportStatus(e)).toBe('Completed');
  });

  it('cancelling is final: unfinished runs become Cancelled, finished ones stay, nothing new is scheduled or claimed', () => {
    const s = fold(
      created({ end_time: null, interval_hours: 1 }),
      scheduled('r1'),
      started('r1', 'w1'),
      finished('r1', 'Completed'),
      scheduled('r2'),
      started('r2', 'w1'),
    );
    const e = s.export(T, 'x1')!;
    expect(exportStatus(e)).toBe('IntervalScheduled');
    s.apply(ev('ExportCancelled', { cancelled_at: 20 }));
    s.apply(scheduled('r3'));
    s.apply(progressed('r2', 'w1', 'late'));
    s.apply(finished('r2', 'Completed'));
    expect(exportStatus(e)).toBe('Cancelled');
    expect([...e.runs.values()].map((r) => [r.id, r.status])).toEqual([
      ['r1', 'Completed'],
      ['r2', 'Cancelled'],
    ]);
    expect([...s.unfinishedRuns()]).toEqual([]);
    expect(e.runs.get('r2')!.files).toEqual([]);
    expect(exportFinishedAt(e)).toBe(20);
  });

  it('keeps workspaces apart and replaces credentials on rotation', () => {
    const s = fold(
      ev('DestinationCreated', {
        destination_id: 'd1',
        destination_type: 's3',
        display_name: 'lake',
        bucket_name: 'b',
        prefix: 'p',
        endpoint_url: null,
        region: null,
        credentials: 'sealed-1',
        credentials_keys: ['access_key_id', 'secret_access_key'],
        created_at: 1,
      }),
      ev('DestinationCredentialsRotated', {
        destination_id: 'd1',
        credentials: 'sealed-2',
        credentials_keys: ['access_key_id', 'secret_access_key'],
        rotated_at: 5,
      }),
      created(),
    );
    expect(s.destination(T, 'd1')).toMatchObject({ credentials: 'sealed-2', updatedAt: 5, createdAt: 1 });
    expect(s.destination(OTHER, 'd1')).toBeUndefined();
    expect(s.export(OTHER, 'x1')).toBeUndefined();
    expect(s.exports(OTHER)).toEqual([]);
    expect(s.exports(T).map((e) => e.id)).toEqual(['x1']);
  });

  it('an ExportCreated v1, as an earlier release wrote it, replays as an export of runs', () => {
    const v1 = {
      tenant_id: T,
      export_id: 'x1',
      destination_id: 'd1',
      session_id: 's1',
      start_time: 0,
      end_time: 100,
      interval_hours: null,
      format: 'Parquet',
      format_version: 'v1',
      compression: 'gzip',
      export_fields: null,
      filter: null,
      created_at: 1,
    };
    const encoded = encodeEventAtVersion('ExportCreated', 1, v1);
    const decoded = decodeEvent(new Map(Object.entries(encoded.headers)), encoded.value);
    expect(decoded.payload).toEqual({ ...v1, resource: 'runs', dataset_id: null, as_of: null });
    expect(fold(decoded).export(T, 'x1')).toMatchObject({
      resource: 'runs',
      sessionId: 's1',
      datasetId: null,
      asOf: null,
      startTime: 0,
      endTime: 100,
    });
  });

  it('an export of examples: its dataset and pinned version; one-time, so done when its run is', () => {
    const s = fold(
      created({
        resource: 'examples',
        session_id: null,
        dataset_id: 'ds1',
        as_of: 77,
        start_time: null,
        end_time: null,
      }),
      scheduled('r1'),
      started('r1', 'w1'),
      progressed('r1', 'w1', 'f1'),
      finished('r1', 'Completed'),
    );
    const e = s.export(T, 'x1')!;
    expect(e).toMatchObject({ resource: 'examples', sessionId: null, datasetId: 'ds1', asOf: 77, startTime: null });
    expect(exportStatus(e)).toBe('Completed');
    expect(exportFinishedAt(e)).toBe(9);
  });
});
