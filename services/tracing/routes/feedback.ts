// The feedback API, as the clients' createFeedback / create_feedback (when not sent in a
// multipart batch), readFeedback, listFeedback, updateFeedback and deleteFeedback call it:
//   POST /feedback                 create (the clients' FeedbackCreate)
//   GET /feedback                  list, newest first, by run, key, session, source, has_comment,
//                                  has_score, level; offset and limit
//   GET/PATCH/DELETE /feedback/{feedback_id}
// All within the caller's workspace: another workspace's feedback is not found (404). A bad
// body, path or query parameter is a 422 naming the field.
import type { FastifyInstance } from 'fastify';
import { errors } from '../../../platform/errors.ts';
import { errorResponses, timeSchema, uuidSchema } from '../../../platform/http/openapi.ts';
import { FeedbackCommands, UPDATABLE_FIELDS, type FeedbackDeps } from '../feedback/feedbackCommands.ts';
import { feedbackSchema } from '../feedback/feedbackResponse.ts';
import { requireUuid } from '../../../platform/ids.ts';
import { tenantOf } from '../../tenancy/index.ts';
import { bool, int, list, uuid } from '../../../platform/http/routeInput.ts';

const MAX_LIMIT = 100;
const uuidText = (description: string) => ({ type: ['string', 'null'], format: 'uuid', description });
const anyJson = (description: string) => ({ description });
/** A query parameter repeated (`?key=a&key=b`) or given once. */
const repeatable = (description: string, items: object = { type: 'string' }) => ({ type: 'array', items, description });
const jsonObject = (description: string) => ({ type: ['object', 'null'], additionalProperties: true, description });

const createBody = {
  type: 'object',
  required: ['key'],
  additionalProperties: true,
  description:
    'The clients’ FeedbackCreate. Other fields they send (extend_trace_retention, error, …) are accepted, not kept.',
  // What it is on: a run, a trace, or a project.
  anyOf: ['run_id', 'trace_id', 'session_id'].map((field) => ({
    required: [field],
    properties: { [field]: { type: 'string' } },
  })),
  properties: {
    id: uuidText('made by the client; a new one when absent. Sending an id again replaces that item.'),
    run_id: uuidText('the run; its trace and project are the feedback’s'),
    trace_id: uuidText('the run’s trace; without run_id, the feedback is on the trace’s root run'),
    session_id: uuidText('the project: required without run_id and trace_id (feedback on a project)'),
    key: { type: 'string', minLength: 1, description: 'the metric, e.g. correctness' },
    score: { type: ['number', 'boolean', 'null'], description: 'booleans are stored as 1 and 0' },
    value: anyJson('any JSON value: a category, a label, an object'),
    comment: { type: ['string', 'null'] },
    correction: anyJson('any JSON value: what the run should have answered'),
    feedback_source: jsonObject('{type: api | model | app …, metadata}'),
    feedback_config: jsonObject('how to read the key’s scores (the npm client sends feedbackConfig)'),
    feedbackConfig: jsonObject('feedback_config as the npm client names it'),
    comparative_experiment_id: uuidText('the comparative experiment it was given in'),
    feedback_group_id: uuidText('groups the feedback of one comparison'),
    extra: { type: ['object', 'null'], additionalProperties: true },
    created_at: timeSchema('stored', 'default now'),
  },
} as const;

const updateBody = {
  type: 'object',
  additionalProperties: false,
  description: 'Only the fields present change; null clears one.',
  properties: {
    score: { type: ['number', 'boolean', 'null'] },
    value: anyJson('any JSON value'),
    comment: { type: ['string', 'null'] },
    correction: anyJson('any JSON value'),
    feedback_config: { type: ['object', 'null'], additionalProperties: true },
    feedbackConfig: { type: ['object', 'null'], additionalProperties: true },
  },
} as const;

const idParams = {
  type: 'object',
  required: ['feedback_id'],
  properties: { feedback_id: { ...uuidSchema, description: 'UUID of the feedback' } },
} as const;

interface ListQuery {
  run?: string[];
  key?: string[];
  session?: string[];
  source?: string[];
  has_comment?: boolean;
  has_score?: boolean;
  level?: string;
  offset?: number;
  limit?: number;
}

const listQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    run: repeatable('only feedback on these runs', uuidSchema),
    key: repeatable('only these keys'),
    session: repeatable('only feedback on the runs of these projects, or on the projects', uuidSchema),
    source: repeatable('only these feedback_source types (api, model, app, …)'),
    has_comment: { type: 'boolean', description: 'true: only with a comment; false: only without' },
    has_score: { type: 'boolean', description: 'true: only with a score; false: only without' },
    level: {
      type: 'string',
      enum: ['run', 'session'],
      description: 'run: feedback on runs; session: feedback on projects',
    },
    offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'default 0' },
    limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `default ${MAX_LIMIT}` },
  },
} as const;

/** A feedback route's own answers: 404 for an unknown id (or one of another workspace), 503 when Kafka or ClickHouse is away. */
const notFoundOr = (ok: object) => ({ ...ok, ...errorResponses(404, 503) });
const quoted = (names: string[]) => names.map((k) => `"${k.slice(0, 64)}"`).join(', ');

export function feedbackRoutes(app: FastifyInstance, deps: FeedbackDeps): void {
  const commands = new FeedbackCommands(deps);
  const tags = ['feedback'];

  app.post<{ Body: Record<string, unknown> }>(
    '/feedback',
    {
      schema: {
        tags,
        summary: 'Create feedback on a run (or on a project)',
        description:
          'Appended to the feedback topic, as multipart feedback is: it shows in GET /feedback, in the feedback_stats of the ' +
          'run and of its project. Feedback on a run not ingested yet is accepted and joins the run when it arrives.',
        body: createBody,
        response: notFoundOr({ 200: feedbackSchema }),
      },
    },
    async (request) => commands.create(tenantOf(request), request.body),
  );

  app.get<{ Querystring: ListQuery }>(
    '/feedback',
    {
      schema: {
        tags,
        summary: 'List feedback, newest first',
        querystring: listQuery,
        response: { 200: { type: 'array', items: feedbackSchema }, ...errorResponses(503) },
      },
    },
    async (request) => {
      const q = request.query;
      const ids = (value: unknown, field: string) =>
        value === undefined ? undefined : list(value).map((v) => uuid(v, field));
      return commands.list(
        tenantOf(request),
        {
          runIds: ids(q.run, 'run'),
          keys: q.key === undefined ? undefined : list(q.key),
          sessionIds: ids(q.session, 'session'),
          sources: q.source === undefined ? undefined : list(q.source),
          hasComment: bool(q.has_comment, 'has_comment'),
          hasScore: bool(q.has_score, 'has_score'),
          level: q.level as 'run' | 'session' | undefined,
        },
        int(q.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
        int(q.limit, 'limit', MAX_LIMIT, 1, MAX_LIMIT),
      );
    },
  );

  app.get<{ Params: { feedback_id: string } }>(
    '/feedback/:feedback_id',
    {
      schema: {
        tags,
        summary: 'Read a feedback item',
        params: idParams,
        response: notFoundOr({ 200: feedbackSchema }),
      },
    },
    async (request) => commands.read(tenantOf(request), requireUuid(request.params.feedback_id, 'feedback_id')),
  );

  app.patch<{ Params: { feedback_id: string }; Body: Record<string, unknown> }>(
    '/feedback/:feedback_id',
    {
      schema: {
        tags,
        summary: `Update a feedback item (${UPDATABLE_FIELDS.join(', ')})`,
        params: idParams,
        body: updateBody,
        response: notFoundOr({ 200: feedbackSchema }),
      },
    },
    async (request) => {
      const body = request.body ?? {};
      const known = Object.keys(updateBody.properties);
      const unknown = Object.keys(body).filter((k) => !known.includes(k));
      if (unknown.length)
        throw errors.invalidField(
          `body: ${quoted(unknown)} cannot be updated; send only ${UPDATABLE_FIELDS.join(', ')}`,
        );
      return commands.update(tenantOf(request), requireUuid(request.params.feedback_id, 'feedback_id'), body);
    },
  );

  app.delete<{ Params: { feedback_id: string } }>(
    '/feedback/:feedback_id',
    {
      schema: {
        tags,
        summary: 'Delete a feedback item: it leaves the reads and the feedback stats',
        params: idParams,
        response: notFoundOr({ 200: { type: 'object', additionalProperties: false, properties: {} } }),
      },
    },
    async (request) => {
      await commands.delete(tenantOf(request), requireUuid(request.params.feedback_id, 'feedback_id'));
      return {};
    },
  );
}
