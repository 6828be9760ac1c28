// The ingestion routes: POST /runs, PATCH /runs/{run_id}, POST /runs/batch, POST /runs/multipart.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import type { Config } from '../../../platform/config.ts';
import { errors } from '../../../platform/errors.ts';
import { RUN_TYPES, toRunDraft, type RunDraft } from '../ingest/runDraft.ts';
import { readMultipartBatch } from '../ingest/multipartBatch.ts';
import { newRunId, type RunIngestor } from '../ingest/runIngestor.ts';
import type { IngestRateLimits } from '../ingest/ingestRateLimits.ts';
import { tenantOf } from '../../tenancy/index.ts';
import { errorResponses, timeSchema, uuidSchema } from '../../../platform/http/openapi.ts';

/**
 * 202 once the operations are in Kafka; 404 for an unknown project or parent; 413 for an operation
 * no Kafka message can hold; 429 over the workspace's rate limit (ingestRateLimits.ts); 503 when Kafka is away.
 */
const accepted = {
  202: { type: 'object', additionalProperties: { type: 'string' } },
  ...errorResponses(404, 413, 429, 503),
};
const uuidOrNull = (description: string) => ({ type: ['string', 'null'], format: 'uuid', description });
const jsonObject = { type: ['object', 'null'], additionalProperties: true } as const;
const runBody = {
  type: 'object',
  description: 'A run (span). null means "not provided".',
  additionalProperties: true,
  properties: {
    id: uuidOrNull('hyphenated or 32 hex digits'),
    // Every field may be null: the Python client's PATCH sends null for each key it does not set.
    name: { type: ['string', 'null'], maxLength: 1024 },
    run_type: { type: ['string', 'null'], enum: [...RUN_TYPES, null] },
    start_time: timeSchema('stored', 'when the run started'),
    end_time: timeSchema('stored', 'when the run ended'),
    inputs: jsonObject,
    outputs: jsonObject,
    extra: jsonObject,
    serialized: jsonObject,
    error: { type: ['string', 'object', 'null'], additionalProperties: true },
    events: { type: ['array', 'object', 'null'], additionalProperties: true },
    tags: { type: ['array', 'null'], items: { type: 'string' } },
    parent_run_id: uuidOrNull('the parent run'),
    trace_id: uuidOrNull('the root run; generated when absent on POST /runs'),
    dotted_order: {
      type: ['string', 'null'],
      maxLength: 64 * 1024,
      description: 'generated when absent on POST /runs',
    },
    session_name: { type: ['string', 'null'], maxLength: 512 },
    session_id: uuidOrNull('an existing project'),
    reference_example_id: uuidOrNull('the dataset example it ran on'),
  },
} as const;
/** A run created: its name and type given. */
const newRunBody = {
  ...runBody,
  required: ['name', 'run_type'],
  properties: {
    ...runBody.properties,
    name: { type: 'string', minLength: 1, maxLength: 1024 },
    run_type: { type: 'string', enum: RUN_TYPES },
  },
} as const;
/**
 * The run bodies are checked by toRunDraft as they are read (every check above, with answers that
 * name the run), so the schemas document them and are not compiled: ajv would check each run of a
 * batch a second time on the ingestion path. The contract fuzz (test/contract/) holds the two to
 * each other.
 */
const checkedByHandler = { validatorCompiler: () => () => true } as const;
/** In a batch, every run operation names its run. */
const withId = <T extends { required?: readonly string[]; properties: object }>(body: T) => ({
  ...body,
  required: [...(body.required ?? []), 'id'],
  properties: { ...body.properties, id: { ...uuidSchema, description: 'hyphenated or 32 hex digits' } },
});

/** `limits`: the rate limits' hooks, one set for the process (they run after the API key's, before the body is read). */
export function runIngestRoutes(
  app: FastifyInstance,
  config: Config,
  ingestor: RunIngestor,
  limits: IngestRateLimits,
): void {
  const basic = limits.basic ? { onRequest: limits.basic } : {};
  const batch = limits.batch ? { onRequest: limits.batch } : {};
  app.post(
    '/runs',
    {
      ...basic,
      ...checkedByHandler,
      schema: { tags: ['runs'], summary: 'Create a run', body: newRunBody, response: accepted },
    },
    async (request, reply) => {
      const draft = toRunDraft(request.body, { op: 'post', where: 'run', generateId: newRunId });
      await ingestor.createRun(tenantOf(request), draft);
      return reply.code(202).send({ message: 'Run created', id: draft.id });
    },
  );

  app.patch<{ Params: { run_id: string } }>(
    '/runs/:run_id',
    {
      ...basic,
      ...checkedByHandler,
      schema: {
        tags: ['runs'],
        summary: 'Update a run',
        params: { type: 'object', properties: { run_id: uuidSchema } },
        body: runBody,
        response: accepted,
      },
    },
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
      ...checkedByHandler,
      schema: {
        tags: ['runs'],
        summary: 'Create and update runs in one request; trace_id and dotted_order are required',
        body: {
          type: 'object',
          properties: {
            post: { type: ['array', 'null'], items: withId(newRunBody) },
            patch: { type: ['array', 'null'], items: withId(runBody) },
          },
        },
        response: accepted,
      },
    },
    async (request, reply) => {
      const body = request.body as { post?: unknown; patch?: unknown };
      if (typeof body !== 'object' || body === null || Array.isArray(body))
        throw errors.invalidField('the body must be a JSON object: {post: [runs], patch: [runs]}');
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
        summary:
          'Create and update runs, attachments and feedback as multipart/form-data (gzip, zstd or deflate bodies accepted)',
        description:
          'Parts: `post.<run_id>` / `patch.<run_id>` (the run as JSON without its big fields), `<op>.<run_id>.<field>` for inputs, ' +
          'outputs, events, extra, error and serialized (JSON), `attachment.<run_id>.<name>` (raw bytes, their own type) and ' +
          '`feedback.<id>` (JSON). Each part has a Content-Type and its length (Content-Length or a `length` parameter).',
        consumes: ['multipart/form-data'],
        body: {
          content: {
            'multipart/form-data': {
              schema: { type: 'object', additionalProperties: { type: 'string', format: 'binary' } },
            },
          },
        },
        response: accepted,
      },
      // The body is read as a stream by the handler (readMultipartBatch); there is no parsed object to validate.
      validatorCompiler: () => () => true,
    },
    async (request: FastifyRequest, reply) => {
      // Only multipart/form-data reaches here as a stream; JSON (already parsed) is the wrong request, no body a missing one.
      if (request.body === undefined)
        throw errors.invalidField('the request has no body: send the run operations as multipart/form-data');
      if (!(request.body instanceof Readable))
        throw errors.unsupportedMediaType(
          String(request.headers['content-type'] ?? '(none)'),
          'multipart/form-data with a boundary',
        );
      const batch = await readMultipartBatch(request.body, request.headers, config.INGEST_SIZE_LIMIT_BYTES);
      await ingestor.ingest(tenantOf(request), batch.runs, batch.feedback, 'multipart');
      return reply
        .code(202)
        .send({ message: `${batch.runs.length} run operations and ${batch.feedback.length} feedback accepted` });
    },
  );
}
