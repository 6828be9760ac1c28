// A run row as the clients' Run model expects it. One place, used by every route that returns runs.
import type { BlobStore } from '../../common/blobStore.ts';
import type { Attachment, BlobRef } from '../../../schemas/events.generated.ts';
import { PAYLOAD_FIELDS, type RunRow } from '../../../projections/runs/runRow.ts';
import { formatIsoMicros } from '../ingest/timestamps.ts';

export async function runResponse(row: RunRow, blobs: BlobStore): Promise<Record<string, unknown>> {
  const refs = JSON.parse(row.payload_refs) as Partial<Record<(typeof PAYLOAD_FIELDS)[number], BlobRef>>;
  const payload: Record<string, unknown> = {};
  await Promise.all(
    PAYLOAD_FIELDS.map(async (field) => {
      const ref = refs[field];
      const text = ref ? await blobs.getText(ref) : row[field];
      payload[field] = text === '' ? null : JSON.parse(text);
    }),
  );
  const attachments = JSON.parse(row.attachments) as Attachment[];
  const s3Urls: Record<string, { presigned_url: string; mime_type: string }> = {};
  for (const a of attachments) s3Urls[`attachment.${a.name}`] = { presigned_url: await blobs.presignedUrl(a.blob), mime_type: a.blob.content_type };
  return {
    id: row.id,
    name: row.name,
    run_type: row.run_type,
    start_time: formatIsoMicros(row.start_time),
    end_time: row.end_time === null ? null : formatIsoMicros(row.end_time),
    status: row.status,
    trace_id: row.trace_id,
    dotted_order: row.dotted_order,
    parent_run_id: row.parent_run_id,
    session_id: row.session_id,
    thread_id: row.thread_id === '' ? null : row.thread_id,
    inputs: payload.inputs ?? {},
    outputs: payload.outputs,
    events: payload.events ?? [],
    extra: payload.extra ?? {},
    serialized: payload.serialized,
    error: row.error,
    tags: row.tags,
    reference_example_id: row.reference_example_id,
    is_root: row.is_root === 1,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    total_tokens: row.total_tokens,
    prompt_cost: row.prompt_cost,
    completion_cost: row.completion_cost,
    total_cost: row.total_cost,
    first_token_time: row.first_token_time === null ? null : formatIsoMicros(row.first_token_time),
    child_run_ids: null,
    s3_urls: s3Urls,
  };
}
