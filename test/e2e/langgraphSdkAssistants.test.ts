// Assistants as data, through the official JS LangGraph SDK (@langchain/langgraph-sdk), unchanged,
// on an agent server keeping them in memory and on one keeping them in PostgreSQL: every method of
// `client.assistants`, runs that take the pinned version's config and context, the config file's
// system assistants staying read-only, and two workspaces that do not see each other's assistants.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@langchain/langgraph-sdk';
import { exampleGraph, startAgentServerOn, writeAgentConfig, type AgentServerOnStore } from '../support/agentServer.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';
import { createWorkspaces } from '../support/tracingClient.ts';

const configFile = writeAgentConfig({
  graphs: {
    agent: exampleGraph('chatAgent'),
    counter: exampleGraph('counterGraph'),
    configured: `${join(import.meta.dirname, '..', 'services', 'agent-server', 'fixtures', 'assistantConfigGraph.ts')}:graph`,
  },
});

const status = (err: unknown) => (err as { status?: number }).status;

describe.each(['memory', 'postgres'] as const)('assistants on %s', (store) => {
  let on: AgentServerOnStore;
  let client: Client;
  let other: Client;
  let pyenv: PythonEnv;
  let keys: { a: string; b: string };

  beforeAll(async () => {
    [on, pyenv] = await Promise.all([startAgentServerOn(store, 'sdk-assistants', { configFile }), ensurePythonEnv()]);
    const [a, b] = await createWorkspaces(2);
    keys = { a: a!.apiKey, b: b!.apiKey };
    client = new Client({ apiUrl: on.server.url, apiKey: a!.apiKey });
    other = new Client({ apiUrl: on.server.url, apiKey: b!.apiKey });
  });
  afterAll(() => on?.stop());

  it('every method of the Python SDK’s assistants client', async () => {
    const { result } = await runPythonScript<any>(pyenv, 'langgraph_sdk_assistants.py', [on.server.url], {
      LANGGRAPH_API_KEY: keys.b,
    });
    expect(result).toMatchObject({
      created: { graph_id: 'configured', name: 'py assistant', version: 1, description: 'made from Python' },
      got_name: 'py assistant',
      updated: { version: 2, metadata: { lang: 'python', v: 2 } },
      versions: [2, 1],
      versions_by_metadata: [2],
      run_model_v2: 'py-large',
      latest: 1,
      run_model_v1: 'py-small',
      run_context: { style: 'py' },
      search: ['py assistant'],
      search_name: ['py assistant'],
      count: 1,
      selected: ['assistant_id', 'name'],
      schemas_graph: 'configured',
      subgraphs: ['inner'],
      subgraphs_ns: ['inner'],
      system_update: 409,
      unknown_graph: 422,
      duplicate: 409,
      do_nothing_name: 'py assistant',
      after_delete: 404,
      thread_after_delete: 404,
    });
    expect(result.search_graph).toEqual(['configured', 'py assistant']);
    expect(result.count_graph).toBe(2);
    expect(result.xray_nodes).toEqual(expect.arrayContaining(['inner:write', 'inner:sign', 'read']));
  });

  it('creates, changes (a version each time), lists versions, pins one, and runs with the pinned version', async () => {
    const created = await client.assistants.create({
      graphId: 'configured',
      name: 'terse',
      description: 'answers tersely',
      config: { configurable: { model: 'small' }, tags: ['from-assistant'], recursion_limit: 7 },
      context: { style: 'terse' },
      metadata: { team: 'a' },
    });
    expect(created).toMatchObject({ graph_id: 'configured', name: 'terse', version: 1, metadata: { team: 'a' } });
    expect(await client.assistants.get(created.assistant_id)).toEqual(created);

    const v2 = await client.assistants.update(created.assistant_id, {
      config: { configurable: { model: 'large' } },
      metadata: { stage: 'prod' },
    });
    expect(v2).toMatchObject({ version: 2, name: 'terse', metadata: { team: 'a', stage: 'prod' } });
    expect(v2.config).toEqual({ configurable: { model: 'large' } });
    expect(v2.context).toEqual({ style: 'terse' }); // not in the patch: kept

    const versions = await client.assistants.getVersions(created.assistant_id);
    expect(versions.map((v) => v.version)).toEqual([2, 1]);
    expect((await client.assistants.getVersions(created.assistant_id, { metadata: { stage: 'prod' } })).length).toBe(1);

    const thread = await client.threads.create();
    const run = (await client.runs.wait(thread.thread_id, created.assistant_id, {
      input: {},
      config: { tags: ['from-run'] },
    })) as { seen: Record<string, unknown> };
    expect(run.seen).toMatchObject({ model: 'large', context: { style: 'terse' } });

    const pinned = await client.assistants.setLatest(created.assistant_id, 1);
    expect(pinned).toMatchObject({ version: 1, config: { configurable: { model: 'small' } } });
    const again = (await client.runs.wait(null, created.assistant_id, {
      input: {},
      context: { extra: true },
      config: { tags: ['from-run'] },
    })) as { seen: Record<string, unknown> };
    expect(again.seen).toMatchObject({
      model: 'small',
      context: { style: 'terse', extra: true },
      recursion_limit: 7,
    });
    expect(again.seen.tags).toEqual(expect.arrayContaining(['from-assistant', 'from-run']));
    // A run's own configurable keys win over the assistant's.
    const own = (await client.runs.wait(null, created.assistant_id, {
      input: {},
      config: { configurable: { model: 'mine' } },
    })) as { seen: Record<string, unknown> };
    expect(own.seen.model).toBe('mine');

    await expect(client.assistants.setLatest(created.assistant_id, 9)).rejects.toSatisfy((e) => status(e) === 404);
  });

  it('searches the system assistants and the workspace’s own: filters, sort, select, paging, count', async () => {
    const mine = [];
    for (const name of ['search-b', 'search-a', 'search-c'])
      mine.push(await client.assistants.create({ graphId: 'counter', name, metadata: { search: 'yes', name } }));
    const byMetadata = await client.assistants.search({
      metadata: { search: 'yes' },
      sortBy: 'name',
      sortOrder: 'asc',
    });
    expect(byMetadata.map((a) => a.name)).toEqual(['search-a', 'search-b', 'search-c']);
    expect(await client.assistants.count({ metadata: { search: 'yes' } })).toBe(3);
    expect((await client.assistants.search({ name: 'SEARCH-A' })).map((a) => a.name)).toEqual(['search-a']);
    const counters = await client.assistants.search({ graphId: 'counter', limit: 100 });
    expect(counters.map((a) => a.name)).toEqual(expect.arrayContaining(['counter', 'search-a', 'search-b']));
    expect(await client.assistants.count({ graphId: 'counter' })).toBe(counters.length);

    const first = await client.assistants.search({
      metadata: { search: 'yes' },
      sortBy: 'name',
      sortOrder: 'desc',
      limit: 2,
      includePagination: true,
    });
    expect(first.assistants.map((a) => a.name)).toEqual(['search-c', 'search-b']);
    expect(first.next).toBe('2');
    const second = await client.assistants.search({
      metadata: { search: 'yes' },
      sortBy: 'name',
      sortOrder: 'desc',
      offset: 2,
    });
    expect(second.map((a) => a.name)).toEqual(['search-a']);
    const selected = await client.assistants.search({
      metadata: { search: 'yes' },
      select: ['assistant_id', 'name'],
      limit: 1,
    });
    expect(Object.keys(selected[0]!).sort()).toEqual(['assistant_id', 'name']);

    // The system assistants are everyone's; the workspace's own are not.
    const theirs = await other.assistants.search({ limit: 100 });
    expect(theirs.map((a) => a.name).sort()).toEqual(['agent', 'configured', 'counter']);
    expect(await other.assistants.count({ metadata: { search: 'yes' } })).toBe(0);
    await expect(other.assistants.get(mine[0]!.assistant_id)).rejects.toSatisfy((e) => status(e) === 404);
    await expect(other.assistants.update(mine[0]!.assistant_id, { name: 'taken' })).rejects.toSatisfy(
      (e) => status(e) === 404,
    );
    await expect(other.assistants.delete(mine[0]!.assistant_id)).rejects.toSatisfy((e) => status(e) === 404);
    const thread = await other.threads.create();
    await expect(other.runs.wait(thread.thread_id, mine[0]!.assistant_id, { input: {} })).rejects.toSatisfy(
      (e) => status(e) === 404,
    );
    // Another workspace may use the same id for its own.
    const same = await other.assistants.create({
      graphId: 'agent',
      assistantId: mine[0]!.assistant_id,
      name: 'theirs',
    });
    expect(same).toMatchObject({ assistant_id: mine[0]!.assistant_id, name: 'theirs' });
    expect((await client.assistants.get(mine[0]!.assistant_id)).name).toBe('search-b');
  });

  it('if_exists, unknown graphs, read-only system assistants', async () => {
    const a = await client.assistants.create({ graphId: 'agent', name: 'once' });
    await expect(client.assistants.create({ graphId: 'agent', assistantId: a.assistant_id })).rejects.toSatisfy(
      (e) => status(e) === 409,
    );
    expect(
      await client.assistants.create({ graphId: 'counter', assistantId: a.assistant_id, ifExists: 'do_nothing' }),
    ).toMatchObject({ assistant_id: a.assistant_id, graph_id: 'agent', name: 'once' });
    await expect(client.assistants.create({ graphId: 'nope' })).rejects.toThrow(
      /422.*graph_id: this server has no graph \\"nope\\"/,
    );
    await expect(client.assistants.update(a.assistant_id, { graphId: 'nope' })).rejects.toSatisfy(
      (e) => status(e) === 422,
    );
    // The graph may be named by its system assistant's id too.
    const system = (await client.assistants.search({ graphId: 'counter', metadata: { created_by: 'system' } }))[0]!;
    expect((await client.assistants.create({ graphId: system.assistant_id })).graph_id).toBe('counter');

    await expect(client.assistants.update(system.assistant_id, { name: 'x' })).rejects.toThrow(/system assistant/);
    await expect(client.assistants.delete('counter')).rejects.toSatisfy((e) => status(e) === 409);
    await expect(client.assistants.setLatest('counter', 1)).rejects.toSatisfy((e) => status(e) === 409);
    expect((await client.assistants.getVersions('counter')).map((v) => v.version)).toEqual([1]);
    expect(await client.assistants.get('counter')).toMatchObject({ metadata: { created_by: 'system' } });
  });

  it('deletes an assistant, and with deleteThreads the threads it ran on', async () => {
    const keep = await client.assistants.create({ graphId: 'counter', name: 'keeps threads' });
    const drop = await client.assistants.create({ graphId: 'counter', name: 'drops threads' });
    const kept = await client.threads.create();
    const dropped = await client.threads.create();
    await client.runs.wait(kept.thread_id, keep.assistant_id, { input: {} });
    await client.runs.wait(dropped.thread_id, drop.assistant_id, { input: {} });

    await client.assistants.delete(keep.assistant_id);
    await expect(client.assistants.get(keep.assistant_id)).rejects.toSatisfy((e) => status(e) === 404);
    expect((await client.threads.get(kept.thread_id)).thread_id).toBe(kept.thread_id);

    await client.assistants.delete(drop.assistant_id, { deleteThreads: true });
    await expect(client.threads.get(dropped.thread_id)).rejects.toSatisfy((e) => status(e) === 404);
    expect((await client.threads.get(kept.thread_id)).thread_id).toBe(kept.thread_id);
    await expect(client.assistants.delete(drop.assistant_id)).rejects.toSatisfy((e) => status(e) === 404);
  });

  it('generative UI is not served: a 404 saying so', async () => {
    const res = await fetch(`${on.server.url}/ui/agent`, {
      method: 'POST',
      headers: { 'x-api-key': keys.a, accept: 'text/html', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'agent' }),
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/generative UI components .* are not supported/);
    await expect(client['~ui'].getComponent('agent', 'agent')).rejects.toThrow(/404.*not supported/);
  });

  it('describes an assistant’s graph: drawable (with xray), subgraphs', async () => {
    const a = await client.assistants.create({ graphId: 'configured' });
    const flat = (await client.assistants.getGraph(a.assistant_id)) as { nodes: { id: string }[] };
    expect(flat.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(['read', 'inner']));
    const xray = (await client.assistants.getGraph(a.assistant_id, { xray: true })) as { nodes: { id: string }[] };
    expect(xray.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(['inner:write', 'inner:sign']));

    const subgraphs = await client.assistants.getSubgraphs(a.assistant_id);
    expect(Object.keys(subgraphs)).toEqual(['inner']);
    expect(Object.keys((subgraphs.inner as any).state_schema.properties)).toEqual(['note']);
    expect(Object.keys(await client.assistants.getSubgraphs('configured', { namespace: 'inner' }))).toEqual(['inner']);
    expect(await client.assistants.getSubgraphs('counter')).toEqual({});
    expect((await client.assistants.getSchemas(a.assistant_id)).graph_id).toBe('configured');
  });
});
