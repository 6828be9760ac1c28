// The values of each export column for one decoded batch: columns read from ClickHouse as
// decoded, except claim-checked payloads (fetched from the payload store, as the read API does),
// feedback_stats (the read API's feedbackStatsQuery, for the batch's runs that have feedback),
// and always-null columns.
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import type { BlobStore } from '../../../platform/blobStore.ts';
import type { BlobRef } from '../../../schemas/events.generated.ts';
import { feedbackStatsQuery } from '../../../projections/feedback/feedbackQueries.ts';
import { CLAIM_CHECKED_COLUMNS, PAYLOAD_REFS_COLUMN, CURSOR_COLUMNS, type ExportColumn } from './exportColumns.ts';
import { FEEDBACK_FLAG } from './exportQuery.ts';
import {
  allNullUtf8,
  replaceUtf8Values,
  utf8At,
  type BoolValues,
  type ColumnValues,
  type DecodedBatch,
  type Utf8Values,
} from './columnData.ts';

export interface BatchSources {
  ch: ClickHouseClient;
  feedbackTable: string;
  blobs: BlobStore;
  tenantId: string;
}

/** Run ids per feedback query: keeps the statement well under ClickHouse's 256 KB query size. */
const FEEDBACK_IDS_PER_QUERY = 2000;
/** Payloads fetched at once. */
const FETCHES_IN_FLIGHT = 8;

type PayloadRefs = Partial<Record<string, BlobRef>>;

/** The values of `columns` for the batch, in order. */
export async function batchValues(
  batch: DecodedBatch,
  columns: readonly ExportColumn[],
  sources: BatchSources,
): Promise<ColumnValues[]> {
  const payloads = await claimCheckedPayloads(batch, columns, sources.blobs);
  const values: ColumnValues[] = [];
  for (const c of columns) {
    if (c.source === 'always_null') values.push(allNullUtf8(batch.rows));
    else if (c.source === 'feedback_stats') values.push(await feedbackStats(batch, sources));
    else {
      const decoded = batch.columns.get(c.source.name)!;
      const replaced = payloads.get(c.name);
      values.push(replaced ? replaceUtf8Values(decoded as Utf8Values, replaced) : decoded);
    }
  }
  return values;
}

/** The exported claim-checked fields a row's payload_refs points at, with their stored size (for batch sizing). */
export function claimCheckedBytes(columns: readonly ExportColumn[]): (payloadRefs: Uint8Array) => number {
  const fields = columns.filter((c) => CLAIM_CHECKED_COLUMNS.has(c.name)).map((c) => c.name);
  return (payloadRefs) => {
    const refs = JSON.parse(Buffer.from(payloadRefs).toString('utf8')) as PayloadRefs;
    let bytes = 0;
    for (const f of fields) bytes += refs[f]?.size ?? 0;
    return bytes;
  };
}

/** Column name -> (row -> payload text) for the claim-checked values of exported columns. */
async function claimCheckedPayloads(
  batch: DecodedBatch,
  columns: readonly ExportColumn[],
  blobs: BlobStore,
): Promise<Map<string, Map<number, string | null>>> {
  const out = new Map<string, Map<number, string | null>>();
  const refsColumn = batch.columns.get(PAYLOAD_REFS_COLUMN.name) as Utf8Values | undefined;
  if (!refsColumn) return out;
  const fields = columns.filter((c) => CLAIM_CHECKED_COLUMNS.has(c.name)).map((c) => c.name);
  const fetches: { field: string; row: number; ref: BlobRef }[] = [];
  for (let row = 0; row < batch.rows; row++) {
    // '{}' (two bytes) is the common case: no need to parse it.
    if (refsColumn.offsets[row + 1]! - refsColumn.offsets[row]! <= 2) continue;
    const refs = JSON.parse(utf8At(refsColumn, row) ?? '{}') as PayloadRefs;
    for (const field of fields) if (refs[field]) fetches.push({ field, row, ref: refs[field] });
  }
  let next = 0;
  const worker = async () => {
    while (next < fetches.length) {
      const f = fetches[next++]!;
      const text = await blobs.getText(f.ref);
      if (!out.has(f.field)) out.set(f.field, new Map());
      out.get(f.field)!.set(f.row, text === '' ? null : text);
    }
  };
  await Promise.all(Array.from({ length: Math.min(FETCHES_IN_FLIGHT, fetches.length) }, worker));
  return out;
}

/**
 * feedback_stats of each row's run as JSON text (null when it has none), the read API's shape:
 * asked only for the runs ClickHouse flagged as having feedback (no flag column: the project has none).
 */
async function feedbackStats(batch: DecodedBatch, sources: BatchSources): Promise<Utf8Values> {
  const flags = batch.columns.get(FEEDBACK_FLAG) as BoolValues | undefined;
  if (!flags) return allNullUtf8(batch.rows);
  const idColumn = batch.columns.get(CURSOR_COLUMNS.id.name) as Utf8Values;
  const graded = new Map<number, string>();
  for (let row = 0; row < batch.rows; row++)
    if (flags.bits[row >> 3]! & (1 << (row & 7))) graded.set(row, utf8At(idColumn, row)!);
  if (graded.size === 0) return allNullUtf8(batch.rows);
  const ids = [...graded.values()];
  const stats = new Map<string, unknown>();
  for (let i = 0; i < ids.length; i += FEEDBACK_IDS_PER_QUERY) {
    const found = await feedbackStatsQuery(
      sources.ch,
      sources.tenantId,
      sources.feedbackTable,
      ids.slice(i, i + FEEDBACK_IDS_PER_QUERY),
    );
    for (const [id, s] of found) stats.set(id, s);
  }
  return replaceUtf8Values(
    allNullUtf8(batch.rows),
    new Map([...graded].map(([row, id]) => [row, stats.has(id) ? JSON.stringify(stats.get(id)) : null])),
  );
}
