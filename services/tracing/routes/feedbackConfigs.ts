// Feedback configs as the official clients call them: POST /feedback-configs (create; the same
// config again is answered with the one there), GET /feedback-configs (one config a key, or all
// with include_all_configs), PATCH /feedback-configs (the key's config, or one by id: a new
// config, a direction, categories added or removed), DELETE /feedback-configs?feedback_key= or
// ?id=. Configs live in the feedback-configs topic (projections/feedback/feedbackConfigRegistry.ts).
// Bad input is a 422 naming the field; an unknown key or id, or another workspace's, a 404.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorResponses, uuidSchema } from '../../../platform/http/openapi.ts';
import { bool, int, list, uuid } from '../../../platform/http/routeInput.ts';
import { formatIsoMicros } from '../../../platform/time.ts';
import type {
  FeedbackCategory,
  FeedbackConfigBody,
  FeedbackConfigEntry,
  FeedbackConfigRegistry,
} from '../../../projections/feedback/feedbackConfigRegistry.ts';
import { tenantOf } from '../../tenancy/index.ts';
import { checkFeedbackConfig, FeedbackConfigCommands } from '../feedback/feedbackConfigCommands.ts';
import type { RouteDeps } from './routeDeps.ts';

const MAX_LIMIT = 100;
const MAX_KEY_LENGTH = 1000;
const MAX_CATEGORIES = 100;

const categorySchema = {
  type: 'object',
  required: ['value'],
  additionalProperties: false,
  properties: {
    value: { type: 'number', description: 'the score this category records' },
    label: { type: ['string', 'null'], maxLength: 1000 },
  },
} as const;

const notApplicable = { type: 'null', description: 'not for this type' } as const;
/** What feedback under a key holds, one schema per type (the clients' FeedbackConfig). */
const configSchema = {
  description:
    'continuous: a score, optionally within [min, max]; categorical: one (or with allows_multiple_categories several) of at least two categories; freeform: text',
  oneOf: [
    {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: {
        type: { const: 'continuous' },
        min: { type: ['number', 'null'] },
        max: { type: ['number', 'null'], description: 'above min' },
        categories: notApplicable,
        allows_multiple_categories: notApplicable,
      },
    },
    {
      type: 'object',
      required: ['type', 'categories'],
      additionalProperties: false,
      properties: {
        type: { const: 'categorical' },
        categories: {
          type: 'array',
          minItems: 2,
          maxItems: MAX_CATEGORIES,
          items: categorySchema,
          description: 'values distinct, labels distinct',
        },
        allows_multiple_categories: { type: ['boolean', 'null'] },
        min: notApplicable,
        max: notApplicable,
      },
    },
    {
      type: 'object',
      required: ['type'],
      additionalProperties: false,
      properties: {
        type: { const: 'freeform' },
        min: notApplicable,
        max: notApplicable,
        categories: notApplicable,
        allows_multiple_categories: notApplicable,
      },
    },
  ],
} as const;

/** The stored config as answered (always one of configSchema's). */
const storedConfigSchema = { type: 'object', required: ['type'], additionalProperties: true } as const;

const keySchema = { type: 'string', minLength: 1, maxLength: MAX_KEY_LENGTH } as const;

export const feedbackConfigSchema = {
  type: 'object',
  required: [
    'id',
    'feedback_key',
    'feedback_config',
    'tenant_id',
    'modified_at',
    'is_lower_score_better',
    'is_enforced',
    'is_first',
    'is_deleted',
  ],
  additionalProperties: false,
  properties: {
    id: { type: 'string', description: 'UUID' },
    feedback_key: { type: 'string' },
    feedback_config: storedConfigSchema,
    tenant_id: { type: 'string', description: 'UUID of the workspace' },
    modified_at: { type: 'string', description: 'ISO 8601, UTC' },
    is_lower_score_better: { type: 'boolean', description: "the key's direction, shared by its configs" },
    is_enforced: { type: 'boolean' },
    is_first: { type: 'boolean', description: 'the first live config of its key' },
    is_deleted: { type: 'boolean' },
  },
} as const;

interface ListQuery {
  key?: string[];
  name_contains?: string;
  include_all_configs?: boolean;
  is_enforced?: boolean;
  offset?: number;
  limit?: number;
}

export interface FeedbackConfigRouteDeps extends RouteDeps {
  feedbackConfigs: FeedbackConfigRegistry;
}

