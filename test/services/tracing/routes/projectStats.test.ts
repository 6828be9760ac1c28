// POST /sessions/activity on the real stack: traces ingested through the API into two
// projects at fixed hours, projected into `traces`, then counted per project and bucket in one
// request (the projects page's activity charts); bad input is a 400 that says what is wrong,
// a project of another workspace a 404.
import { beforeAll, describe, expect, test } from 'vitest';
import { api, createWorkspaces, type Workspace } from '../../../support/tracingClient.ts';
import { makeTrace, multipartBody, postParts, type TestRun } from '../../../support/runFactory.ts';
import { waitFor } from '../../../support/serviceProcess.ts';
import { projectIdForName } from '../../../../projections/projects/projectRegistry.ts';

const HOUR_MS = 3_600_000;
/** The window: 6 whole hours ending at the top of the current hour, so buckets are exact. */
const end = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
const start = end - 6 * HOUR_MS;
const busy = `activity-busy-${Date.now()}`;
const quiet = `activity-quiet-${Date.now()}`;

let ws: Workspace;
let other: Workspace;
let busyId: string;
let quietId: string;
let emptyId: string;
let inWindow: TestRun;
let beforeWindow: TestRun;

/** A finished trace (root + one child) starting `hour` hours and 10 minutes into the window. */
function trace(project: string, hour: number, error = false): TestRun[] {
  const t0 = (start + hour * HOUR_MS + 10 * 60_000) * 1000;
  const runs = makeTrace(1, { session_name: project, end_time: new Date(t0 / 1000 + 2000).toISOString() }, t0);
  if (error) runs[0]!.error = 'boom';
  return runs;
}

async function ingest(apiKey: string, runs: TestRun[]): Promise<void> {
  const { body, contentType } = multipartBody(postParts(runs));
  const res = await api('/runs/multipart', { method: 'POST', apiKey, body, headers: { 'content-type': contentType } });
  expect(res.status).toBe(202);
}

const activity = (json: unknown, apiKey = ws.apiKey) => api('/sessions/activity', { method: 'POST', apiKey, json });

beforeAll(async () => {
  [ws, other] = (await createWorkspaces(2)) as [Workspace, Workspace];
  busyId = projectIdForName(ws.id, busy);
  quietId = projectIdForName(ws.id, quiet);
  // busy: two traces in hour 1 (one errored), one in hour 4; quiet: one in hour 5; and one
  // trace before the window, which is not counted.
  const traces = [trace(busy, 1), trace(busy, 1, true), trace(busy, 4), trace(quiet, 5), trace(busy, -3)];
  for (const t of traces) await ingest(ws.apiKey, t);
  inWindow = traces[0]![0]!;
  beforeWindow = traces[4]![0]!;
  const created = await api('/sessions', {
    method: 'POST',
    apiKey: ws.apiKey,
    json: { name: `activity-empty-${Date.now()}` },
  });
  emptyId = created.body.id;
  await waitFor(
    'the traces of both projects',
    async () => {
      const res = await api(`/sessions?include_stats=true&id=${busyId}&id=${quietId}`, { apiKey: ws.apiKey });
      const counts = Object.fromEntries(
        (res.body as { id: string; run_count: number }[]).map((p) => [p.id, p.run_count]),
      );
      return counts[busyId] === 4 && counts[quietId] === 1 ? true : null;
    },
    60_000,
    200,
  );
}, 120_000);

