// Bulk export end to end: runs over several days are traced through the real API with the
// official `langsmith` npm client (one with a payload big enough to be claim-checked, feedback on
// another), then exported into MinIO once (v2_beta, zstandard, and v1, snappy, with a subset of
// fields) and on a daily schedule (the defaults: v1, gzip). Every file is read back with pyarrow,
// an independent Parquet reader: row counts and values equal ClickHouse's, partition paths are
// the UTC day of each run, codecs are as asked, timestamps are timezone-aware or naive as the
// format version says, and the export runs' counts and file lists match the bucket.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'langsmith';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { api, createWorkspaces, tracingUrl, waitForRun, type Workspace } from '../support/tracingClient.ts';
import {
  createBucket,
  destinationBody,
  listKeys,
  waitForExport,
  waitForExportRuns,
} from '../support/bulkExportClient.ts';
import { ensurePythonEnv, run, type PythonEnv } from '../support/pythonEnv.ts';
import { repoRoot } from '../support/serviceProcess.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { sql } from '../../platform/clickhouse/sql.ts';
import { formatDottedTimestamp } from '../../platform/time.ts';
import { DEFAULT_EXPORT_FIELDS } from '../../services/bulk-export/parquet/exportColumns.ts';

const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;
/** Traces at these hours of each of the four days before today (UTC). */
const HOURS = [2, 9, 15, 22];
const DAYS = [4, 3, 2, 1];
const BUCKET = `e2e-export-${randomBytes(3).toString('hex')}`;
const BIG = 'ü'.repeat(100 * 1024); // 200 KiB of UTF-8: claim-checked to the payload store

interface ParquetFile {
  key: string;
  rows: number;
  schema: Record<string, string>;
  codecs: string[];
  partitions: Record<string, string>;
  records: Array<Record<string, unknown>>;
}

let ws: Workspace;
let projectId: string;
let destinationId: string;
let pyenv: PythonEnv;
let ch: ClickHouseClient;
let bigRunId: string;
let feedbackRunId: string;

/** Every Parquet file under the prefix, read by pyarrow (test/services/bulk-export/python/read_parquet.py). */
async function readExport(prefix: string): Promise<ParquetFile[]> {
  const env = inject('tracingEnv');
  const keys = (await listKeys(BUCKET, prefix)).filter((k) => k.endsWith('.parquet'));
  const reader = join(repoRoot, 'test', 'services', 'bulk-export', 'python', 'read_parquet.py');
  const out = await run(pyenv.python, [reader, BUCKET, ...keys], {
    ...process.env,
    S3_ENDPOINT: env.S3_ENDPOINT,
    S3_ACCESS_KEY_ID: env.S3_ACCESS_KEY_ID,
    S3_SECRET_ACCESS_KEY: env.S3_SECRET_ACCESS_KEY,
  });
  if (out.code !== 0) throw new Error(`read_parquet.py failed: ${out.stderr}`);
  const files = JSON.parse(out.stdout.trim().split('\n').at(-1)!).files as Array<{
    key: string;
    num_rows: number;
    codecs: string[];
    schema: Array<{ name: string; type: string }>;
    rows: Array<Record<string, unknown>>;
  }>;
  return files.map((f) => ({
    key: f.key,
    rows: f.num_rows,
    codecs: f.codecs,
    schema: Object.fromEntries(f.schema.map((field) => [field.name, field.type])),
    partitions: Object.fromEntries(
      f.key
        .split('/')
        .filter((part) => part.includes('='))
        .map((part) => part.split('=', 2) as [string, string]),
    ),
    records: f.rows,
  }));
}

