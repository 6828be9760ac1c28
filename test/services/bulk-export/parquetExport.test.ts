// The export pipeline end to end against the real ClickHouse and MinIO: runs put straight into
// a scratch database, exported to a bucket of the test's own, and every file read back with
// pyarrow (an independent Parquet reader). What it checks: rows and values as stored (claim-
// checked payloads fetched, feedback_stats, NULLs, unicode, tags; the newest version of a run
// only), one partition per UTC day, the codec of every column chunk, timestamp types per format
// version, rolling at maxFileBytes with unique names, resuming after a cursor, aborting without
// leaving an object or a multipart upload behind, and export_fields.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { provideInfra, type StackEndpoints } from '../../support/infra.ts';
import { ensurePythonEnv, run, type PythonEnv } from '../../support/pythonEnv.ts';
import { repoRoot } from '../../support/serviceProcess.ts';
import {
  insertFeedback,
  insertRuns,
  runRow,
  scratchDatabase,
  type ScratchDatabase,
} from '../tracing/query/scratchDatabase.ts';
import { loadConfig } from '../../../platform/config.ts';
import { BlobStore } from '../../../platform/blobStore.ts';
import { formatDottedTimestamp } from '../../../platform/time.ts';
import { LIVE_TABLES } from '../../../projections/readModelTables.ts';
import type { RunRow } from '../../../projections/shared/runRow.ts';
import { exportRunsToParquet } from '../../../services/bulk-export/parquet/runsExport.ts';
import { stopParquetEncoders } from '../../../services/bulk-export/parquet/parquetUpload.ts';
import { exportRunDirectory } from '../../../services/bulk-export/parquet/objectKey.ts';
import type {
  ExportCompression,
  ExportedFile,
  ExportFormatVersion,
  ExportRunTask,
} from '../../../services/bulk-export/exportTypes.ts';

/** Small files, so that a few hundred runs make several per day. */
const MAX_FILE_BYTES = 8 * 1024;
const READER = join(repoRoot, 'test', 'services', 'bulk-export', 'python', 'read_parquet.py');
const DAY = 86_400_000_000;
const D0 = Date.UTC(2025, 0, 6) * 1000;
const TENANT = randomUUID();
const PROJECT = randomUUID();
const BIG_PROJECT = randomUUID();
const bucket = `parquet-export-${randomUUID().slice(0, 8)}`;

let infra: StackEndpoints;
let db: ScratchDatabase;
let s3: S3Client;
let blobs: BlobStore;
let python: PythonEnv;
/** What the project's runs in [D0, D0 + 3 days) should export as, in cursor order. */
let expected: Record<string, unknown>[];
let claimChecked: string;

interface FileContents {
  key: string;
  num_rows: number;
  row_groups: number;
  codecs: string[];
  schema: { name: string; type: string; nullable: boolean; unit?: string; tz?: string | null }[];
  rows: Record<string, unknown>[];
}

async function readFiles(keys: readonly string[]): Promise<FileContents[]> {
  const env = {
    ...process.env,
    S3_ENDPOINT: infra.s3Endpoint,
    S3_ACCESS_KEY_ID: infra.s3AccessKeyId,
    S3_SECRET_ACCESS_KEY: infra.s3SecretAccessKey,
  };
  const out = await run(python.python, [READER, bucket, ...keys], env, 120_000);
  if (out.code !== 0) throw new Error(`read_parquet.py failed:\n${out.stderr}`);
  return (JSON.parse(out.stdout.trim().split('\n').at(-1)!) as { files: FileContents[] }).files;
}

/** A file's rows with feedback_stats parsed, for comparing with expected values. */
const comparable = (rows: Record<string, unknown>[]) =>
  rows.map((r) =>
    'feedback_stats' in r
      ? { ...r, feedback_stats: r.feedback_stats === null ? null : JSON.parse(r.feedback_stats as string) }
      : r,
  );

function task(fields: Partial<ExportRunTask> = {}): ExportRunTask {
  return {
    tenantId: TENANT,
    sessionId: PROJECT,
    exportId: randomUUID(),
    runId: randomUUID(),
    attempt: 0,
    startMicros: D0,
    endMicros: D0 + 3 * DAY,
    formatVersion: 'v2_beta',
    compression: 'zstandard',
    exportFields: null,
    filter: null,
    resumeAfter: null,
    ...fields,
  };
}

