// GET /runs/{run_id}: the merged run as the clients' Run model expects it.
// GET /runs/{run_id}/attachments/{name}: one attachment's bytes, through the API (with its key),
// for a browser that cannot reach the object store the presigned URLs of `s3_urls` point at.
import type { FastifyInstance } from 'fastify';
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import type { BlobStore } from '../../../platform/blobStore.ts';
import { errors } from '../../../platform/errors.ts';
import { feedbackStatsQuery } from '../../../projections/feedback/feedbackQueries.ts';
import { runByIdQuery } from '../../../projections/runs/runQueries.ts';
import { runResponse } from '../read/runResponse.ts';
import type { Attachment } from '../../../schemas/events.generated.ts';
import type { ReadModelTables } from '../../../projections/readModelTables.ts';
import { requireUuid } from '../../../platform/ids.ts';
import { tenantOf } from '../../tenancy/index.ts';
import { errorResponses, uuidSchema } from '../../../platform/http/openapi.ts';

export function runReadRoutes(
  app: FastifyInstance,
  ch: ClickHouseClient,
  blobs: BlobStore,
  tables: ReadModelTables,
): void {
  app.get<{ Params: { run_id: string } }>(
    '/runs/:run_id',
    {
      schema: {
        tags: ['runs'],
        summary: 'Read a run (the post and every patch merged)',
        params: { type: 'object', properties: { run_id: uuidSchema } },
        response: { 200: { type: 'object', additionalProperties: true }, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const runId = requireUuid(request.params.run_id, 'run_id');
      const tenantId = tenantOf(request);
      const [row, feedback] = await Promise.all([
        runByIdQuery(ch, tenantId, runId, tables),
        feedbackStatsQuery(ch, tenantId, tables.feedback, [runId]),
      ]);
      if (!row) throw errors.notFound(`run ${runId}`);
      return runResponse(row, blobs, { feedbackStats: feedback.get(runId) ?? null });
    },
  );
  app.get<{ Params: { run_id: string; name: string } }>(
    '/runs/:run_id/attachments/:name',
    {
      schema: {
        tags: ['runs'],
        summary: "Download one of a run's attachments (its bytes, with the type it was sent with)",
        description:
          'The attachment the run was sent with as `attachment.<run_id>.<name>` (the last one of that name). The same bytes as ' +
          "the presigned URL in `s3_urls`, answered by the API itself. Another workspace's run is not found (404).",
        params: {
          type: 'object',
          required: ['run_id', 'name'],
          properties: {
            run_id: uuidSchema,
            name: { type: 'string', minLength: 1, description: 'the attachment name' },
          },
        },
        response: {
          200: {
            description: "the attachment's bytes; Content-Type as sent",
            content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errorResponses(404, 503),
        },
      },
    },
    async (request, reply) => {
      const runId = requireUuid(request.params.run_id, 'run_id');
      const { name } = request.params;
      const tenantId = tenantOf(request);
      const row = await runByIdQuery(ch, tenantId, runId, tables);
      if (!row) throw errors.notFound(`run ${runId}`);
      const attachment = (JSON.parse(row.attachments || '[]') as Attachment[]).findLast((a) => a.name === name);
      if (!attachment) throw errors.notFound(`attachment "${name.slice(0, 100)}" of run ${runId}`);
      const body = await blobs.read(attachment.blob);
      return (
        reply
          .type(attachment.blob.content_type || 'application/octet-stream')
          .header('content-length', attachment.blob.size)
          .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(name)}`)
          .header('x-content-type-options', 'nosniff')
          // Served from the explorer's origin: whatever it holds (HTML, SVG) must not run there.
          .header('content-security-policy', 'sandbox')
          .send(body)
      );
    },
  );
}
