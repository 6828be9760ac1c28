// GET /runs/{run_id}: the merged run as the clients' Run model expects it.
import type { FastifyInstance } from 'fastify';
import type { ClickHouseClient } from '../../common/clickhouse/client.ts';
import type { BlobStore } from '../../common/blobStore.ts';
import { errors } from '../../common/errors.ts';
import type { Attachment, BlobRef } from '../../../schemas/events.generated.ts';
import { runByIdQuery } from '../../../projections/runs/runQueries.ts';
import { PAYLOAD_FIELDS, type RunRow } from '../../../projections/runs/runRow.ts';
import { formatIsoMicros } from '../ingest/timestamps.ts';
import { requireUuid } from '../ingest/ids.ts';
import { tenantOf } from './auth.ts';

async function runResponse(row: RunRow, blobs: BlobStore): Promise<Record<string, unknown>> {
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
    inputs: payload.inputs ?? {},
    outputs: payload.outputs,
    events: payload.events ?? [],
    extra: payload.extra ?? {},
    serialized: payload.serialized,
    error: row.error,
    tags: row.tags,
    reference_example_id: row.reference_example_id,
    is_root: row.is_root === 1,
    child_run_ids: null,
    s3_urls: s3Urls,
  };
}

export function runReadRoutes(app: FastifyInstance, ch: ClickHouseClient, blobs: BlobStore): void {
  app.get<{ Params: { run_id: string } }>(
    '/runs/:run_id',
    {
      schema: {
        tags: ['runs'],
        summary: 'Read a run (the post and every patch merged)',
        params: { type: 'object', properties: { run_id: { type: 'string' } } },
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    async (request) => {
      const runId = requireUuid(request.params.run_id, 'run_id');
      const row = await runByIdQuery(ch, tenantOf(request), runId);
      if (!row) throw errors.notFound(`run ${runId}`);
      return runResponse(row, blobs);
    },
  );
}