const s3Client = () =>
  new S3Client({
    endpoint: infra.s3Endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: infra.s3AccessKeyId, secretAccessKey: infra.s3SecretAccessKey },
  });

const location = (prefix = 'exports/test') => ({ bucket, prefix, endpointUrl: infra.s3Endpoint, region: 'us-east-1' });

async function exportRuns(
  t: ExportRunTask,
  options: {
    maxFileBytes?: number;
    signal?: AbortSignal;
    onFile?: (f: ExportedFile) => Promise<void>;
    s3?: S3Client;
    prefix?: string;
  } = {},
) {
  const reported: ExportedFile[] = [];
  const result = await exportRunsToParquet(
    {
      ch: db.ch,
      tables: { runs: LIVE_TABLES.runs, runKeys: LIVE_TABLES.runKeys, feedback: LIVE_TABLES.feedback },
      blobs,
      s3: options.s3 ?? s3,
    },
    t,
    location(options.prefix),
    {
      signal: options.signal ?? new AbortController().signal,
      maxFileBytes: options.maxFileBytes ?? 64 * 1024 * 1024,
      onFile: async (f) => {
        reported.push(f);
        await options.onFile?.(f);
      },
    },
  );
  return { ...result, reported };
}

async function listKeys(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.NextContinuationToken;
  } while (token);
  return keys.sort();
}

const openUploads = async (prefix: string) =>
  (await s3.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix }))).Uploads ?? [];

/** A run as the export writes it (values as pyarrow reads them back; timestamps in µs). */
function exportedRow(row: RunRow, over: { inputs?: string; feedback_stats?: unknown } = {}): Record<string, unknown> {
  const jsonOrNull = (s: string) => (s === '' ? null : s);
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    session_id: row.session_id,
    trace_id: row.trace_id,
    parent_run_id: row.parent_run_id,
    parent_run_ids: row.dotted_order
      .split('.')
      .slice(0, -1)
      .map((s) => s.slice(-36)),
    reference_example_id: row.reference_example_id,
    name: row.name,
    run_type: row.run_type,
    start_time: row.start_time,
    end_time: row.end_time,
    status: row.status,
    is_root: row.is_root === 1,
    dotted_order: row.dotted_order,
    trace_tier: null,
    inputs: over.inputs ?? jsonOrNull(row.inputs),
    outputs: jsonOrNull(row.outputs),
    error: row.error,
    extra: jsonOrNull(row.extra),
    events: jsonOrNull(row.events),
    tags: row.tags,
    feedback_stats: over.feedback_stats ?? null,
    total_tokens: row.total_tokens,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    total_cost: row.total_cost,
    prompt_cost: row.prompt_cost,
    completion_cost: row.completion_cost,
    first_token_time: row.first_token_time,
  };
}