/** The project's runs in [start, end) as ClickHouse holds them (payloads read back through the API when claim-checked). */
async function expectedRows(start: number, end: number): Promise<Map<string, Record<string, unknown>>> {
  const rows = await ch.query<Record<string, unknown>>(sql`
    SELECT toString(id) AS id, toString(trace_id) AS trace_id, toString(parent_run_id) AS parent_run_id, name, run_type, status,
           start_time, end_time, inputs, outputs, error, tags, dotted_order, is_root, total_tokens, prompt_tokens, completion_tokens,
           total_cost, first_token_time, payload_refs, extra
    FROM runs FINAL
    WHERE tenant_id = toUUID(${ws.id}) AND session_id = toUUID(${projectId}) AND start_time >= ${start * 1000} AND start_time < ${end * 1000}`);
  const out = new Map<string, Record<string, unknown>>();
  for (const r of rows) {
    if (r.payload_refs !== '{}') {
      const read = await api(`/runs/${r.id}`, { apiKey: ws.apiKey });
      r.inputs = JSON.stringify(read.body.inputs);
    }
    out.set(r.id as string, r);
  }
  return out;
}

const json = (text: unknown) => (text === null || text === '' ? null : JSON.parse(text as string));

/** Each file's rows against ClickHouse's, its partition path against each row's UTC day. */
function expectFilesMatch(
  files: ParquetFile[],
  expected: Map<string, Record<string, unknown>>,
  exportId: string,
  fields: readonly string[],
): void {
  const seen = new Set<string>();
  for (const file of files) {
    expect(file.rows).toBe(file.records.length);
    expect(Object.keys(file.schema)).toEqual(fields);
    expect(file.partitions).toMatchObject({
      export_id: exportId,
      tenant_id: ws.id,
      session_id: projectId,
      resource: 'runs',
    });
    for (const rec of file.records) {
      const id = rec.id as string;
      expect(seen.has(id), `run ${id} exported twice`).toBe(false);
      seen.add(id);
      const want = expected.get(id);
      expect(want, `run ${id} is not one of ClickHouse's`).toBeDefined();
      const day = new Date(Number(want!.start_time) / 1000);
      expect([file.partitions.year, file.partitions.month, file.partitions.day].map(Number)).toEqual([
        day.getUTCFullYear(),
        day.getUTCMonth() + 1,
        day.getUTCDate(),
      ]);
      const got = (field: string) => rec[field];
      const check = (field: string, value: unknown) => {
        if (fields.includes(field)) expect(got(field), `${field} of ${id}`).toEqual(value);
      };
      check('trace_id', want!.trace_id);
      check('parent_run_id', want!.parent_run_id);
      check('name', want!.name);
      check('run_type', want!.run_type);
      check('status', want!.status);
      check('start_time', Number(want!.start_time));
      check('end_time', want!.end_time === null ? null : Number(want!.end_time));
      check('first_token_time', want!.first_token_time === null ? null : Number(want!.first_token_time));
      check('error', want!.error);
      check('tags', want!.tags);
      check('dotted_order', want!.dotted_order);
      check('is_root', want!.is_root === 1);
      check('total_tokens', Number(want!.total_tokens));
      check('prompt_tokens', Number(want!.prompt_tokens));
      check('completion_tokens', Number(want!.completion_tokens));
      check('total_cost', Number(want!.total_cost));
      check('tenant_id', ws.id);
      check('session_id', projectId);
      check('trace_tier', null);
      if (fields.includes('inputs')) expect(json(got('inputs')), `inputs of ${id}`).toEqual(json(want!.inputs));
      if (fields.includes('outputs')) expect(json(got('outputs')), `outputs of ${id}`).toEqual(json(want!.outputs));
      if (fields.includes('extra')) expect(json(got('extra')), `extra of ${id}`).toEqual(json(want!.extra));
      if (fields.includes('parent_run_ids')) {
        const ancestors = (want!.dotted_order as string)
          .split('.')
          .slice(0, -1)
          .map((segment) => segment.slice(-36));
        expect(got('parent_run_ids'), `parent_run_ids of ${id}`).toEqual(ancestors);
      }
    }
  }
  expect([...seen].sort()).toEqual([...expected.keys()].sort());
}

