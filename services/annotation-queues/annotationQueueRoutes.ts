// Annotation queues as the official clients call them: queues (create, list, read, update,
// delete), their runs (add by id or by run key, list by review status, read the next one, remove),
// their size, and a reviewer's mark ("done"). The reviewer is the caller's API key: an item needs
// my review until I mark it completed, and leaves the queue's to-do once num_reviewers_per_item
// reviewers have. Feedback written while reviewing is ordinary feedback on the run
// (POST /feedback). An unknown id, or another workspace's, is a 404 ("… not found").
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { BlobStore } from '../../platform/blobStore.ts';
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { errors } from '../../platform/errors.ts';
import { errorResponses, timeSchema, uuidSchema } from '../../platform/http/openapi.ts';
import { boundedObject, int, list, uuid } from '../../platform/http/routeInput.ts';
import type { EventLog } from '../../platform/kafka/eventLog.ts';
import { formatIsoMicros, storableTimestampMicros } from '../../platform/time.ts';
import type {
  AnnotationQueue,
  AnnotationQueueRegistry,
  QueueFields,
  QueueItem,
} from '../../projections/annotation-queues/annotationQueueRegistry.ts';
import type { FeedbackConfigRegistry } from '../../projections/feedback/feedbackConfigRegistry.ts';
import type { ReadModelTables } from '../../projections/readModelTables.ts';
import { keyHashOf, tenantOf } from '../tenancy/index.ts';
import { runsByIds, storedRunIds } from '../tracing/index.ts';
import { AnnotationQueueCommands, type RunToAdd } from './annotationQueueCommands.ts';

export interface AnnotationQueueRouteOptions {
  eventLog: EventLog;
  queues: AnnotationQueueRegistry;
  /** Each rubric item is read with its key's feedback config. */
  feedbackConfigs: FeedbackConfigRegistry;
  ch: ClickHouseClient;
  blobs: BlobStore;
  tables: ReadModelTables;
}

const MAX_LIMIT = 100;
const MAX_NAME_LENGTH = 1000;
const MAX_TEXT_LENGTH = 64 * 1024;
const MAX_OBJECT_BYTES = 256 * 1024;
const MAX_RUNS = 1000;
const STATUSES = ['needs_my_review', 'needs_others_review', 'completed'] as const;
type Status = (typeof STATUSES)[number];
const tags = ['annotation-queues'];

const rubricItemSchema = {
  type: 'object',
  required: ['feedback_key'],
  additionalProperties: true,
  properties: {
    feedback_key: { type: 'string', minLength: 1, maxLength: 1000 },
    description: { type: ['string', 'null'] },
    value_descriptions: { type: ['object', 'null'], additionalProperties: { type: 'string' } },
    score_descriptions: { type: ['object', 'null'], additionalProperties: { type: 'string' } },
    is_required: { type: ['boolean', 'null'] },
  },
} as const;

const queueFieldsSchema = {
  name: { type: 'string', minLength: 1, maxLength: MAX_NAME_LENGTH },
  description: { type: ['string', 'null'], maxLength: MAX_TEXT_LENGTH },
  rubric_instructions: { type: ['string', 'null'], maxLength: MAX_TEXT_LENGTH },
  rubric_items: { type: ['array', 'null'], maxItems: 100, items: rubricItemSchema },
  default_dataset: { type: ['string', 'null'], format: 'uuid', description: 'where the reviewer page adds runs' },
  num_reviewers_per_item: { type: ['integer', 'null'], minimum: 1, maximum: 100 },
  metadata: { type: ['object', 'null'], additionalProperties: true },
} as const;

const queueSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'name', 'tenant_id', 'created_at', 'updated_at', 'queue_type', 'total_runs'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    tenant_id: { type: 'string' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
    queue_type: { type: 'string', enum: ['single'] },
    default_dataset: { type: ['string', 'null'] },
    num_reviewers_per_item: { type: 'integer' },
    metadata: { type: ['object', 'null'], additionalProperties: true },
    rubric_instructions: { type: ['string', 'null'] },
    rubric_items: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: true,
        properties: {
          feedback_key: { type: 'string' },
          feedback_config: {
            type: ['object', 'null'],
            additionalProperties: true,
            description: "the key's feedback config (its enforced one, else its first), null when it has none",
          },
        },
      },
    },
    total_runs: { type: 'integer', description: 'items in the queue whose run is stored' },
    pending_runs: {
      type: 'integer',
      description: 'of those, the items that still need a review (fewer completions than reviewers per item)',
    },
  },
} as const;