describe('POST /sessions/activity', () => {
  test('counts traces and errored traces per project and hour, every bucket listed, in the order asked', async () => {
    const res = await activity({
      session: [quietId, busyId, emptyId],
      start_time: new Date(start).toISOString(),
      end_time: new Date(end).toISOString(),
      bucket: '1h',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.interval).toBe('1h');
    expect(res.body.bucket_starts).toEqual(
      [0, 1, 2, 3, 4, 5].map((h) => new Date(start + h * HOUR_MS).toISOString().replace('Z', '000Z')),
    );
    expect(res.body.projects).toEqual([
      { session_id: quietId, trace_count: [0, 0, 0, 0, 0, 1], trace_error_count: [0, 0, 0, 0, 0, 0] },
      { session_id: busyId, trace_count: [0, 2, 0, 0, 1, 0], trace_error_count: [0, 1, 0, 0, 0, 0] },
      { session_id: emptyId, trace_count: [0, 0, 0, 0, 0, 0], trace_error_count: [0, 0, 0, 0, 0, 0] },
    ]);
  });

  test('without a window: the 7 days before now, in buckets that fit (auto)', async () => {
    const res = await activity({ session: [busyId] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Date.parse(res.body.end_time) - Date.parse(res.body.start_time)).toBe(7 * 24 * HOUR_MS);
    expect(res.body.bucket_starts.length).toBeLessThanOrEqual(100);
    expect(res.body.projects[0].trace_count.reduce((a: number, b: number) => a + b, 0)).toBe(4);
  });

  test("a field not of its form is a 422, a request refused for what it asks a 400, each saying what is wrong; another workspace's project is a 404", async () => {
    const cases: [unknown, number, string][] = [
      [{}, 422, "body must have required property 'session'"],
      [{ session: [] }, 422, 'body/session must NOT have fewer than 1 items'],
      [{ session: ['nope'] }, 422, 'body/session/0 must match format "uuid"'],
      [{ session: [busyId], bucket: 'fortnight' }, 422, 'body/bucket must be equal to one of the allowed values'],
      [{ session: [busyId], start_time: 'yesterday' }, 422, 'start_time'],
      [{ session: [busyId], group_by: 'name' }, 422, 'must NOT have additional properties (group_by)'],
      [
        { session: [busyId], start_time: new Date(end).toISOString(), end_time: new Date(start).toISOString() },
        400,
        'start_time must be before end_time',
      ],
      [
        { session: [busyId], start_time: '2020-01-01T00:00:00Z', bucket: '1m' },
        400,
        'the time range holds more than 1000 buckets of 1m',
      ],
    ];
    for (const [body, status, message] of cases) {
      const res = await activity(body);
      expect([res.status, res.body.detail], JSON.stringify(body)).toEqual([status, expect.stringContaining(message)]);
    }
    const theirs = await activity({ session: [busyId] }, other.apiKey);
    expect(theirs.status).toBe(404);
  });
});

describe('the feedback_stats of project stats over a time range', () => {
  test('count the feedback on the traces that started in the range, not on the others of the project', async () => {
    const feedback = (run: TestRun, score: number) => ({
      name: `feedback.${crypto.randomUUID()}`,
      body: JSON.stringify({ run_id: run.id, trace_id: run.trace_id, key: 'window', score }),
    });
    const { body, contentType } = multipartBody([feedback(inWindow, 1), feedback(beforeWindow, 0)]);
    expect(
      (
        await api('/runs/multipart', {
          method: 'POST',
          apiKey: ws.apiKey,
          body,
          headers: { 'content-type': contentType },
        })
      ).status,
    ).toBe(202);
    const statsOf = (range: object) =>
      api('/runs/stats', { method: 'POST', apiKey: ws.apiKey, json: { session: [busyId], ...range } });
    await waitFor(
      'both items in the stats of the whole project',
      async () => ((await statsOf({})).body.feedback_stats?.window?.n === 2 ? true : null),
      30_000,
      200,
    );
    const windowed = await statsOf({
      start_time: new Date(start).toISOString(),
      end_time: new Date(end).toISOString(),
    });
    expect(windowed.status, JSON.stringify(windowed.body)).toBe(200);
    expect(windowed.body.feedback_stats).toMatchObject({ window: { n: 1, avg: 1 } });
    const other = await api('/runs/stats', { method: 'POST', apiKey: ws.apiKey, json: { session: [quietId] } });
    expect(other.body.feedback_stats).toBeNull();
  });
});
