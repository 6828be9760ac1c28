import { describe, expect, test } from 'vitest';
import { TimeUnit, type TimestampMicrosecond } from 'apache-arrow';
import {
  arrowType,
  DEFAULT_EXPORT_FIELDS,
  exportColumns,
  queryColumnsFor,
  unknownExportFields,
} from '../../../../services/bulk-export/parquet/exportColumns.ts';
import { exportObjectKey, exportRunDirectory } from '../../../../services/bulk-export/parquet/objectKey.ts';
import {
  DEFAULT_EXAMPLE_FIELDS,
  exampleColumns,
  exampleQueryColumns,
  unknownExampleFields,
} from '../../../../services/bulk-export/parquet/exampleColumns.ts';
import { allNullUtf8, replaceUtf8Values, utf8At } from '../../../../services/bulk-export/parquet/columnData.ts';

describe('export columns', () => {
  test('the default set is LangSmith’s, in its order', () => {
    expect(DEFAULT_EXPORT_FIELDS).toEqual([
      'id',
      'tenant_id',
      'session_id',
      'trace_id',
      'parent_run_id',
      'parent_run_ids',
      'reference_example_id',
      'name',
      'run_type',
      'start_time',
      'end_time',
      'status',
      'is_root',
      'dotted_order',
      'trace_tier',
      'inputs',
      'outputs',
      'error',
      'extra',
      'events',
      'tags',
      'feedback_stats',
      'total_tokens',
      'prompt_tokens',
      'completion_tokens',
      'total_cost',
      'prompt_cost',
      'completion_cost',
      'first_token_time',
    ]);
  });

  test('unknown export fields are named; a subset keeps the order asked', () => {
    expect(unknownExportFields(['id', 'latency', 'name', '__proto__', 'serialized'])).toEqual([
      'latency',
      '__proto__',
      'serialized',
    ]);
    expect(unknownExportFields(DEFAULT_EXPORT_FIELDS)).toEqual([]);
    expect(exportColumns(['name', 'id', 'feedback_stats']).map((c) => c.name)).toEqual([
      'name',
      'id',
      'feedback_stats',
    ]);
    expect(() => exportColumns(['id', 'nope'])).toThrow(/nope/);
  });

  test('the query reads the cursor, and payload_refs only when a claim-checked payload is written', () => {
    expect(queryColumnsFor(exportColumns(['name', 'trace_tier'])).map((c) => c.name)).toEqual([
      'name',
      'start_time',
      'id',
    ]);
    expect(queryColumnsFor(exportColumns(['outputs', 'id'])).map((c) => c.name)).toEqual([
      'outputs',
      'id',
      'start_time',
      'payload_refs',
    ]);
  });

  test('timestamps are microseconds, UTC-aware in v2_beta and naive in v1', () => {
    const [start] = exportColumns(['start_time']);
    const v2 = arrowType(start!, 'v2_beta') as TimestampMicrosecond;
    const v1 = arrowType(start!, 'v1') as TimestampMicrosecond;
    expect([v2.unit, v2.timezone]).toEqual([TimeUnit.MICROSECOND, 'UTC']);
    expect([v1.unit, v1.timezone ?? null]).toEqual([TimeUnit.MICROSECOND, null]);
  });
});

describe('object keys', () => {
  const partition = {
    exportId: 'e1',
    tenantId: 't1',
    sessionId: 's1',
    runId: 'r1',
    attempt: 2,
    startMicros: Date.UTC(2025, 2, 7, 23, 59, 59) * 1000,
  };

  test('Hive partitions by the UTC day of the start time; names carry run, attempt and sequence', () => {
    expect(exportObjectKey('exports/acme', partition, 3)).toBe(
      'exports/acme/export_id=e1/tenant_id=t1/session_id=s1/resource=runs/year=2025/month=03/day=07/r1-2-00003.parquet',
    );
    expect(exportRunDirectory('', partition)).toBe(
      'export_id=e1/tenant_id=t1/session_id=s1/resource=runs/year=2025/month=03/day=07',
    );
  });

  test('an examples export: the dataset in place of the project, resource=examples, the day of its version', () => {
    const partition = {
      exportId: 'e1',
      tenantId: 't1',
      datasetId: 'd1',
      startMicros: Date.UTC(2025, 11, 31, 23, 59) * 1000,
      runId: 'r1',
      attempt: 0,
    };
    expect(exportObjectKey('exports', partition, 0)).toBe(
      'exports/export_id=e1/tenant_id=t1/dataset_id=d1/resource=examples/year=2025/month=12/day=31/r1-0-00000.parquet',
    );
  });
});

describe('example columns', () => {
  test('what reloading a dataset needs, in order; as_of holds the export’s version', () => {
    expect(DEFAULT_EXAMPLE_FIELDS).toEqual([
      'id',
      'dataset_id',
      'inputs',
      'outputs',
      'metadata',
      'splits',
      'source_run_id',
      'attachments',
      'created_at',
      'modified_at',
      'as_of',
    ]);
    const columns = exampleColumns(null, 1_700_000_000_000_000);
    expect(columns.find((c) => c.name === 'as_of')!.source).toMatchObject({
      select: { text: 'toInt64(1700000000000000)' },
    });
    expect(columns.filter((c) => c.nullable).map((c) => c.name)).toEqual(['outputs', 'source_run_id', 'attachments']);
  });

  test('export_fields: the columns asked, in their order, with the cursor selected; a runs column is unknown', () => {
    const columns = exampleColumns(['splits', 'inputs'], 1);
    expect(columns.map((c) => c.name)).toEqual(['splits', 'inputs']);
    expect(exampleQueryColumns(columns).map((c) => c.name)).toEqual(['splits', 'inputs', 'created_at', 'id']);
    expect(unknownExampleFields(['id', 'trace_id', 'run_type'])).toEqual(['trace_id', 'run_type']);
    expect(() => exampleColumns(['trace_id'], 1)).toThrow(/trace_id/);
  });
});

describe('UTF-8 columns', () => {
  test('replacing values keeps the others, byte for byte, and their nulls', () => {
    const column = replaceUtf8Values(
      allNullUtf8(5),
      new Map([
        [0, 'a'],
        [2, ''],
        [3, 'ünï'],
        [4, 'last'],
      ]),
    );
    expect(Array.from({ length: 5 }, (_, i) => utf8At(column, i))).toEqual(['a', null, '', 'ünï', 'last']);
    const replaced = replaceUtf8Values(
      column,
      new Map([
        [1, '{"big":"payload"}'],
        [3, null],
      ]),
    );
    expect(Array.from({ length: 5 }, (_, i) => utf8At(replaced, i))).toEqual([
      'a',
      '{"big":"payload"}',
      '',
      null,
      'last',
    ]);
    expect(replaced.nullCount).toBe(1);
  });
});
