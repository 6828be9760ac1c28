// The store routes of the LangGraph API, as the SDKs call them (StoreClient of
// @langchain/langgraph-sdk and of Python langgraph-sdk): put, get and delete an item, search a
// namespace prefix, list namespaces. Every route acts in the caller's workspace: another
// workspace's items do not exist for it. A custom auth module's `store` handlers are asked first
// (they may refuse, or change the namespace, as on the LangGraph server); a missing item is a
// 200 `null`, which both SDKs read as "none".
import type { FastifyInstance } from 'fastify';
import { MAX_TTL_MINUTES } from '../agentConfig.ts';
import type { AgentServerDeps } from '../agentServerDeps.ts';
import { callerOf } from '../auth/callers.ts';
import { errorResponse, noContent } from '../routes/routeSchemas.ts';
import { FILTER_OPERATORS, LABEL_PATTERN, MAX_LABEL_LENGTH, type StoreFilter, type StoreItem } from './store.ts';

const MAX_PAGE = 1000;
const MAX_OFFSET = 2_147_483_647;

const label = {
  type: 'string',
  maxLength: MAX_LABEL_LENGTH,
  pattern: LABEL_PATTERN,
  description: `a label: 1 to ${MAX_LABEL_LENGTH} characters, without "."`,
} as const;
const namespace = (description: string) => ({ type: 'array', minItems: 1, items: label, description }) as const;
const nullableLabels = (description: string) => ({ type: ['array', 'null'], items: label, description }) as const;
const key = { type: 'string', minLength: 1, pattern: '^[^\\u0000]*$', description: 'the item’s key in its namespace' };
const page = (fallback: number) =>
  ({
    limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: fallback },
    offset: { type: 'integer', minimum: 0, maximum: MAX_OFFSET, default: 0 },
  }) as const;
const timestamp = { type: 'string', format: 'date-time' } as const;

const itemSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    namespace: { type: 'array', items: { type: 'string' } },
    key: { type: 'string' },
    value: { type: 'object', additionalProperties: true },
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const;
const searchItemSchema = {
  ...itemSchema,
  properties: {
    ...itemSchema.properties,
    score: { type: ['number', 'null'], description: 'similarity to the query (only when a query ranked the results)' },
  },
} as const;

interface PutBody {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  index?: false | string[] | null;
  ttl?: number | null;
}
const putBody = {
  type: 'object',
  required: ['namespace', 'key', 'value'],
  additionalProperties: true,
  properties: {
    namespace: namespace('where the item lives, e.g. ["memories", "user-1"]'),
    key,
    value: { type: 'object', additionalProperties: true, description: 'the item (a JSON object)' },
    index: {
      anyOf: [
        { type: 'boolean', enum: [false] },
        { type: 'array', items: { type: 'string', minLength: 1 } },
        { type: 'null' },
      ],
      description:
        'what is embedded for semantic search: the index’s fields (absent or null), nothing (false) or these JSON paths; ignored without an index',
    },
    ttl: {
      type: ['number', 'null'],
      minimum: 0, // (not exclusiveMinimum: the document is OpenAPI 3.0, where that is a boolean)
      maximum: MAX_TTL_MINUTES,
      description:
        'minutes until the item expires (0: at once); null: never; absent: store.ttl.default_ttl of the config file',
    },
  },
} as const;

interface ItemQuery {
  namespace: string[];
  key: string;
  refresh_ttl?: boolean;
}
const itemQuery = {
  type: 'object',
  required: ['namespace', 'key'],
  properties: {
    namespace: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'string',
        pattern: `^[^.\\u0000]{1,${MAX_LABEL_LENGTH}}(\\.[^.\\u0000]{1,${MAX_LABEL_LENGTH}})*$`,
      },
      description: 'the labels joined with "." (as the SDKs send it), or repeated once per label',
    },
    key,
    refresh_ttl: { type: 'boolean', description: 'restart the item’s TTL (default: store.ttl.refresh_on_read)' },
  },
} as const;

interface DeleteBody {
  namespace: string[];
  key: string;
}
const deleteBody = {
  type: 'object',
  required: ['namespace', 'key'],
  additionalProperties: true,
  properties: { namespace: namespace('the item’s namespace'), key },
} as const;

interface SearchBody {
  namespace_prefix: string[];
  filter?: StoreFilter | null;
  limit: number;
  offset: number;
  query?: string | null;
  refresh_ttl?: boolean | null;
}
const searchBody = {
  type: 'object',
  additionalProperties: true,
  properties: {
    namespace_prefix: {
      type: 'array',
      items: label,
      default: [],
      description: 'items whose namespace starts with these labels ([]: every item)',
    },
    filter: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: `conditions on top-level fields of the value, all of which must hold: {field: value} (equal), or {field: {op: operand}} with op one of ${FILTER_OPERATORS.join(', ')} ($gt… compare numbers with numbers, strings with strings; $in and $nin take an array); another operator is a 400 INVALID_FILTER`,
    },
    ...page(10),
    query: {
      type: ['string', 'null'],
      description: 'rank by similarity to this text (where the config file names store.index; otherwise ignored)',
    },
    refresh_ttl: {
      type: ['boolean', 'null'],
      description: 'restart the TTL of the items returned (default: store.ttl.refresh_on_read)',
    },
  },
} as const;

