// The examples export against the real ClickHouse and MinIO: versions of a dataset's examples put
// straight into a scratch database, exported at a version to a bucket of the test's own, and every
// file read back with pyarrow. What it checks: each example as it was at the version (its newest
// version at or before it; deleted ones, other datasets and other workspaces left out), oldest
// first, every column and its type, attachments listed without where they are kept, the
// partition of the version's day, export_fields, rolling at maxFileBytes and resuming after a
// cursor without a row written twice.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { provideInfra, type StackEndpoints } from '../../support/infra.ts';
import { ensurePythonEnv, run, type PythonEnv } from '../../support/pythonEnv.ts';
import { repoRoot } from '../../support/serviceProcess.ts';
import { scratchDatabase, type ScratchDatabase } from '../tracing/query/scratchDatabase.ts';
import { LIVE_TABLES } from '../../../projections/readModelTables.ts';
import type { ExampleRow } from '../../../projections/examples/exampleRow.ts';
import { exportExamplesToParquet } from '../../../services/bulk-export/parquet/examplesExport.ts';
import { DEFAULT_EXAMPLE_FIELDS } from '../../../services/bulk-export/parquet/exampleColumns.ts';
import { exportRunDirectory } from '../../../services/bulk-export/parquet/objectKey.ts';
import type { ExamplesExportTask, ExportedFile } from '../../../services/bulk-export/exportTypes.ts';

const READER = join(repoRoot, 'test', 'services', 'bulk-export', 'python', 'read_parquet.py');
const TENANT = randomUUID();
const DATASET = randomUUID();
/** A dataset of big examples (20 KiB of inputs each): a batch, and so a file at maxFileBytes 1, each. */
const BIG_DATASET = randomUUID();
/** Three writes to the dataset (microseconds): V1 creates, V2 changes and deletes, V3 adds. */
const V1 = Date.UTC(2025, 2, 10, 8) * 1000;
const V2 = V1 + 3_600_000_000;
const V3 = Date.UTC(2025, 2, 11, 9) * 1000;
const bucket = `examples-export-${randomUUID().slice(0, 8)}`;

let infra: StackEndpoints;
let db: ScratchDatabase;
let s3: S3Client;
let python: PythonEnv;
let big: ExampleRow[] = [];
/** The live examples at V1, V2 and V3 as the export should write them, oldest first. */
const expected: Record<'v1' | 'v2' | 'v3', Record<string, unknown>[]> = { v1: [], v2: [], v3: [] };

