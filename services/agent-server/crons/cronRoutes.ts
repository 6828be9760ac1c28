// Crons, as the LangGraph SDKs call them: create one on a thread or without one (each run on a
// new thread), change, delete, search and count. Every route acts in the caller's workspace,
// narrowed by the auth module's filter for its action (crons:create, crons:update, …, matched on
// the cron's metadata): another workspace's cron, or one the filter hides, is a 404 like an
// unknown one. The scheduler (cronScheduler.ts) starts the runs.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { v4 as uuidv4 } from 'uuid';
import { AppError, errors } from '../../../platform/errors.ts';
import { parseTimestampMicros } from '../../../platform/time.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import { callerOf } from '../auth/callers.ts';
import type { AuthEventValue } from '../auth/customAuth.ts';
import { errorResponse, noContent, threadIdParams } from '../routes/routeSchemas.ts';
import type { RecordScope } from '../store/agentRecords.ts';
import {
  cronCountBodySchema,
  cronCreateBodySchema,
  cronPatchBodySchema,
  cronSchema,
  cronSearchBodySchema,
  type CronCountBody,
  type CronCreateBody,
  type CronPatchBody,
  type CronSearchBody,
  refuseNul,
} from './cronBodies.ts';
import { nextRunDate, type CronFilter, type CronRecord, type Json } from './cronRecords.ts';
import { cronAssistantId, RUN_FIELDS } from './cronRun.ts';
import { checkSchedule, checkTimezone } from './cronSchedule.ts';

const cronIdParams = {
  type: 'object',
  required: ['cron_id'],
  properties: { cron_id: { type: 'string', format: 'uuid', description: 'the cron' } },
} as const;
type CronParams = { Params: { cron_id: string } };

const cronNotFound = errorResponse('no such cron (or not the caller’s)');
const badCron = errorResponse('the body does not match the schema, or the schedule, time zone or end_time is not one');

/** end_time as the API answers it (ISO 8601, UTC), from what a client sent (naive times are UTC). */
function endTimeOf(value: string | null | undefined): string | null {
  const micros = parseTimestampMicros(value, 'body/end_time');
  return micros === null ? null : new Date(Math.floor(micros / 1000)).toISOString();
}

/** The run fields a body sets (null ones are not set). */
function runFieldsOf(body: Record<string, unknown>): Json {
  const fields: Json = {};
  for (const field of RUN_FIELDS) if (body[field] !== undefined && body[field] !== null) fields[field] = body[field];
  return fields;
}

const isNotFound = (err: unknown) => err instanceof AppError && err.code === 'NOT_FOUND';

