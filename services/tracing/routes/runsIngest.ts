// The ingestion routes: POST /runs, PATCH /runs/{run_id}, POST /runs/batch, POST /runs/multipart.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import type { Config } from '../../../platform/config.ts';
import { errors } from '../../../platform/errors.ts';
import { toRunDraft, type RunDraft } from '../ingest/runDraft.ts';
import { readMultipartBatch } from '../ingest/multipartBatch.ts';
import { newRunId, type RunIngestor } from '../ingest/runIngestor.ts';
import type { IngestRateLimits } from '../ingest/ingestRateLimits.ts';
import { tenantOf } from '../../tenancy/index.ts';
import { errorResponses, uuidSchema } from '../../../platform/http/openapi.ts';

/**
 * 202 once the operations are in Kafka; 404 for an unknown project or parent; 413 for an operation
 * no Kafka message can hold; 429 over the workspace's rate limit (ingestRateLimits.ts); 503 when Kafka is away.
 */
const accepted = { 202: { type: 'object', additionalProperties: { type: 'string' } }, ...errorResponses(404, 413, 429, 503) };
const runBody = {
  type: 'object',
  description: 'A run (span). Timestamps may be epoch milliseconds or ISO 8601; null means "not provided".',
  additionalProperties: true,
  properties: {
    id: { description: 'UUID (hyphenated or 32 hex digits)' },
    // Every field may be null: the Python client's PATCH sends null for each key it does not set.
    name: { type: ['string', 'null'] },
    run_type: { type: ['string', 'null'], enum: ['tool', 'chain', 'llm', 'retriever', 'embedding', 'prompt', 'parser', null] },
    start_time: { description: 'epoch ms or ISO 8601' },
    end_time: { description: 'epoch ms or ISO 8601' },
    inputs: { type: ['object', 'null'], additionalProperties: true },
    outputs: { type: ['object', 'null'], additionalProperties: true },
    extra: { type: ['object', 'null'], additionalProperties: true },
    error: {},
    events: {},
    tags: { type: ['array', 'null'], items: { type: 'string' } },
    parent_run_id: { description: 'UUID' },
    trace_id: { description: 'UUID of the root run; generated when absent on POST /runs' },
    dotted_order: { type: ['string', 'null'], description: 'generated when absent on POST /runs' },
    session_name: { type: ['string', 'null'] },
    session_id: { description: 'UUID of an existing project' },
  },
} as const;

/** `limits`: the rate limits' hooks, one set for the process (they run after the API key's, before the body is read). */
export function runIngestRoutes(app: FastifyInstance, config: Config, ingestor: RunIngestor, limits: IngestRateLimits): void {
  const basic = limits.basic ? { onRequest: limits.basic } : {};
  const batch = limits.batch ? { onRequest: limits.batch } : {};
  app.post('/runs', { ...basic, schema: { tags: ['runs'], summary: 'Create a run', body: runBody, response: accepted } }, async (request, reply) => {
    const draft = toRunDraft(request.body, { op: 'post', where: 'run', generateId: newRunId });
    await ingestor.createRun(tenantOf(request), draft);
    return reply.code(202).send({ message: 'Run created', id: draft.id });
  });

  app.patch<{ Params: { run_id: string } }>(
    '/runs/:run_id',
    { ...basic, schema: { tags: ['runs'], summary: 'Update a run', params: { type: 'object', properties: { run_id: uuidSchema } }, body: runBody, response: accepted } },
    async (request, reply) => {
      const draft = toRunDraft(request.body, { op: 'patch', id: request.params.run_id, where: 'patch' });
      await ingestor.updateRun(tenantOf(request), draft);
      return reply.code(202).send({ message: 'Run updated' });
    },
  );

  app.post(
    '/runs/batch',
    {
      ...batch,
      schema: {
        tags: ['runs'],
        summary: 'Create and update runs in one request; trace_id and dotted_order are required',
        body: { type: 'object', properties: { post: { type: 'array', items: runBody }, patch: { type: 'array', items: runBody } } },
        response: accepted,
      },
    },
    async (request, reply) => {
      const body = (request.body ?? {}) as { post?: unknown; patch?: unknown };
      const drafts: RunDraft[] = [];
      for (const op of ['post', 'patch'] as const) {
        const list = body[op] ?? [];
        if (!Array.isArray(list)) throw errors.invalidField(`${op} must be an array of runs`);
        list.forEach((run, i) => drafts.push(toRunDraft(run, { op, where: `${op}[${i}]` })));
      }
      await ingestor.ingest(tenantOf(request), drafts, [], 'batch');
      return reply.code(202).send({ message: `${drafts.length} run operations accepted` });
    },
  );

  app.post(
    '/runs/multipart',
    {
      ...batch,
      schema: {
        tags: ['runs'],
        summary: 'Create and update runs, attachments and feedback as multipart/form-data (gzip or zstd bodies accepted)',
        description:
          'Parts: `post.<run_id>` / `patch.<run_id>` (the run as JSON without its big fields), `<op>.<run_id>.<field>` for inputs, ' +
          'outputs, events, extra, error and serialized (JSON), `attachment.<run_id>.<name>` (raw bytes, their own type) and ' +
          '`feedback.<id>` (JSON). Each part has a Content-Type and its length (Content-Length or a `length` parameter).',
        consumes: ['multipart/form-data'],
        body: {
          content: {
            'multipart/form-data': { schema: { type: 'object', additionalProperties: { type: 'string', format: 'binary' } } },
          },
        },
        response: accepted,
      },
      // The body is read as a stream by the handler (readMultipartBatch); there is no parsed object to validate.
      validatorCompiler: () => () => true,
    },
    async (request: FastifyRequest, reply) => {
      // Only multipart/form-data reaches here as a stream; JSON (already parsed) or no body at all is the wrong request.
      if (!(request.body instanceof Readable))
        throw errors.unsupportedMediaType(String(request.headers['content-type'] ?? '(none)'), 'multipart/form-data with a boundary');
      const batch = await readMultipartBatch(request.body, request.headers, config.INGEST_SIZE_LIMIT_BYTES);
      await ingestor.ingest(tenantOf(request), batch.runs, batch.feedback, 'multipart');
      return reply.code(202).send({ message: `${batch.runs.length} run operations and ${batch.feedback.length} feedback accepted` });
    },
  );
}