const queueRunSchema = {
  type: 'object',
  description: 'The run as GET /runs/{id} answers it, with its place in the queue',
  additionalProperties: true,
  required: ['id', 'queue_run_id', 'added_at'],
  properties: {
    id: { type: 'string' },
    queue_run_id: { type: 'string', description: 'the item’s id' },
    added_at: { type: 'string' },
    effective_added_at: { type: 'string' },
    last_reviewed_time: { type: ['string', 'null'] },
    reviewed_by_me: { type: ['string', 'null'], description: 'completed or viewed: the caller’s own mark' },
    completed_count: { type: 'integer' },
  },
} as const;

const queueIdParams = {
  type: 'object',
  required: ['queue_id'],
  properties: { queue_id: { ...uuidSchema, description: 'UUID of the queue' } },
} as const;

const runKeySchema = {
  type: 'object',
  required: ['run_id'],
  additionalProperties: true,
  properties: {
    run_id: uuidSchema,
    session_id: { type: ['string', 'null'], format: 'uuid' },
    start_time: timeSchema('stored', 'the run’s start'),
  },
} as const;

const fieldsOf = (b: Record<string, unknown>): QueueFields => ({
  name: b.name as string | undefined,
  description: b.description as string | null | undefined,
  rubricInstructions: b.rubric_instructions as string | null | undefined,
  rubricItems:
    b.rubric_items === undefined
      ? undefined
      : b.rubric_items === null
        ? null
        : (b.rubric_items as Record<string, unknown>[]).map((item) => {
            // the config a read returns with an item is its key's (feedback configs): not written back
            const { feedback_config: _read, ...rest } = item;
            return rest;
          }),
  defaultDataset: b.default_dataset === undefined ? undefined : (b.default_dataset as string | null),
  numReviewersPerItem: b.num_reviewers_per_item as number | null | undefined,
  metadata: b.metadata === undefined ? undefined : boundedObject(b.metadata, 'metadata', MAX_OBJECT_BYTES),
});

