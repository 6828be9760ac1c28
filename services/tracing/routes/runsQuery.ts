// POST /runs/query (what the clients' listRuns / list_runs call) and POST /api/v2/runs/query:
// runs of the caller's workspace by project, ids, trace, type, time and the filter language,
// one keyset-paged page at a time (v2: as JSON or streamed, read/queryStream.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errors } from '../../../platform/errors.ts';
import type { RouteDeps } from './routeDeps.ts';
import { tenantOf } from '../../tenancy/index.ts';
import { queryRuns } from '../query/queryRuns.ts';
import {
  MAX_PAGE_SIZE,
  runsQueryBodySchema,
  runsQueryFromBody,
  runsQueryFromV2Body,
  v2RunsQueryBodySchema,
} from '../query/runsQueryRequest.ts';
import { decodeRunCursor } from '../query/cursor.ts';
import { answerPagedQuery, queryAnswerForm } from '../read/queryStream.ts';
import { runAppPath, runItemV2, V2_RUN_SELECTS } from '../read/runResponse.ts';
import { publicBaseUrl } from '../../../platform/http/publicUrl.ts';
import { time, uuid } from '../../../platform/http/routeInput.ts';
import { requireUuid } from '../../../platform/ids.ts';
import { errorResponses, serverSentEvent, timeSchema, uuidSchema } from '../../../platform/http/openapi.ts';

const runList = { type: 'array', items: { type: 'object', additionalProperties: true } } as const;

/** Types are checked by the body schema; a mismatch is a 422 naming the field. */
function bodyOf(request: FastifyRequest): unknown {
  if (request.validationError) throw errors.validation(request.validationError.message);
  return request.body;
}

/** Every project asked for must be a live project of the caller's workspace: 404 otherwise, as for one that does not exist. */
async function requireProjects(deps: RouteDeps, tenantId: string, ids: readonly string[] | null): Promise<void> {
  const unknown = (ids ?? []).filter((id) => !deps.projects.get(tenantId, id));
  if (unknown.length === 0) return;
  await deps.projects.catchUp(); // created a moment ago, perhaps through another replica
  for (const id of unknown) if (!deps.projects.get(tenantId, id)) throw errors.notFound(`project (session) ${id}`);
}

export function runQueryRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.post(
    '/runs/query',
    {
      attachValidation: true,
      schema: {
        tags: ['runs'],
        summary: 'Query runs (filter language, keyset cursors)',
        body: runsQueryBodySchema,
        response: {
          200: {
            type: 'object',
            properties: {
              runs: runList,
              cursors: {
                type: 'object',
                properties: { next: { type: ['string', 'null'] }, prev: { type: ['string', 'null'] } },
              },
            },
          },
          ...errorResponses(404, 503),
        },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const query = runsQueryFromBody(bodyOf(request));
      await requireProjects(deps, tenantId, query.sessionIds);
      const page = await queryRuns(deps, tenantId, query);
      return { runs: page.runs, cursors: { next: page.next, prev: null } };
    },
  );
}

