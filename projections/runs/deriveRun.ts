// Applies the derived fields (derivedFields.ts) to a run just merged with an operation. Only
// what the operation touched is re-derived; a payload kept in object storage is read from the
// texts the projector fetched for this batch (keyed by blob key).
import type { BlobRef, RunOp } from '../../schemas/events.generated.ts';
import { firstTokenTime, metadataFields, ownUsage } from './derivedFields.ts';
import { setOwnUsage } from '../shared/usage.ts';
import type { RunRow } from '../shared/runRow.ts';

export type BlobTexts = ReadonlyMap<string, string>;

/** The blob refs an operation carries in the fields derivations read. */
export function derivationBlobs(op: RunOp): BlobRef[] {
  const refs: BlobRef[] = [];
  for (const field of ['extra', 'outputs', 'events'] as const) {
    const v = op[field];
    if (typeof v === 'object' && v !== null) refs.push(v);
  }
  return refs;
}

/** The text of a payload field of the merged row; null when it is in object storage and was not fetched. */
function textOf(row: RunRow, field: 'extra' | 'outputs' | 'events', blobs: BlobTexts): string | null {
  if (row[field] !== '') return row[field];
  const ref = (JSON.parse(row.payload_refs) as Partial<Record<string, BlobRef>>)[field];
  if (!ref) return '';
  return blobs.get(ref.key) ?? null;
}

/**
 * `before` is the run as it was before the operation (null for a new one): clients send a run's
 * extra again with every patch, and where it is the text the run holds already, the metadata
 * derived from it stands (a string comparison instead of a parse: a replay parsed each run's
 * extra twice).
 */
export function deriveRunFields(row: RunRow, op: RunOp, blobs: BlobTexts, before: RunRow | null = null): void {
  const extra = op.extra !== null || op.outputs !== null || op.run_type !== null ? textOf(row, 'extra', blobs) : null;
  const sameExtra = before !== null && row.extra !== '' && row.extra === before.extra;
  if (op.extra !== null && extra !== null && !sameExtra) Object.assign(row, metadataFields(extra));
  if (op.events !== null) {
    const events = textOf(row, 'events', blobs);
    if (events !== null) row.first_token_time = firstTokenTime(events);
  }
  if (op.outputs !== null || op.extra !== null || op.run_type !== null) {
    const outputs = textOf(row, 'outputs', blobs);
    if (outputs !== null && extra !== null) setOwnUsage(row, ownUsage(row.run_type, outputs, extra));
  }
}
