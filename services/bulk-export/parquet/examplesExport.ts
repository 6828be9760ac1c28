// The one run of an examples export: a dataset's live examples at the version the export pinned,
// read from the examples read model in one query (its statement is the read model's own:
// examplesAtVersionStatement), oldest first, written as Parquet by exportFiles.ts into the day
// partition of that version. Attachments are listed (name, type, size), not copied.
import type { S3Client } from '@aws-sdk/client-s3';
import { join } from '../../../platform/clickhouse/sql.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import { examplesAtVersionStatement } from '../../../projections/examples/exampleQueries.ts';
import type { ReadModelTables } from '../../../projections/readModelTables.ts';
import type { ExampleAttachment } from '../../../schemas/events.generated.ts';
import type { DestinationLocation, ExamplesExportTask } from '../exportTypes.ts';
import { replaceUtf8Values, utf8At, type ColumnValues, type Utf8Values } from './columnData.ts';
import { EXAMPLE_CURSOR, exampleColumns, exampleQueryColumns } from './exampleColumns.ts';
import { writeExportFiles, type ExportPlan, type ExportRunOptions, type ExportRunResult } from './exportFiles.ts';

export interface ExamplesExportDeps {
  ch: ClickHouseClient;
  tables: Pick<ReadModelTables, 'examples' | 'exampleIds'>;
  /** A client for the destination (its endpoint, region and credentials). */
  s3: S3Client;
}

/** What the run reads: one query, in the day partition of the version. */
export function examplesExportPlan(tables: ExamplesExportDeps['tables'], task: ExamplesExportTask): ExportPlan {
  const columns = exampleColumns(task.exportFields, task.asOf);
  const queryColumns = exampleQueryColumns(columns);
  const after = task.resumeAfter && { createdAt: task.resumeAfter.startTime, id: task.resumeAfter.id };
  const query = examplesAtVersionStatement(
    tables,
    task.tenantId,
    task.datasetId,
    task.asOf,
    join(queryColumns.map((c) => c.select)),
    after,
  );
  return { columns, queryColumns, days: [{ startMicros: task.asOf, queries: [query] }], cursor: EXAMPLE_CURSOR };
}

export async function exportExamplesToParquet(
  deps: ExamplesExportDeps,
  task: ExamplesExportTask,
  location: DestinationLocation,
  options: ExportRunOptions,
): Promise<ExportRunResult> {
  options.signal.throwIfAborted();
  const plan = examplesExportPlan(deps.tables, task);
  return writeExportFiles(deps, task, location, options, plan, async (batch) =>
    plan.columns.map((c) => {
      const values = batch.columns.get(c.name)!;
      return c.name === 'attachments' ? listedAttachments(values as Utf8Values) : values;
    }),
  );
}

/** Each row's attachments as stored (bucket, key: where this service keeps them) → `[{name, mime_type, size}]`. */
function listedAttachments(column: Utf8Values): ColumnValues {
  const replaced = new Map<number, string>();
  for (let row = 0; row < column.length; row++) {
    const stored = utf8At(column, row);
    if (stored === null) continue;
    const listed = (JSON.parse(stored) as ExampleAttachment[]).map((a) => ({
      name: a.name,
      mime_type: a.content_type,
      size: a.size,
    }));
    replaced.set(row, JSON.stringify(listed));
  }
  return replaceUtf8Values(column, replaced);
}
