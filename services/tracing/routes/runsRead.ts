// GET /runs/{run_id}: the merged run as the clients' Run model expects it.
import type { FastifyInstance } from 'fastify';
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import type { BlobStore } from '../../../platform/blobStore.ts';
import { errors } from '../../../platform/errors.ts';
import { feedbackStatsQuery, runByIdQuery } from '../../../projections/runs/runQueries.ts';
import { runResponse } from '../read/runResponse.ts';
import type { ReadModelTables } from '../../../projections/readModelTables.ts';
import { requireUuid } from '../../../platform/ids.ts';
import { tenantOf } from '../../tenancy/index.ts';
import { errorResponses, uuidSchema } from '../../../platform/http/openapi.ts';

export function runReadRoutes(app: FastifyInstance, ch: ClickHouseClient, blobs: BlobStore, tables: ReadModelTables): void {
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
      const [row, feedback] = await Promise.all([runByIdQuery(ch, tenantId, runId, tables), feedbackStatsQuery(ch, tenantId, tables.feedback, [runId])]);
      if (!row) throw errors.notFound(`run ${runId}`);
      return runResponse(row, blobs, { feedbackStats: feedback.get(runId) ?? null });
    },
  );
}