/** The export's runs list exactly the files in the bucket, and count their rows. */
async function expectRunsMatchBucket(exportId: string, files: ParquetFile[]): Promise<void> {
  const runs = (await api(`/bulk-exports/${exportId}/runs`, { apiKey: ws.apiKey })).body as Array<{
    status: string;
    metadata: { result: { rows_written: number; exported_files: string[]; export_path: string } };
  }>;
  expect(runs.every((r) => r.status === 'Completed')).toBe(true);
  const listed = runs.flatMap((r) => r.metadata.result.exported_files).sort();
  expect(listed).toEqual(files.map((f) => f.key).sort());
  expect(await listKeys(BUCKET, `exports/export_id=${exportId}/`)).toEqual(listed);
  expect(runs.reduce((n, r) => n + r.metadata.result.rows_written, 0)).toBe(files.reduce((n, f) => n + f.rows, 0));
  for (const r of runs)
    for (const f of r.metadata.result.exported_files)
      expect(f.startsWith(`${r.metadata.result.export_path}/`)).toBe(true);
}

beforeAll(async () => {
  [ws] = (await createWorkspaces(1)) as [Workspace];
  const env = inject('tracingEnv');
  ch = new ClickHouseClient({ url: env.CLICKHOUSE_URL!, database: env.CLICKHOUSE_DATABASE! });
  const [python] = await Promise.all([ensurePythonEnv(), createBucket(BUCKET)]);
  pyenv = python;

  // Trace with the official client: root chain → llm (usage) and tool (an error), at fixed past times.
  const client = new Client({ apiUrl: tracingUrl(), apiKey: ws.apiKey, autoBatchTracing: false });
  const project = `e2e-export-${randomBytes(3).toString('hex')}`;
  const ids: string[] = [];
  for (const d of DAYS)
    for (const h of HOURS) {
      const t0 = today - d * DAY + h * 3600_000 + 123;
      const rootId = uuidv7();
      const rootOrder = `${formatDottedTimestamp(t0 * 1000)}${rootId}`;
      const big = d === 3 && h === 9;
      if (big) bigRunId = rootId;
      if (d === 2 && h === 15) feedbackRunId = rootId;
      await client.createRun({
        id: rootId,
        trace_id: rootId,
        dotted_order: rootOrder,
        name: 'agent',
        run_type: 'chain',
        project_name: project,
        start_time: t0,
        inputs: { question: big ? BIG : `day ${d} hour ${h} — ¿qué tal? 🚀` },
        extra: { metadata: { thread_id: `thread-${d}` } },
      });
      const llmId = uuidv7();
      await client.createRun({
        id: llmId,
        trace_id: rootId,
        parent_run_id: rootId,
        dotted_order: `${rootOrder}.${formatDottedTimestamp((t0 + 100) * 1000)}${llmId}`,
        name: 'model',
        run_type: 'llm',
        project_name: project,
        start_time: t0 + 100,
        end_time: t0 + 600,
        inputs: { prompt: 'p' },
        outputs: { text: 'hi', usage_metadata: { input_tokens: 11, output_tokens: 5, total_tokens: 16 } },
      });
      const toolId = uuidv7();
      await client.createRun({
        id: toolId,
        trace_id: rootId,
        parent_run_id: llmId,
        dotted_order: `${rootOrder}.${formatDottedTimestamp((t0 + 100) * 1000)}${llmId}.${formatDottedTimestamp((t0 + 200) * 1000)}${toolId}`,
        name: 'search',
        run_type: 'tool',
        project_name: project,
        start_time: t0 + 200,
        end_time: t0 + 300,
        inputs: { q: 'x' },
        error: 'the tool failed',
      });
      await client.updateRun(rootId, { end_time: t0 + 900, outputs: { answer: 'ok' }, tags: ['e2e', `day-${d}`] });
      ids.push(rootId, llmId, toolId);
    }
  // The client sends feedback with the traces' multipart batches (this service has no POST /feedback).
  const batching = new Client({ apiUrl: tracingUrl(), apiKey: ws.apiKey, autoBatchTracing: true });
  await batching.createFeedback(feedbackRunId, 'helpfulness', { score: 0.75, traceId: feedbackRunId });
  await batching.awaitPendingTraceBatches();
  await Promise.all(ids.map((id) => waitForRun(ws.apiKey, id, (r) => r.end_time !== null)));
  projectId = (await waitForRun(ws.apiKey, ids[0]!)).session_id;
  await vi.waitFor(
    async () => {
      const res = await api('/runs/query', {
        method: 'POST',
        apiKey: ws.apiKey,
        json: { id: [feedbackRunId], select: ['id', 'feedback_stats'] },
      });
      expect(res.body.runs?.[0]?.feedback_stats?.helpfulness).toBeDefined();
    },
    { timeout: 30_000, interval: 250 },
  );
  const dest = await api('/bulk-exports/destinations', {
    method: 'POST',
    apiKey: ws.apiKey,
    json: destinationBody(BUCKET, 'exports'),
  });
  expect(dest.status, JSON.stringify(dest.body)).toBe(200);
  destinationId = dest.body.id;
}, 300_000);

