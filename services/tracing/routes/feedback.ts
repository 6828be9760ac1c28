// The feedback API, as the clients' createFeedback / create_feedback (when not sent in a
// multipart batch), readFeedback, listFeedback, updateFeedback and deleteFeedback call it:
//   POST /feedback                 create (the clients' FeedbackCreate)
//   GET /feedback                  list, newest first, by run, key, session, source, has_comment,
//                                  has_score, level; offset and limit
//   GET/PATCH/DELETE /feedback/{feedback_id}
//   POST /feedback/tokens          presigned tokens (the clients' createPresignedFeedbackToken)
// All within the caller's workspace: another workspace's feedback is not found (404). A bad
// body, path or query parameter is a 422 naming the field. Using a token (GET or POST
// /feedback/tokens/{token_id}) needs no API key: feedbackTokenRoutes, registered as a public route.
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import { publicBaseUrl } from '../../../platform/http/publicUrl.ts';
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

const tokenItem = {
  type: 'object',
  required: ['run_id', 'feedback_key'],
  additionalProperties: true,
  properties: {
    run_id: { ...uuidSchema, description: 'the run the feedback will be on (it need not have arrived yet)' },
    feedback_key: { type: 'string', minLength: 1, description: 'the metric each use records' },
    feedback_config: jsonObject('how to read the key’s scores'),
    id: uuidText('the feedback item each use writes (replacing the last); a new item per use when absent'),
    expires_in: {
      type: ['object', 'null'],
      additionalProperties: true,
      properties: {
        days: { type: 'number', minimum: 0 },
        hours: { type: 'number', minimum: 0 },
        minutes: { type: 'number', minimum: 0 },
      },
      description: 'how long the token lives from now (default three hours; until 2100 at the latest)',
    },
    expires_at: timeSchema('stored', 'when the token expires, instead of expires_in (a time past: expired)'),
  },
} as const;
const tokenSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'url', 'expires_at'],
  properties: {
    id: { type: 'string', description: 'UUID: the token' },
    url: { type: 'string', description: 'POST (or GET with ?score=…) here to record the feedback, with no API key' },
    expires_at: { type: 'string', description: 'ISO 8601, UTC' },
  },
} as const;

/** Where the caller reached this API (under /api/v1 when it came that way): token URLs point there. */
const apiBaseUrl = (request: FastifyRequest) =>
  `${publicBaseUrl(request)}${request.url.startsWith('/api/v1/') ? '/api/v1' : ''}`;

export function feedbackRoutes(app: FastifyInstance, deps: FeedbackDeps): void {
  const commands = new FeedbackCommands(deps);
  const tags = ['feedback'];

  app.post<{ Body: Record<string, unknown> | Record<string, unknown>[] }>(
    '/feedback/tokens',
    {
      schema: {
        tags,
        summary: 'Create presigned feedback tokens: URLs that record feedback on a run with no API key',
        description:
          'One item, or a list (answered with a list). Each token records feedback of its key on its run in this ' +
          'workspace, at POST /feedback/tokens/{token_id} (or GET with query parameters), until it expires.',
        body: { anyOf: [tokenItem, { type: 'array', minItems: 1, maxItems: 100, items: tokenItem }] },
        response: {
          200: { anyOf: [tokenSchema, { type: 'array', items: tokenSchema }] },
          ...errorResponses(503),
        },
      },
    },
    async (request) => {
      const body = request.body;
      const tokens = await commands.createTokens(tenantOf(request), [body].flat(), apiBaseUrl(request));
      return Array.isArray(body) ? tokens : tokens[0];
    },
  );

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

const tokenParams = {
  type: 'object',
  required: ['token_id'],
  properties: { token_id: { ...uuidSchema, description: 'the token (from POST /feedback/tokens)' } },
} as const;
const tokenUse = {
  type: 'object',
  additionalProperties: true,
  properties: {
    score: { type: ['number', 'boolean', 'null'], description: 'booleans are stored as 1 and 0' },
    value: anyJson('any JSON value'),
    comment: { type: ['string', 'null'] },
    correction: anyJson('any JSON value'),
    metadata: jsonObject('kept in feedback_source.metadata'),
  },
} as const;
const tokenQuery = {
  type: 'object',
  properties: {
    score: { type: 'number', description: 'the score' },
    value: { type: 'string', description: 'a value (text)' },
    comment: { type: 'string' },
    correction: { type: 'string', description: 'JSON, or text' },
  },
} as const;

/**
 * Using a presigned token: public (the token is the credential), in the token's workspace. GET
 * takes the feedback as query parameters, so a link in a page or a mail records it.
 */
export const feedbackTokenRoutes: FastifyPluginAsync<FeedbackDeps> = async (app, deps) => {
  const commands = new FeedbackCommands(deps);
  const schema = (summary: string, input: Record<string, unknown>) => ({
    tags: ['feedback'],
    summary,
    params: tokenParams,
    ...input,
    response: {
      200: feedbackSchema,
      ...errorResponses(404, 503),
    },
  });
  app.post<{ Params: { token_id: string }; Body: Record<string, unknown> }>(
    '/feedback/tokens/:token_id',
    { schema: schema('Record feedback with a presigned token (no API key)', { body: tokenUse }) },
    async (request) => commands.submitWithToken(requireUuid(request.params.token_id, 'token_id'), request.body ?? {}),
  );
  app.get<{ Params: { token_id: string }; Querystring: Record<string, string | number | undefined> }>(
    '/feedback/tokens/:token_id',
    {
      schema: schema('Record feedback with a presigned token, given as query parameters (no API key)', {
        querystring: tokenQuery,
      }),
    },
    async (request) => {
      const { score, value, comment, correction } = request.query;
      let parsed: unknown = correction;
      if (typeof correction === 'string')
        try {
          parsed = JSON.parse(correction);
        } catch {
          parsed = correction;
        }
      return commands.submitWithToken(requireUuid(request.params.token_id, 'token_id'), {
        score,
        value,
        comment,
        correction: parsed,
      });
    },
  );
};
