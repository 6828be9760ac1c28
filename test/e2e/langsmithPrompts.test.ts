// Prompts (the hub) through the official clients, unchanged: the `langsmith` npm client
// (pushPrompt of a ChatPromptTemplate with commit tags, pullPromptCommit by name, name:tag and
// name:<8-character hash>, listPrompts, listCommits, updatePrompt, likePrompt, deletePrompt),
// langchain's `hub.pull` (a ChatPromptTemplate that formats), and the Python client
// (test/e2e/python/prompts.py: push_prompt, pull_prompt into a ChatPromptTemplate, list_prompts,
// list_prompt_commits, update_prompt, like_prompt, delete_prompt), which validates every answer
// against its models. Route-level refusals are at the end.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { Client } from 'langsmith';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { pull } from 'langchain/hub';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../support/tracingClient.ts';
import { collect } from '../support/asyncItems.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';

let pyenv: PythonEnv;
let ws: Workspace;
let pyWorkspace: Workspace;
let routeWorkspace: Workspace;
beforeAll(async () => {
  [pyenv, [ws, pyWorkspace, routeWorkspace]] = await Promise.all([
    ensurePythonEnv(),
    createWorkspaces(3) as Promise<[Workspace, Workspace, Workspace]>,
  ]);
}, 20 * 60_000);

describe('langsmith (npm) prompts and langchain/hub', () => {
  test('push, pull by name, tag and hash, list, commits, update, like, hub.pull, delete', async () => {
    const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: ws.apiKey });
    const name = `js-prompt-${randomUUID().slice(0, 8)}`;
    const v1 = ChatPromptTemplate.fromMessages([
      ['system', 'You answer in {language}.'],
      ['human', '{question}'],
    ]);
    const url = await client.pushPrompt(name, { object: v1, description: 'answers', commitTags: ['prod'] });
    expect(url).toContain(`/prompts/${name}/`);
    expect(url).toContain(`organizationId=${ws.id}`);
    const v2 = ChatPromptTemplate.fromMessages([
      ['system', 'You answer in {language}, briefly.'],
      ['human', '{question}'],
    ]);
    await client.pushPrompt(name, { object: v2 });

    const latest = await client.pullPromptCommit(name, { skipCache: true });
    expect(latest).toMatchObject({ owner: '-', repo: name, examples: [] });
    expect(JSON.stringify(latest.manifest)).toContain('briefly');
    const prod = await client.pullPromptCommit(`${name}:prod`, { skipCache: true });
    expect(JSON.stringify(prod.manifest)).not.toContain('briefly');
    expect(prod.manifest).toEqual(JSON.parse(JSON.stringify(v1)));
    const byHash = await client.pullPromptCommit(`${name}:${prod.commit_hash.slice(0, 8)}`, { skipCache: true });
    expect(byHash.commit_hash).toBe(prod.commit_hash);

    const commits = await collect(client.listCommits(name));
    expect(commits.map((c) => c.commit_hash)).toEqual([latest.commit_hash, prod.commit_hash]);
    expect(commits[0]).toMatchObject({ parent_commit_hash: prod.commit_hash });

    const listed = await collect(client.listPrompts({ query: name }));
    expect(listed.map((p) => p.repo_handle)).toEqual([name]);
    expect(listed[0]).toMatchObject({
      description: 'answers',
      num_commits: 2,
      last_commit_hash: latest.commit_hash,
      owner: null,
      is_public: false,
    });

    await client.updatePrompt(name, { description: 'changed', tags: ['a', 'b'] });
    expect(await client.getPrompt(name)).toMatchObject({ description: 'changed', tags: ['a', 'b'] });
    expect(await client.likePrompt(name)).toEqual({ likes: 1 });
    expect(await client.likePrompt(name)).toEqual({ likes: 1 });
    expect(await client.getPrompt(name)).toMatchObject({ num_likes: 1, liked_by_auth_user: true });
    expect(await client.unlikePrompt(name)).toEqual({ likes: 0 });

    // langchain's hub: one GET of the commit, loaded into a working template.
    const pulled = await pull<ChatPromptTemplate>(`${name}:prod`, { client });
    expect(pulled).toBeInstanceOf(ChatPromptTemplate);
    const messages = await pulled.formatMessages({ language: 'French', question: 'Why?' });
    expect(messages.map((m) => m.content)).toEqual(['You answer in French.', 'Why?']);
    expect(pulled.metadata).toMatchObject({ lc_hub_repo: name, lc_hub_commit_hash: prod.commit_hash });
    const pulledLatest = await pull<ChatPromptTemplate>(name, { client });
    expect((await pulledLatest.formatMessages({ language: 'Dutch', question: 'Hoe?' }))[0]!.content).toBe(
      'You answer in Dutch, briefly.',
    );

    await client.deletePrompt(name);
    expect(await client.getPrompt(name)).toBeNull();
    await expect(client.pullPromptCommit(name, { skipCache: true })).rejects.toThrow(/not found/i);
  });
});