beforeAll(async () => {
  infra = await provideInfra();
  db = await scratchDatabase('parquet_export');
  s3 = s3Client();
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  blobs = new BlobStore(
    loadConfig({
      ...process.env,
      S3_ENDPOINT: infra.s3Endpoint,
      S3_ACCESS_KEY_ID: infra.s3AccessKeyId,
      S3_SECRET_ACCESS_KEY: infra.s3SecretAccessKey,
    }),
  );
  await blobs.ensureBucket();
  python = await ensurePythonEnv();

  const run = (fields: Partial<RunRow> & { id: string; start_time: number }, tenant = TENANT) =>
    runRow(tenant, { session_id: PROJECT, ...fields });
  // A root and its child on day 0: unicode, tags, NULLs, usage; the child's inputs are in the payload store.
  const rootId = randomUUID();
  const root = run({
    id: rootId,
    start_time: D0 + 3_600_000_000,
    end_time: D0 + 3_601_500_000,
    name: 'résumé 😀 agent',
    run_type: 'chain',
    inputs: '{"question":"héllo wörld ✓"}',
    outputs: '{"answer":"ok"}',
    extra: '{"metadata":{"user":"u-1"}}',
    tags: ['α-tag', 'prod'],
    prompt_tokens: 10,
    completion_tokens: 3,
    total_tokens: 13,
    prompt_cost: 0.001,
    completion_cost: 0.002,
    total_cost: 0.003,
  });
  claimChecked = JSON.stringify({ messages: ['big '.repeat(500), 'payload ✓'] });
  const ref = await blobs.put(TENANT, 'inputs', Buffer.from(claimChecked), 'application/json');
  const childStart = D0 + 3_600_000_001;
  const child = run({
    id: randomUUID(),
    trace_id: rootId,
    parent_run_id: rootId,
    start_time: childStart,
    name: 'ChatModel',
    run_type: 'llm',
    dotted_order: `${root.dotted_order}.${formatDottedTimestamp(childStart)}`,
    inputs: '',
    payload_refs: JSON.stringify({ inputs: ref }),
    error: 'ValueError: ünïcode boom',
    events: '[{"name":"new_token"}]',
    first_token_time: childStart + 250_000,
    reference_example_id: randomUUID(),
  });
  child.dotted_order += child.id;
  // Day 1: feedback; a run stored in two versions (the newest wins).
  const withFeedback = run({
    id: randomUUID(),
    start_time: D0 + DAY + 5_000_000,
    end_time: D0 + DAY + 6_000_000,
    name: 'graded',
  });
  const versionId = randomUUID();
  const oldVersion = run({ id: versionId, start_time: D0 + DAY + 7_000_000, name: 'old name', version: 1 });
  const newVersion = run({
    id: versionId,
    start_time: D0 + DAY + 7_000_000,
    name: 'new name',
    end_time: D0 + DAY + 8_000_000,
    version: 2,
  });
  // Day 2: a run whose newest version moved out of the window is not exported (as the projector
  // moves it: the new row at its new key, a tombstone at the old one, between the two versions).
  const movedId = randomUUID();
  const movedOld = run({ id: movedId, start_time: D0 + 2 * DAY + 1_000_000, version: 1 });
  const movedNew = run({ id: movedId, start_time: D0 + 9 * DAY, version: 3 });
  const movedAway = { ...movedOld, has_post: 0, version: 2 };
  // Not this export's: another project, another tenant, before and at the window's end, no post yet.
  const others = [
    run({ id: randomUUID(), start_time: D0 + 10_000_000, session_id: randomUUID() }),
    run({ id: randomUUID(), start_time: D0 + 10_000_001 }, randomUUID()),
    run({ id: randomUUID(), start_time: D0 - 1 }),
    run({ id: randomUUID(), start_time: D0 + 3 * DAY }),
    run({ id: randomUUID(), start_time: D0 + 2 * DAY + 3_000_000, has_post: 0 }),
  ];
  // 300 ordinary runs over the three days (distinct start times: the cursor order is start_time, id).
  const bulk = Array.from({ length: 300 }, (_, i) =>
    run({
      id: randomUUID(),
      start_time: D0 + Math.floor((i * 3 * DAY) / 300) + 20_000_000 + i,
      end_time: D0 + Math.floor((i * 3 * DAY) / 300) + 21_000_000,
      name: `step ${i}`,
      run_type: ['llm', 'tool', 'chain'][i % 3]!,
      inputs: JSON.stringify({ i, text: `input ${i} `.repeat(40) }),
      outputs: i % 7 === 0 ? '' : JSON.stringify({ text: `output ${i} `.repeat(30) }),
      tags: i % 2 ? ['bulk'] : [],
    }),
  );
  await insertRuns(db.ch, [root, child, withFeedback, oldVersion, movedOld, ...others, ...bulk]);
  await insertRuns(db.ch, [newVersion, movedNew, movedAway]); // separate parts: FINAL must merge them
  await insertFeedback(db.ch, [
    { tenant_id: TENANT, run_id: withFeedback.id, id: randomUUID(), key: 'correctness', score: 1 },
    { tenant_id: TENANT, run_id: withFeedback.id, id: randomUUID(), key: 'correctness', score: 0 },
    { tenant_id: TENANT, run_id: withFeedback.id, id: randomUUID(), key: 'note', score: null, value: '"good"' },
  ]);

  const feedbackStats = {
    correctness: { n: 2, avg: 0.5, stdev: 0.5, errors: 0, values: {} },
    note: { n: 1, avg: null, stdev: null, errors: 0, values: { good: 1 } },
  };
  expected = [
    exportedRow(root),
    exportedRow(child, { inputs: claimChecked }),
    exportedRow(withFeedback, { feedback_stats: feedbackStats }),
    exportedRow(newVersion),
    ...bulk.map((r) => exportedRow(r)),
  ].sort((a, b) => (a.start_time as number) - (b.start_time as number));
}, 300_000);

