// Prompts (the hub) as the official clients call them: the workspace's settings, prompts (repos:
// create, list, read, change, delete), their commits (push a manifest on top of the latest, list,
// pull by `latest`, hash, hash prefix or tag), tags (put, moved, listed) and likes. The owner in every path is `-`,
// the caller's workspace; any other owner is a 404 (public prompts and hub handles are not
// served: `is_public: true` is a 400 saying so). An unknown prompt, commit or tag, or another
// workspace's, is a 404 ("… not found").
import type { FastifyPluginAsync } from 'fastify';
import { errors } from '../../platform/errors.ts';
import { errorResponses } from '../../platform/http/openapi.ts';
import { boundedObject, int } from '../../platform/http/routeInput.ts';
import type { EventLog } from '../../platform/kafka/eventLog.ts';
import { formatIsoMicros } from '../../platform/time.ts';
import type { Prompt, PromptCommit, PromptFields, PromptRegistry } from '../../projections/prompts/promptRegistry.ts';
import { keyHashOf, tenantOf } from '../tenancy/index.ts';
import { PromptCommands } from './promptCommands.ts';

export interface PromptRouteOptions {
  eventLog: EventLog;
  prompts: PromptRegistry;
  /** The workspace's name and creation (microseconds), for GET /settings. */
  workspace(tenantId: string): { name: string; createdAt: number } | undefined;
}

const MAX_LIMIT = 100;
const MAX_TEXT_LENGTH = 64 * 1024;
const MAX_MANIFEST_BYTES = 512 * 1024;
const tags = ['prompts'];
const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.-]*$';
const SORT_FIELDS = ['updated_at', 'created_at', 'num_likes', 'num_downloads', 'num_views'] as const;
type SortField = (typeof SORT_FIELDS)[number];

const nameSchema = { type: 'string', minLength: 1, maxLength: 128, pattern: NAME_PATTERN } as const;
const ownerSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description: '`-`: the caller’s workspace (the only owner served; any other is a 404)',
} as const;
const repoParams = {
  type: 'object',
  required: ['owner', 'name'],
  properties: { owner: ownerSchema, name: { ...nameSchema, description: 'the prompt’s name (repo_handle)' } },
} as const;
const tagNameSchema = { ...nameSchema, not: { const: 'latest' }, description: 'not `latest`' } as const;
const publicSchema = {
  type: ['boolean', 'null'],
  description: 'public prompts are not served: true is a 400',
} as const;
const promptFieldsSchema = {
  description: { type: ['string', 'null'], maxLength: MAX_TEXT_LENGTH },
  readme: { type: ['string', 'null'], maxLength: MAX_TEXT_LENGTH },
  tags: { type: ['array', 'null'], maxItems: 100, items: { type: 'string', maxLength: 256 } },
  is_public: publicSchema,
} as const;

const promptSchema = {
  type: 'object',
  additionalProperties: false,
  required: [
    'repo_handle',
    'id',
    'tenant_id',
    'created_at',
    'updated_at',
    'is_public',
    'is_archived',
    'tags',
    'owner',
    'full_name',
    'num_likes',
    'num_downloads',
    'num_views',
    'num_commits',
  ],
  properties: {
    repo_handle: { type: 'string' },
    description: { type: ['string', 'null'] },
    readme: { type: ['string', 'null'] },
    id: { type: 'string' },
    tenant_id: { type: 'string' },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
    is_public: { type: 'boolean', description: 'always false' },
    is_archived: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    original_repo_id: { type: 'null' },
    upstream_repo_id: { type: 'null' },
    owner: { type: 'null', description: 'the workspace’s hub handle: none' },
    full_name: { type: 'string', description: 'the name (no owner handle)' },
    num_likes: { type: 'integer' },
    num_downloads: { type: 'integer', description: 'not counted: 0' },
    num_views: { type: 'integer', description: 'not counted: 0' },
    liked_by_auth_user: { type: 'boolean', description: 'whether the caller’s API key likes it' },
    last_commit_hash: { type: ['string', 'null'] },
    num_commits: { type: 'integer' },
    original_repo_full_name: { type: 'null' },
    upstream_repo_full_name: { type: 'null' },
  },
} as const;
const repoResponse = {
  type: 'object',
  additionalProperties: false,
  required: ['repo'],
  properties: { repo: promptSchema },
} as const;

const commitSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'commit_hash', 'repo_id', 'created_at'],
  properties: {
    id: { type: 'string', description: 'what a tag names (commit_id)' },
    commit_hash: { type: 'string' },
    repo_id: { type: 'string' },
    parent_id: { type: ['string', 'null'] },
    parent_commit_hash: { type: ['string', 'null'] },
    description: { type: ['string', 'null'] },
    created_at: { type: 'string' },
    updated_at: { type: 'string' },
    example_run_ids: { type: 'array', items: { type: 'string' } },
    num_downloads: { type: 'integer' },
    num_views: { type: 'integer' },
    manifest: { type: 'object', additionalProperties: true },
  },
} as const;

/** A LangChain serialized object, as both clients push one (Serializable.toJSON / langchain_core.load.dumps). */
const manifestSchema = {
  type: 'object',
  required: ['lc', 'type', 'id', 'kwargs'],
  additionalProperties: true,
  description: 'a LangChain serialized object: {lc: 1, type: "constructor", id: [...], kwargs: {...}}',
  properties: {
    lc: { type: 'integer', minimum: 1, maximum: 1 },
    type: { type: 'string', enum: ['constructor'] },
    id: { type: 'array', minItems: 1, maxItems: 16, items: { type: 'string', minLength: 1, maxLength: 256 } },
    kwargs: { type: 'object', additionalProperties: true },
  },
} as const;

const refusePublic = (isPublic: unknown) => {
  if (isPublic === true)
    throw errors.badRequest(
      'public prompts are not served: a prompt is its workspace’s own (is_public must be false or absent)',
    );
};

const fieldsOf = (b: Record<string, unknown>): PromptFields => ({
  description: b.description as string | null | undefined,
  readme: b.readme as string | null | undefined,
  tags: b.tags == null ? undefined : (b.tags as string[]),
  isArchived: b.is_archived == null ? undefined : (b.is_archived as boolean),
});

/** Without include_model, a prompt pushed with its model (a RunnableSequence) answers its prompt alone. */
const promptOnly = (manifest: Record<string, unknown>): Record<string, unknown> => {
  const id = manifest.id;
  const kwargs = manifest.kwargs as Record<string, unknown> | undefined;
  const first = kwargs?.first;
  if (Array.isArray(id) && id.at(-1) === 'RunnableSequence' && first && typeof first === 'object')
    return first as Record<string, unknown>;
  return manifest;
};

