// Bulk export of a dataset's examples end to end: a dataset is written in versions with the
// official `langsmith` npm client (examples with metadata, splits and an attachment; then a change,
// a deletion and an addition), exported through the API into MinIO at an older version (by tag,
// and by a time between the versions) and at the newest, by the stack's export worker, and every
// file read back with pyarrow. Each export's rows equal what the examples API answers for its
// version, column for column; the version is pinned when the export is created (a write after
// it is not exported); the runs of the export list exactly the bucket's files.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'langsmith';
import { beforeAll, describe, expect, inject, test } from 'vitest';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../support/tracingClient.ts';
import { createBucket, destinationBody, listKeys, waitForExport } from '../support/bulkExportClient.ts';
import { collect } from '../support/asyncItems.ts';
import { ensurePythonEnv, run, type PythonEnv } from '../support/pythonEnv.ts';
import { repoRoot } from '../support/serviceProcess.ts';
import { formatIsoMicros, parseTimestampMicros } from '../../platform/time.ts';
import { DEFAULT_EXAMPLE_FIELDS } from '../../services/bulk-export/parquet/exampleColumns.ts';

const BUCKET = `e2e-examples-${randomBytes(3).toString('hex')}`;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);

interface ParquetFile {
  key: string;
  codecs: string[];
  schema: Record<string, string>;
  partitions: Record<string, string>;
  rows: Array<Record<string, unknown>>;
}

let ws: Workspace;
let client: Client;
let pyenv: PythonEnv;
let datasetId: string;
let destinationId: string;
/** The dataset's first version (tagged v1) and its newest, as the API names them. */
let v1: string;
let v2: string;

/** Every Parquet file of an export, read by pyarrow (test/services/bulk-export/python/read_parquet.py). */
async function readExport(exportId: string): Promise<ParquetFile[]> {
  const env = inject('tracingEnv');
  const keys = (await listKeys(BUCKET, `exports/export_id=${exportId}/`)).filter((k) => k.endsWith('.parquet'));
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
    codecs: string[];
    schema: Array<{ name: string; type: string }>;
    rows: Array<Record<string, unknown>>;
  }>;
  return files.map((f) => ({
    key: f.key,
    codecs: f.codecs,
    schema: Object.fromEntries(f.schema.map((field) => [field.name, field.type])),
    partitions: Object.fromEntries(
      f.key
        .split('/')
        .filter((part) => part.includes('='))
        .map((part) => part.split('=', 2) as [string, string]),
    ),
    rows: f.rows,
  }));
}

const micros = (iso: string) => parseTimestampMicros(iso, 'time')!;

/** The dataset at `asOf` as the examples API answers it, as the export writes each example. */
async function expectedRows(asOf: string): Promise<Array<Record<string, unknown>>> {
  const examples = await collect(client.listExamples({ datasetId, asOf }));
  return examples.map((e) => {
    const { dataset_split: splits, ...metadata } = e.metadata as Record<string, unknown>;
    const attachments = Object.entries(e.attachments ?? {}).map(([name, a]) => ({
      name: name.replace(/^attachment\./, ''),
      mime_type: a.mime_type,
      size: PNG.length,
    }));
    return {
      id: e.id,
      dataset_id: datasetId,
      inputs: e.inputs,
      outputs: e.outputs ?? null,
      metadata,
      splits,
      source_run_id: e.source_run_id ?? null,
      attachments: attachments.length ? attachments : null,
      created_at: micros(e.created_at),
      modified_at: micros(e.modified_at!),
      as_of: micros(asOf),
    };
  });
}

/** A file's rows with their JSON columns parsed, to compare with the API's. */
const parsed = (rows: Array<Record<string, unknown>>) =>
  rows.map((r) => {
    const out = { ...r };
    for (const c of ['inputs', 'outputs', 'metadata', 'attachments'])
      if (typeof out[c] === 'string') out[c] = JSON.parse(out[c] as string);
    return out;
  });