export const annotationQueueRoutes: FastifyPluginAsync<AnnotationQueueRouteOptions> = async (app, options) => {
  const { queues } = options;
  const commands = new AnnotationQueueCommands(queues, options.eventLog);

  const completions = (item: QueueItem) => [...item.marks.values()].filter((m) => m.status === 'completed').length;
  const statusOf = (queue: AnnotationQueue, item: QueueItem, me: string): Status => {
    if (completions(item) >= queue.numReviewersPerItem) return 'completed';
    return item.marks.get(me)?.status === 'completed' ? 'needs_others_review' : 'needs_my_review';
  };
  /**
   * The items whose run the API can read. An item whose run is not stored (not projected yet, or
   * its project deleted since) is left out of every count, list and index until it is.
   */
  const readable = async (tenantId: string, items: QueueItem[]): Promise<QueueItem[]> => {
    const stored = await storedRunIds(options, tenantId, [...new Set(items.map((i) => i.runId))]);
    return items.filter((i) => stored.has(i.runId));
  };
  const respondQueues = async (tenantId: string, page: AnnotationQueue[]) => {
    const all = page.map((q) => queues.items(q.tenantId, q.id));
    const stored = new Set((await readable(tenantId, all.flat())).map((i) => i.id));
    return page.map((q, n) =>
      respondQueue(
        q,
        all[n]!.filter((i) => stored.has(i.id)),
      ),
    );
  };
  const respondQueue = (q: AnnotationQueue, items: QueueItem[]) => {
    return {
      id: q.id,
      name: q.name,
      description: q.description,
      tenant_id: q.tenantId,
      created_at: formatIsoMicros(q.createdAt),
      updated_at: formatIsoMicros(q.updatedAt),
      queue_type: 'single' as const,
      default_dataset: q.defaultDataset,
      num_reviewers_per_item: q.numReviewersPerItem,
      metadata: q.metadata,
      rubric_instructions: q.rubricInstructions,
      rubric_items: q.rubricItems.map((item) => ({
        ...item,
        feedback_config: options.feedbackConfigs.principal(q.tenantId, String(item.feedback_key))?.config ?? null,
      })),
      total_runs: items.length,
      pending_runs: items.filter((i) => completions(i) < q.numReviewersPerItem).length,
    };
  };
  /** The items' runs, as GET /runs/{id} answers them, with their place in the queue (items whose run is gone are left out). */
  const respondRuns = async (request: FastifyRequest, items: QueueItem[]) => {
    const tenantId = tenantOf(request);
    const me = keyHashOf(request);
    const runs = await runsByIds(options, tenantId, [...new Set(items.map((i) => i.runId))]);
    return items.flatMap((item) => {
      const run = runs.get(item.runId);
      if (!run) return [];
      const reviewed = [...item.marks.values()].reduce<number | null>((t, m) => Math.max(t ?? 0, m.at), null);
      return [
        {
          ...run,
          queue_run_id: item.id,
          added_at: formatIsoMicros(item.addedAt),
          effective_added_at: formatIsoMicros(item.addedAt),
          last_reviewed_time: reviewed === null ? null : formatIsoMicros(reviewed),
          reviewed_by_me: item.marks.get(me)?.status ?? null,
          completed_count: completions(item),
        },
      ];
    });
  };
  /** The queue's readable items, in the order added, with a review status for the caller. */
  const itemsWith = async (request: FastifyRequest, queue: AnnotationQueue, status: Status | undefined) => {
    const me = keyHashOf(request);
    const items = await readable(queue.tenantId, queues.items(queue.tenantId, queue.id));
    return status === undefined ? items : items.filter((i) => statusOf(queue, i, me) === status);
  };

  app.post<{ Body: Record<string, unknown> }>(
    '/annotation-queues',
    {
      schema: {
        tags,
        summary: 'Create an annotation queue (its id the caller’s when given)',
        body: {
          type: 'object',
          required: ['name'],
          additionalProperties: true,
          properties: { id: { type: ['string', 'null'], format: 'uuid' }, ...queueFieldsSchema },
        },
        response: { 200: queueSchema, ...errorResponses(409, 503) },
      },
    },
    async (request) => {
      const b = request.body;
      const queue = await commands.create(
        tenantOf(request),
        b.id == null ? null : uuid(b.id, 'id'),
        fieldsOf(b) as QueueFields & { name: string },
      );
      return respondQueue(queue, []);
    },
  );

  app.get<{ Querystring: { ids?: string[]; name?: string; name_contains?: string; offset?: number; limit?: number } }>(
    '/annotation-queues',
    {
      schema: {
        tags,
        summary: 'List annotation queues, newest first',
        querystring: {
          type: 'object',
          properties: {
            ids: { type: 'array', items: uuidSchema, description: 'only these queues (repeated)' },
            name: { type: 'string', description: 'exactly this name' },
            name_contains: { type: 'string', description: 'case-insensitive part of the name' },
            offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
            limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT },
          },
        },
        response: { 200: { type: 'array', items: queueSchema }, ...errorResponses(503) },
      },
    },
    async (request) => {
      const q = request.query;
      const ids = q.ids === undefined ? undefined : list(q.ids).map((v) => uuid(v, 'ids'));
      const contains = q.name_contains?.toLowerCase();
      const offset = int(q.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
      const limit = int(q.limit, 'limit', MAX_LIMIT, 1, MAX_LIMIT);
      await queues.catchUp();
      const tenantId = tenantOf(request);
      const page = queues
        .list(tenantId)
        .filter(
          (x) =>
            (!ids || ids.includes(x.id)) &&
            (q.name === undefined || x.name === q.name) &&
            (!contains || x.name.toLowerCase().includes(contains)),
        )
        .slice(offset, offset + limit);
      return respondQueues(tenantId, page);
    },
  );

  app.get<{ Params: { queue_id: string } }>(
    '/annotation-queues/:queue_id',
    {
      schema: {
        tags,
        summary: 'Read an annotation queue, with its rubric',
        params: queueIdParams,
        response: { 200: queueSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const [queue] = await respondQueues(tenantId, [
        await commands.queue(tenantId, uuid(request.params.queue_id, 'queue_id')),
      ]);
      return queue;
    },
  );

  app.patch<{ Params: { queue_id: string }; Body: Record<string, unknown> }>(
    '/annotation-queues/:queue_id',
    {
      schema: {
        tags,
        summary: 'Change an annotation queue (what is given replaces what was; rubric_items whole)',
        params: queueIdParams,
        body: { type: 'object', additionalProperties: true, properties: queueFieldsSchema },
        response: { 200: queueSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const queue = await commands.update(tenantId, uuid(request.params.queue_id, 'queue_id'), fieldsOf(request.body));
      return (await respondQueues(tenantId, [queue]))[0];
    },
  );

  app.delete<{ Params: { queue_id: string } }>(
    '/annotation-queues/:queue_id',
    {
      schema: {
        tags,
        summary: 'Delete an annotation queue (feedback written from it stays on the runs)',
        params: queueIdParams,
        response: { 200: { type: 'object', additionalProperties: false, properties: {} }, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      await commands.delete(tenantOf(request), uuid(request.params.queue_id, 'queue_id'));
      return {};
    },
  );

  const addedSchema = {
    type: 'array',
    items: {
      type: 'object',
      additionalProperties: false,
      properties: {
        id: { type: 'string', description: 'the item’s id (queue_run_id)' },
        queue_id: { type: 'string' },
        run_id: { type: 'string' },
        added_at: { type: 'string' },
        last_reviewed_time: { type: ['string', 'null'] },
      },
    },
  } as const;
  const added = (queueId: string, items: QueueItem[]) =>
    items.map((i) => ({
      id: i.id,
      queue_id: queueId,
      run_id: i.runId,
      added_at: formatIsoMicros(i.addedAt),
      last_reviewed_time: null,
    }));

  app.post<{ Params: { queue_id: string }; Body: Array<string | Record<string, unknown>> }>(
    '/annotation-queues/:queue_id/runs',
    {
      schema: {
        tags,
        summary: 'Add runs to a queue (by id; a run already there keeps its place)',
        params: queueIdParams,
        body: { type: 'array', maxItems: MAX_RUNS, items: { anyOf: [uuidSchema, runKeySchema] } },
        response: { 200: addedSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const queueId = uuid(request.params.queue_id, 'queue_id');
      const runs: RunToAdd[] = request.body.map((r, i) =>
        typeof r === 'string' ? { runId: uuid(r, `[${i}]`), sessionId: null, startTime: null } : runKey(r, i),
      );
      return added(queueId, await commands.addRuns(tenantOf(request), queueId, runs));
    },
  );

  const runKey = (r: Record<string, unknown>, i: number): RunToAdd => ({
    runId: uuid(r.run_id, `[${i}].run_id`),
    sessionId: r.session_id == null ? null : uuid(r.session_id, `[${i}].session_id`),
    startTime: storableTimestampMicros(r.start_time ?? null, `[${i}].start_time`),
  });

  app.post<{ Params: { queue_id: string }; Body: Array<Record<string, unknown>> }>(
    '/annotation-queues/:queue_id/runs/by-key',
    {
      schema: {
        tags,
        summary: 'Add runs to a queue by run key (run_id, session_id, start_time)',
        params: queueIdParams,
        body: { type: 'array', maxItems: MAX_RUNS, items: runKeySchema },
        response: { 200: addedSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const queueId = uuid(request.params.queue_id, 'queue_id');
      return added(queueId, await commands.addRuns(tenantOf(request), queueId, request.body.map(runKey)));
    },
  );

  const statusQuery = {
    type: 'string',
    enum: [...STATUSES],
    description:
      'needs_my_review: not completed by the caller; needs_others_review: completed by the caller, not by enough reviewers; completed: by enough',
  } as const;

  app.get<{ Params: { queue_id: string }; Querystring: { status?: Status; offset?: number; limit?: number } }>(
    '/annotation-queues/:queue_id/runs',
    {
      schema: {
        tags,
        summary: "A queue's runs in the order they were added, by review status",
        params: queueIdParams,
        querystring: {
          type: 'object',
          properties: {
            status: statusQuery,
            offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
            limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT },
          },
        },
        response: { 200: { type: 'array', items: queueRunSchema }, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const queue = await commands.queue(tenantOf(request), uuid(request.params.queue_id, 'queue_id'));
      const offset = int(request.query.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
      const limit = int(request.query.limit, 'limit', MAX_LIMIT, 1, MAX_LIMIT);
      return respondRuns(
        request,
        (await itemsWith(request, queue, request.query.status)).slice(offset, offset + limit),
      );
    },
  );

  app.get<{ Params: { queue_id: string; index: string } }>(
    '/annotation-queues/:queue_id/run/:index',
    {
      schema: {
        tags,
        summary:
          'The run at an index of the caller’s to-do (needs_my_review, in the order added): 0 is the next to review',
        params: {
          type: 'object',
          required: ['queue_id', 'index'],
          properties: {
            queue_id: queueIdParams.properties.queue_id,
            index: { type: 'string', pattern: '^[0-9]{1,15}$', description: '0-based' },
          },
        },
        response: { 200: queueRunSchema, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const queue = await commands.queue(tenantOf(request), uuid(request.params.queue_id, 'queue_id'));
      const index = Number(request.params.index);
      const item = (await itemsWith(request, queue, 'needs_my_review'))[index];
      const [run] = item ? await respondRuns(request, [item]) : [];
      if (!run) throw errors.notFound(`run ${index} of annotation queue ${queue.id}`);
      return run;
    },
  );

  app.delete<{ Params: { queue_id: string; id: string } }>(
    '/annotation-queues/:queue_id/runs/:id',
    {
      schema: {
        tags,
        summary: 'Take a run out of a queue (named by its item id or its run id)',
        params: {
          type: 'object',
          required: ['queue_id', 'id'],
          properties: {
            queue_id: queueIdParams.properties.queue_id,
            id: { ...uuidSchema, description: 'item or run id' },
          },
        },
        response: { 200: { type: 'object', additionalProperties: false, properties: {} }, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      await commands.removeRun(
        tenantOf(request),
        uuid(request.params.queue_id, 'queue_id'),
        uuid(request.params.id, 'id'),
      );
      return {};
    },
  );

  app.get<{ Params: { queue_id: string }; Querystring: { status?: Status } }>(
    '/annotation-queues/:queue_id/size',
    {
      schema: {
        tags,
        summary: 'How many runs a queue holds (with a review status)',
        params: queueIdParams,
        querystring: { type: 'object', properties: { status: statusQuery } },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['size'],
            properties: { size: { type: 'integer' } },
          },
          ...errorResponses(404, 503),
        },
      },
    },
    async (request) => {
      const queue = await commands.queue(tenantOf(request), uuid(request.params.queue_id, 'queue_id'));
      return { size: (await itemsWith(request, queue, request.query.status)).length };
    },
  );

  app.post<{ Params: { queue_run_id: string }; Body: { status?: string | null } | null }>(
    '/annotation-queues/status/:queue_run_id',
    {
      schema: {
        tags,
        summary: 'Mark an item reviewed by the caller: completed (done) or viewed',
        params: {
          type: 'object',
          required: ['queue_run_id'],
          properties: { queue_run_id: { ...uuidSchema, description: 'the item’s id' } },
        },
        body: {
          type: ['object', 'null'],
          additionalProperties: true,
          properties: { status: { type: ['string', 'null'], enum: ['completed', 'viewed', null] } },
        },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            properties: {
              queue_run_id: { type: 'string' },
              status: { type: 'string' },
              completed_count: { type: 'integer' },
            },
          },
          ...errorResponses(404, 503),
        },
      },
    },
    async (request) => {
      const status = request.body?.status === 'viewed' ? 'viewed' : 'completed';
      const item = await commands.mark(
        tenantOf(request),
        uuid(request.params.queue_run_id, 'queue_run_id'),
        keyHashOf(request),
        status,
      );
      return { queue_run_id: item.id, status, completed_count: completions(item) };
    },
  );

  // LangSmith's path names the run `{run_id}` here; named as its sibling routes name that segment, so
  // that the document has one parameter name per place (a fuzzer generates no request for any
  // templated path of a document that names one place twice).
  app.get<{ Params: { queue_id: string } }>(
    '/annotation-queues/:queue_id/queues',
    {
      schema: {
        tags,
        summary: 'The queues a run is in',
        params: {
          type: 'object',
          required: ['queue_id'],
          properties: { queue_id: { ...uuidSchema, description: 'the id of a run (not of a queue)' } },
        },
        response: { 200: { type: 'array', items: queueSchema }, ...errorResponses(503) },
      },
    },
    async (request) => {
      await queues.catchUp();
      const tenantId = tenantOf(request);
      return respondQueues(tenantId, queues.queuesOfRun(tenantId, uuid(request.params.queue_id, 'run id')));
    },
  );
};