export const promptRoutes: FastifyPluginAsync<PromptRouteOptions> = async (app, options) => {
  const { prompts } = options;
  const commands = new PromptCommands(prompts, options.eventLog);

  const respondPrompt = (p: Prompt, me: string) => {
    const commits = prompts.commits(p.tenantId, p.id);
    const likers = prompts.likers(p.tenantId, p.id);
    return {
      repo_handle: p.name,
      description: p.description,
      readme: p.readme,
      id: p.id,
      tenant_id: p.tenantId,
      created_at: formatIsoMicros(p.createdAt),
      updated_at: formatIsoMicros(p.updatedAt),
      is_public: false,
      is_archived: p.isArchived,
      tags: [...p.tags],
      original_repo_id: null,
      upstream_repo_id: null,
      owner: null,
      full_name: p.name,
      num_likes: likers.size,
      num_downloads: 0,
      num_views: 0,
      liked_by_auth_user: likers.has(me),
      last_commit_hash: commits.at(-1)?.hash ?? null,
      num_commits: commits.length,
      original_repo_full_name: null,
      upstream_repo_full_name: null,
    };
  };
  const respondCommit = (p: Prompt, c: PromptCommit, withManifest: boolean) => ({
    id: c.id,
    commit_hash: c.hash,
    repo_id: p.id,
    parent_id: c.parentId,
    parent_commit_hash: c.parentHash,
    description: c.description,
    created_at: formatIsoMicros(c.createdAt),
    updated_at: formatIsoMicros(c.createdAt),
    example_run_ids: [],
    num_downloads: 0,
    num_views: 0,
    ...(withManifest ? { manifest: JSON.parse(c.manifest) as Record<string, unknown> } : {}),
  });

  app.get(
    '/settings',
    {
      schema: {
        tags,
        summary: 'The workspace’s hub settings: its id (the prompts’ organizationId) and no hub handle',
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'display_name', 'created_at', 'tenant_handle'],
            properties: {
              id: { type: 'string' },
              display_name: { type: 'string' },
              created_at: { type: 'string' },
              tenant_handle: { type: 'null', description: 'no hub handle: prompts are the workspace’s own' },
            },
          },
          ...errorResponses(503),
        },
      },
    },
    async (request) => {
      const id = tenantOf(request);
      const ws = options.workspace(id);
      return {
        id,
        display_name: ws?.name ?? id,
        created_at: formatIsoMicros(ws?.createdAt ?? 0),
        tenant_handle: null,
      };
    },
  );

  const listQuery = {
    type: 'object',
    properties: {
      query: { type: 'string', maxLength: 1000, description: 'in the name or the description, any case' },
      match_prefix: { type: 'boolean', description: 'with query: only names that start with it (any case)' },
      is_archived: {
        type: 'boolean',
        description: 'archived prompts only (true) or unarchived only (false, the default)',
      },
      is_public: { type: 'boolean', description: 'true: none (public prompts are not served)' },
      sort_field: { type: 'string', enum: [...SORT_FIELDS], description: 'default updated_at' },
      sort_direction: { type: 'string', enum: ['asc', 'desc'], description: 'default desc' },
      offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT },
    },
  } as const;
  type ListQuery = {
    query?: string;
    match_prefix?: boolean;
    is_archived?: boolean;
    is_public?: boolean;
    sort_field?: SortField;
    sort_direction?: 'asc' | 'desc';
    offset?: number;
    limit?: number;
  };
  // JS calls /repos, Python /repos/: both are served, as LangSmith's are.
  for (const path of ['/repos', '/repos/']) {
    app.get<{ Querystring: ListQuery }>(
      path,
      {
        schema: {
          tags,
          summary: 'List the workspace’s prompts (newest change first unless sorted otherwise), with the total',
          querystring: listQuery,
          response: {
            200: {
              type: 'object',
              additionalProperties: false,
              required: ['repos', 'total'],
              properties: { repos: { type: 'array', items: promptSchema }, total: { type: 'integer' } },
            },
            ...errorResponses(503),
          },
        },
      },
      async (request) => {
        const q = request.query;
        const me = keyHashOf(request);
        const text = q.query?.toLowerCase();
        const offset = int(q.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
        const limit = int(q.limit, 'limit', MAX_LIMIT, 1, MAX_LIMIT);
        await prompts.catchUp();
        const tenantId = tenantOf(request);
        const sortKey = (p: Prompt): number => {
          switch (q.sort_field ?? 'updated_at') {
            case 'created_at':
              return p.createdAt;
            case 'num_likes':
              return prompts.likers(tenantId, p.id).size;
            case 'num_downloads':
            case 'num_views':
              return 0;
            default:
              return p.updatedAt;
          }
        };
        const sign = q.sort_direction === 'asc' ? 1 : -1;
        const matching =
          q.is_public === true
            ? []
            : prompts
                .list(tenantId)
                .filter(
                  (p) =>
                    p.isArchived === (q.is_archived ?? false) &&
                    (!text ||
                      (q.match_prefix
                        ? p.name.toLowerCase().startsWith(text)
                        : p.name.toLowerCase().includes(text) || (p.description ?? '').toLowerCase().includes(text))),
                )
                .sort(
                  (a, b) =>
                    sign * (sortKey(a) - sortKey(b)) || sign * (a.updatedAt - b.updatedAt) || (a.id < b.id ? -1 : 1),
                );
        return {
          repos: matching.slice(offset, offset + limit).map((p) => respondPrompt(p, me)),
          total: matching.length,
        };
      },
    );
  }

  const createBody = {
    type: 'object',
    required: ['repo_handle'],
    additionalProperties: true,
    properties: { repo_handle: nameSchema, ...promptFieldsSchema },
  } as const;
  for (const path of ['/repos/', '/repos']) {
    app.post<{ Body: Record<string, unknown> }>(
      path,
      {
        schema: {
          tags,
          summary: 'Create a prompt (its commits come after); a name a prompt of the workspace holds is a 409',
          body: createBody,
          response: { 200: repoResponse, ...errorResponses(400, 409, 503) },
        },
      },
      async (request) => {
        const b = request.body;
        refusePublic(b.is_public);
        const prompt = await commands.create(tenantOf(request), b.repo_handle as string, fieldsOf(b));
        return { repo: respondPrompt(prompt, keyHashOf(request)) };
      },
    );
  }

  app.get<{ Params: { owner: string; name: string } }>(
    '/repos/:owner/:name',
    {
      schema: {
        tags,
        summary: 'Read a prompt',
        params: repoParams,
        response: { 200: repoResponse, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const { owner, name } = request.params;
      return { repo: respondPrompt(await commands.prompt(tenantOf(request), owner, name), keyHashOf(request)) };
    },
  );

  app.patch<{ Params: { owner: string; name: string }; Body: Record<string, unknown> }>(
    '/repos/:owner/:name',
    {
      schema: {
        tags,
        summary: 'Change a prompt’s description, readme, tags (whole) or archived state',
        params: repoParams,
        body: {
          type: 'object',
          additionalProperties: true,
          properties: { ...promptFieldsSchema, is_archived: { type: ['boolean', 'null'] } },
        },
        response: { 200: repoResponse, ...errorResponses(400, 404, 503) },
      },
    },
    async (request) => {
      refusePublic(request.body.is_public);
      const { owner, name } = request.params;
      const prompt = await commands.update(tenantOf(request), owner, name, fieldsOf(request.body));
      return { repo: respondPrompt(prompt, keyHashOf(request)) };
    },
  );

  app.delete<{ Params: { owner: string; name: string } }>(
    '/repos/:owner/:name',
    {
      schema: {
        tags,
        summary: 'Delete a prompt with its commits, tags and likes (its name is free again)',
        params: repoParams,
        response: { 200: { type: 'object', additionalProperties: false, properties: {} }, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      await commands.delete(tenantOf(request), request.params.owner, request.params.name);
      return {};
    },
  );

  app.post<{ Params: { owner: string; name: string }; Body: { tag_name: string; commit_id: string } }>(
    '/repos/:owner/:name/tags',
    {
      schema: {
        tags,
        summary: 'Tag a commit of a prompt (a tag names one commit: tagging another moves it)',
        params: repoParams,
        body: {
          type: 'object',
          required: ['tag_name', 'commit_id'],
          additionalProperties: true,
          properties: {
            tag_name: tagNameSchema,
            commit_id: { type: 'string', format: 'uuid', description: 'the commit’s id (not its hash)' },
          },
        },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            properties: {
              tag_name: { type: 'string' },
              commit_id: { type: 'string' },
              commit_hash: { type: 'string' },
              repo_id: { type: 'string' },
            },
          },
          ...errorResponses(404, 503),
        },
      },
    },
    async (request) => {
      const { owner, name } = request.params;
      const tenantId = tenantOf(request);
      const { tag_name: tag, commit_id: commitId } = request.body;
      const commit = await commands.tag(tenantId, owner, name, tag, commitId.toLowerCase());
      const prompt = await commands.prompt(tenantId, owner, name);
      return { tag_name: tag, commit_id: commit.id, commit_hash: commit.hash, repo_id: prompt.id };
    },
  );

  app.get<{ Params: { owner: string; name: string } }>(
    '/repos/:owner/:name/tags',
    {
      schema: {
        tags,
        summary: 'A prompt’s tags by name, each with the commit it names',
        params: repoParams,
        response: {
          200: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['tag_name', 'commit_id', 'commit_hash', 'repo_id', 'created_at', 'updated_at'],
              properties: {
                tag_name: { type: 'string' },
                commit_id: { type: 'string' },
                commit_hash: { type: 'string' },
                repo_id: { type: 'string' },
                created_at: { type: 'string', description: 'when the tag was first put on a commit' },
                updated_at: { type: 'string', description: 'when it was last put on a commit (moved)' },
              },
            },
          },
          ...errorResponses(404, 503),
        },
      },
    },
    async (request) => {
      const { owner, name } = request.params;
      const tenantId = tenantOf(request);
      const prompt = await commands.prompt(tenantId, owner, name);
      return prompts.tags(tenantId, prompt.id).map((t) => ({
        tag_name: t.name,
        commit_id: t.commit.id,
        commit_hash: t.commit.hash,
        repo_id: prompt.id,
        created_at: formatIsoMicros(t.createdAt),
        updated_at: formatIsoMicros(t.updatedAt),
      }));
    },
  );

  const commitsQuery = {
    type: 'object',
    properties: {
      offset: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT },
      include_model: { type: 'boolean', description: 'the manifests as stored (each commit answers its manifest)' },
    },
  } as const;
  // JS and Python list with the trailing slash; served without it too.
  for (const path of ['/commits/:owner/:name/', '/commits/:owner/:name']) {
    app.get<{ Params: { owner: string; name: string }; Querystring: { offset?: number; limit?: number } }>(
      path,
      {
        schema: {
          tags,
          summary: 'A prompt’s commits, newest first, with the total',
          params: repoParams,
          querystring: commitsQuery,
          response: {
            200: {
              type: 'object',
              additionalProperties: false,
              required: ['commits', 'total'],
              properties: { commits: { type: 'array', items: commitSchema }, total: { type: 'integer' } },
            },
            ...errorResponses(404, 503),
          },
        },
      },
      async (request) => {
        const { owner, name } = request.params;
        const tenantId = tenantOf(request);
        const prompt = await commands.prompt(tenantId, owner, name);
        const offset = int(request.query.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
        const limit = int(request.query.limit, 'limit', MAX_LIMIT, 1, MAX_LIMIT);
        const commits = [...prompts.commits(tenantId, prompt.id)].reverse();
        return {
          commits: commits.slice(offset, offset + limit).map((c) => respondCommit(prompt, c, true)),
          total: commits.length,
        };
      },
    );
  }

  app.post<{
    Params: { owner: string; name: string };
    Body: { manifest: Record<string, unknown>; parent_commit?: string | null; description?: string | null };
  }>(
    '/commits/:owner/:name',
    {
      schema: {
        tags,
        summary:
          'Commit a version of a prompt: its manifest, on top of the latest commit (a parent_commit that is not the latest is a 409)',
        params: repoParams,
        body: {
          type: 'object',
          required: ['manifest'],
          additionalProperties: true,
          properties: {
            manifest: manifestSchema,
            parent_commit: {
              type: ['string', 'null'],
              maxLength: 128,
              description: 'the hash of the commit this one is built on: the latest (absent or null: the latest)',
            },
            description: { type: ['string', 'null'], maxLength: 1000 },
          },
        },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['commit'],
            properties: { commit: commitSchema },
          },
          ...errorResponses(404, 409, 503),
        },
      },
    },
    async (request) => {
      const { owner, name } = request.params;
      const tenantId = tenantOf(request);
      const b = request.body;
      const manifest = boundedObject(b.manifest, 'manifest', MAX_MANIFEST_BYTES)!;
      const commit = await commands.commit(
        tenantId,
        owner,
        name,
        manifest,
        b.parent_commit ?? null,
        b.description ?? null,
      );
      const prompt = await commands.prompt(tenantId, owner, name);
      return { commit: respondCommit(prompt, commit, true) };
    },
  );

  app.get<{ Params: { owner: string; name: string; commit: string }; Querystring: { include_model?: boolean } }>(
    '/commits/:owner/:name/:commit',
    {
      schema: {
        tags,
        summary:
          'Pull a commit of a prompt: `latest`, a tag, a full hash or a hash prefix (8 characters or more: the newest commit it starts)',
        params: {
          type: 'object',
          required: ['owner', 'name', 'commit'],
          properties: {
            owner: ownerSchema,
            name: repoParams.properties.name,
            commit: { ...nameSchema, description: '`latest`, a tag, a commit hash or a hash prefix' },
          },
        },
        querystring: {
          type: 'object',
          properties: {
            include_model: {
              type: 'boolean',
              description:
                'the manifest as pushed, a model included when it was pushed with one (a RunnableSequence); without it, such a manifest answers its prompt alone',
            },
          },
        },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['commit_hash', 'manifest', 'examples'],
            properties: {
              id: { type: 'string' },
              commit_hash: { type: 'string' },
              manifest: { type: 'object', additionalProperties: true },
              examples: { type: 'array', maxItems: 0, items: { type: 'object' } },
              parent_commit_hash: { type: ['string', 'null'] },
              description: { type: ['string', 'null'] },
              created_at: { type: 'string' },
            },
          },
          ...errorResponses(404, 503),
        },
      },
    },
    async (request) => {
      const { owner, name, commit: ref } = request.params;
      const { commit } = await commands.resolve(tenantOf(request), owner, name, ref);
      const manifest = JSON.parse(commit.manifest) as Record<string, unknown>;
      return {
        id: commit.id,
        commit_hash: commit.hash,
        manifest: request.query.include_model ? manifest : promptOnly(manifest),
        examples: [],
        parent_commit_hash: commit.parentHash,
        description: commit.description,
        created_at: formatIsoMicros(commit.createdAt),
      };
    },
  );

  app.post<{ Params: { owner: string; name: string }; Body: { like: boolean } }>(
    '/likes/:owner/:name',
    {
      schema: {
        tags,
        summary: 'Like a prompt, or unlike it (like: false), as the caller’s API key; answers the number of likes',
        params: repoParams,
        body: {
          type: 'object',
          required: ['like'],
          additionalProperties: true,
          properties: { like: { type: 'boolean' } },
        },
        response: {
          200: {
            type: 'object',
            additionalProperties: false,
            required: ['likes'],
            properties: { likes: { type: 'integer' } },
          },
          ...errorResponses(404, 503),
        },
      },
    },
    async (request) => {
      const { owner, name } = request.params;
      const likes = await commands.like(tenantOf(request), owner, name, keyHashOf(request), request.body.like);
      return { likes };
    },
  );
};