interface PyResult {
  url: string;
  prompt_type: string;
  formatted: string[];
  metadata: Record<string, string>;
  commit: { commit_hash: string; examples: unknown[]; manifest_id: string[] };
  listed: string[];
  listed_total: number;
  commits: Array<{ type: string; commit_hash: string }>;
  updated: { description: string; tags: string[] };
  likes: number;
  got: { type: string; num_likes: number; num_commits: number };
  by_tag: string;
  deleted: string;
}

describe('langsmith (PyPI) prompts', () => {
  test('every method, each answer a valid model', async () => {
    const name = `py-prompt-${randomUUID().slice(0, 8)}`;
    const env = { LANGSMITH_ENDPOINT: `${tracingUrl()}/api/v1`, LANGSMITH_API_KEY: pyWorkspace.apiKey };
    const run = await runPythonScript<PyResult>(pyenv, 'prompts.py', [name], env);
    const r = run.result;
    // push_prompt first asks whether the prompt exists (404: no); the last pull is after delete_prompt.
    expect(r.requests.filter((q) => q.status >= 300).map((q) => `${q.method} ${q.path} ${q.status}`)).toEqual([
      `GET /api/v1/repos/-/${name} 404`,
      `GET /api/v1/commits/-/${name}/latest 404`,
    ]);
    expect(r.log, run.stderr).toEqual([]);
    expect(r.url).toContain(`organizationId=${pyWorkspace.id}`);
    expect(r.prompt_type).toBe('ChatPromptTemplate');
    expect(r.formatted).toEqual(['Reply in German.', 'Hello?']);
    expect(r.metadata).toMatchObject({ lc_hub_owner: '-', lc_hub_repo: name });
    expect(r.commit.examples).toEqual([]);
    expect(r.commit.manifest_id.at(-1)).toBe('ChatPromptTemplate');
    expect(r.listed).toEqual([name]);
    expect(r.listed_total).toBe(1);
    expect(r.commits.map((c) => c.type)).toEqual(['ListedPromptCommit', 'ListedPromptCommit']);
    expect(r.commits[1]!.commit_hash).toBe(r.commit.commit_hash);
    expect(r.by_tag).toBe(r.commit.commit_hash);
    expect(r.updated).toEqual({ description: 'changed', tags: ['x'] });
    expect(r.likes).toBe(1);
    expect(r.got).toEqual({ type: 'Prompt', num_likes: 1, num_commits: 2 });
    expect(r.deleted).toBe('LangSmithNotFoundError');
  });
});