export function feedbackConfigRoutes(app: FastifyInstance, deps: FeedbackConfigRouteDeps): void {
  const registry = deps.feedbackConfigs;
  const commands = new FeedbackConfigCommands(registry, deps.eventLog);
  const tags = ['feedback-configs'];
  const respond = (e: FeedbackConfigEntry) => ({
    id: e.id,
    feedback_key: e.key,
    feedback_config: e.config,
    tenant_id: e.tenantId,
    modified_at: formatIsoMicros(e.modifiedAt),
    is_lower_score_better: registry.lowerIsBetter(e.tenantId, e.key),
    is_enforced: e.isEnforced,
    is_first: registry.isFirst(e),
    is_deleted: e.deleted,
  });
  const upToDate = async (request: FastifyRequest): Promise<void> => {
    await registry
      .catchUp()
      .catch((err: Error) => request.log.warn({ err: err.message }, 'feedback configs served without catching up'));
  };

  app.post<{ Body: Record<string, unknown> }>(
    '/feedback-configs',
    {
      schema: {
        tags,
        summary: "Create a feedback key's config; the same config again is answered with the one there",
        description:
          'A key has one config; a second, different one is a 400, unless the key has an enforced config (the ' +
          "workspace's rules for the key), beside which others are kept. A second enforced config is a 409. A range " +
          'upside down, or a category value or label given twice, is a 400.',
        body: {
          type: 'object',
          required: ['feedback_key', 'feedback_config'],
          additionalProperties: true,
          properties: {
            feedback_key: keySchema,
            feedback_config: configSchema,
            is_enforced: { type: ['boolean', 'null'], description: 'default false' },
            is_lower_score_better: {
              type: ['boolean', 'null'],
              description: "sets the key's direction; absent keeps it (a new key: higher is better)",
            },
          },
        },
        response: { 200: feedbackConfigSchema, ...errorResponses(400, 409, 503) },
      },
    },
    async (request) => {
      const b = request.body;
      const entry = await commands.create(tenantOf(request), {
        key: b.feedback_key as string,
        config: checkFeedbackConfig(b.feedback_config as FeedbackConfigBody),
        isEnforced: (b.is_enforced as boolean | null | undefined) ?? false,
        isLowerScoreBetter: (b.is_lower_score_better as boolean | null | undefined) ?? null,
      });
      return respond(entry);
    },
  );

  app.get<{ Querystring: ListQuery }>(
    '/feedback-configs',
    {
      schema: {
        tags,
        summary: "List the workspace's feedback configs, by key: one a key, or every one with include_all_configs",
        querystring: {
          type: 'object',
          properties: {
            // Unbounded, as GET /feedback's: a key longer than a stored one matches none (bounded items
            // of 1,000 characters let a request line outgrow the server's 16 KiB header limit: a 431).
            key: { type: 'array', items: { type: 'string', minLength: 1 }, description: 'only these keys (repeated)' },
            name_contains: { type: 'string', description: 'case-insensitive part of the key' },
            include_all_configs: { type: 'boolean', description: 'every config of each key, deleted ones too' },
            is_enforced: { type: 'boolean', description: 'only enforced (true) or unenforced (false) configs' },
            offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'default 0' },
            limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, description: `default ${MAX_LIMIT}` },
          },
        },
        response: { 200: { type: 'array', items: feedbackConfigSchema }, ...errorResponses(503) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const q = request.query;
      const keys = q.key === undefined ? undefined : list(q.key);
      const part = q.name_contains ? q.name_contains.toLowerCase() : undefined;
      const all = bool(q.include_all_configs, 'include_all_configs') ?? false;
      const enforced = bool(q.is_enforced, 'is_enforced');
      const offset = int(q.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
      const limit = int(q.limit, 'limit', MAX_LIMIT, 1, MAX_LIMIT);
      await upToDate(request);
      return registry
        .list(tenantId, all)
        .filter(
          (e) =>
            (!keys || keys.includes(e.key)) &&
            (!part || e.key.toLowerCase().includes(part)) &&
            (enforced === undefined || e.isEnforced === enforced),
        )
        .slice(offset, offset + limit)
        .map(respond);
    },
  );

  app.patch<{ Body: Record<string, unknown> }>(
    '/feedback-configs',
    {
      schema: {
        tags,
        summary: "Change a key's config: a new config (whole), the direction, categories added or removed",
        description:
          'Without id, the change is to the key’s enforced config, or else its first. Categories are added and removed ' +
          'only on categorical configs; values and labels stay distinct, and at least two categories remain (a 400 ' +
          'otherwise: what the key’s config is decides it).',
        body: {
          type: 'object',
          required: ['feedback_key'],
          additionalProperties: true,
          properties: {
            feedback_key: keySchema,
            id: { ...uuidSchema, description: 'the config to change, for keys with several' },
            feedback_config: configSchema,
            is_lower_score_better: { type: ['boolean', 'null'] },
            add_categories: { type: ['array', 'null'], maxItems: MAX_CATEGORIES, items: categorySchema },
            remove_categories: {
              type: ['array', 'null'],
              maxItems: MAX_CATEGORIES,
              items: { type: 'number' },
              description: 'the values (not labels) of the categories to remove',
            },
          },
        },
        response: { 200: feedbackConfigSchema, ...errorResponses(400, 404, 503) },
      },
    },
    async (request) => {
      const b = request.body;
      const entry = await commands.update(tenantOf(request), {
        key: b.feedback_key as string,
        id: b.id == null ? null : uuid(b.id, 'id'),
        config: b.feedback_config == null ? null : checkFeedbackConfig(b.feedback_config as FeedbackConfigBody),
        isLowerScoreBetter: (b.is_lower_score_better as boolean | null | undefined) ?? null,
        addCategories: (b.add_categories as FeedbackCategory[] | null | undefined) ?? null,
        removeCategories: (b.remove_categories as number[] | null | undefined) ?? null,
      });
      return respond(entry);
    },
  );

  app.delete<{ Querystring: { feedback_key?: string; id?: string } }>(
    '/feedback-configs',
    {
      schema: {
        tags,
        summary: 'Delete every config of a key (feedback_key) or one config (id); feedback already written stays',
        querystring: {
          type: 'object',
          description: 'feedback_key, id, or both (the config id names, when it is of that key); neither is a 400',
          properties: {
            feedback_key: keySchema,
            id: { ...uuidSchema, description: 'one config' },
          },
        },
        response: { 204: { type: 'null', description: 'deleted' }, ...errorResponses(400, 404, 503) },
      },
    },
    async (request, reply) => {
      const { feedback_key: key, id } = request.query;
      await commands.delete(tenantOf(request), { key: key ?? null, id: id === undefined ? null : uuid(id, 'id') });
      return reply.code(204).send();
    },
  );
}