export function v2RunQueryRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.post(
    '/runs/query',
    {
      attachValidation: true,
      schema: {
        tags: ['runs'],
        summary: 'Query runs (v2: project_ids, selects, next_cursor); streamed with Accept: text/event-stream',
        description:
          'JSON by default. With `Accept: text/event-stream`, the page (up to `page_size` runs, at most 1000) is streamed as ' +
          "server-sent events of JSON Patch operations on `{items, next_cursor}`, as the langsmith SDKs' " +
          '`runs.streaming.queryV2` / `query_v2_items` read it (docs/read-api.md). 406 when Accept admits neither.',
        body: v2RunsQueryBodySchema,
        response: {
          200: {
            description:
              'a page of runs; with Accept: text/event-stream, the same page as JSON Patch operations (docs/read-api.md)',
            content: {
              'application/json': {
                schema: { type: 'object', properties: { items: runList, next_cursor: { type: ['string', 'null'] } } },
              },
              'text/event-stream': { schema: serverSentEvent },
            },
          },
          ...errorResponses(404, 406, 503),
        },
      },
    },
    async (request, reply) => {
      const form = queryAnswerForm(request);
      const tenantId = tenantOf(request);
      const { query, selects, pageSize } = runsQueryFromV2Body(bodyOf(request));
      await requireProjects(deps, tenantId, query.sessionIds);
      return answerPagedQuery(request, reply, {
        form,
        cursor: (request.body as { cursor?: string }).cursor || undefined,
        pageSize,
        maxPerRead: MAX_PAGE_SIZE,
        read: async (cursor, limit) => {
          const page = await queryRuns(deps, tenantId, {
            ...query,
            cursor: cursor ? decodeRunCursor(cursor, query.order) : null,
            limit,
          });
          return { items: page.runs.map((run) => runItemV2(run, selects)), next: page.next };
        },
      });
    },
  );

  // GET /api/v2/runs/{id}/url?project_id=…&trace_id=…[&start_time=…]: where the web UI shows the run
  // (the clients' runs.getURL / runs.get_url). Built from the ids alone, like the runs' app_path:
  // the page polls for a run that is not projected yet.
  app.get<{ Params: { run_id: string }; Querystring: { project_id: string; trace_id: string; start_time?: string } }>(
    '/runs/:run_id/url',
    {
      attachValidation: true,
      schema: {
        tags: ['runs'],
        summary: "A run's URL in the web UI (its app_path on this server's base URL)",
        params: { type: 'object', properties: { run_id: uuidSchema } },
        querystring: {
          type: 'object',
          additionalProperties: true,
          required: ['project_id', 'trace_id'],
          properties: {
            project_id: { ...uuidSchema, description: 'project (session) UUID of the run' },
            trace_id: { ...uuidSchema, description: 'trace UUID of the run' },
            start_time: timeSchema('query', 'when the run started', { nullable: false, text: true }),
          },
        },
        response: { 200: { type: 'object', properties: { url: { type: 'string' } } }, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      if (request.validationError) throw errors.validation(request.validationError.message);
      const tenantId = tenantOf(request);
      const runId = uuid(request.params.run_id, 'run_id', 80);
      const { project_id: projectId, trace_id: traceId, start_time: startTime } = request.query;
      const project = uuid(projectId, 'project_id', 80);
      uuid(traceId!, 'trace_id', 80);
      time(startTime, 'start_time');
      await requireProjects(deps, tenantId, [project]);
      return { url: `${publicBaseUrl(request)}${runAppPath(tenantId, project, runId)}` };
    },
  );

  // GET /api/v2/runs/{id}?project_id=…&selects=ID&selects=NAME…: one run, as a v2 item.
  app.get<{ Params: { run_id: string }; Querystring: { project_id: string; selects?: string[] } }>(
    '/runs/:run_id',
    {
      attachValidation: true,
      schema: {
        tags: ['runs'],
        summary: 'Read a run (v2: selects)',
        params: { type: 'object', properties: { run_id: uuidSchema } },
        querystring: {
          type: 'object',
          additionalProperties: true,
          required: ['project_id'],
          properties: {
            project_id: uuidSchema,
            selects: {
              type: 'array',
              items: { type: 'string', enum: V2_RUN_SELECTS },
              description: 'fields to return; only id when absent',
            },
          },
        },
        response: { 200: { type: 'object', additionalProperties: true }, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      if (request.validationError) throw errors.validation(request.validationError.message);
      const tenantId = tenantOf(request);
      const runId = requireUuid(request.params.run_id, 'run_id');
      const { project_id: projectId, selects } = request.query;
      const v2 = runsQueryFromV2Body({
        project_ids: [projectId],
        ids: [runId],
        selects,
        min_start_time: '1970-01-01T00:00:00Z',
      });
      await requireProjects(deps, tenantId, v2.query.sessionIds);
      const [run] = (await queryRuns(deps, tenantId, v2.query)).runs;
      if (!run) throw errors.notFound(`run ${runId}`);
      return runItemV2(run, v2.selects);
    },
  );
}
