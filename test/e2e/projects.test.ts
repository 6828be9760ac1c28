// Projects through the official clients, unchanged: the `langsmith` npm client (createProject,
// readProject by id and by name, listProjects, hasProject, updateProject, deleteProject,
// getProjectUrl) and the Python client (test/e2e/python/projects.py), which validates every
// answer against its own models.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, test } from 'vitest';
import { Client } from 'langsmith';
import { createWorkspaces, tracingUrl, type Workspace } from '../support/tracingClient.ts';
import { ensurePythonEnv, type PythonEnv } from '../support/pythonEnv.ts';
import { runPythonScript } from '../support/pythonScript.ts';
import { collect } from '../support/asyncItems.ts';

let pyenv: PythonEnv;
let jsWorkspace: Workspace;
let pyWorkspace: Workspace;
beforeAll(async () => {
  [pyenv, [jsWorkspace, pyWorkspace]] = await Promise.all([
    ensurePythonEnv(),
    createWorkspaces(2) as Promise<[Workspace, Workspace]>,
  ]);
}, 20 * 60_000);

describe('langsmith (npm)', () => {
  test('create, read by id and name, list, has, update, delete', async () => {
    const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: jsWorkspace.apiKey });
    const prefix = `js-${randomUUID().slice(0, 8)}`;
    const name = `${prefix}-main`;
    const created = await client.createProject({
      projectName: name,
      description: 'from js',
      metadata: { suite: 'js' },
    });
    expect(created).toMatchObject({
      name,
      description: 'from js',
      extra: { metadata: { suite: 'js' } },
      tenant_id: jsWorkspace.id,
      reference_dataset_id: null,
      end_time: null,
    });
    await expect(client.createProject({ projectName: name })).rejects.toThrow(/409/);
    // The JS client always sends extra ({} without metadata), and an upsert sets what it is given.
    const upserted = await client.createProject({
      projectName: name,
      upsert: true,
      description: 'upserted',
      metadata: { suite: 'js' },
    });
    expect(upserted).toMatchObject({ id: created.id, description: 'upserted' });
    const dataset = randomUUID();
    const experiment = await client.createProject({ projectName: `${prefix}-experiment`, referenceDatasetId: dataset });
    expect(experiment.reference_dataset_id).toBe(dataset);

    expect(await client.readProject({ projectId: created.id })).toMatchObject({
      id: created.id,
      name,
      description: 'upserted',
    });
    expect(await client.readProject({ projectName: name, includeStats: true })).toMatchObject({
      id: created.id,
      run_count: 0,
      total_tokens: 0,
    });
    await expect(client.readProject({ projectName: `${prefix}-missing` })).rejects.toThrow(/not found/);
    expect(await client.hasProject({ projectName: name })).toBe(true);
    expect(await client.hasProject({ projectId: created.id })).toBe(true);
    expect(await client.hasProject({ projectName: `${prefix}-missing` })).toBe(false);

    expect((await collect(client.listProjects({ nameContains: prefix }))).map((p) => p.name).sort()).toEqual([
      `${prefix}-experiment`,
      name,
    ]);
    expect((await collect(client.listProjects({ name }))).map((p) => p.id)).toEqual([created.id]);
    expect((await collect(client.listProjects({ projectIds: [experiment.id] }))).map((p) => p.name)).toEqual([
      `${prefix}-experiment`,
    ]);
    expect((await collect(client.listProjects({ referenceDatasetId: dataset }))).map((p) => p.id)).toEqual([
      experiment.id,
    ]);
    expect(
      (await collect(client.listProjects({ nameContains: prefix, referenceFree: true }))).map((p) => p.id),
    ).toEqual([created.id]);
    expect((await collect(client.listProjects({ metadata: { suite: 'js' } }))).map((p) => p.id)).toEqual([created.id]);
    // The project URL needs the tenant, which the client reads from GET /sessions?limit=1.
    expect(await client.getProjectUrl({ projectId: created.id })).toContain(
      `/o/${jsWorkspace.id}/projects/p/${created.id}`,
    );

    const updated = await client.updateProject(created.id, {
      description: 'updated',
      metadata: { suite: 'js', step: 2 },
      endTime: '2030-01-01T00:00:00Z',
    });
    expect(updated).toMatchObject({
      id: created.id,
      name,
      description: 'updated',
      extra: { metadata: { suite: 'js', step: 2 } },
      end_time: '2030-01-01T00:00:00.000000Z',
    });

    await client.deleteProject({ projectName: name });
    expect(await client.hasProject({ projectName: name })).toBe(false);
    await expect(client.readProject({ projectId: created.id })).rejects.toThrow(/404/);
    expect((await collect(client.listProjects({ nameContains: prefix }))).map((p) => p.name)).toEqual([
      `${prefix}-experiment`,
    ]);
    // The name is free again.
    const again = await client.createProject({ projectName: name });
    expect(again.id).not.toBe(created.id);
  });
});

