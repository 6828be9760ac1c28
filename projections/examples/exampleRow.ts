// A version of an example as the examples table holds it, and how each event of the examples
// topic makes the next one.
import type {
  ExampleAttachment,
  ExampleCreated,
  ExampleDeleted,
  ExampleUpdated,
} from '../../schemas/events.generated.ts';

export interface ExampleRow {
  tenant_id: string;
  dataset_id: string;
  id: string;
  /** Microseconds since the epoch: the write that made this version. */
  modified_at: number;
  /** From the event's offset: a row projected again is the same row. */
  version: number;
  created_at: number;
  /** JSON object. */
  inputs: string;
  /** JSON object, or null: no reference outputs. */
  outputs: string | null;
  /** JSON object, without dataset_split (`splits` holds it). */
  metadata: string;
  splits: string[];
  source_run_id: string | null;
  /** JSON array of ExampleAttachment. */
  attachments: string;
  deleted: 0 | 1;
}

export function createdRow(e: ExampleCreated, version: number): ExampleRow {
  return {
    tenant_id: e.tenant_id,
    dataset_id: e.dataset_id,
    id: e.example_id,
    modified_at: e.modified_at,
    version,
    created_at: e.created_at,
    inputs: e.inputs,
    outputs: e.outputs,
    metadata: e.metadata ?? '{}',
    splits: e.splits,
    source_run_id: e.source_run_id,
    attachments: JSON.stringify(e.attachments),
    deleted: 0,
  };
}

/** The version an update makes of `row`: the named fields replaced, the attachments kept, renamed and added as it says. */
export function updatedRow(row: ExampleRow, e: ExampleUpdated, version: number): ExampleRow {
  const next: ExampleRow = { ...row, modified_at: e.modified_at, version };
  const named = new Set(e.fields);
  if (named.has('inputs') && e.inputs !== null) next.inputs = e.inputs;
  if (named.has('outputs')) next.outputs = e.outputs;
  if (named.has('metadata')) next.metadata = e.metadata ?? '{}';
  if (named.has('splits')) next.splits = e.splits;
  const renames = e.attachments_rename ? (JSON.parse(e.attachments_rename) as Record<string, string>) : {};
  const retained = e.attachments_retain === null ? null : new Set(e.attachments_retain);
  if (retained !== null || Object.keys(renames).length > 0 || e.attachments_added.length > 0) {
    const byName = new Map<string, ExampleAttachment>();
    for (const a of attachmentsOf(row)) {
      const renamed = renames[a.name];
      if (retained !== null && !retained.has(a.name) && renamed === undefined) continue;
      byName.set(renamed ?? a.name, { ...a, name: renamed ?? a.name });
    }
    for (const a of e.attachments_added) byName.set(a.name, a);
    next.attachments = JSON.stringify([...byName.values()]);
  }
  return next;
}

export function deletedRow(row: ExampleRow, e: ExampleDeleted, version: number): ExampleRow {
  return { ...row, modified_at: e.modified_at, version, deleted: 1 };
}

export const attachmentsOf = (row: Pick<ExampleRow, 'attachments'>): ExampleAttachment[] =>
  JSON.parse(row.attachments || '[]') as ExampleAttachment[];

/** A row as ClickHouse's JSONEachRow gives it (Int64 and UInt64 as strings). */
export function exampleRowFromClickHouse(raw: Record<string, unknown>): ExampleRow {
  return {
    tenant_id: raw.tenant_id as string,
    dataset_id: raw.dataset_id as string,
    id: raw.id as string,
    modified_at: Number(raw.modified_at),
    version: Number(raw.version),
    created_at: Number(raw.created_at),
    inputs: raw.inputs as string,
    outputs: (raw.outputs as string | null) ?? null,
    metadata: raw.metadata as string,
    splits: raw.splits as string[],
    source_run_id: (raw.source_run_id as string | null) ?? null,
    attachments: raw.attachments as string,
    deleted: Number(raw.deleted) === 1 ? 1 : 0,
  };
}