interface NamespacesBody {
  prefix?: string[] | null;
  suffix?: string[] | null;
  max_depth?: number | null;
  limit: number;
  offset: number;
}
const namespacesBody = {
  type: 'object',
  additionalProperties: true,
  properties: {
    prefix: nullableLabels('namespaces that start with these labels ("*" matches any label)'),
    suffix: nullableLabels('namespaces that end with these labels ("*" matches any label)'),
    max_depth: {
      type: ['integer', 'null'],
      minimum: 1,
      maximum: MAX_PAGE,
      description: 'namespaces cut to this many labels (each listed once)',
    },
    ...page(100),
  },
} as const;

const wireItem = (item: StoreItem) => ({
  namespace: item.namespace,
  key: item.key,
  value: item.value,
  created_at: item.createdAt.toISOString(),
  updated_at: item.updatedAt.toISOString(),
  ...(item.score !== undefined ? { score: item.score } : {}),
});

/** The labels of GET's `namespace`: each value split at ".". */
const labelsOf = (values: string[]) => values.flatMap((v) => v.split('.'));

export function storeRoutes(app: FastifyInstance, deps: Pick<AgentServerDeps, 'longTermStore'>): void {
  const store = deps.longTermStore;
  const doc = (summary: string, schema: Record<string, unknown>) => ({
    schema: { tags: ['store'], summary, ...schema },
  });

  app.put<{ Body: PutBody }>(
    '/store/items',
    doc('Put an item (created or replaced)', { body: putBody, response: { 204: noContent } }),
    async (request, reply) => {
      const { key, value, index, ttl } = request.body;
      const asked = { namespace: request.body.namespace, key, value };
      const { workspaceId } = await callerOf(request).scope('store:put', asked);
      await store.put(workspaceId, asked.namespace, asked.key, asked.value, {
        ...(index === null || index === undefined ? {} : { index }),
        ...(ttl === undefined ? {} : { ttl }),
      });
      return reply.code(204).send();
    },
  );

  app.get<{ Querystring: ItemQuery }>(
    '/store/items',
    doc('An item, or null when there is none', {
      querystring: itemQuery,
      response: { 200: { ...itemSchema, type: ['object', 'null'] } },
    }),
    async (request) => {
      const query = request.query;
      const asked = { namespace: labelsOf(query.namespace), key: query.key };
      const { workspaceId } = await callerOf(request).scope('store:get', asked);
      const item = await store.get(workspaceId, asked.namespace ?? [], asked.key, query.refresh_ttl);
      return item ? wireItem(item) : null;
    },
  );

  app.delete<{ Body: DeleteBody }>(
    '/store/items',
    doc('Delete an item (done also when there was none)', { body: deleteBody, response: { 204: noContent } }),
    async (request, reply) => {
      const asked = { namespace: request.body.namespace, key: request.body.key };
      const { workspaceId } = await callerOf(request).scope('store:delete', asked);
      await store.delete(workspaceId, asked.namespace ?? [], asked.key);
      return reply.code(204).send();
    },
  );

  app.post<{ Body: SearchBody }>(
    '/store/items/search',
    doc('Search the items under a namespace prefix', {
      body: searchBody,
      response: {
        200: { type: 'object', properties: { items: { type: 'array', items: searchItemSchema } } },
        400: errorResponse('INVALID_FILTER: an unknown operator, or an operand of the wrong kind, in `filter`'),
      },
    }),
    async (request) => {
      const { filter, limit, offset, query, refresh_ttl } = request.body;
      const asked = { namespace: request.body.namespace_prefix, filter, limit, offset, query };
      const { workspaceId } = await callerOf(request).scope('store:search', asked);
      const { query: text } = asked; // (a search text, not the request's query string)
      const items = await store.search(workspaceId, asked.namespace ?? [], {
        filter: asked.filter ?? undefined,
        limit: asked.limit ?? limit,
        offset: asked.offset ?? offset,
        ...(text ? { query: text } : {}),
        ...(refresh_ttl === null || refresh_ttl === undefined ? {} : { refreshTtl: refresh_ttl }),
      });
      return { items: items.map(wireItem) };
    },
  );

  app.post<{ Body: NamespacesBody }>(
    '/store/namespaces',
    doc('List the namespaces that hold items', {
      body: namespacesBody,
      response: {
        200: {
          type: 'object',
          properties: { namespaces: { type: 'array', items: { type: 'array', items: { type: 'string' } } } },
        },
      },
    }),
    async (request) => {
      const { prefix, suffix, max_depth, limit, offset } = request.body;
      const asked = { namespace: prefix, suffix, max_depth, limit, offset };
      const { workspaceId } = await callerOf(request).scope('store:list_namespaces', asked);
      const namespaces = await store.listNamespaces(workspaceId, {
        ...(asked.namespace?.length ? { prefix: asked.namespace } : {}),
        ...(asked.suffix?.length ? { suffix: asked.suffix } : {}),
        ...(asked.max_depth ? { maxDepth: asked.max_depth } : {}),
        limit: asked.limit ?? limit,
        offset: asked.offset ?? offset,
      });
      return { namespaces };
    },
  );
}