interface PyProject {
  type: string;
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
  reference_dataset_id: string | null;
  start_time: string;
  end_time: string | null;
}

interface PyResult {
  created: PyProject;
  duplicate: string;
  upserted: PyProject;
  experiment: PyProject;
  by_id: PyProject;
  by_name: PyProject & {
    run_count: number;
    latency_p50: number | null;
    total_tokens: number;
    error_rate: number | null;
  };
  listed: string[];
  listed_by_id: string[];
  listed_reference_free: string[];
  listed_by_dataset: string[];
  listed_by_metadata: string[];
  has_before: boolean;
  has_missing: boolean;
  updated: PyProject;
  has_after: boolean;
  read_after: string;
  requests: Array<{ method: string; path: string; status: number; detail?: string }>;
  log: Array<{ logger: string; level: string; message: string }>;
}

describe('langsmith (PyPI)', () => {
  test('create_project, read_project, list_projects, has_project, update_project, delete_project', async () => {
    const prefix = `py-${randomUUID().slice(0, 8)}`;
    const dataset = randomUUID();
    const env = { LANGSMITH_ENDPOINT: `${tracingUrl()}/api/v1`, LANGSMITH_API_KEY: pyWorkspace.apiKey };
    const { result: r, stderr } = await runPythonScript<PyResult>(pyenv, 'projects.py', [prefix, dataset], env);
    const name = `${prefix}-main`;

    expect(r.created).toMatchObject({
      type: 'TracerSession',
      name,
      description: 'from python',
      metadata: { suite: 'py' },
      tenant_id: pyWorkspace.id,
      reference_dataset_id: null,
      end_time: null,
    });
    expect(r.duplicate).toBe('LangSmithConflictError');
    expect(r.upserted).toMatchObject({ id: r.created.id, description: 'upserted' });
    expect(r.experiment).toMatchObject({ name: `${prefix}-experiment`, reference_dataset_id: dataset });
    expect(r.by_id).toMatchObject({
      type: 'TracerSessionResult',
      id: r.created.id,
      name,
      start_time: r.created.start_time,
    });
    expect(r.by_name).toMatchObject({
      type: 'TracerSessionResult',
      id: r.created.id,
      run_count: 0,
      latency_p50: null,
      total_tokens: 0,
      error_rate: null,
    });
    expect(r.listed.sort()).toEqual([`${prefix}-experiment`, name]);
    expect(r.listed_by_id.sort()).toEqual([`${prefix}-experiment`, name]);
    expect(r.listed_reference_free).toEqual([name]);
    expect(r.listed_by_dataset).toEqual([`${prefix}-experiment`]);
    expect(r.listed_by_metadata).toEqual([name]);
    expect([r.has_before, r.has_missing]).toEqual([true, false]);
    expect(r.updated).toMatchObject({ id: r.created.id, description: 'updated', metadata: { suite: 'py', step: 2 } });
    expect(r.has_after).toBe(false);
    expect(r.read_after).toBe('LangSmithNotFoundError');

    // Every non-2xx answer was one the script asked for: the duplicate and the reads after the delete.
    const failed = r.requests
      .filter((q) => q.status >= 300)
      .map((q) => `${q.method} ${q.path.replace(/[0-9a-f-]{36}$/, ':id')} ${q.status}`);
    expect(failed, stderr).toEqual(['POST /api/v1/sessions 409', 'GET /api/v1/sessions/:id 404']);
  }, 240_000);
});