async function exportAt(body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await api('/bulk-exports', {
    method: 'POST',
    apiKey: ws.apiKey,
    json: { bulk_export_destination_id: destinationId, resource: 'examples', dataset_id: datasetId, ...body },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

/** The export's one run lists exactly the bucket's files, in the partition of its version's day. */
async function expectRunMatchesBucket(exportId: string, files: ParquetFile[], asOf: string): Promise<void> {
  const runs = (await api(`/bulk-exports/${exportId}/runs`, { apiKey: ws.apiKey })).body;
  expect(runs).toHaveLength(1);
  const [r] = runs;
  expect(r).toMatchObject({ status: 'Completed', start_time: asOf, end_time: asOf });
  const day = new Date(micros(asOf) / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  expect(r.metadata.result.export_path).toBe(
    `exports/export_id=${exportId}/tenant_id=${ws.id}/dataset_id=${datasetId}/resource=examples/year=${day.getUTCFullYear()}/month=${pad(day.getUTCMonth() + 1)}/day=${pad(day.getUTCDate())}`,
  );
  expect(r.metadata.result.exported_files).toEqual(files.map((f) => f.key));
  expect(await listKeys(BUCKET, `exports/export_id=${exportId}/`)).toEqual(r.metadata.result.exported_files);
  expect(r.metadata.result.rows_written).toBe(files.reduce((n, f) => n + f.rows.length, 0));
  for (const f of files) {
    expect(f.key.startsWith(`${r.metadata.result.export_path}/`)).toBe(true);
    expect(f.partitions).toMatchObject({
      export_id: exportId,
      tenant_id: ws.id,
      dataset_id: datasetId,
      resource: 'examples',
    });
  }
}

beforeAll(async () => {
  [ws] = (await createWorkspaces(1)) as [Workspace];
  const [python] = await Promise.all([ensurePythonEnv(), createBucket(BUCKET)]);
  pyenv = python;
  client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: ws.apiKey });
  const dataset = await client.createDataset(`e2e-export-${randomBytes(3).toString('hex')}`);
  datasetId = dataset.id;

  // Version 1: three examples, one with an attachment; tagged v1.
  const [a, b] = await client.createExamples({
    datasetId,
    inputs: [{ question: '¿qué tal? 🚀' }, { question: 'b' }],
    outputs: [{ answer: 'bien' }, { answer: 'B' }],
    metadata: [{ level: 'easy', nested: { k: [1, 2] } }, { level: 'hard' }],
    splits: [['train', 'test'], 'train'],
  });
  await client.createExamples([
    { dataset_id: datasetId, inputs: { question: 'the picture?' }, attachments: { picture: ['image/png', PNG] } },
  ]);
  v1 = (await client.readDatasetVersion({ datasetId, asOf: new Date() })).as_of;
  await client.updateDatasetTag({ datasetId, asOf: v1, tag: 'v1' });

  // Version 2 and later: a changed, b deleted, d added.
  await client.updateExample(a!.id, { outputs: { answer: 'muy bien' }, split: 'test' });
  await client.deleteExample(b!.id);
  await client.createExamples({ datasetId, inputs: [{ question: 'd' }], outputs: [{ answer: 'D' }] });
  v2 = (await client.readDatasetVersion({ datasetId, asOf: new Date() })).as_of;

  const dest = await api('/bulk-exports/destinations', {
    method: 'POST',
    apiKey: ws.apiKey,
    json: destinationBody(BUCKET, 'exports'),
  });
  expect(dest.status, JSON.stringify(dest.body)).toBe(200);
  destinationId = dest.body.id;
}, 300_000);

describe('a dataset version exported into MinIO, read back with pyarrow', () => {
  test('an older version, by tag (v2_beta, zstandard): its examples as they were then, every column', async () => {
    const created = await exportAt({ as_of: 'v1', format_version: 'v2_beta', compression: 'zstandard' });
    expect(created).toMatchObject({ resource: 'examples', dataset_id: datasetId, as_of: v1, session_id: null });
    const done = await waitForExport(ws.apiKey, created.id, (e) => ['Completed', 'Failed'].includes(e.status));
    expect(done.status).toBe('Completed');
    const files = await readExport(created.id);
    const expected = await expectedRows(v1);
    expect(expected).toHaveLength(3);
    expect(parsed(files.flatMap((f) => f.rows))).toEqual(expected);
    for (const f of files) {
      expect(f.codecs).toEqual(['ZSTD']);
      expect(Object.keys(f.schema)).toEqual(DEFAULT_EXAMPLE_FIELDS);
      expect(f.schema).toMatchObject({
        id: 'string',
        splits: 'list<item: string not null>',
        created_at: 'timestamp[us, tz=UTC]',
        modified_at: 'timestamp[us, tz=UTC]',
        as_of: 'timestamp[us, tz=UTC]',
      });
    }
    expect(done.progress).toMatchObject({ runs_planned: 1, runs_completed: 1, rows_written: 3 });
    await expectRunMatchesBucket(created.id, files, v1);
  }, 180_000);

  test('a time between two versions reads the older one', async () => {
    const between = formatIsoMicros(micros(v1) + 1); // before the next write (a's change)
    const created = await exportAt({ as_of: between, export_fields: ['id', 'modified_at', 'as_of'] });
    expect(created.as_of).toBe(v1);
    expect((await waitForExport(ws.apiKey, created.id, (e) => ['Completed', 'Failed'].includes(e.status))).status).toBe(
      'Completed',
    );
    const rows = (await readExport(created.id)).flatMap((f) => f.rows);
    expect(rows).toEqual(
      (await expectedRows(v1)).map((r) => ({ id: r.id, modified_at: r.modified_at, as_of: r.as_of })),
    );
  }, 180_000);

  test('the newest (defaults: v1, gzip), pinned when created: a write after it is not exported', async () => {
    const created = await exportAt({});
    expect(created).toMatchObject({ as_of: v2, format_version: 'v1', compression: 'gzip' });
    const expected = await expectedRows(v2);
    // A write after the export was created: a later version, which the export does not read.
    await client.createExamples({ datasetId, inputs: [{ question: 'after' }] });
    const done = await waitForExport(ws.apiKey, created.id, (e) => ['Completed', 'Failed'].includes(e.status));
    expect(done.status).toBe('Completed');
    const files = await readExport(created.id);
    expect(parsed(files.flatMap((f) => f.rows))).toEqual(expected);
    expect(expected.map((r) => (r.inputs as { question: string }).question)).toEqual([
      '¿qué tal? 🚀',
      'the picture?',
      'd',
    ]);
    for (const f of files) {
      expect(f.codecs).toEqual(['GZIP']);
      expect(f.schema.created_at).toBe('timestamp[us]');
    }
    await expectRunMatchesBucket(created.id, files, v2);
  }, 180_000);
});
