// The pure merge of one operation into a run as the read model stores it (shared/runRow.ts).
// Merge rule (order-independent): a post fills only what is still empty, a patch overrides
// what it provides. So post-then-patch and patch-then-post give the same row, and applying
// an operation twice changes nothing (the version check skips it).
import type { RunOp, BlobRef, Attachment } from '../../schemas/events.generated.ts';
import { copiedUsage } from '../shared/usage.ts';
import { PAYLOAD_FIELDS, ZERO_UUID, type RunRow } from '../shared/runRow.ts';

type PayloadField = (typeof PAYLOAD_FIELDS)[number];

export function emptyRow(tenantId: string, traceId: string, runId: string): RunRow {
  return {
    tenant_id: tenantId,
    trace_id: traceId,
    id: runId,
    session_id: ZERO_UUID,
    parent_run_id: null,
    dotted_order: '',
    name: '',
    run_type: '',
    status: 'pending',
    start_time: 0,
    end_time: null,
    inputs: '',
    outputs: '',
    events: '',
    extra: '',
    serialized: '',
    payload_refs: '{}',
    error: null,
    tags: [],
    reference_example_id: null,
    attachments: '[]',
    thread_id: '',
    metadata_keys: [],
    metadata_values: [],
    usage: '',
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    prompt_cost: 0,
    completion_cost: 0,
    total_cost: 0,
    first_token_time: null,
    is_root: traceId === runId ? 1 : 0,
    has_post: 0,
    received_at: 0,
    version: 0,
  };
}

const isBlob = (v: string | BlobRef | null): v is BlobRef => typeof v === 'object' && v !== null;

/** What a post leaves to later ops: a field with nothing in it yet. */
const blank = (v: unknown) => v === '' || v === null || v === 0 || v === ZERO_UUID;

/** Returns the merged row (a new object), or null when the op was already applied. */
export function mergeRunOp(current: RunRow, op: RunOp, version: number, receivedAt: number): RunRow | null {
  if (current.version >= version) return null;
  const copy: RunRow = { ...current, version, received_at: receivedAt };
  const row = current.usage === '' ? copy : copiedUsage(current, copy);
  const isPost = op.op === 'post';
  // A post fills empty fields; a patch overrides the fields it carries. (Field by field, not
  // through a helper taking the key: this runs for every op of a replay.)
  if (op.session_id !== null && (!isPost || blank(row.session_id))) row.session_id = op.session_id;
  if (op.parent_run_id !== null && (!isPost || blank(row.parent_run_id))) row.parent_run_id = op.parent_run_id;
  if (op.dotted_order !== null && (!isPost || blank(row.dotted_order))) row.dotted_order = op.dotted_order;
  if (op.name !== null && (!isPost || blank(row.name))) row.name = op.name;
  if (op.run_type !== null && (!isPost || blank(row.run_type))) row.run_type = op.run_type;
  if (op.start_time !== null && (!isPost || blank(row.start_time))) row.start_time = op.start_time;
  if (op.end_time !== null && (!isPost || blank(row.end_time))) row.end_time = op.end_time;
  if (op.error !== null && (!isPost || blank(row.error))) row.error = op.error;
  if (op.reference_example_id !== null && (!isPost || blank(row.reference_example_id)))
    row.reference_example_id = op.reference_example_id;
  if (op.tags !== null && (!isPost || row.tags.length === 0)) row.tags = op.tags;

  // Payload refs are parsed only where there are some or the op brings one: most runs have none.
  let refs: Partial<Record<PayloadField, BlobRef>> | null =
    row.payload_refs === '{}' ? null : (JSON.parse(row.payload_refs) as Partial<Record<PayloadField, BlobRef>>);
  let refsChanged = false;
  for (const field of PAYLOAD_FIELDS) {
    const value = op[field];
    if (value === null) continue;
    const isEmpty = row[field] === '' && refs?.[field] === undefined;
    if (isPost && !isEmpty) continue;
    if (isBlob(value)) {
      refs ??= {};
      refs[field] = value;
      refsChanged = true;
      row[field] = '';
    } else {
      if (refs?.[field] !== undefined) {
        delete refs[field];
        refsChanged = true;
      }
      row[field] = value;
    }
  }
  if (refsChanged) row.payload_refs = JSON.stringify(refs);

  if (op.attachments.length > 0) {
    const merged = new Map((JSON.parse(row.attachments) as Attachment[]).map((a) => [a.name, a]));
    for (const a of op.attachments) if (!isPost || !merged.has(a.name)) merged.set(a.name, a);
    row.attachments = JSON.stringify([...merged.values()]);
  }
  if (isPost) row.has_post = 1;
  row.is_root = row.trace_id === row.id ? 1 : 0;
  row.status = row.error !== null ? 'error' : row.end_time !== null ? 'success' : 'pending';
  return row;
}

/** ClickHouse returns 64-bit integers as strings in JSON; a copy of the row with them as numbers. */
export function rowFromClickHouse(raw: Record<string, unknown>): RunRow {
  return numbersFromClickHouse({ ...raw });
}

/**
 * The same, in place, for a row object the caller has just built and keeps no other view of (a
 * trace's 1,000 runs are then not copied once more).
 */
export function numbersFromClickHouse(raw: Record<string, unknown>): RunRow {
  const r = raw as unknown as RunRow & Record<string, unknown>;
  r.start_time = Number(r.start_time);
  r.end_time = r.end_time === null ? null : Number(r.end_time);
  r.is_root = Number(r.is_root);
  r.prompt_tokens = Number(r.prompt_tokens ?? 0);
  r.completion_tokens = Number(r.completion_tokens ?? 0);
  r.total_tokens = Number(r.total_tokens ?? 0);
  r.prompt_cost = Number(r.prompt_cost ?? 0);
  r.completion_cost = Number(r.completion_cost ?? 0);
  r.total_cost = Number(r.total_cost ?? 0);
  r.first_token_time =
    r.first_token_time === null || r.first_token_time === undefined ? null : Number(r.first_token_time);
  r.has_post = Number(r.has_post);
  r.received_at = Number(r.received_at);
  r.version = Number(r.version);
  return r;
}