interface FileContents {
  key: string;
  num_rows: number;
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

function task(fields: Partial<ExamplesExportTask> = {}): ExamplesExportTask {
  return {
    tenantId: TENANT,
    datasetId: DATASET,
    asOf: V3,
    exportId: randomUUID(),
    runId: randomUUID(),
    attempt: 0,
    formatVersion: 'v2_beta',
    compression: 'zstandard',
    exportFields: null,
    resumeAfter: null,
    ...fields,
  };
}

const location = { bucket, prefix: 'exports/examples', endpointUrl: '', region: 'us-east-1' };

async function exportExamples(t: ExamplesExportTask, maxFileBytes = 64 * 1024 * 1024) {
  const reported: ExportedFile[] = [];
  const result = await exportExamplesToParquet(
    { ch: db.ch, tables: LIVE_TABLES, s3 },
    t,
    { ...location, endpointUrl: infra.s3Endpoint },
    {
      signal: new AbortController().signal,
      maxFileBytes,
      onFile: async (f) => {
        reported.push(f);
      },
    },
  );
  return { ...result, reported };
}

/** A version of an example as the projector writes it. */
function version(fields: Partial<ExampleRow> & { id: string; modified_at: number; created_at: number }): ExampleRow {
  return {
    tenant_id: TENANT,
    dataset_id: DATASET,
    version: 1,
    inputs: '{}',
    outputs: null,
    metadata: '{}',
    splits: ['base'],
    source_run_id: null,
    attachments: '[]',
    deleted: 0,
    ...fields,
  };
}

/** An example's version as the export writes it (values as pyarrow reads them back; timestamps in µs). */
const exported = (row: ExampleRow, asOf: number, attachments: string | null = null) => ({
  id: row.id,
  dataset_id: row.dataset_id,
  inputs: row.inputs,
  outputs: row.outputs,
  metadata: row.metadata,
  splits: row.splits,
  source_run_id: row.source_run_id,
  attachments,
  created_at: row.created_at,
  modified_at: row.modified_at,
  as_of: asOf,
});

beforeAll(async () => {
  infra = await provideInfra();
  db = await scratchDatabase('examples_export');
  s3 = new S3Client({
    endpoint: infra.s3Endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: infra.s3AccessKeyId, secretAccessKey: infra.s3SecretAccessKey },
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  python = await ensurePythonEnv();

  const run = randomUUID();
  // V1: three examples, created by the client at times of its own (not in id order).
  const a1 = version({
    id: randomUUID(),
    created_at: V1 - 3000,
    modified_at: V1,
    inputs: '{"question":"¿qué tal? 🚀"}',
    outputs: '{"answer":"bien"}',
    metadata: '{"level":"easy"}',
    splits: ['train', 'test'],
    source_run_id: run,
  });
  const b1 = version({ id: randomUUID(), created_at: V1 - 2000, modified_at: V1, inputs: '{"n":2}' });
  const c1 = version({
    id: randomUUID(),
    created_at: V1 - 1000,
    modified_at: V1,
    inputs: '{"n":3}',
    attachments: JSON.stringify([
      { name: 'photo "1".png', bucket: 'payloads', key: 'secret/place/1', size: 1234, content_type: 'image/png' },
      { name: 'notes.txt', bucket: 'payloads', key: 'secret/place/2', size: 5, content_type: 'text/plain' },
    ]),
  });
  // V2: a changed, b deleted.
  const a2 = { ...a1, modified_at: V2, version: 2, outputs: null, splits: ['test'] };
  const b2 = { ...b1, modified_at: V2, version: 2, deleted: 1 as const };
  // V3: d added (a day later: the partition is the version's day).
  const d3 = version({ id: randomUUID(), created_at: V3, modified_at: V3, inputs: '{"n":4}', splits: [] });
  // Not this dataset's, not this workspace's, and a write after V3.
  const others = [
    { ...version({ id: randomUUID(), created_at: V1, modified_at: V1 }), dataset_id: randomUUID() },
    { ...version({ id: randomUUID(), created_at: V1, modified_at: V1 }), tenant_id: randomUUID() },
    version({ id: randomUUID(), created_at: V3 + 1, modified_at: V3 + 1 }),
  ];
  await db.ch.insert(LIVE_TABLES.examples, [a1, b1, c1, ...others]);
  await db.ch.insert(LIVE_TABLES.examples, [a2, b2]);
  await db.ch.insert(LIVE_TABLES.examples, [d3, { ...d3 }]); // projected twice: one row
  big = Array.from({ length: 5 }, (_, i) =>
    version({
      id: randomUUID(),
      dataset_id: BIG_DATASET,
      created_at: V1 + i,
      modified_at: V1,
      inputs: JSON.stringify({ i, text: 'ü'.repeat(10 * 1024) }),
    }),
  );
  await db.ch.insert(LIVE_TABLES.examples, big);
  const listed = JSON.stringify([
    { name: 'photo "1".png', mime_type: 'image/png', size: 1234 },
    { name: 'notes.txt', mime_type: 'text/plain', size: 5 },
  ]);
  expected.v1 = [exported(a1, V1), exported(b1, V1), exported(c1, V1, listed)];
  expected.v2 = [exported(a2, V2), exported(c1, V2, listed)];
  expected.v3 = [exported(a2, V3), exported(c1, V3, listed), exported(d3, V3)];
}, 300_000);

afterAll(async () => {
  if (s3) {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket })).catch(() => null);
    const keys = (page?.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (keys.length) await s3.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
    await s3.send(new DeleteBucketCommand({ Bucket: bucket })).catch(() => {});
    s3.destroy();
  }
  await db?.drop();
});

