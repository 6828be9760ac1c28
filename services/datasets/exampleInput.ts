// What a client's example body means, the same for every route that takes one (multipart parts,
// POST /examples, PATCH /examples/bulk…): inputs and outputs are JSON objects, `split` is a name
// or a list of names, and metadata.dataset_split is the same thing said another way (`split`
// wins when both are given). The JSON routes' schemas refuse bad shapes first (422); what is
// left here is what a schema cannot say, or a multipart part (which has no schema): a 400 naming
// the example and the field.
import { errors } from '../../platform/errors.ts';
import { toUuid } from '../../platform/ids.ts';
import { storableTimestampMicros } from '../../platform/time.ts';
import type { AttachmentUpload, ExampleChange, Json, NewExample } from './exampleCommands.ts';

const MAX_SPLITS = 100;
const MAX_SPLIT_LENGTH = 256;

const uuidOf = (value: unknown, field: string): string => {
  const id = typeof value === 'string' ? toUuid(value) : null;
  if (!id) throw errors.badRequest(`${field} is not a UUID`);
  return id;
};

/** A check shared with the schema-checked routes, whose refusal is a 400 here. */
function asBadRequest<T>(check: () => T): T {
  try {
    return check();
  } catch (err) {
    throw errors.badRequest((err as Error).message);
  }
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function objectOrNull(value: unknown, field: string): Json | null {
  if (value == null) return null;
  if (!isObject(value)) throw errors.badRequest(`${field} must be a JSON object`);
  return value;
}

/** `split`: one name or a list of them; null when absent. */
export function splitsOf(value: unknown, field: string): string[] | null {
  if (value == null) return null;
  const names = typeof value === 'string' ? [value] : value;
  if (
    !Array.isArray(names) ||
    names.length > MAX_SPLITS ||
    !names.every((n) => typeof n === 'string' && n.length > 0 && n.length <= MAX_SPLIT_LENGTH)
  )
    throw errors.badRequest(
      `${field} must be a split name or a list of at most ${MAX_SPLITS} names (each 1 to ${MAX_SPLIT_LENGTH} characters)`,
    );
  return [...new Set(names as string[])];
}

/** Metadata without dataset_split, and the splits it named (null when none). */
function metadataAndSplits(value: unknown, field: string): { metadata: Json | null; splits: string[] | null } {
  const metadata = objectOrNull(value, field);
  if (metadata === null || !('dataset_split' in metadata)) return { metadata, splits: null };
  const { dataset_split, ...rest } = metadata;
  return { metadata: rest, splits: splitsOf(dataset_split, `${field}.dataset_split`) };
}

/** Where an example's data lives in the body: `inputs`, or a multipart part `<id>.inputs`. */
export interface ExampleFields {
  main: Json;
  inputs: unknown;
  outputs: unknown;
  attachments: AttachmentUpload[];
}

export function newExample(
  id: string | null,
  f: ExampleFields,
  where: string,
): NewExample & { useSourceRunIo: boolean } {
  const m = f.main;
  const useSourceRunIo = m.use_source_run_io === true;
  const inputs = objectOrNull(f.inputs, `${where}: inputs`);
  if (inputs === null && !useSourceRunIo) throw errors.badRequest(`${where}: inputs are required (a JSON object)`);
  const { metadata, splits } = metadataAndSplits(m.metadata, `${where}: metadata`);
  const sourceRunId = m.source_run_id == null ? null : uuidOf(m.source_run_id, `${where}: source_run_id`);
  if (useSourceRunIo && sourceRunId === null)
    throw errors.badRequest(`${where}: use_source_run_io needs a source_run_id`);
  return {
    id,
    inputs: inputs ?? {},
    outputs: objectOrNull(f.outputs, `${where}: outputs`),
    metadata,
    splits: splitsOf(m.split, `${where}: split`) ?? splits,
    sourceRunId,
    createdAt: asBadRequest(() => storableTimestampMicros(m.created_at ?? null, `${where}: created_at`)),
    attachments: f.attachments,
    useSourceRunIo,
  };
}

/**
 * A change: what is given replaces what was (inputs, outputs, metadata, splits); null or absent
 * leaves it, except outputs, which an explicit null given by a multipart part clears.
 */
export function exampleChange(
  id: string,
  f: ExampleFields & { outputsGiven: boolean; attachmentsOperations?: unknown },
  where: string,
): ExampleChange {
  const m = f.main;
  const { metadata, splits } = metadataAndSplits(m.metadata, `${where}: metadata`);
  const change: ExampleChange = {
    id,
    inputs: objectOrNull(f.inputs, `${where}: inputs`),
    metadata,
    splits: splitsOf(m.split, `${where}: split`) ?? splits,
    attachments: f.attachments,
  };
  if (f.outputsGiven) change.outputs = objectOrNull(f.outputs, `${where}: outputs`);
  const ops = objectOrNull(f.attachmentsOperations ?? m.attachments_operations, `${where}: attachments_operations`);
  if (ops) {
    if (ops.retain != null) {
      if (!Array.isArray(ops.retain) || !ops.retain.every((n) => typeof n === 'string'))
        throw errors.badRequest(`${where}: attachments_operations.retain must be a list of attachment names`);
      change.attachmentsRetain = ops.retain as string[];
    }
    if (ops.rename != null) {
      const rename = objectOrNull(ops.rename, `${where}: attachments_operations.rename`)!;
      if (!Object.values(rename).every((n) => typeof n === 'string' && n.length > 0))
        throw errors.badRequest(`${where}: attachments_operations.rename must map names to new names`);
      change.attachmentsRename = rename as Record<string, string>;
    }
  }
  return change;
}