afterAll(async () => ch?.close());

describe('bulk export into MinIO, read back with pyarrow', () => {
  test('one-time, v2_beta, zstandard: a run per UTC day, tz-aware timestamps, values equal ClickHouse’s', async () => {
    const start = today - 4 * DAY + 6 * 3600_000;
    const end = today - DAY + 18 * 3600_000;
    const created = await api('/bulk-exports', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: {
        bulk_export_destination_id: destinationId,
        session_id: projectId,
        start_time: new Date(start).toISOString(),
        end_time: new Date(end).toISOString(),
        format: 'Parquet',
        format_version: 'v2_beta',
        compression: 'zstandard',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({
      status: 'Created',
      format_version: 'v2_beta',
      compression: 'zstandard',
      interval_hours: null,
    });
    const done = await waitForExport(ws.apiKey, created.body.id, (e) =>
      ['Completed', 'Failed', 'TimedOut'].includes(e.status),
    );
    expect(done.status).toBe('Completed');
    expect(done.finished_at).not.toBeNull();
    const runs = (await api(`/bulk-exports/${created.body.id}/runs`, { apiKey: ws.apiKey })).body;
    expect(runs.map((r: { start_time: string }) => r.start_time.slice(0, 10))).toEqual(
      DAYS.map((d) => new Date(today - d * DAY).toISOString().slice(0, 10)),
    );

    const files = await readExport(`exports/export_id=${created.body.id}/`);
    const expected = await expectedRows(start, end);
    expect(expected.size).toBe((3 + 4 + 4 + 3) * 3);
    expectFilesMatch(files, expected, created.body.id, DEFAULT_EXPORT_FIELDS);
    for (const f of files) {
      expect(f.codecs).toEqual(['ZSTD']);
      for (const c of ['start_time', 'end_time', 'first_token_time']) expect(f.schema[c]).toBe('timestamp[us, tz=UTC]');
      expect(f.schema).toMatchObject({
        id: 'string',
        parent_run_ids: 'list<item: string not null>',
        tags: 'list<item: string not null>',
        is_root: 'bool',
        total_tokens: 'int64',
        total_cost: 'double',
      });
    }
    const records = files.flatMap((f) => f.records);
    expect(JSON.parse(records.find((r) => r.id === bigRunId)!.inputs as string)).toEqual({ question: BIG });
    const withFeedback = records.find((r) => r.id === feedbackRunId)!;
    expect(JSON.parse(withFeedback.feedback_stats as string)).toMatchObject({ helpfulness: { n: 1, avg: 0.75 } });
    expect(records.filter((r) => r.feedback_stats !== null)).toHaveLength(1);
    await expectRunsMatchBucket(created.body.id, files);
  }, 180_000);

  test('one-time, v1, snappy, export_fields: naive timestamps and only the fields asked', async () => {
    const start = today - 2 * DAY;
    const end = today;
    const fields = ['id', 'name', 'start_time', 'end_time', 'inputs', 'total_tokens', 'parent_run_ids'];
    const created = await api('/bulk-exports', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: {
        bulk_export_destination_id: destinationId,
        session_id: projectId,
        start_time: new Date(start).toISOString(),
        end_time: new Date(end).toISOString(),
        format_version: 'v1',
        compression: 'snappy',
        export_fields: fields,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(
      (await waitForExport(ws.apiKey, created.body.id, (e) => ['Completed', 'Failed'].includes(e.status))).status,
    ).toBe('Completed');
    const files = await readExport(`exports/export_id=${created.body.id}/`);
    expectFilesMatch(files, await expectedRows(start, end), created.body.id, fields);
    for (const f of files) {
      expect(f.codecs).toEqual(['SNAPPY']);
      expect(f.schema.start_time).toBe('timestamp[us]');
    }
  }, 180_000);

  test('one-time with a filter: only the runs that match, read back with pyarrow', async () => {
    const start = today - 4 * DAY;
    const end = today;
    const created = await api('/bulk-exports', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: {
        bulk_export_destination_id: destinationId,
        session_id: projectId,
        start_time: new Date(start).toISOString(),
        end_time: new Date(end).toISOString(),
        filter: 'and(eq(run_type, "tool"), like(error, "%failed"))',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(
      (await waitForExport(ws.apiKey, created.body.id, (e) => ['Completed', 'Failed'].includes(e.status))).status,
    ).toBe('Completed');
    const files = await readExport(`exports/export_id=${created.body.id}/`);
    const tools = new Map([...(await expectedRows(start, end))].filter(([, r]) => r.run_type === 'tool'));
    expect(tools.size).toBe(16);
    expectFilesMatch(files, tools, created.body.id, DEFAULT_EXPORT_FIELDS);
  }, 180_000);

  test('scheduled daily, defaults (v1, gzip): one run per due window, none for the window still open', async () => {
    const start = today - 4 * DAY;
    const created = await api('/bulk-exports', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: {
        bulk_export_destination_id: destinationId,
        session_id: projectId,
        start_time: new Date(start).toISOString(),
        interval_hours: 24,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({
      status: 'IntervalScheduled',
      interval_hours: 24,
      end_time: null,
      format_version: 'v1',
      compression: 'gzip',
    });
    const runs = await waitForExportRuns(
      ws.apiKey,
      created.body.id,
      (list) => list.length === 4 && list.every((r) => r.status === 'Completed'),
    );
    expect(runs.map((r) => [r.start_time.slice(0, 10), r.end_time.slice(0, 10)])).toEqual(
      DAYS.map((d) => [
        new Date(today - d * DAY).toISOString().slice(0, 10),
        new Date(today - (d - 1) * DAY).toISOString().slice(0, 10),
      ]),
    );
    expect((await api(`/bulk-exports/${created.body.id}`, { apiKey: ws.apiKey })).body.status).toBe(
      'IntervalScheduled',
    );
    const files = await readExport(`exports/export_id=${created.body.id}/`);
    expectFilesMatch(files, await expectedRows(start, today), created.body.id, DEFAULT_EXPORT_FIELDS);
    for (const f of files) {
      expect(f.codecs).toEqual(['GZIP']);
      expect(f.schema.start_time).toBe('timestamp[us]');
    }
    await expectRunsMatchBucket(created.body.id, files);
    await api(`/bulk-exports/${created.body.id}`, {
      method: 'PATCH',
      apiKey: ws.apiKey,
      json: { status: 'Cancelled' },
    });
  }, 180_000);
});