describe('prompt routes: refusals', () => {
  const manifest = JSON.parse(JSON.stringify(ChatPromptTemplate.fromMessages([['human', '{q}']])));
  const call = (path: string, init: { method?: string; json?: unknown } = {}) =>
    api(`/api/v1${path}`, { ...init, apiKey: routeWorkspace.apiKey });

  test('a taken name, a public prompt, a bad manifest, a stale parent, unknown commits and owners', async () => {
    const name = `routes-${randomUUID().slice(0, 8)}`;
    expect((await call('/repos/', { method: 'POST', json: { repo_handle: name } })).status).toBe(200);
    const taken = await call('/repos', { method: 'POST', json: { repo_handle: name } });
    expect(taken.status).toBe(409);
    const pub = await call('/repos/', { method: 'POST', json: { repo_handle: `${name}-p`, is_public: true } });
    expect(pub.status).toBe(400);
    expect(pub.body.detail).toMatch(/public prompts are not served/);
    expect((await call(`/repos/-/${name}`, { method: 'PATCH', json: { is_public: true } })).status).toBe(400);

    const bad = await call(`/commits/-/${name}`, { method: 'POST', json: { manifest: { messages: ['hi'] } } });
    expect(bad.status).toBe(422);
    const first = await call(`/commits/-/${name}`, { method: 'POST', json: { manifest, parent_commit: null } });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const hash = first.body.commit.commit_hash as string;
    expect(hash).toMatch(/^[0-9a-f]{40}$/);
    const second = await call(`/commits/-/${name}`, { method: 'POST', json: { manifest, parent_commit: hash } });
    expect(second.status).toBe(200);
    const stale = await call(`/commits/-/${name}`, { method: 'POST', json: { manifest, parent_commit: hash } });
    expect(stale.status).toBe(409);
    expect(stale.body.detail).toMatch(/is not the latest commit/);

    for (const ref of ['nosuchtag', 'deadbeefdeadbeef'])
      expect((await call(`/commits/-/${name}/${ref}`)).body.detail).toMatch(/not found$/);
    expect((await call(`/commits/-/${name}/nosuchtag`)).status).toBe(404);
    const tagUnknown = await call(`/repos/-/${name}/tags`, {
      method: 'POST',
      json: { tag_name: 'prod', commit_id: randomUUID() },
    });
    expect(tagUnknown.status).toBe(404);
    expect(tagUnknown.body.detail).toMatch(/not found$/);
    const tagged = await call(`/repos/-/${name}/tags`, {
      method: 'POST',
      json: { tag_name: 'prod', commit_id: first.body.commit.id },
    });
    expect(tagged.status).toBe(200);
    expect((await call(`/commits/-/${name}/prod`)).body.commit_hash).toBe(hash);
    // a tag moves
    await call(`/repos/-/${name}/tags`, {
      method: 'POST',
      json: { tag_name: 'prod', commit_id: second.body.commit.id },
    });
    expect((await call(`/commits/-/${name}/prod`)).body.commit_hash).toBe(second.body.commit.commit_hash);
    // the tags listed by name, each with the commit it names now (first put, last moved)
    await call(`/repos/-/${name}/tags`, {
      method: 'POST',
      json: { tag_name: 'canary', commit_id: first.body.commit.id },
    });
    const listedTags = await call(`/repos/-/${name}/tags`);
    expect(listedTags.status).toBe(200);
    expect(listedTags.body.map((t: { tag_name: string; commit_hash: string }) => [t.tag_name, t.commit_hash])).toEqual([
      ['canary', hash],
      ['prod', second.body.commit.commit_hash],
    ]);
    const prodTag = listedTags.body[1];
    expect(prodTag).toMatchObject({ commit_id: second.body.commit.id, repo_id: first.body.commit.repo_id });
    expect(Date.parse(prodTag.updated_at)).toBeGreaterThan(Date.parse(prodTag.created_at));
    expect((await call(`/repos/-/no-such-prompt/tags`)).status).toBe(404);

    expect((await call(`/repos/${routeWorkspace.id}/${name}`)).status).toBe(404);
    expect((await call(`/commits/someone/${name}/latest`)).status).toBe(404);
    expect((await call('/repos/-/no-such-prompt')).body.detail).toBe('prompt -/no-such-prompt not found');
    const settings = await call('/settings');
    expect(settings.body).toMatchObject({ id: routeWorkspace.id, tenant_handle: null });
  });

  test('without include_model, a prompt pushed with its model answers its prompt alone', async () => {
    const name = `routes-model-${randomUUID().slice(0, 8)}`;
    await call('/repos/', { method: 'POST', json: { repo_handle: name } });
    const model = { lc: 1, type: 'constructor', id: ['langchain', 'chat_models', 'openai', 'ChatOpenAI'], kwargs: {} };
    const sequence = {
      lc: 1,
      type: 'constructor',
      id: ['langchain', 'schema', 'runnable', 'RunnableSequence'],
      kwargs: { first: manifest, middle: [], last: model },
    };
    expect((await call(`/commits/-/${name}`, { method: 'POST', json: { manifest: sequence } })).status).toBe(200);
    expect((await call(`/commits/-/${name}/latest`)).body.manifest).toEqual(manifest);
    expect((await call(`/commits/-/${name}/latest?include_model=true`)).body.manifest).toEqual(sequence);
  });
});