describe('exportExamplesToParquet', () => {
  test.each([
    ['v1', V1],
    ['v2', V2],
    ['v3', V3],
  ] as const)('at %s: each live example as it was then, oldest first, every column', async (name, asOf) => {
    const t = task({ asOf });
    const result = await exportExamples(t);
    expect(result.rows).toBe(expected[name].length);
    expect(result.reported).toEqual(result.files);
    expect(result.files.map((f) => f.key)).toEqual([
      `${exportRunDirectory('exports/examples', { ...t, startMicros: asOf })}/${t.runId}-0-00000.parquet`,
    ]);
    const day = new Date(asOf / 1000);
    expect(result.files[0]!.key).toContain(
      `/tenant_id=${TENANT}/dataset_id=${DATASET}/resource=examples/year=${day.getUTCFullYear()}/month=03/day=${String(day.getUTCDate()).padStart(2, '0')}/`,
    );
    const [file] = await readFiles(result.files.map((f) => f.key));
    expect(file!.rows).toEqual(expected[name]);
    expect(result.files[0]!.cursor).toEqual({
      startTime: expected[name].at(-1)!.created_at,
      id: expected[name].at(-1)!.id,
    });
    expect(file!.codecs).toEqual(['ZSTD']);
    expect(Object.fromEntries(file!.schema.map((f) => [f.name, `${f.type}${f.nullable ? '' : ' not null'}`]))).toEqual({
      id: 'string not null',
      dataset_id: 'string not null',
      inputs: 'string not null',
      outputs: 'string',
      metadata: 'string not null',
      splits: 'list<item: string not null> not null',
      source_run_id: 'string',
      attachments: 'string',
      created_at: 'timestamp[us, tz=UTC] not null',
      modified_at: 'timestamp[us, tz=UTC] not null',
      as_of: 'timestamp[us, tz=UTC] not null',
    });
    expect(file!.schema.map((f) => f.name)).toEqual(DEFAULT_EXAMPLE_FIELDS);
  });

  test('v1 format, export_fields: naive timestamps, only the columns asked, in their order', async () => {
    const fields = ['as_of', 'splits', 'id', 'modified_at'];
    const result = await exportExamples(task({ formatVersion: 'v1', compression: 'gzip', exportFields: fields }));
    const [file] = await readFiles(result.files.map((f) => f.key));
    expect(file!.schema.map((f) => [f.name, f.type])).toEqual([
      ['as_of', 'timestamp[us]'],
      ['splits', 'list<item: string not null>'],
      ['id', 'string'],
      ['modified_at', 'timestamp[us]'],
    ]);
    expect(file!.codecs).toEqual(['GZIP']);
    expect(file!.rows).toEqual(
      expected.v3.map((r) => ({ as_of: r.as_of, splits: r.splits, id: r.id, modified_at: r.modified_at })),
    );
    // The cursor is read though the columns written leave it out.
    expect(result.files[0]!.cursor).toEqual({ startTime: expected.v3.at(-1)!.created_at, id: expected.v3.at(-1)!.id });
  });

  test('rolls files at maxFileBytes, and a retry after a cursor writes the rest once, under its attempt', async () => {
    const t = task({ datasetId: BIG_DATASET, asOf: V1, compression: 'none', exportFields: ['id', 'inputs'] });
    const whole = await exportExamples(t, 1);
    expect(whole.files.length).toBeGreaterThan(1);
    expect(new Set(whole.files.map((f) => f.key)).size).toBe(whole.files.length);
    const all = (await readFiles(whole.files.map((f) => f.key))).flatMap((f) => f.rows);
    expect(all).toEqual(big.map((r) => ({ id: r.id, inputs: r.inputs })));
    const first = whole.files[0]!;
    const resumed = await exportExamples({ ...t, attempt: 1, resumeAfter: first.cursor }, 1);
    expect(resumed.files.map((f) => f.key.split('/').at(-1))).toEqual(
      resumed.files.map((_, i) => `${t.runId}-1-0000${i}.parquet`),
    );
    const rest = (await readFiles(resumed.files.map((f) => f.key))).flatMap((f) => f.rows);
    expect(rest).toEqual(all.slice(first.rows));
  });

  test('a dataset without examples at the version writes no file', async () => {
    const result = await exportExamples(task({ asOf: V1 - 1 }));
    expect(result).toMatchObject({ rows: 0, files: [] });
  });
});