export function cronRoutes(app: FastifyInstance, deps: AgentServerDeps): void {
  const { runs, store, crons } = deps;
  const doc = (summary: string, schema: Record<string, unknown>) => ({
    schema: { tags: ['crons'], summary, ...schema },
  });

  const create = async (request: FastifyRequest<{ Body: CronCreateBody }>, threadId: string | null) => {
    const body = request.body;
    refuseNul(body);
    const caller = callerOf(request);
    const timezone = body.timezone ?? null;
    checkSchedule(body.schedule, timezone);
    const endTime = endTimeOf(body.end_time);
    const cronId = uuidv4();
    const userId = caller.auth.user.is_authenticated ? caller.auth.user.identity : null;
    const payload: Json = { assistant_id: body.assistant_id, ...runFieldsOf(body as unknown as Json) };
    // What the auth module's crons:create handler sees; it may stamp the metadata (an owner).
    const value = {
      cron_id: cronId,
      thread_id: threadId,
      user_id: userId,
      schedule: body.schedule,
      end_time: endTime,
      payload,
      metadata: { ...(body.metadata ?? {}) },
    };
    const scope = await caller.scope('crons:create', value as AuthEventValue<'crons:create'>);
    const assistantId = await cronAssistantId(runs, body.assistant_id, scope.workspaceId);
    if (threadId !== null) {
      const threadScope = await caller.scope('threads:read', { thread_id: threadId });
      if (!(await store.getThread(threadScope, threadId))) throw errors.notFound(`thread ${threadId}`);
    }
    const now = new Date().toISOString();
    const cron: CronRecord = {
      cron_id: cronId,
      assistant_id: assistantId,
      thread_id: threadId,
      on_run_completed: body.on_run_completed ?? (threadId === null ? 'delete' : null),
      end_time: endTime,
      schedule: body.schedule,
      timezone,
      created_at: now,
      updated_at: now,
      payload: { ...payload, metadata: value.metadata },
      user_id: userId,
      next_run_date: null,
      metadata: value.metadata,
      enabled: body.enabled ?? true,
    };
    cron.next_run_date = nextRunDate(cron, new Date(now));
    await crons.store.create({ workspaceId: scope.workspaceId, auth: caller.auth, cron });
    crons.wake();
    return cron;
  };

  const createResponses = {
    200: cronSchema,
    404: errorResponse('no such assistant, or thread (or not the caller’s)'),
    422: badCron,
  };
  app.post<{ Params: { thread_id: string }; Body: CronCreateBody }>(
    '/threads/:thread_id/runs/crons',
    doc('Create a cron that runs on the thread', {
      params: threadIdParams,
      body: cronCreateBodySchema,
      response: createResponses,
    }),
    async (request) => create(request, request.params.thread_id.toLowerCase()),
  );
  app.post<{ Body: CronCreateBody }>(
    '/runs/crons',
    doc('Create a cron whose runs each run on a new thread', {
      body: cronCreateBodySchema,
      response: { ...createResponses, 404: errorResponse('no such assistant') },
    }),
    async (request) => create(request, null),
  );

  app.patch<CronParams & { Body: CronPatchBody }>(
    '/runs/crons/:cron_id',
    doc('Change a cron (metadata is merged)', {
      params: cronIdParams,
      body: cronPatchBodySchema,
      response: { 200: cronSchema, 404: cronNotFound, 422: badCron },
    }),
    async (request) => {
      const body = request.body;
      refuseNul(body);
      const cronId = request.params.cron_id.toLowerCase();
      if (body.timezone) checkTimezone(body.timezone);
      if (body.schedule !== undefined && body.schedule !== null) checkSchedule(body.schedule, body.timezone ?? null);
      const endTime = body.end_time === undefined ? undefined : endTimeOf(body.end_time);
      const runFields = runFieldsOf(body as unknown as Json);
      // What the auth module's crons:update handler sees; it may stamp the metadata, as on threads.
      const value = { cron_id: cronId, schedule: body.schedule, payload: runFields, metadata: { ...body.metadata } };
      const scope = await callerOf(request).scope('crons:update', value as AuthEventValue<'crons:update'>);
      const updated = await crons.store.update(scope, cronId, (cron, now) => {
        const next: CronRecord = { ...cron, payload: { ...cron.payload, ...runFields }, updated_at: now.toISOString() };
        if (body.schedule !== undefined && body.schedule !== null) next.schedule = body.schedule;
        if (body.timezone) next.timezone = body.timezone;
        if (endTime !== undefined) next.end_time = endTime;
        if (body.on_run_completed) next.on_run_completed = body.on_run_completed;
        if (Object.keys(value.metadata).length > 0) {
          next.metadata = { ...cron.metadata, ...value.metadata };
          next.payload.metadata = next.metadata;
        }
        if (body.enabled !== undefined && body.enabled !== null) next.enabled = body.enabled;
        // When it fires changes with what it is read from, and a cron enabled again starts from now.
        const reschedule =
          next.schedule !== cron.schedule ||
          next.timezone !== cron.timezone ||
          next.end_time !== cron.end_time ||
          (next.enabled && !cron.enabled);
        if (reschedule) {
          checkSchedule(next.schedule, next.timezone);
          next.next_run_date = nextRunDate(next, now);
        }
        return next;
      });
      if (!updated) throw errors.notFound(`cron ${cronId}`);
      crons.wake();
      return updated;
    },
  );

  app.delete<CronParams>(
    '/runs/crons/:cron_id',
    doc('Delete a cron (the runs it started are left alone)', {
      params: cronIdParams,
      response: { 204: noContent, 404: cronNotFound },
    }),
    async (request, reply) => {
      const cronId = request.params.cron_id.toLowerCase();
      const scope = await callerOf(request).scope('crons:delete', { cron_id: cronId });
      if (!(await crons.store.delete(scope, cronId))) throw errors.notFound(`cron ${cronId}`);
      return reply.code(204).send();
    },
  );

  /** The store's filter for a search or count body: the assistant as the id crons keep (a graph name resolved). */
  const filterOf = async (body: CronCountBody, scope: RecordScope): Promise<CronFilter> => {
    refuseNul(body);
    let assistantId = body.assistant_id ?? undefined;
    if (assistantId !== undefined)
      assistantId = await cronAssistantId(runs, assistantId, scope.workspaceId).catch((err) => {
        if (isNotFound(err)) return assistantId!; // no cron has it
        throw err;
      });
    return {
      assistantId,
      threadId: body.thread_id?.toLowerCase() ?? undefined,
      enabled: body.enabled ?? undefined,
      metadata: body.metadata ?? undefined,
    };
  };
  const searchScope = (request: FastifyRequest, body: CronCountBody & { limit?: number; offset?: number }) =>
    callerOf(request).scope('crons:search', {
      assistant_id: body.assistant_id,
      thread_id: body.thread_id,
      limit: body.limit,
      offset: body.offset,
    });

  app.post<{ Body: CronSearchBody }>(
    '/runs/crons/search',
    doc('Search the caller’s crons', {
      body: cronSearchBodySchema,
      response: { 200: { type: 'array', items: cronSchema } },
    }),
    async (request, reply) => {
      const body = request.body;
      const scope = await searchScope(request, body);
      const { crons: page, total } = await crons.store.search(scope, {
        ...(await filterOf(body, scope)),
        limit: body.limit,
        offset: body.offset,
        sortBy: body.sort_by ?? 'created_at',
        sortOrder: body.sort_order ?? 'desc',
      });
      reply.header('X-Pagination-Total', String(total));
      if (body.offset + page.length < total) reply.header('X-Pagination-Next', String(body.offset + body.limit));
      if (!body.select) return page;
      const now = new Date().toISOString();
      return page.map((c) =>
        Object.fromEntries(body.select!.map((k) => [k, k === 'now' ? now : (c as unknown as Json)[k]])),
      );
    },
  );

  app.post<{ Body: CronCountBody }>(
    '/runs/crons/count',
    doc('Count the caller’s crons', { body: cronCountBodySchema, response: { 200: { type: 'integer' } } }),
    async (request) => {
      const scope = await searchScope(request, request.body);
      return crons.store.count(scope, await filterOf(request.body, scope));
    },
  );
}