afterAll(async () => {
  if (s3) {
    const keys = await listKeys('').catch(() => []);
    for (let i = 0; i < keys.length; i += 1000)
      await s3.send(
        new DeleteObjectsCommand({
          Bucket: bucket,
          Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })) },
        }),
      );
    await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => {});
    s3.destroy();
  }
  blobs?.close();
  await db?.drop();
});

describe('exportRunsToParquet', () => {
  test('writes the final state of the project’s runs in the window, one partition per UTC day, values as stored', async () => {
    const t = task();
    const result = await exportRuns(t);
    expect(result.rows).toBe(expected.length);
    expect(result.reported).toEqual(result.files);
    expect(result.files.map((f) => f.key)).toEqual(
      [0, 1, 2].map(
        (day, seq) =>
          `${exportRunDirectory('exports/test', { ...t, startMicros: D0 + day * DAY })}/${t.runId}-0-0000${seq}.parquet`,
      ),
    );
    expect(result.files[0]!.key).toMatch(
      /^exports\/test\/export_id=[^/]+\/tenant_id=[^/]+\/session_id=[^/]+\/resource=runs\/year=2025\/month=01\/day=06\//,
    );

    const files = await readFiles(result.files.map((f) => f.key));
    expect(comparable(files.flatMap((f) => f.rows))).toEqual(expected);
    for (const [i, file] of files.entries()) {
      const reported = result.files[i]!;
      const last = file.rows.at(-1)!;
      expect(reported.rows).toBe(file.num_rows);
      expect(reported.cursor).toEqual({ startTime: last.start_time, id: last.id });
      expect(reported.bytes).toBe(
        (await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: reported.key }))).ContentLength,
      );
      // Every row of a file started on its partition's day.
      expect(
        file.rows.every((r) => Math.floor((r.start_time as number) / DAY) === Math.floor((D0 + i * DAY) / DAY)),
      ).toBe(true);
    }
    const schema = files[0]!.schema;
    expect(schema.map((f) => f.name)).toEqual(Object.keys(expected[0]!));
    expect(schema.filter((f) => f.unit).map((f) => [f.name, f.unit, f.tz])).toEqual([
      ['start_time', 'us', 'UTC'],
      ['end_time', 'us', 'UTC'],
      ['first_token_time', 'us', 'UTC'],
    ]);
    const types = Object.fromEntries(schema.map((f) => [f.name, `${f.type}${f.nullable ? '' : ' not null'}`]));
    expect(types).toMatchObject({
      id: 'string not null',
      parent_run_id: 'string',
      parent_run_ids: 'list<item: string not null> not null',
      is_root: 'bool not null',
      inputs: 'string',
      error: 'string',
      tags: 'list<item: string not null> not null',
      feedback_stats: 'string',
      trace_tier: 'string',
      total_tokens: 'int64 not null',
      total_cost: 'double not null',
      end_time: 'timestamp[us, tz=UTC]',
    });
  });

  test.each([
    ['none', 'UNCOMPRESSED'],
    ['snappy', 'SNAPPY'],
    ['gzip', 'GZIP'],
    ['zstandard', 'ZSTD'],
  ] as const)('compression %s: every column chunk is %s', async (compression: ExportCompression, codec: string) => {
    const result = await exportRuns(task({ compression, startMicros: D0 + DAY, endMicros: D0 + 2 * DAY }));
    const files = await readFiles(result.files.map((f) => f.key));
    expect(files.map((f) => f.codecs)).toEqual([[codec]]);
    expect(files[0]!.num_rows).toBe(
      expected.filter((r) => (r.start_time as number) >= D0 + DAY && (r.start_time as number) < D0 + 2 * DAY).length,
    );
  });

  test.each([
    ['v1', null],
    ['v2_beta', 'UTC'],
  ] as const)(
    'format %s writes microsecond timestamps with time zone %s',
    async (formatVersion: ExportFormatVersion, tz: string | null) => {
      const result = await exportRuns(task({ formatVersion, startMicros: D0, endMicros: D0 + DAY }));
      const [file] = await readFiles(result.files.map((f) => f.key));
      expect(file!.schema.filter((f) => f.unit).map((f) => [f.unit, f.tz])).toEqual([
        ['us', tz],
        ['us', tz],
        ['us', tz],
      ]);
      expect(file!.rows.map((r) => [r.start_time, r.end_time])).toEqual(
        expected.filter((r) => (r.start_time as number) < D0 + DAY).map((r) => [r.start_time, r.end_time]),
      );
    },
  );

  test('rolls files at maxFileBytes, with unique names; a retry resumes after the last reported file', async () => {
    const first = task({ compression: 'none' });
    const rolled = await exportRuns(first, { maxFileBytes: MAX_FILE_BYTES });
    const keys = rolled.files.map((f) => f.key);
    expect(keys.length).toBeGreaterThanOrEqual(6);
    expect(new Set(keys).size).toBe(keys.length);
    keys.forEach((k, i) => expect(k.endsWith(`/${first.runId}-0-${String(i).padStart(5, '0')}.parquet`)).toBe(true));
    // A file ends once it holds maxFileBytes; only a day's last file may be smaller.
    const day = (f: ExportedFile) => f.key.split('/day=')[1]!.slice(0, 2);
    expect(new Set(rolled.files.map(day)).size).toBe(3);
    rolled.files.forEach((f, i) => {
      const next = rolled.files[i + 1];
      if (next && day(next) === day(f)) expect(f.bytes).toBeGreaterThanOrEqual(MAX_FILE_BYTES);
    });
    const all = await readFiles(keys);
    expect(comparable(all.flatMap((f) => f.rows))).toEqual(expected);

    // The retry (attempt 1) starts after the cursor of the 4th file: it writes only the rest, under new names.
    const done = 4;
    const retry = task({ ...first, attempt: 1, resumeAfter: rolled.files[done - 1]!.cursor });
    const resumed = await exportRuns(retry, { maxFileBytes: MAX_FILE_BYTES });
    expect(resumed.files.every((f) => f.key.includes(`/${first.runId}-1-`) && !keys.includes(f.key))).toBe(true);
    const rest = await readFiles(resumed.files.map((f) => f.key));
    const kept = all.slice(0, done).flatMap((f) => f.rows);
    expect(resumed.rows).toBe(expected.length - kept.length);
    expect(comparable([...kept, ...rest.flatMap((f) => f.rows)])).toEqual(expected);
  });

  test('export_fields writes just those columns, in that order', async () => {
    const fields = ['start_time', 'name', 'feedback_stats', 'inputs', 'id'];
    const result = await exportRuns(task({ exportFields: fields, startMicros: D0, endMicros: D0 + 2 * DAY }));
    const files = await readFiles(result.files.map((f) => f.key));
    expect(files[0]!.schema.map((f) => f.name)).toEqual(fields);
    const want = expected
      .filter((r) => (r.start_time as number) < D0 + 2 * DAY)
      .map((r) => Object.fromEntries(fields.map((f) => [f, r[f]])));
    expect(comparable(files.flatMap((f) => f.rows))).toEqual(want);
  });

  test('a window without runs writes no file', async () => {
    const result = await exportRuns(task({ startMicros: D0 + 5 * DAY, endMicros: D0 + 6 * DAY }));
    expect(result).toEqual({ rows: 0, files: [], reported: [] });
  });

  test('aborting after a file: the reported files stay, nothing partial is left', async () => {
    const t = task({ compression: 'none' });
    const controller = new AbortController();
    const attempt = exportRuns(t, {
      maxFileBytes: MAX_FILE_BYTES,
      signal: controller.signal,
      onFile: async () => controller.abort(new Error('export cancelled')),
    });
    await expect(attempt).rejects.toThrow('export cancelled');
    const directory = `exports/test/export_id=${t.exportId}/`;
    const keys = await listKeys(directory);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`/${t.runId}-0-00000\\.parquet$`));
    expect(await openUploads(directory)).toEqual([]);
  });

  test('aborting during a multipart upload aborts it: no object, no parts left', async () => {
    // ~50 MB in one day, uncompressed: a multipart upload (parts of 5 MiB) whose first part goes
    // out long before the end (backpressure keeps the writer at most a few parts ahead of the upload).
    const rows = Array.from({ length: 12_000 }, (_, i) =>
      runRow(TENANT, {
        id: randomUUID(),
        session_id: BIG_PROJECT,
        start_time: D0 + i * 1000,
        inputs: JSON.stringify({ text: `${i} `.repeat(800) }),
      }),
    );
    for (let i = 0; i < rows.length; i += 2000) await insertRuns(db.ch, rows.slice(i, i + 2000));
    const controller = new AbortController();
    const s3WithTrap = s3Client();
    let partsSent = 0;
    s3WithTrap.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UploadPartCommand' && ++partsSent === 1) controller.abort(new Error('stop now'));
        return next(args);
      },
      { step: 'initialize' },
    );
    const t = task({ sessionId: BIG_PROJECT, compression: 'none', startMicros: D0, endMicros: D0 + DAY });
    await expect(exportRuns(t, { signal: controller.signal, s3: s3WithTrap })).rejects.toThrow('stop now');
    s3WithTrap.destroy();
    expect(partsSent).toBeGreaterThan(0);
    const directory = `exports/test/export_id=${t.exportId}/`;
    expect(await listKeys(directory)).toEqual([]);
    expect(await openUploads(directory)).toEqual([]);
  });

  test("a multipart upload sends the encoder's chunks as each part's stream (not copied, not hashed) and sends a failed part again", async () => {
    const project = randomUUID();
    const rows = Array.from({ length: 12_000 }, (_, i) =>
      runRow(TENANT, {
        id: randomUUID(),
        session_id: project,
        start_time: D0 + i * 1000,
        inputs: JSON.stringify({ text: `${i} `.repeat(800) }),
      }),
    );
    for (let i = 0; i < rows.length; i += 2000) await insertRuns(db.ch, rows.slice(i, i + 2000));
    const s3WithTrap = s3Client();
    const payloadHashes: string[] = [];
    let attempts = 0;
    s3WithTrap.middlewareStack.add(
      (next, context) => async (args) => {
        // The second part's first attempt fails as a store that is briefly away would answer.
        if (
          context.commandName === 'UploadPartCommand' &&
          (args.input as { PartNumber: number }).PartNumber === 2 &&
          ++attempts === 1
        )
          throw Object.assign(new Error('We encountered an internal error. Please try again.'), {
            name: 'InternalError',
            $metadata: { httpStatusCode: 500 },
          });
        return next(args);
      },
      { step: 'initialize' },
    );
    s3WithTrap.middlewareStack.add(
      (next, context) => async (args) => {
        // Signed by now: a body the SDK had to hold as one buffer is hashed into this header.
        if (context.commandName === 'UploadPartCommand')
          payloadHashes.push(
            String((args.request as { headers: Record<string, string> }).headers['x-amz-content-sha256']),
          );
        return next(args);
      },
      { step: 'deserialize' },
    );
    const t = task({ sessionId: project, compression: 'none', startMicros: D0, endMicros: D0 + DAY });
    const result = await exportRuns(t, { s3: s3WithTrap });
    s3WithTrap.destroy();
    expect(attempts).toBe(2);
    expect(payloadHashes.length).toBeGreaterThan(2);
    for (const hash of payloadHashes) expect(hash).toMatch(/UNSIGNED-PAYLOAD/);
    expect(result.rows).toBe(12_000);
    const [file] = await readFiles(result.files.map((f) => f.key));
    expect(file!.rows.map((r) => r.id)).toEqual(rows.map((r) => r.id)); // start times rise with i
    expect(result.files[0]!.bytes).toBe(
      (await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: result.files[0]!.key }))).ContentLength,
    );
  });

  test('an encoder thread that dies during a multipart upload fails the export: no object, no parts left; the next export works', async () => {
    const project = randomUUID();
    const rows = Array.from({ length: 12_000 }, (_, i) =>
      runRow(TENANT, {
        id: randomUUID(),
        session_id: project,
        start_time: D0 + i * 1000,
        inputs: JSON.stringify({ text: `${i} `.repeat(800) }),
      }),
    );
    for (let i = 0; i < rows.length; i += 2000) await insertRuns(db.ch, rows.slice(i, i + 2000));
    const s3WithTrap = s3Client();
    let partsSent = 0;
    s3WithTrap.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UploadPartCommand' && ++partsSent === 1) await stopParquetEncoders();
        return next(args);
      },
      { step: 'initialize' },
    );
    const t = task({ sessionId: project, compression: 'none', startMicros: D0, endMicros: D0 + DAY });
    await expect(exportRuns(t, { s3: s3WithTrap })).rejects.toThrow(/Parquet encoder thread exited/);
    s3WithTrap.destroy();
    const directory = `exports/test/export_id=${t.exportId}/`;
    expect(await listKeys(directory)).toEqual([]);
    expect(await openUploads(directory)).toEqual([]);

    const again = task({ sessionId: project, compression: 'none', startMicros: D0, endMicros: D0 + DAY });
    const result = await exportRuns(again);
    expect(result.rows).toBe(12_000);
    expect(await listKeys(`exports/test/export_id=${again.exportId}/`)).toHaveLength(result.files.length);
  });
});
