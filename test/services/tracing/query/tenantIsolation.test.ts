// Tenant isolation of every route, against the shared stack: two workspaces, each with projects,
// traces, a thread named alike in both, feedback, and one run id that both use. Every read route
// is asked, by each workspace, for the other's ids — at / and under /api/v1 — and must answer 404
// (or, where the route is a search by filter, an empty result), while the owner gets its data.
// Writes that name the other's ids (a patch of its run, a child of its run, feedback on it or
// with its feedback's id, a project with its project's id) must leave its data alone. The
// routes come from the OpenAPI document of the running API: a route that no case here covers
// fails the first test, so a new route cannot slip through untested.
import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { api, createWorkspaces, tracingUrl, waitForRun, type Workspace } from '../../../support/tracingClient.ts';
import { multipartBody, type Part } from '../../../support/runFactory.ts';
import { createBucket, destinationBody, waitForExportRuns } from '../../../support/bulkExportClient.ts';
import { formatDottedTimestamp } from '../../../../platform/time.ts';
import { DOCS_OPERATIONS } from '../../../support/docsOperations.ts';

type Res = Awaited<ReturnType<typeof api>>;

// ---- the data of one workspace ----

interface TraceIds {
  root: string;
  llm: string;
  tool: string;
}

interface Fixture {
  label: string;
  ws: Workspace;
  /** The main project: trace `t` (thread SHARED_THREAD) and trace `u` (a thread of its own). */
  project: { id: string; name: string };
  t: TraceIds;
  /** Root of the second trace; B's has the same id as A's. */
  u: string;
  ownThread: string;
  /** A second project with one trace, whose id the other workspace tries to take (write cases). */
  second: { id: string; name: string; root: string };
  /** Projects only the delete probes use, one per prefix (the owner deletes them). */
  deletable: Record<string, string>;
  /** The root of the one trace in deletable[''] */
  deletableRoot: string;
  /** The runs of trace u but its root. */
  uChildren: string[];
  feedbackKey: string;
  /** A project with a reference dataset: an experiment (what GET /sessions/resolutions resolves). */
  experiment: string;
  /** The feedback on t's root and on its llm run (multipart). */
  feedback: { root: string; llm: string };
  /** Feedback items on `u` that only the delete probes use, one per prefix (the owner deletes them; POST /feedback). */
  deletableFeedback: Record<string, string>;
  /** A bulk-export destination, a one-time export of the main project into it, and the export's (first) run. */
  destination: string;
  bulkExport: string;
  exportRun: string;
  /** A dataset, and datasets only the delete probes use, one per prefix. */
  dataset: { id: string; name: string };
  deletableDatasets: Record<string, string>;
  /** An annotation queue holding t's root (its item `queueItem`), and queues only the delete probes use, one per prefix. */
  queue: string;
  queueItem: string;
  deletableQueues: Record<string, string>;
  /** A prompt (named after the workspace) with one commit tagged `iso`, and prompts only the delete probes use, one per prefix. */
  prompt: { name: string; commitId: string; hash: string };
  deletablePrompts: Record<string, string>;
  /** Two experiments (projects) of `dataset`. */
  datasetExperiments: string[];
  /** An example of `dataset` (inputs {owner: label}); its first version is tagged `iso`. */
  example: string;
  /** Examples of `dataset` only the delete probes use: per prefix, one per delete route. */
  deletableExamples: Record<string, { one: string; many: string; platform: string }>;
  /** A feedback key with a config, and configs (of keys of their own) only the delete probes use, one per prefix. */
  configKey: string;
  config: string;
  deletableConfigs: Record<string, string>;
}

const RUN = randomUUID().slice(0, 8);
/** A prompt's manifest: a ChatPromptTemplate as the clients serialize one. */
const PROMPT_MANIFEST = {
  lc: 1,
  type: 'constructor',
  id: ['langchain_core', 'prompts', 'chat', 'ChatPromptTemplate'],
  kwargs: { input_variables: ['q'], messages: [] },
};
const SHARED_THREAD = `iso-shared-${RUN}`;
const PREFIXES = ['', '/api/v1'];

let t0 = Date.now() * 1000;
/** Start times a millisecond apart, so every run has its own. */
const nextMicros = () => (t0 += 1000);
const iso = (micros: number) => new Date(micros / 1000).toISOString();

interface RunSpec {
  id: string;
  parent?: { id: string; dotted_order: string };
  trace_id?: string;
  name: string;
  run_type: string;
  session_name?: string;
  metadata?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  error?: string;
  tags?: string[];
}

type RunBody = Record<string, unknown> & { id: string; trace_id: string; dotted_order: string };

function runBody(s: RunSpec): RunBody {
  const start = nextMicros();
  const segment = formatDottedTimestamp(start) + s.id;
  return {
    id: s.id,
    trace_id: s.trace_id ?? s.id,
    parent_run_id: s.parent?.id ?? null,
    dotted_order: s.parent ? `${s.parent.dotted_order}.${segment}` : segment,
    name: s.name,
    run_type: s.run_type,
    start_time: iso(start),
    end_time: iso(start + 500),
    inputs: { asked: s.name },
    outputs: s.outputs ?? { answered: s.name },
    extra: { metadata: s.metadata ?? {} },
    error: s.error ?? null,
    tags: s.tags ?? [],
    ...(s.session_name ? { session_name: s.session_name } : {}),
  };
}

/** A root and an LLM child with usage and a failing tool child. */
function traceBodies(rootId: string, project: string, metadata: Record<string, unknown>, tags: string[]): RunBody[] {
  const root = runBody({ id: rootId, name: 'root', run_type: 'chain', session_name: project, metadata, tags });
  const child = (name: string, run_type: string, extra: Partial<RunSpec>) =>
    runBody({
      id: uuidv7(),
      parent: { id: root.id, dotted_order: root.dotted_order },
      trace_id: root.id,
      name,
      run_type,
      session_name: project,
      ...extra,
    });
  return [
    root,
    child('llm', 'llm', {
      outputs: { text: 'hi', usage_metadata: { input_tokens: 7, output_tokens: 3, total_tokens: 10 } },
    }),
    child('tool', 'tool', { error: 'the tool failed' }),
  ];
}

const feedbackPart = (f: Record<string, unknown>, id = uuidv7()): Part => ({
  name: `feedback.${id}`,
  body: JSON.stringify(f),
});
const runParts = (runs: RunBody[], op: 'post' | 'patch' = 'post'): Part[] =>
  runs.map((r) => ({ name: `${op}.${r.id}`, body: JSON.stringify(r) }));

async function multipart(ws: Workspace, parts: Part[]): Promise<Res> {
  const { body, contentType } = multipartBody(parts);
  return api('/runs/multipart', { method: 'POST', apiKey: ws.apiKey, body, headers: { 'content-type': contentType } });
}

async function createProject(ws: Workspace, body: Record<string, unknown>): Promise<Res> {
  return api('/sessions', { method: 'POST', apiKey: ws.apiKey, json: body });
}

async function buildFixture(ws: Workspace, label: string, sameUAs?: string): Promise<Fixture> {
  const newProject = async (suffix: string) => {
    const res = await createProject(ws, { name: `iso-${RUN}-${label}-${suffix}` });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { id: res.body.id as string, name: res.body.name as string };
  };
  const [project, second, del0, del1] = await Promise.all([
    newProject('main'),
    newProject('second'),
    newProject('del0'),
    newProject('del1'),
  ]);
  const experiment = await createProject(ws, {
    name: `iso-${RUN}-${label}-experiment`,
    reference_dataset_id: randomUUID(),
  });
  expect(experiment.status, JSON.stringify(experiment.body)).toBe(200);
  const ownThread = `iso-${RUN}-${label}-own`;
  const feedbackKey = `quality-${label}`;
  const t = traceBodies(uuidv7(), project.name, { thread_id: SHARED_THREAD, workspace: label }, [label]);
  const u = traceBodies(sameUAs ?? uuidv7(), project.name, { session_id: ownThread }, [label]);
  const s = traceBodies(uuidv7(), second.name, { thread_id: `iso-${RUN}-${label}-second` }, [label]);
  const d = traceBodies(uuidv7(), `iso-${RUN}-${label}-del0`, {}, [label]);
  const feedback = { root: uuidv7(), llm: uuidv7() };
  const res = await multipart(ws, [
    ...runParts([...t, ...u, ...s, ...d]),
    feedbackPart({ run_id: t[0]!.id, trace_id: t[0]!.id, key: feedbackKey, score: 1 }, feedback.root),
    feedbackPart({ run_id: t[1]!.id, trace_id: t[0]!.id, key: feedbackKey, score: 0.5 }, feedback.llm),
    { name: `attachment.${t[2]!.id}.notes`, body: `notes of ${label}`, contentType: 'text/plain' },
    { name: `attachment.${u[0]!.id}.notes`, body: `u notes of ${label}`, contentType: 'text/plain' },
  ]);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const deletableFeedback: Record<string, string> = {};
  for (const prefix of PREFIXES) {
    const posted = await api(`${prefix}/feedback`, {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { run_id: u[0]!.id, key: `${feedbackKey}-deletable`, score: 1 },
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    deletableFeedback[prefix] = posted.body.id;
  }
  await Promise.all(
    [...t, ...u, ...s, ...d].map((r) =>
      waitForRun(ws.apiKey, r.id, (run) => run.status !== 'pending' && run.session_id !== null),
    ),
  );
  const { destination, bulkExport, exportRun } = await buildBulkExport(ws, label, project.id);
  const newDataset = async (suffix: string) => {
    const res = await api('/datasets', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { name: `iso-${RUN}-${label}-${suffix}` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { id: res.body.id as string, name: res.body.name as string };
  };
  const newConfig = async (key: string) => {
    const res = await api('/feedback-configs', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { feedback_key: key, feedback_config: { type: 'continuous', min: 0, max: 1 } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id as string;
  };
  const [dataset, delDataset0, delDataset1] = await Promise.all([
    newDataset('dataset'),
    newDataset('dataset-del0'),
    newDataset('dataset-del1'),
  ]);
  const examples = await api('/examples/bulk', {
    method: 'POST',
    apiKey: ws.apiKey,
    json: Array.from({ length: 7 }, (_, i) => ({ dataset_id: dataset.id, inputs: { owner: label, n: i } })),
  });
  expect(examples.status, JSON.stringify(examples.body)).toBe(200);
  const exampleIds = (examples.body as Array<{ id: string; inputs: { n: number } }>)
    .sort((x, y) => x.inputs.n - y.inputs.n)
    .map((e) => e.id);
  const tagged = await api(`/datasets/${dataset.id}/tags`, {
    method: 'PUT',
    apiKey: ws.apiKey,
    json: { as_of: examples.body[0].modified_at, tag: 'iso' },
  });
  expect(tagged.status, JSON.stringify(tagged.body)).toBe(200);
  const newQueue = async (suffix: string) => {
    const res = await api('/annotation-queues', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { name: `iso-${RUN}-${label}-${suffix}`, rubric_items: [{ feedback_key: feedbackKey }] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id as string;
  };
  const [queue, delQueue0, delQueue1] = await Promise.all([
    newQueue('queue'),
    newQueue('queue-del0'),
    newQueue('queue-del1'),
  ]);
  const queued = await api(`/annotation-queues/${queue}/runs`, { method: 'POST', apiKey: ws.apiKey, json: [t[0]!.id] });
  expect(queued.status, JSON.stringify(queued.body)).toBe(200);
  const newPrompt = async (suffix: string) => {
    const name = `iso-${RUN}-${label.toLowerCase()}-${suffix}`;
    const res = await api('/repos/', { method: 'POST', apiKey: ws.apiKey, json: { repo_handle: name } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return name;
  };
  const [promptName, delPrompt0, delPrompt1] = await Promise.all([
    newPrompt('prompt'),
    newPrompt('prompt-del0'),
    newPrompt('prompt-del1'),
  ]);
  const committed = await api(`/commits/-/${promptName}`, {
    method: 'POST',
    apiKey: ws.apiKey,
    json: { manifest: PROMPT_MANIFEST },
  });
  expect(committed.status, JSON.stringify(committed.body)).toBe(200);
  const promptTagged = await api(`/repos/-/${promptName}/tags`, {
    method: 'POST',
    apiKey: ws.apiKey,
    json: { tag_name: 'iso', commit_id: committed.body.commit.id },
  });
  expect(promptTagged.status, JSON.stringify(promptTagged.body)).toBe(200);
  const datasetExperiments: string[] = [];
  for (const n of [1, 2]) {
    const res = await api('/sessions', {
      method: 'POST',
      apiKey: ws.apiKey,
      json: { name: `iso-${RUN}-${label}-experiment-${n}`, reference_dataset_id: dataset.id },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    datasetExperiments.push(res.body.id);
  }
  const configKey = `iso-${RUN}-${label}-config`;
  const [config, delConfig0, delConfig1] = await Promise.all([
    newConfig(configKey),
    newConfig(`${configKey}-del0`),
    newConfig(`${configKey}-del1`),
  ]);
  return {
    dataset,
    deletableDatasets: { '': delDataset0.id, '/api/v1': delDataset1.id },
    example: exampleIds[0]!,
    datasetExperiments,
    queue,
    queueItem: queued.body[0].id as string,
    deletableQueues: { '': delQueue0, '/api/v1': delQueue1 },
    prompt: { name: promptName, commitId: committed.body.commit.id, hash: committed.body.commit.commit_hash },
    deletablePrompts: { '': delPrompt0, '/api/v1': delPrompt1 },
    deletableExamples: {
      '': { one: exampleIds[1]!, many: exampleIds[2]!, platform: exampleIds[3]! },
      '/api/v1': { one: exampleIds[4]!, many: exampleIds[5]!, platform: exampleIds[6]! },
    },
    configKey,
    config,
    deletableConfigs: { '': delConfig0, '/api/v1': delConfig1 },
    destination,
    bulkExport,
    exportRun,
    experiment: experiment.body.id as string,
    label,
    ws,
    project,
    second: { ...second, root: s[0]!.id },
    ownThread,
    feedbackKey,
    feedback,
    deletableFeedback,
    t: { root: t[0]!.id, llm: t[1]!.id, tool: t[2]!.id },
    u: u[0]!.id,
    deletable: { '': del0.id, '/api/v1': del1.id },
    deletableRoot: d[0]!.id,
    uChildren: [u[1]!.id, u[2]!.id],
  };
}

/** A bucket of the workspace's own in the stack's MinIO, a destination for it, and an export that has run. */
async function buildBulkExport(
  ws: Workspace,
  label: string,
  projectId: string,
): Promise<{ destination: string; bulkExport: string; exportRun: string }> {
  const bucket = `iso-${RUN}-${label}`.toLowerCase();
  await createBucket(bucket);
  const dest = await api('/bulk-exports/destinations', {
    method: 'POST',
    apiKey: ws.apiKey,
    json: destinationBody(bucket),
  });
  expect(dest.status, JSON.stringify(dest.body)).toBe(200);
  const exp = await api('/bulk-exports', {
    method: 'POST',
    apiKey: ws.apiKey,
    json: {
      bulk_export_destination_id: dest.body.id,
      session_id: projectId,
      start_time: new Date(Date.now() - 3600_000).toISOString(),
      end_time: new Date().toISOString(),
    },
  });
  expect(exp.status, JSON.stringify(exp.body)).toBe(200);
  const runs = await waitForExportRuns(
    ws.apiKey,
    exp.body.id,
    (list) => list.length > 0 && list.every((r) => r.status === 'Completed'),
  );
  return { destination: dest.body.id, bulkExport: exp.body.id, exportRun: runs.at(-1)!.id }; // the latest day holds the fixture's runs
}

// ---- requests and what each side must get ----

const send = (as: Fixture, method: string, path: string, json?: unknown): Promise<Res> =>
  api(path, { method, apiKey: as.ws.apiKey, ...(json === undefined ? {} : { json }) });

const show = (what: string, res: Res) => `${what} -> ${res.status} ${JSON.stringify(res.body).slice(0, 600)}`;

function expectStatus(res: Res, status: number, what: string): void {
  expect(res.status, show(what, res)).toBe(status);
}

const idsOf = (items: Array<Record<string, unknown>>, key = 'id'): string[] => items.map((i) => String(i[key])).sort();
const runIdsOf = (res: Res) => idsOf(res.body.runs ?? []);
const itemIdsOf = (res: Res, key = 'id') => idsOf(res.body.items ?? [], key);
const allRunsOf = (f: Fixture) => [f.t.root, f.t.llm, f.t.tool].sort();

interface Probe {
  label: string;
  /** The request: `as` calls, naming the ids of `of`, under `prefix` (v1 routes only). */
  request(as: Fixture, of: Fixture, prefix: string): { method: string; path: string; json?: unknown };
  /** What the owner gets. */
  owner(res: Res, of: Fixture, what: string, prefix: string): void | Promise<void>;
  /** What the other workspace gets (404 when absent); may check afterwards that the owner's data is intact. Runs before the owner's call. */
  other?(res: Res, as: Fixture, of: Fixture, what: string, prefix: string): void | Promise<void>;
}

const notFound = (res: Res, _as: Fixture, _of: Fixture, what: string) => expectStatus(res, 404, what);
const noRuns = (res: Res, _as: Fixture, _of: Fixture, what: string) => {
  expectStatus(res, 200, what);
  expect(res.body.runs, show(what, res)).toEqual([]);
};
const noItems = (res: Res, _as: Fixture, _of: Fixture, what: string) => {
  expectStatus(res, 200, what);
  expect(res.body.items, show(what, res)).toEqual([]);
};
const runsAre = (pick: (f: Fixture) => string[]) => (res: Res, of: Fixture, what: string) => {
  expectStatus(res, 200, what);
  expect(runIdsOf(res), show(what, res)).toEqual([...pick(of)].sort());
};
/** Searches over the caller's own data where both workspaces have matching data: each sees its own. */
const ownRunsOnly = (pick: (f: Fixture) => string[]) => (res: Res, as: Fixture, _of: Fixture, what: string) =>
  runsAre(pick)(res, as, what);

const v1Query =
  (body: (as: Fixture, of: Fixture) => Record<string, unknown>) => (as: Fixture, of: Fixture, prefix: string) => ({
    method: 'POST',
    path: `${prefix}/runs/query`,
    json: { select: ['id', 'name', 'feedback_stats'], ...body(as, of) },
  });

/** The platform routes' base: /v1/platform at /, /api/v1/platform under /api/v1 (where the clients put it). */
const platformOf = (prefix: string) => (prefix === '' ? '/v1/platform' : `${prefix}/platform`);

/** The other's write was a 404, and the owner's example carries nothing of it. */
async function expectExampleUntouched(res: Res, as: Fixture, of: Fixture, what: string): Promise<void> {
  expectStatus(res, 404, what);
  const read = await send(of, 'GET', `/examples/${of.example}`);
  expectStatus(read, 200, `${what}; then the owner reads it`);
  expect(JSON.stringify(read.body), show(`${what}; then the owner reads it`, read)).not.toContain(`by-${as.label}`);
  expect(read.body.metadata?.by, show(`${what}; then the owner reads it`, read)).not.toBe(as.label);
}

/** The other's creation was a 404, and the owner's dataset holds no example of it. */
async function expectNoExampleBy(res: Res, as: Fixture, of: Fixture, what: string): Promise<void> {
  expectStatus(res, 404, what);
  const list = await send(of, 'GET', `/examples?dataset=${of.dataset.id}`);
  expectStatus(list, 200, `${what}; then the owner lists its examples`);
  expect(
    list.body.filter((e: { inputs: { by?: string } }) => e.inputs.by === as.label),
    show(`${what}; then the owner lists its examples`, list),
  ).toEqual([]);
}

/** A delete probe of the owner's deletable example `which`: gone after the owner's, there after the other's. */
function deletedExample(which: 'one' | 'many' | 'platform'): Pick<Probe, 'owner' | 'other'> {
  return {
    owner: async (res, of, what, prefix) => {
      expectStatus(res, 200, what);
      const read = await send(of, 'GET', `/examples/${of.deletableExamples[prefix]![which]}`);
      expectStatus(read, 404, `${what}; then the owner reads it`);
    },
    other: async (res, _as, of, what, prefix) => {
      expectStatus(res, 404, what);
      const read = await send(of, 'GET', `/examples/${of.deletableExamples[prefix]![which]}`);
      expectStatus(read, 200, `${what}; then the owner reads it`);
    },
  };
}

const CASES: Record<string, Probe[]> = {
  'GET /runs/{run_id}': [
    {
      label: 'a run of the other workspace',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/runs/${of.t.llm}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, what).toMatchObject({
          id: of.t.llm,
          trace_id: of.t.root,
          session_id: of.project.id,
          total_tokens: 10,
        });
      },
    },
    {
      label: 'a run id both workspaces use: each reads its own',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/runs/${of.u}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, what).toMatchObject({ id: of.u, session_id: of.project.id, tags: [of.label] });
      },
      other: (res, as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, what).toMatchObject({ id: as.u, session_id: as.project.id, tags: [as.label] });
      },
    },
  ],
  'GET /runs/{run_id}/attachments/{name}': [
    {
      label: "an attachment of the other workspace's run",
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/runs/${of.t.tool}/attachments/notes` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, what).toBe(`notes of ${of.label}`);
      },
    },
    {
      label: 'a run id both workspaces use: each downloads its own',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/runs/${of.u}/attachments/notes` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, what).toBe(`u notes of ${of.label}`);
      },
      other: (res, as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, what).toBe(`u notes of ${as.label}`);
      },
    },
  ],
  'POST /runs/query': [
    {
      label: 'session: the other project',
      request: v1Query((_as, of) => ({ session: [of.project.id] })),
      owner: runsAre((f) => [...allRunsOf(f), f.u, ...f.uChildren]),
      other: notFound,
    },
    { label: 'trace', request: v1Query((_as, of) => ({ trace: of.t.root })), owner: runsAre(allRunsOf), other: noRuns },
    {
      label: 'id',
      request: v1Query((_as, of) => ({ id: [of.t.root, of.t.llm] })),
      owner: runsAre((f) => [f.t.root, f.t.llm]),
      other: noRuns,
    },
    {
      label: 'parent_run',
      request: v1Query((_as, of) => ({ parent_run: of.t.root })),
      owner: runsAre((f) => [f.t.llm, f.t.tool]),
      other: noRuns,
    },
    {
      label: 'filter eq(id)',
      request: v1Query((_as, of) => ({ filter: `eq(id, "${of.t.tool}")` })),
      owner: runsAre((f) => [f.t.tool]),
      other: noRuns,
    },
    {
      label: 'filter eq(trace_id)',
      request: v1Query((_as, of) => ({ filter: `eq(trace_id, "${of.t.root}")` })),
      owner: runsAre(allRunsOf),
      other: noRuns,
    },
    {
      label: 'filter eq(session_id)',
      request: v1Query((_as, of) => ({ filter: `eq(session_id, "${of.project.id}")`, is_root: true })),
      owner: runsAre((f) => [f.t.root, f.u]),
      other: noRuns,
    },
    {
      label: 'filter eq(parent_run_id)',
      request: v1Query((_as, of) => ({ filter: `eq(parent_run_id, "${of.t.root}")` })),
      owner: runsAre((f) => [f.t.llm, f.t.tool]),
      other: noRuns,
    },
    {
      label: 'filter on the feedback key the owner gave',
      request: v1Query((_as, of) => ({ filter: `eq(feedback_key, "${of.feedbackKey}")` })),
      owner: runsAre((f) => [f.t.root, f.t.llm]),
      other: noRuns,
    },
    {
      label: 'trace_filter and tree_filter naming the other run',
      request: v1Query((_as, of) => ({
        trace_filter: `eq(id, "${of.t.root}")`,
        tree_filter: `eq(id, "${of.t.tool}")`,
      })),
      owner: runsAre(allRunsOf),
      other: noRuns,
    },
    {
      label: 'a thread name both workspaces use: each sees its own',
      request: v1Query(() => ({ filter: `eq(thread_id, "${SHARED_THREAD}")` })),
      owner: runsAre((f) => [f.t.root]),
      other: ownRunsOnly((f) => [f.t.root]),
    },
    {
      label: 'the other workspace’s own thread',
      request: v1Query((_as, of) => ({ filter: `eq(thread_id, "${of.ownThread}")` })),
      owner: runsAre((f) => [f.u]),
      other: noRuns,
    },
    {
      label: 'no project: only the caller’s runs, feedback_stats only from the caller’s feedback',
      request: v1Query(() => ({ is_root: true })),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        const roots = res.body.runs as Array<{ id: string; feedback_stats: Record<string, unknown> | null }>;
        expectOwnRoots(roots, of, what, res);
        const root = roots.find((r) => r.id === of.t.root)!;
        expect(Object.keys(root.feedback_stats ?? {}), show(what, res)).toEqual([of.feedbackKey]);
      },
      other: (res, as, _of, what) => {
        expectStatus(res, 200, what);
        expectOwnRoots(res.body.runs, as, what, res);
      },
    },
  ],
  'GET /sessions/resolutions': [
    {
      label: 'the other workspace’s experiment',
      request: (_as, of, prefix) => ({
        method: 'GET',
        path: `${prefix}/sessions/resolutions?kind=EXPERIMENT&id=${of.experiment}`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual({ session_id: of.experiment });
      },
    },
  ],
  'GET /sessions/{session_id}': [
    {
      label: 'the other project',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/sessions/${of.project.id}?include_stats=true` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, what).toMatchObject({
          id: of.project.id,
          name: of.project.name,
          tenant_id: of.ws.id,
          run_count: 2,
          total_tokens: 20,
        }); // run_count: traces
      },
    },
  ],
  'GET /workspaces': [
    {
      label: "the key's own workspaces only",
      request: (_as, _of, prefix) => ({ method: 'GET', path: `${prefix}/workspaces` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual([of.ws.id]);
      },
      other: (res, as, _of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual([as.ws.id]);
      },
    },
  ],
  'GET /workspaces/current': [
    {
      label: 'the workspace a key acts in: each key its own',
      request: (_as, _of, prefix) => ({ method: 'GET', path: `${prefix}/workspaces/current` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.id, show(what, res)).toBe(of.ws.id);
      },
      other: (res, as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.id, show(what, res)).toBe(as.ws.id);
      },
    },
  ],
  'GET /sessions': [
    {
      label: 'by the other project’s name',
      request: (_as, of, prefix) => ({
        method: 'GET',
        path: `${prefix}/sessions?name=${encodeURIComponent(of.project.name)}&include_stats=true`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual([of.project.id]);
      },
      other: (res, _as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual([]);
      },
    },
    {
      label: 'by the other project’s id, and by part of its name',
      request: (_as, of, prefix) => ({
        method: 'GET',
        path: `${prefix}/sessions?id=${of.project.id}&name_contains=${encodeURIComponent(`${RUN}-${of.label}-main`)}`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual([of.project.id]);
      },
      other: (res, _as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual([]);
      },
    },
    {
      label: 'everything: only the caller’s projects',
      request: (_as, _of, prefix) => ({
        method: 'GET',
        path: `${prefix}/sessions?name_contains=${encodeURIComponent(`iso-${RUN}-`)}`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(
          res.body.every((p: { tenant_id: string }) => p.tenant_id === of.ws.id),
          show(what, res),
        ).toBe(true);
        expect(idsOf(res.body), show(what, res)).toEqual(expect.arrayContaining([of.project.id, of.second.id]));
      },
      other: (res, as, of, what) => {
        expectStatus(res, 200, what);
        expect(
          res.body.every((p: { tenant_id: string }) => p.tenant_id === as.ws.id),
          show(what, res),
        ).toBe(true);
        expect(idsOf(res.body), show(what, res)).not.toContain(of.project.id);
      },
    },
  ],
  'PATCH /sessions/{session_id}': [
    {
      label: 'the other project (owner patches after; the other’s patch changed nothing)',
      request: (as, of, prefix) => ({
        method: 'PATCH',
        path: `${prefix}/sessions/${of.project.id}`,
        json: { description: `patched by ${as.label}${prefix}` },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, what).toMatchObject({
          id: of.project.id,
          description: expect.stringMatching(new RegExp(`^patched by ${of.label}`)),
        });
      },
      other: async (res, as, of, what) => {
        expectStatus(res, 404, what);
        const read = await send(of, 'GET', `/sessions/${of.project.id}`);
        expect(read.body.description ?? '', show(`${what}; then the owner reads it`, read)).not.toContain(
          `patched by ${as.label}`,
        );
      },
    },
  ],
  'DELETE /sessions/{session_id}': [
    {
      label: 'the other project (the owner deletes it after; the other’s delete removed nothing)',
      request: (_as, of, prefix) => ({ method: 'DELETE', path: `${prefix}/sessions/${of.deletable[prefix]}` }),
      owner: async (res, of, what, prefix) => {
        expectStatus(res, 202, what);
        expectStatus(
          await send(of, 'GET', `/sessions/${of.deletable[prefix]}`),
          404,
          `${what}; then the owner reads the project`,
        );
      },
      other: async (res, _as, of, what, prefix) => {
        expectStatus(res, 404, what);
        expectStatus(
          await send(of, 'GET', `/sessions/${of.deletable[prefix]}`),
          200,
          `${what}; then the owner reads the project`,
        );
        if (prefix === '')
          expectStatus(
            await send(of, 'GET', `/runs/${of.deletableRoot}`),
            200,
            `${what}; then the owner reads its run`,
          );
      },
    },
  ],
  'GET /datasets/{dataset_id}': [
    {
      label: 'the other dataset',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/datasets/${of.dataset.id}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, what).toMatchObject({ id: of.dataset.id, name: of.dataset.name, tenant_id: of.ws.id });
      },
    },
  ],
  'GET /datasets': [
    {
      label: 'by the other dataset’s id and name',
      request: (_as, of, prefix) => ({
        method: 'GET',
        path: `${prefix}/datasets?id=${of.dataset.id}&name=${encodeURIComponent(of.dataset.name)}`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual([of.dataset.id]);
      },
      other: (res, _as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual([]);
      },
    },
  ],
  'PATCH /datasets/{dataset_id}': [
    {
      label: 'the other dataset (the owner patches after; the other’s patch changed nothing)',
      request: (as, of, prefix) => ({
        method: 'PATCH',
        path: `${prefix}/datasets/${of.dataset.id}`,
        json: { description: `patched by ${as.label}${prefix}` },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.description, what).toMatch(new RegExp(`^patched by ${of.label}`));
      },
      other: async (res, as, of, what) => {
        expectStatus(res, 404, what);
        const read = await send(of, 'GET', `/datasets/${of.dataset.id}`);
        expect(read.body.description ?? '', show(`${what}; then the owner reads it`, read)).not.toContain(
          `patched by ${as.label}`,
        );
      },
    },
  ],
  'DELETE /datasets/{dataset_id}': [
    {
      label: 'the other dataset (the owner deletes it after; the other’s delete removed nothing)',
      request: (_as, of, prefix) => ({ method: 'DELETE', path: `${prefix}/datasets/${of.deletableDatasets[prefix]}` }),
      owner: async (res, of, what, prefix) => {
        expectStatus(res, 204, what);
        expectStatus(
          await send(of, 'GET', `/datasets/${of.deletableDatasets[prefix]}`),
          404,
          `${what}; then the owner reads it`,
        );
      },
      other: async (res, _as, of, what, prefix) => {
        expectStatus(res, 404, what);
        expectStatus(
          await send(of, 'GET', `/datasets/${of.deletableDatasets[prefix]}`),
          200,
          `${what}; then the owner reads it`,
        );
      },
    },
  ],
  'GET /examples': [
    {
      label: 'the other dataset’s examples',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/examples?dataset=${of.dataset.id}&as_of=iso` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toContain(of.example);
        expect(
          res.body.every((e: { inputs: { owner: string } }) => e.inputs.owner === of.label),
          what,
        ).toBe(true);
      },
    },
    {
      label: 'the other workspace’s examples by id',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/examples?id=${of.example}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual([of.example]);
      },
      other: (res, _as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual([]);
      },
    },
  ],
  'GET /examples/{example_id}': [
    {
      label: 'the other workspace’s example',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/examples/${of.example}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, what).toMatchObject({ id: of.example, dataset_id: of.dataset.id });
      },
    },
  ],
  'GET /datasets/{dataset_id}/versions': [
    {
      label: 'the other dataset’s versions',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/datasets/${of.dataset.id}/versions` }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        expect(
          res.body.some((v: { tags: string[] }) => v.tags.includes('iso')),
          show(what, res),
        ).toBe(true);
      },
    },
  ],
  'GET /datasets/{dataset_id}/version': [
    {
      label: 'the other dataset’s tagged version',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/datasets/${of.dataset.id}/version?tag=iso` }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.tags, show(what, res)).toContain('iso');
      },
    },
  ],
  'GET /datasets/{dataset_id}/versions/diff': [
    {
      label: 'the other dataset’s versions compared',
      request: (_as, of, prefix) => ({
        method: 'GET',
        path: `${prefix}/datasets/${of.dataset.id}/versions/diff?from_version=iso&to_version=iso`,
      }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual({ examples_modified: [], examples_added: [], examples_removed: [] });
      },
    },
  ],
  'GET /datasets/{dataset_id}/splits': [
    {
      label: 'the other dataset’s splits',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/datasets/${of.dataset.id}/splits?as_of=iso` }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual(['base']);
      },
    },
  ],
  'PUT /datasets/{dataset_id}/tags': [
    {
      label: 'a tag on the other dataset (the other’s tag is not there after)',
      request: (as, of, prefix) => ({
        method: 'PUT',
        path: `${prefix}/datasets/${of.dataset.id}/tags`,
        json: { as_of: new Date().toISOString(), tag: `by-${as.label}${prefix}` },
      }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
      other: async (res, as, of, what, prefix) => {
        expectStatus(res, 404, what);
        const read = await send(of, 'GET', `/datasets/${of.dataset.id}/version?tag=by-${as.label}${prefix}`);
        expectStatus(read, 404, `${what}; then the owner reads the tag`);
      },
    },
  ],
  'PUT /datasets/{dataset_id}/splits': [
    {
      label: 'the other dataset’s example put in a split (the other’s split is not there after)',
      request: (as, of, prefix) => ({
        method: 'PUT',
        path: `${prefix}/datasets/${of.dataset.id}/splits`,
        json: { split_name: `by-${as.label}`, examples: [of.example] },
      }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
      other: async (res, as, of, what) => expectExampleUntouched(res, as, of, what),
    },
  ],
  'PATCH /v1/platform/datasets/{dataset_id}/examples/metadata': [
    {
      label: 'the other dataset’s example added to a split',
      request: (as, of, prefix) => ({
        method: 'PATCH',
        path: `${platformOf(prefix)}/datasets/${of.dataset.id}/examples/metadata`,
        json: {
          example_ids: [of.example],
          operations: [{ key: 'dataset_split', operation: 'array_add', values: [`by-${as.label}`] }],
        },
      }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
      other: async (res, as, of, what) => expectExampleUntouched(res, as, of, what),
    },
  ],
  'PATCH /examples/{example_id}': [
    {
      label: 'the other workspace’s example changed (the owner’s is not)',
      request: (as, of, prefix) => ({
        method: 'PATCH',
        path: `${prefix}/examples/${of.example}`,
        json: { metadata: { by: as.label } },
      }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
      other: async (res, as, of, what) => expectExampleUntouched(res, as, of, what),
    },
  ],
  'PATCH /examples/bulk': [
    {
      label: 'the other workspace’s example changed in bulk (the owner’s is not)',
      request: (as, of, prefix) => ({
        method: 'PATCH',
        path: `${prefix}/examples/bulk`,
        json: [{ id: of.example, metadata: { by: as.label } }],
      }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
      other: async (res, as, of, what) => expectExampleUntouched(res, as, of, what),
    },
  ],
  'POST /examples': [
    {
      label: 'an example put in the other dataset (it is not there after)',
      request: (as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/examples`,
        json: { dataset_id: of.dataset.id, inputs: { by: as.label } },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.dataset_id, what).toBe(of.dataset.id);
      },
      other: async (res, as, of, what) => expectNoExampleBy(res, as, of, what),
    },
  ],
  'POST /examples/bulk': [
    {
      label: 'examples put in the other dataset (none is there after)',
      request: (as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/examples/bulk`,
        json: [{ dataset_id: of.dataset.id, inputs: { by: as.label } }],
      }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
      other: async (res, as, of, what) => expectNoExampleBy(res, as, of, what),
    },
  ],
  'DELETE /examples/{example_id}': [
    {
      label: 'the other workspace’s example (the owner deletes it after; the other’s delete removed nothing)',
      request: (_as, of, prefix) => ({
        method: 'DELETE',
        path: `${prefix}/examples/${of.deletableExamples[prefix]!.one}`,
      }),
      ...deletedExample('one'),
    },
  ],
  'DELETE /examples': [
    {
      label: 'the other workspace’s examples (the owner deletes them after; the other’s delete removed nothing)',
      request: (_as, of, prefix) => ({
        method: 'DELETE',
        path: `${prefix}/examples?example_ids=${of.deletableExamples[prefix]!.many}`,
      }),
      ...deletedExample('many'),
    },
  ],
  'POST /v1/platform/datasets/examples/delete': [
    {
      label: 'the other workspace’s examples, hard (the owner deletes them after; the other’s delete removed nothing)',
      request: (_as, of, prefix) => ({
        method: 'POST',
        path: `${platformOf(prefix)}/datasets/examples/delete`,
        json: { example_ids: [of.deletableExamples[prefix]!.platform], hard_delete: true },
      }),
      ...deletedExample('platform'),
    },
  ],
  'POST /datasets/comparative': [
    {
      label: 'a comparison of the other workspace’s experiments of its dataset',
      request: (_as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/datasets/comparative`,
        json: { reference_dataset_id: of.dataset.id, experiment_ids: of.datasetExperiments },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({ reference_dataset_id: of.dataset.id, tenant_id: of.ws.id });
      },
    },
  ],
  'POST /datasets/{dataset_id}/runs': [
    {
      label: 'the other dataset’s examples with its experiments’ runs',
      request: (_as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/datasets/${of.dataset.id}/runs`,
        json: { session_ids: of.datasetExperiments, limit: 100 },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toContain(of.example);
        expect(
          res.body.every(
            (e: { dataset_id: string; runs: unknown[] }) => e.dataset_id === of.dataset.id && e.runs.length === 0,
          ),
          show(what, res),
        ).toBe(true);
      },
    },
    {
      label: 'the caller’s own dataset with the other workspace’s experiments',
      request: (as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/datasets/${as.dataset.id}/runs`,
        json: { session_ids: of.datasetExperiments },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(
          res.body.every((e: { dataset_id: string }) => e.dataset_id === of.dataset.id),
          show(what, res),
        ).toBe(true);
      },
    },
  ],
  'GET /datasets/{dataset_id}/comparative': [
    {
      label: 'the other dataset’s comparisons',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/datasets/${of.dataset.id}/comparative` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(
          res.body.every((c: { tenant_id: string }) => c.tenant_id === of.ws.id),
          show(what, res),
        ).toBe(true);
      },
    },
  ],
  'GET /annotation-queues': [
    {
      label: 'by the other workspace’s queue id',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/annotation-queues?ids=${of.queue}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual([of.queue]);
      },
      other: (res, _as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual([]);
      },
    },
  ],
  'GET /annotation-queues/{queue_id}': [
    {
      label: 'the other workspace’s queue',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/annotation-queues/${of.queue}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({ id: of.queue, tenant_id: of.ws.id, total_runs: 1 });
      },
    },
  ],
  'PATCH /annotation-queues/{queue_id}': [
    {
      label: 'the other workspace’s queue (the owner’s is not changed by the other)',
      request: (as, of, prefix) => ({
        method: 'PATCH',
        path: `${prefix}/annotation-queues/${of.queue}`,
        json: { description: `patched by ${as.label}` },
      }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
      other: async (res, as, of, what) => {
        expectStatus(res, 404, what);
        const read = await send(of, 'GET', `/annotation-queues/${of.queue}`);
        expect(read.body.description ?? '', show(`${what}; then the owner reads it`, read)).not.toBe(
          `patched by ${as.label}`,
        );
      },
    },
  ],
  'DELETE /annotation-queues/{queue_id}': [
    {
      label: 'the other workspace’s queue (the owner deletes it after; the other’s delete removed nothing)',
      request: (_as, of, prefix) => ({
        method: 'DELETE',
        path: `${prefix}/annotation-queues/${of.deletableQueues[prefix]}`,
      }),
      owner: async (res, of, what, prefix) => {
        expectStatus(res, 200, what);
        expectStatus(await send(of, 'GET', `/annotation-queues/${of.deletableQueues[prefix]}`), 404, `${what}; then`);
      },
      other: async (res, _as, of, what, prefix) => {
        expectStatus(res, 404, what);
        expectStatus(await send(of, 'GET', `/annotation-queues/${of.deletableQueues[prefix]}`), 200, `${what}; then`);
      },
    },
  ],
  'GET /annotation-queues/{queue_id}/runs': [
    {
      label: 'the other workspace’s queue’s runs',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/annotation-queues/${of.queue}/runs` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual([of.t.root]);
      },
    },
  ],
  'GET /annotation-queues/{queue_id}/run/{index}': [
    {
      label: 'the other workspace’s queue’s first run',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/annotation-queues/${of.queue}/run/0` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.id, show(what, res)).toBe(of.t.root);
      },
    },
  ],
  'GET /annotation-queues/{queue_id}/size': [
    {
      label: 'the other workspace’s queue’s size',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/annotation-queues/${of.queue}/size` }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual({ size: 1 });
      },
    },
  ],
  'GET /annotation-queues/{queue_id}/queues': [
    {
      label: 'the queues of the other workspace’s run',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/annotation-queues/${of.t.root}/queues` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual([of.queue]);
      },
      other: (res, _as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual([]);
      },
    },
  ],
  'POST /annotation-queues/{queue_id}/runs': [
    {
      label: 'the other workspace’s run added to the other’s queue',
      request: (_as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/annotation-queues/${of.queue}/runs`,
        json: [of.t.llm],
      }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
      other: async (res, _as, of, what) => {
        expectStatus(res, 404, what);
        const size = await send(of, 'GET', `/annotation-queues/${of.queue}/runs`);
        expect(idsOf(size.body), show(`${what}; then the owner lists its runs`, size)).not.toContain(of.t.tool);
      },
    },
  ],
  'POST /annotation-queues/{queue_id}/runs/by-key': [
    {
      label: 'a run added by key to the other workspace’s queue',
      request: (_as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/annotation-queues/${of.queue}/runs/by-key`,
        json: [{ run_id: of.t.llm, session_id: of.project.id }],
      }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
    },
  ],
  'DELETE /annotation-queues/{queue_id}/runs/{id}': [
    {
      label: 'the other workspace’s queue item (the other’s delete removed nothing)',
      request: (_as, of, prefix) => ({
        method: 'DELETE',
        path: `${prefix}/annotation-queues/${of.deletableQueues[prefix]}/runs/${of.t.root}`,
      }),
      owner: (res, _of, what) => expectStatus(res, 404, what),
      other: async (res, _as, of, what) => {
        expectStatus(res, 404, what);
        const size = await send(of, 'GET', `/annotation-queues/${of.queue}/size`);
        expect(size.body.size, show(`${what}; then the owner's queue`, size)).toBeGreaterThanOrEqual(1);
      },
    },
  ],
  'POST /annotation-queues/status/{queue_run_id}': [
    {
      label: 'the other workspace’s queue item marked done (by the owner: marked)',
      request: (_as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/annotation-queues/status/${of.queueItem}`,
        json: { status: 'viewed' },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.queue_run_id, what).toBe(of.queueItem);
      },
    },
  ],
  'GET /datasets/{dataset_id}/jsonl': [
    {
      label: 'the other dataset as jsonl',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/datasets/${of.dataset.id}/jsonl` }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
    },
  ],
  'GET /datasets/{dataset_id}/csv': [
    {
      label: 'the other dataset as csv',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/datasets/${of.dataset.id}/csv` }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
    },
  ],
  'GET /datasets/{dataset_id}/openai_ft': [
    {
      label: 'the other dataset as openai_ft',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/datasets/${of.dataset.id}/openai_ft` }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
    },
  ],
  'GET /settings': [
    {
      label: 'the caller’s own workspace, whoever asks',
      request: (_as, _of, prefix) => ({ method: 'GET', path: `${prefix}/settings` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({ id: of.ws.id, tenant_handle: null });
      },
      other: (res, as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.id, show(what, res)).toBe(as.ws.id);
      },
    },
  ],
  ...Object.fromEntries(
    ['GET /repos', 'GET /repos/'].map((route) => [
      route,
      [
        {
          label: 'by the other workspace’s prompt name',
          request: (_as: Fixture, of: Fixture, prefix: string) => ({
            method: 'GET',
            path: `${prefix}${route.slice(4)}?query=${of.prompt.name}`,
          }),
          owner: (res: Res, of: Fixture, what: string) => {
            expectStatus(res, 200, what);
            expect(idsOf(res.body.repos, 'repo_handle'), show(what, res)).toContain(of.prompt.name);
          },
          other: (res: Res, _as: Fixture, _of: Fixture, what: string) => {
            expectStatus(res, 200, what);
            expect(res.body, show(what, res)).toEqual({ repos: [], total: 0 });
          },
        },
      ],
    ]),
  ),
  'GET /repos/{owner}/{name}': [
    {
      label: 'the other workspace’s prompt',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/repos/-/${of.prompt.name}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.repo, show(what, res)).toMatchObject({ repo_handle: of.prompt.name, tenant_id: of.ws.id });
      },
    },
  ],
  'PATCH /repos/{owner}/{name}': [
    {
      label: 'the other workspace’s prompt (the owner’s is not changed by the other)',
      request: (as, of, prefix) => ({
        method: 'PATCH',
        path: `${prefix}/repos/-/${of.prompt.name}`,
        json: { description: `patched by ${as.label}` },
      }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
      other: async (res, as, of, what) => {
        expectStatus(res, 404, what);
        const read = await send(of, 'GET', `/repos/-/${of.prompt.name}`);
        expect(read.body.repo.description ?? '', show(`${what}; then the owner reads it`, read)).not.toBe(
          `patched by ${as.label}`,
        );
      },
    },
  ],
  'DELETE /repos/{owner}/{name}': [
    {
      label: 'the other workspace’s prompt (the owner deletes it after; the other’s delete removed nothing)',
      request: (_as, of, prefix) => ({ method: 'DELETE', path: `${prefix}/repos/-/${of.deletablePrompts[prefix]}` }),
      owner: async (res, of, what, prefix) => {
        expectStatus(res, 200, what);
        expectStatus(await send(of, 'GET', `/repos/-/${of.deletablePrompts[prefix]}`), 404, `${what}; then`);
      },
      other: async (res, _as, of, what, prefix) => {
        expectStatus(res, 404, what);
        expectStatus(await send(of, 'GET', `/repos/-/${of.deletablePrompts[prefix]}`), 200, `${what}; then`);
      },
    },
  ],
  'POST /repos/{owner}/{name}/tags': [
    {
      label: 'a tag on the other workspace’s commit (the owner’s tag still names its commit)',
      request: (_as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/repos/-/${of.prompt.name}/tags`,
        json: { tag_name: 'iso', commit_id: of.prompt.commitId },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.commit_hash, show(what, res)).toBe(of.prompt.hash);
      },
    },
  ],
  'GET /repos/{owner}/{name}/tags': [
    {
      label: 'the other workspace’s prompt’s tags',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/repos/-/${of.prompt.name}/tags` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual([
          expect.objectContaining({ tag_name: 'iso', commit_hash: of.prompt.hash }),
        ]);
      },
    },
  ],
  ...Object.fromEntries(
    ['GET /commits/{owner}/{name}/', 'GET /commits/{owner}/{name}'].map((route) => [
      route,
      [
        {
          label: 'the other workspace’s prompt’s commits',
          request: (_as: Fixture, of: Fixture, prefix: string) => ({
            method: 'GET',
            path: `${prefix}/commits/-/${of.prompt.name}${route.endsWith('/') ? '/' : ''}`,
          }),
          owner: (res: Res, of: Fixture, what: string) => {
            expectStatus(res, 200, what);
            expect(idsOf(res.body.commits, 'commit_hash'), show(what, res)).toContain(of.prompt.hash);
          },
        },
      ],
    ]),
  ),
  'POST /commits/{owner}/{name}': [
    {
      label: 'a commit on the other workspace’s prompt (the owner’s commits are unchanged by the other)',
      request: (as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/commits/-/${of.prompt.name}`,
        json: { manifest: { ...PROMPT_MANIFEST, kwargs: { ...PROMPT_MANIFEST.kwargs, by: as.label } } },
      }),
      owner: (res, _of, what) => expectStatus(res, 200, what),
      other: async (res, as, of, what) => {
        expectStatus(res, 404, what);
        const latest = await send(of, 'GET', `/commits/-/${of.prompt.name}/latest`);
        expect(latest.body.manifest?.kwargs?.by, show(`${what}; then the owner pulls it`, latest)).not.toBe(as.label);
      },
    },
  ],
  'GET /commits/{owner}/{name}/{commit}': [
    {
      label: 'the other workspace’s tagged commit',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/commits/-/${of.prompt.name}/iso` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({ commit_hash: of.prompt.hash, examples: [] });
      },
    },
    {
      label: 'the other workspace’s commit by its hash',
      request: (_as, of, prefix) => ({
        method: 'GET',
        path: `${prefix}/commits/-/${of.prompt.name}/${of.prompt.hash.slice(0, 8)}`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.commit_hash, show(what, res)).toBe(of.prompt.hash);
      },
    },
  ],
  'POST /likes/{owner}/{name}': [
    {
      label: 'a like of the other workspace’s prompt (not counted)',
      request: (_as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/likes/-/${of.prompt.name}`,
        json: { like: true },
      }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual({ likes: 1 });
      },
    },
  ],
  'GET /feedback-configs': [
    {
      label: 'by the other workspace’s key',
      request: (_as, of, prefix) => ({
        method: 'GET',
        path: `${prefix}/feedback-configs?key=${of.configKey}&include_all_configs=true`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual([of.config]);
      },
      other: (res, _as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual([]);
      },
    },
  ],
  'PATCH /feedback-configs': [
    {
      label: 'the other workspace’s key, and its config by id (the other’s change changed nothing)',
      request: (_as, of, prefix) => ({
        method: 'PATCH',
        path: `${prefix}/feedback-configs`,
        json: { feedback_key: of.configKey, id: of.config, feedback_config: { type: 'continuous', min: 0, max: 1 } },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, what).toMatchObject({ id: of.config, tenant_id: of.ws.id });
      },
      other: async (res, _as, of, what) => {
        expectStatus(res, 404, what);
        const read = await send(of, 'GET', `/feedback-configs?key=${of.configKey}`);
        expect(read.body[0]?.feedback_config, show(`${what}; then the owner reads it`, read)).toEqual({
          type: 'continuous',
          min: 0,
          max: 1,
        });
      },
    },
  ],
  'DELETE /feedback-configs': [
    {
      label: 'the other workspace’s config by id (the owner deletes it after; the other’s delete removed nothing)',
      request: (_as, of, prefix) => ({
        method: 'DELETE',
        path: `${prefix}/feedback-configs?id=${of.deletableConfigs[prefix]}`,
      }),
      owner: async (res, of, what, prefix) => {
        expectStatus(res, 204, what);
        const read = await send(of, 'GET', `/feedback-configs?key=${of.configKey}-del${prefix === '' ? 0 : 1}`);
        expect(read.body, show(`${what}; then the owner lists it`, read)).toEqual([]);
      },
      other: async (res, _as, of, what, prefix) => {
        expectStatus(res, 404, what);
        const read = await send(of, 'GET', `/feedback-configs?key=${of.configKey}-del${prefix === '' ? 0 : 1}`);
        expect(idsOf(read.body), show(`${what}; then the owner lists it`, read)).toEqual([of.deletableConfigs[prefix]]);
      },
    },
  ],
  'GET /sessions/{session_id}/stats': [
    {
      label: 'the other project',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/sessions/${of.project.id}/stats` }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({ trace_count: 2, run_count: 6, total_tokens: 20 });
      },
    },
  ],
  'POST /sessions/activity': [
    {
      label: 'the other project',
      request: (_as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/sessions/activity`,
        json: { session: [of.project.id] },
      }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        const counts: number[] = res.body?.projects?.[0]?.trace_count ?? [];
        expect(
          counts.reduce((a, b) => a + b, 0),
          show(what, res),
        ).toBe(2);
      },
    },
  ],
  'POST /runs/stats': [
    {
      label: 'the other project',
      request: (_as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/runs/stats`,
        json: { session: [of.project.id] },
      }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({ trace_count: 2, run_count: 6, total_tokens: 20 });
      },
    },
    {
      label: 'the caller’s project with the other’s trace',
      request: (as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/runs/stats`,
        json: { session: [as.project.id], trace: of.t.root },
      }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({ trace_count: 1, run_count: 3 });
      },
      other: (res, _as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({ trace_count: 0, run_count: 0, total_tokens: 0 });
      },
    },
  ],
  'POST /api/v2/runs/query': [
    {
      label: 'project_ids: the other project',
      request: (_as, of) => ({ method: 'POST', path: '/api/v2/runs/query', json: { project_ids: [of.project.id] } }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(itemIdsOf(res), show(what, res)).toEqual([...allRunsOf(of), of.u, ...of.uChildren].sort());
      },
    },
    {
      label: 'the caller’s project with the other’s ids, trace and filter',
      request: (as, of) => ({
        method: 'POST',
        path: '/api/v2/runs/query',
        json: {
          project_ids: [as.project.id],
          ids: [of.t.root, of.t.llm],
          trace_id: of.t.root,
          filter: `eq(id, "${of.t.llm}")`,
        },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(itemIdsOf(res), show(what, res)).toEqual([of.t.llm]);
      },
      other: noItems,
    },
  ],
  'GET /api/v2/runs/{run_id}/url': [
    {
      label: 'the other run in the other project',
      request: (_as, of) => ({
        method: 'GET',
        path: `/api/v2/runs/${of.t.llm}/url?project_id=${of.project.id}&trace_id=${of.t.root}`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.url, show(what, res)).toMatch(
          new RegExp(`/o/${of.ws.id}/projects/p/${of.project.id}/r/${of.t.llm}\\?poll=true$`),
        );
      },
    },
  ],
  'GET /api/v2/runs/{run_id}': [
    {
      label: 'the other run in the other project',
      request: (_as, of) => ({
        method: 'GET',
        path: `/api/v2/runs/${of.t.llm}?project_id=${of.project.id}&selects=ID&selects=TOTAL_TOKENS`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({ id: of.t.llm, total_tokens: 10 });
      },
    },
    {
      label: 'the other run in the caller’s project',
      request: (as, of) => ({ method: 'GET', path: `/api/v2/runs/${of.t.llm}?project_id=${as.project.id}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.id, show(what, res)).toBe(of.t.llm);
      },
    },
  ],
  'POST /api/v2/traces/query': [
    {
      label: 'project_id: the other project',
      request: (_as, of) => ({ method: 'POST', path: '/api/v2/traces/query', json: { project_id: of.project.id } }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(
          idsOf((res.body.items ?? []).map((i: { root_run: { id: string } }) => i.root_run)),
          show(what, res),
        ).toEqual([of.t.root, of.u].sort());
      },
    },
    {
      label: 'the caller’s project with trace_filter and tree_filter naming the other’s runs',
      request: (as, of) => ({
        method: 'POST',
        path: '/api/v2/traces/query',
        json: {
          project_id: as.project.id,
          trace_filter: `eq(id, "${of.t.root}")`,
          tree_filter: `eq(id, "${of.t.tool}")`,
        },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(
          (res.body.items ?? []).map((i: { root_run: { id: string } }) => i.root_run.id),
          show(what, res),
        ).toEqual([of.t.root]);
      },
      other: noItems,
    },
    {
      label: 'the caller’s project with the other’s trace_ids',
      request: (as, of) => ({
        method: 'POST',
        path: '/api/v2/traces/query',
        json: { project_id: as.project.id, trace_ids: [of.t.root] },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(
          (res.body.items ?? []).map((i: { root_run: { id: string } }) => i.root_run.id),
          show(what, res),
        ).toEqual([of.t.root]);
      },
      other: noItems,
    },
  ],
  'GET /api/v2/traces/{trace_id}/runs': [
    {
      label: 'the other trace in the other project',
      request: (_as, of) => ({ method: 'GET', path: `/api/v2/traces/${of.t.root}/runs?project_id=${of.project.id}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(itemIdsOf(res), show(what, res)).toEqual(allRunsOf(of));
      },
    },
    {
      label: 'the other trace in the caller’s project',
      request: (as, of) => ({ method: 'GET', path: `/api/v2/traces/${of.t.root}/runs?project_id=${as.project.id}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(itemIdsOf(res), show(what, res)).toEqual(allRunsOf(of));
      },
    },
  ],
  'POST /api/v2/threads/query': [
    {
      label: 'project_id: the other project',
      request: (_as, of) => ({ method: 'POST', path: '/api/v2/threads/query', json: { project_id: of.project.id } }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(itemIdsOf(res, 'thread_id'), show(what, res)).toEqual([SHARED_THREAD, of.ownThread].sort());
        const shared = res.body.items.find((t: { thread_id: string }) => t.thread_id === SHARED_THREAD);
        expect(shared, show(what, res)).toMatchObject({ count: 1, first_trace_id: of.t.root, total_tokens: 10 });
      },
    },
    {
      label: 'the caller’s project: its threads only, the shared name counted over its own traces',
      request: (as) => ({ method: 'POST', path: '/api/v2/threads/query', json: { project_id: as.project.id } }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(itemIdsOf(res, 'thread_id'), show(what, res)).toEqual([SHARED_THREAD, of.ownThread].sort());
      },
      other: (res, as, _of, what) => {
        expectStatus(res, 200, what);
        expect(itemIdsOf(res, 'thread_id'), show(what, res)).toEqual([SHARED_THREAD, as.ownThread].sort());
        const shared = res.body.items.find((t: { thread_id: string }) => t.thread_id === SHARED_THREAD);
        expect(shared, show(what, res)).toMatchObject({
          count: 1,
          first_trace_id: as.t.root,
          last_trace_id: as.t.root,
        });
      },
    },
  ],
  'GET /api/v2/threads/{thread_id}/traces': [
    {
      label: 'the other’s thread in the other project',
      request: (_as, of) => ({
        method: 'GET',
        path: `/api/v2/threads/${encodeURIComponent(of.ownThread)}/traces?project_id=${of.project.id}`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(itemIdsOf(res, 'trace_id'), show(what, res)).toEqual([of.u]);
      },
    },
    {
      label: 'the other’s thread in the caller’s project',
      request: (as, of) => ({
        method: 'GET',
        path: `/api/v2/threads/${encodeURIComponent(of.ownThread)}/traces?project_id=${as.project.id}`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(itemIdsOf(res, 'trace_id'), show(what, res)).toEqual([of.u]);
      },
    },
    {
      label: 'the shared thread name in the caller’s project: its own traces only',
      request: (as) => ({
        method: 'GET',
        path: `/api/v2/threads/${SHARED_THREAD}/traces?project_id=${as.project.id}&selects=TRACE_ID&selects=INPUTS&selects=TOTAL_TOKENS`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(itemIdsOf(res, 'trace_id'), show(what, res)).toEqual([of.t.root]);
      },
      other: (res, as, _of, what) => {
        expectStatus(res, 200, what);
        expect(itemIdsOf(res, 'trace_id'), show(what, res)).toEqual([as.t.root]);
      },
    },
  ],
  'POST /api/v2/threads/stats': [
    {
      label: 'project_id: the other project',
      request: (_as, of) => ({
        method: 'POST',
        path: '/api/v2/threads/stats',
        json: {
          project_id: of.project.id,
          min_start_time: iso(Date.now() * 1000 - 86_400_000_000),
          select: ['THREAD_COUNT', 'TRACE_COUNT', 'TOTAL_TOKENS'],
        },
      }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual({ thread_count: 2, trace_count: 2, total_tokens: 20 });
      },
    },
  ],
  'GET /api/v2/threads/{thread_id}/stats': [
    {
      label: 'the other’s thread in the other project',
      request: (_as, of) => ({
        method: 'GET',
        path: `/api/v2/threads/${encodeURIComponent(of.ownThread)}/stats?session_id=${of.project.id}`,
      }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({ turns: 1, total_tokens: 10 });
      },
    },
    {
      label: 'the other’s thread in the caller’s project',
      request: (as, of) => ({
        method: 'GET',
        path: `/api/v2/threads/${encodeURIComponent(of.ownThread)}/stats?session_id=${as.project.id}`,
      }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({ turns: 1 });
      },
    },
    {
      label: 'the shared thread name in the caller’s project: its own traces only',
      request: (as) => ({ method: 'GET', path: `/api/v2/threads/${SHARED_THREAD}/stats?session_id=${as.project.id}` }),
      owner: (res, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({ turns: 1, total_tokens: 10, run_count: 3, error_count: 1 });
      },
      other: (res, _as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({ turns: 1, total_tokens: 10, run_count: 3, error_count: 1 });
      },
    },
  ],
  'GET /feedback/{feedback_id}': [
    {
      label: 'the other’s feedback',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/feedback/${of.feedback.llm}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({
          id: of.feedback.llm,
          run_id: of.t.llm,
          trace_id: of.t.root,
          session_id: of.project.id,
          key: of.feedbackKey,
          score: 0.5,
        });
      },
    },
  ],
  'GET /feedback': [
    {
      label: 'run: the other’s runs',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/feedback?run=${of.t.root}&run=${of.t.llm}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual([of.feedback.root, of.feedback.llm].sort());
      },
      other: (res, _as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual([]);
      },
    },
    {
      label: 'session and key: the other’s project and key',
      request: (_as, of, prefix) => ({
        method: 'GET',
        path: `${prefix}/feedback?session=${of.project.id}&key=${of.feedbackKey}&level=run`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual(expect.arrayContaining([of.feedback.root, of.feedback.llm]));
        expect(
          res.body.every((f: { session_id: string }) => f.session_id === of.project.id),
          show(what, res),
        ).toBe(true);
      },
      other: (res, _as, _of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toEqual([]);
      },
    },
  ],
  'PATCH /feedback/{feedback_id}': [
    {
      label: 'the other’s feedback (owner patches after; the other’s patch changed nothing)',
      request: (as, of, prefix) => ({
        method: 'PATCH',
        path: `${prefix}/feedback/${of.feedback.root}`,
        json: { comment: `patched by ${as.label}${prefix}` },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({
          id: of.feedback.root,
          score: 1,
          comment: expect.stringMatching(new RegExp(`^patched by ${of.label}`)),
        });
      },
      other: async (res, as, of, what) => {
        expectStatus(res, 404, what);
        const read = await send(of, 'GET', `/feedback/${of.feedback.root}`);
        expect(read.body.comment ?? '', show(`${what}; then the owner reads it`, read)).not.toContain(
          `patched by ${as.label}`,
        );
      },
    },
  ],
  'DELETE /feedback/{feedback_id}': [
    {
      label: 'the other’s feedback (the owner deletes it after; the other’s delete removed nothing)',
      request: (_as, of, prefix) => ({ method: 'DELETE', path: `${prefix}/feedback/${of.deletableFeedback[prefix]}` }),
      owner: async (res, of, what, prefix) => {
        expectStatus(res, 200, what);
        expectStatus(
          await send(of, 'GET', `/feedback/${of.deletableFeedback[prefix]}`),
          404,
          `${what}; then the owner reads it`,
        );
      },
      other: async (res, _as, of, what, prefix) => {
        expectStatus(res, 404, what);
        expectStatus(
          await send(of, 'GET', `/feedback/${of.deletableFeedback[prefix]}`),
          200,
          `${what}; then the owner reads it`,
        );
      },
    },
  ],
  'GET /bulk-exports/destinations': [
    {
      label: 'the list: only the caller’s destinations',
      request: (_as, _of, prefix) => ({ method: 'GET', path: `${prefix}/bulk-exports/destinations` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual([of.destination]);
        expect(JSON.stringify(res.body), show(what, res)).not.toContain(inject('tracingEnv').S3_SECRET_ACCESS_KEY);
      },
      other: (res, as, _of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toEqual([as.destination]);
      },
    },
  ],
  'GET /bulk-exports/destinations/{destination_id}': [
    {
      label: 'the other destination',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/bulk-exports/destinations/${of.destination}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({
          id: of.destination,
          tenant_id: of.ws.id,
          credentials_keys: ['access_key_id', 'secret_access_key'],
        });
        expect(res.body.credentials, show(what, res)).toBeUndefined();
      },
    },
  ],
  'PATCH /bulk-exports/destinations/{destination_id}': [
    {
      label: 'rotating the other’s credentials',
      request: (_as, of, prefix) => ({
        method: 'PATCH',
        path: `${prefix}/bulk-exports/destinations/${of.destination}`,
        json: { credentials: destinationBody('x').credentials },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.id, show(what, res)).toBe(of.destination);
      },
    },
  ],
  'POST /bulk-exports': [
    {
      label: 'an export of the other’s project into the other’s destination, and mixes of the two',
      request: (_as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/bulk-exports`,
        json: {
          bulk_export_destination_id: of.destination,
          session_id: of.project.id,
          start_time: '2020-01-01T00:00:00Z',
          end_time: '2020-01-01T01:00:00Z',
        },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({
          tenant_id: of.ws.id,
          session_id: of.project.id,
          bulk_export_destination_id: of.destination,
        });
      },
      other: async (res, as, of, what, prefix) => {
        expectStatus(res, 404, what);
        const mixed = async (destination: string, project: string) =>
          send(as, 'POST', `${prefix}/bulk-exports`, {
            bulk_export_destination_id: destination,
            session_id: project,
            start_time: '2020-01-01T00:00:00Z',
            end_time: '2020-01-01T01:00:00Z',
          });
        expectStatus(await mixed(as.destination, of.project.id), 404, `${what}; own destination, other's project`);
        expectStatus(await mixed(of.destination, as.project.id), 404, `${what}; other's destination, own project`);
      },
    },
    {
      label: 'an export of the other’s dataset (resource examples) into the other’s destination, and mixes of the two',
      request: (_as, of, prefix) => ({
        method: 'POST',
        path: `${prefix}/bulk-exports`,
        json: { bulk_export_destination_id: of.destination, resource: 'examples', dataset_id: of.dataset.id },
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({
          tenant_id: of.ws.id,
          resource: 'examples',
          dataset_id: of.dataset.id,
          bulk_export_destination_id: of.destination,
        });
      },
      other: async (res, as, of, what, prefix) => {
        expectStatus(res, 404, what);
        const mixed = async (destination: string, dataset: string) =>
          send(as, 'POST', `${prefix}/bulk-exports`, {
            bulk_export_destination_id: destination,
            resource: 'examples',
            dataset_id: dataset,
          });
        expectStatus(await mixed(as.destination, of.dataset.id), 404, `${what}; own destination, other's dataset`);
        expectStatus(await mixed(of.destination, as.dataset.id), 404, `${what}; other's destination, own dataset`);
      },
    },
  ],
  'GET /bulk-exports': [
    {
      label: 'the list: only the caller’s exports',
      request: (_as, _of, prefix) => ({ method: 'GET', path: `${prefix}/bulk-exports` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toContain(of.bulkExport);
        expect(
          res.body.every((e: { tenant_id: string }) => e.tenant_id === of.ws.id),
          show(what, res),
        ).toBe(true);
      },
      other: (res, as, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).not.toContain(of.bulkExport);
        expect(
          res.body.every((e: { tenant_id: string }) => e.tenant_id === as.ws.id),
          show(what, res),
        ).toBe(true);
      },
    },
  ],
  'GET /bulk-exports/{export_id}': [
    {
      label: 'the other export',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/bulk-exports/${of.bulkExport}` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({
          id: of.bulkExport,
          status: 'Completed',
          session_id: of.project.id,
        });
      },
    },
  ],
  'PATCH /bulk-exports/{export_id}': [
    {
      label: 'cancelling the other export (the owner’s has completed: 409)',
      request: (_as, of, prefix) => ({
        method: 'PATCH',
        path: `${prefix}/bulk-exports/${of.bulkExport}`,
        json: { status: 'Cancelled' },
      }),
      owner: (res, _of, what) => expectStatus(res, 409, what),
      other: async (res, _as, of, what) => {
        expectStatus(res, 404, what);
        const read = await send(of, 'GET', `/bulk-exports/${of.bulkExport}`);
        expect(read.body.status, show(`${what}; then the owner reads it`, read)).toBe('Completed');
      },
    },
  ],
  'GET /bulk-exports/{export_id}/runs': [
    {
      label: 'the other export’s runs',
      request: (_as, of, prefix) => ({ method: 'GET', path: `${prefix}/bulk-exports/${of.bulkExport}/runs` }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(idsOf(res.body), show(what, res)).toContain(of.exportRun);
      },
    },
  ],
  'GET /bulk-exports/{export_id}/runs/{run_id}': [
    {
      label: 'the other export’s run',
      request: (_as, of, prefix) => ({
        method: 'GET',
        path: `${prefix}/bulk-exports/${of.bulkExport}/runs/${of.exportRun}`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body, show(what, res)).toMatchObject({
          id: of.exportRun,
          bulk_export_id: of.bulkExport,
          status: 'Completed',
        });
        expect(res.body.metadata.result.rows_written, show(what, res)).toBeGreaterThan(0);
      },
    },
    {
      label: 'the other export’s run under the caller’s export',
      request: (as, of, prefix) => ({
        method: 'GET',
        path: `${prefix}/bulk-exports/${as.bulkExport}/runs/${of.exportRun}`,
      }),
      owner: (res, of, what) => {
        expectStatus(res, 200, what);
        expect(res.body.id, show(what, res)).toBe(of.exportRun);
      },
    },
  ],
};

/** Every root run of the workspace (a deletable project's may be gone already), and no other. */
function expectOwnRoots(roots: Array<{ id: string }>, f: Fixture, what: string, res: Res): void {
  const ids = idsOf(roots);
  expect(ids, show(what, res)).toEqual(expect.arrayContaining([f.t.root, f.u, f.second.root]));
  expect(
    ids.filter((id) => ![f.t.root, f.u, f.second.root, f.deletableRoot].includes(id)),
    show(what, res),
  ).toEqual([]);
}

// ---- routes the cases above do not cover, and why ----

/** Answer no tenant data. */
const NO_TENANT_DATA = ['GET /ok', 'GET /ready', 'GET /metrics', 'GET /info', ...DOCS_OPERATIONS];
/**
 * Writes: covered by the write test below, which checks that naming another workspace's ids leaves its data alone.
 * POST /bulk-exports/destinations names no ids: what it makes is the caller's own (listed and read by the cases above).
 */
const WRITES = [
  'POST /runs',
  'PATCH /runs/{run_id}',
  'POST /runs/batch',
  'POST /runs/multipart',
  'POST /otel/v1/traces',
  'POST /sessions',
  'POST /bulk-exports/destinations',
  'POST /feedback',
  // names a run id: the token, and the feedback it records, are the caller's own
  'POST /feedback/tokens',
  // what they make is the caller's own, whatever id or key they name (the write test below)
  'POST /datasets',
  'POST /feedback-configs',
  // a dataset made from a CSV file is the caller's own, as POST /datasets's
  'POST /datasets/upload',
  // a queue is the caller's own, whatever id it names (the write test below)
  'POST /annotation-queues',
  // a prompt is the caller's own, whatever name it takes (names are per workspace)
  'POST /repos',
  'POST /repos/',
  // multipart writes into a dataset: the write test below (the other's dataset is not found)
  'POST /v1/platform/datasets/{dataset_id}/examples',
  'PATCH /v1/platform/datasets/{dataset_id}/examples',
];
/**
 * The platform routes again, as /api/v1/platform/… (the clients' path when their API URL ends in
 * /v1): the probes of their /v1/platform twins call both (platformOf).
 */
const PLATFORM_TWINS = [
  'POST /platform/datasets/{dataset_id}/examples',
  'PATCH /platform/datasets/{dataset_id}/examples',
  'PATCH /platform/datasets/{dataset_id}/examples/metadata',
  'POST /platform/datasets/examples/delete',
];
/**
 * Public: a presigned token is its own credential, and acts in the workspace it was made in
 * (test/services/tracing/routes/feedbackTokens.test.ts: another workspace sees none of it).
 */
const TOKEN_USES = ['GET /feedback/tokens/{token_id}', 'POST /feedback/tokens/{token_id}'];

/** `METHOD /path` for each operation of the OpenAPI document; /api/v1 routes fold into their / twins. */
async function documentedRoutes(): Promise<string[]> {
  const res = await api('/docs/json');
  expectStatus(res, 200, 'GET /docs/json');
  const routes = new Set<string>();
  for (const [path, ops] of Object.entries(res.body.paths as Record<string, Record<string, unknown>>))
    for (const method of Object.keys(ops))
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method))
        routes.add(`${method.toUpperCase()} ${path.replace(/^\/api\/v1(?=\/)/, '')}`);
  return [...routes].sort();
}

// ---- the tests ----

let a: Fixture;
let b: Fixture;

beforeAll(async () => {
  const [wsA, wsB] = (await createWorkspaces(2)) as [Workspace, Workspace];
  a = await buildFixture(wsA, 'A');
  b = await buildFixture(wsB, 'B', a.u);
  // The traces table and the feedback are projected alongside the runs: wait until both show.
  await vi.waitFor(
    async () => {
      for (const f of [a, b]) {
        const traces = await send(f, 'POST', '/api/v2/traces/query', { project_id: f.project.id });
        expect(traces.body.items?.length, show('traces', traces)).toBe(2);
        const fb = await send(f, 'POST', '/runs/query', { id: [f.t.root], select: ['id', 'feedback_stats'] });
        expect(Object.keys(fb.body.runs?.[0]?.feedback_stats ?? {}), show('feedback', fb)).toEqual([f.feedbackKey]);
      }
    },
    { timeout: 45_000, interval: 250 },
  );
}, 180_000);

describe('every route is covered', () => {
  test('each route of the OpenAPI document has isolation cases here (or is a write or holds no tenant data)', async () => {
    const routes = await documentedRoutes();
    const known = new Set([...NO_TENANT_DATA, ...WRITES, ...PLATFORM_TWINS, ...TOKEN_USES, ...Object.keys(CASES)]);
    expect(
      routes.filter((r) => !known.has(r)),
      'routes without isolation cases: add them to CASES',
    ).toEqual([]);
    expect(
      Object.keys(CASES).filter((r) => !routes.includes(r)),
      'cases for routes the API does not have',
    ).toEqual([]);
    expect(
      WRITES.filter((r) => !routes.includes(r)),
      'writes the API does not have',
    ).toEqual([]);
  });
});

const probes = Object.entries(CASES).flatMap(([route, list]) => list.map((probe) => ({ route, probe })));

describe.each(probes)('$route: $probe.label', ({ route, probe }) => {
  const isV1 = !route.includes(' /api/v2/');
  test.each(isV1 ? PREFIXES : [''])(
    'prefix "%s": the other workspace gets nothing, the owner its data',
    async (prefix) => {
      for (const [owner, other] of [
        [a, b],
        [b, a],
      ] as const) {
        const asOther = probe.request(other, owner, prefix);
        const otherWhat = `${owner.label}'s ids asked by ${other.label}: ${asOther.method} ${asOther.path}${asOther.json ? ` ${JSON.stringify(asOther.json)}` : ''}`;
        await (probe.other ?? notFound)(
          await send(other, asOther.method, asOther.path, asOther.json),
          other,
          owner,
          otherWhat,
          prefix,
        );
        const asOwner = probe.request(owner, owner, prefix);
        const ownerWhat = `${owner.label}'s ids asked by ${owner.label}: ${asOwner.method} ${asOwner.path}${asOwner.json ? ` ${JSON.stringify(asOwner.json)}` : ''}`;
        await probe.owner(await send(owner, asOwner.method, asOwner.path, asOwner.json), owner, ownerWhat, prefix);
      }
    },
  );
});

describe('auth', () => {
  test('a key names only its own workspace: X-Tenant-Id of another is 403', async () => {
    const res = await api(`/runs/${b.t.root}`, { apiKey: a.ws.apiKey, headers: { 'x-tenant-id': b.ws.id } });
    expectStatus(res, 403, `GET /runs/{B's run} with A's key and X-Tenant-Id: B`);
  });
});

describe('writes that name the other workspace’s ids leave its data alone (B acts on A’s ids)', () => {
  /** A's data as A reads it: must be the same after every write of B's. */
  async function expectAIntact(what: string): Promise<void> {
    const llm = await send(a, 'GET', `/runs/${a.t.llm}`);
    expectStatus(llm, 200, `${what}; A reads its llm run`);
    expect(llm.body, show(what, llm)).toMatchObject({
      outputs: { text: 'hi' },
      error: null,
      total_tokens: 10,
      session_id: a.project.id,
    });
    const tool = await send(a, 'GET', `/runs/${a.t.tool}`);
    expect(tool.body, show(what, tool)).toMatchObject({ error: 'the tool failed', status: 'error' });
    const trace = await send(a, 'POST', '/runs/query', {
      trace: a.t.root,
      select: ['id', 'feedback_stats', 'total_tokens'],
    });
    expect(runIdsOf(trace), show(`${what}; A lists its trace`, trace)).toEqual(allRunsOf(a));
    for (const id of [a.t.root, a.t.llm]) {
      const run = trace.body.runs.find((r: { id: string }) => r.id === id);
      expect(Object.keys(run.feedback_stats ?? {}), show(`${what}; A's feedback`, trace)).toEqual([a.feedbackKey]);
      expect(run.total_tokens, show(`${what}; A's usage rolled up`, trace)).toBe(10);
    }
    const v2Runs = await send(a, 'GET', `/api/v2/traces/${a.t.root}/runs?project_id=${a.project.id}`);
    expect(itemIdsOf(v2Runs), show(`${what}; A lists its trace (v2)`, v2Runs)).toEqual(allRunsOf(a));
    const v2Trace = await send(a, 'POST', '/api/v2/traces/query', { project_id: a.project.id, trace_ids: [a.t.root] });
    expect(v2Trace.body.items?.[0]?.trace_aggregates, show(`${what}; A's trace row`, v2Trace)).toMatchObject({
      total_tokens: 10,
      run_count: 3,
      error_count: 1,
    });
    const intruded = await send(a, 'POST', '/runs/query', { filter: 'eq(feedback_key, "intruder")', select: ['id'] });
    expect(intruded.body.runs, show(`${what}; A filters on B's feedback key`, intruded)).toEqual([]);
    const stats = await send(a, 'GET', `/sessions/${a.project.id}/stats`);
    expect(stats.body, show(`${what}; A's project stats`, stats)).toMatchObject({
      trace_count: 2,
      run_count: 6,
      total_tokens: 20,
    });
    const threads = await send(a, 'GET', `/api/v2/threads/${SHARED_THREAD}/traces?project_id=${a.project.id}`);
    expect(itemIdsOf(threads, 'trace_id'), show(`${what}; A's shared thread`, threads)).toEqual([a.t.root]);
  }

  test('POST /runs and PATCH /runs/{id}: A’s project, A’s run as parent, A’s run to patch are unknown to B (404)', async () => {
    for (const prefix of PREFIXES) {
      const intoProject = await send(b, 'POST', `${prefix}/runs`, {
        name: 'x',
        run_type: 'chain',
        session_id: a.project.id,
        inputs: {},
      });
      expectStatus(intoProject, 404, `B: POST ${prefix}/runs with session_id of A's project`);
      const underParent = await send(b, 'POST', `${prefix}/runs`, {
        name: 'x',
        run_type: 'chain',
        parent_run_id: a.t.root,
        inputs: {},
      });
      expectStatus(underParent, 404, `B: POST ${prefix}/runs with parent_run_id of A's run`);
      const patch = await send(b, 'PATCH', `${prefix}/runs/${a.t.llm}`, { outputs: { hacked: true } });
      expectStatus(patch, 404, `B: PATCH ${prefix}/runs/{A's run} without trace_id`);
    }
    await expectAIntact('after B’s POST /runs and PATCH /runs/{id}');
  });

  test('POST /runs/multipart and /runs/batch: B’s patches of A’s runs, B’s children in A’s trace and B’s feedback on A’s run stay B’s', async () => {
    const aLlm = (await send(a, 'GET', `/runs/${a.t.llm}`)).body;
    const aTool = (await send(a, 'GET', `/runs/${a.t.tool}`)).body;
    const aRoot = {
      id: a.t.root,
      dotted_order: (await send(a, 'GET', `/runs/${a.t.root}`)).body.dotted_order as string,
    };
    const child = () =>
      runBody({
        id: uuidv7(),
        parent: aRoot,
        trace_id: a.t.root,
        name: 'intruder',
        run_type: 'llm',
        session_name: b.project.name,
        metadata: { thread_id: SHARED_THREAD },
        outputs: { usage_metadata: { input_tokens: 600, output_tokens: 400, total_tokens: 1000 } },
      });
    const viaMultipart = child();
    const res = await multipart(b.ws, [
      ...runParts([viaMultipart]),
      ...runParts(
        [
          {
            id: a.t.llm,
            trace_id: a.t.root,
            dotted_order: aLlm.dotted_order,
            outputs: { hacked: true },
            error: 'hacked',
          },
        ],
        'patch',
      ),
      feedbackPart({ run_id: a.t.root, trace_id: a.t.root, key: 'intruder', score: 0, session_id: a.project.id }),
      feedbackPart({ run_id: a.t.llm, key: 'intruder', score: 0 }),
      feedbackPart({ run_id: viaMultipart.id, trace_id: a.t.root, key: 'intruder', score: 1 }),
    ]);
    expectStatus(res, 202, 'B: POST /runs/multipart');
    const viaBatch = child();
    const batch = await send(b, 'POST', '/api/v1/runs/batch', {
      post: [viaBatch],
      patch: [
        { id: a.t.tool, trace_id: a.t.root, dotted_order: aTool.dotted_order, error: null, outputs: { fixed: true } },
      ],
    });
    expectStatus(batch, 202, 'B: POST /runs/batch');
    // B's runs (in A's trace id, in B's workspace) and B's own feedback are in place: what B sent
    // with them in the same requests (same trace key, so same partition) has been projected too.
    for (const id of [viaMultipart.id, viaBatch.id]) await waitForRun(b.ws.apiKey, id);
    await vi.waitFor(
      async () => {
        const fb = await send(b, 'POST', '/runs/query', { filter: 'eq(feedback_key, "intruder")', select: ['id'] });
        expect(runIdsOf(fb), show('B filters on its feedback', fb)).toEqual([viaMultipart.id]);
      },
      { timeout: 30_000, interval: 250 },
    );

    await expectAIntact('after B’s multipart and batch writes into A’s trace');
    // And B sees none of A's runs through its own trace of the same id.
    const bTrace = await send(b, 'POST', '/runs/query', { trace: a.t.root, select: ['id'] });
    expect(
      runIdsOf(bTrace).filter((id) => allRunsOf(a).includes(id) && id !== a.t.llm && id !== a.t.tool),
      show('B lists trace id of A', bTrace),
    ).toEqual([]);
    const bRoot = await send(b, 'GET', `/runs/${a.t.root}`);
    expectStatus(bRoot, 404, `B: GET /runs/{A's root} after posting children under it`);
    for (const id of [viaMultipart.id, viaBatch.id])
      expectStatus(await send(a, 'GET', `/runs/${id}`), 404, `A: GET /runs/{B's run in a trace of A's id}`);
  });

  test('POST /otel/v1/traces: B’s spans naming A’s project, A’s runs as parents or A’s run ids stay B’s', async () => {
    const aLlm = (await send(a, 'GET', `/runs/${a.t.llm}`)).body;
    const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
    const nanos = String(BigInt(Date.now()) * 1_000_000n);
    const otelSpan = (attributes: ReturnType<typeof attr>[]) => ({
      traceId: randomUUID().replaceAll('-', ''),
      spanId: randomUUID().slice(0, 18).replaceAll('-', ''),
      parentSpanId: 'ffffffffffffffff',
      name: 'intruder',
      startTimeUnixNano: nanos,
      endTimeUnixNano: nanos,
      attributes,
    });
    const otlp = (spans: unknown[]) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
    for (const prefix of PREFIXES) {
      const intoProject = await send(
        b,
        'POST',
        `${prefix}/otel/v1/traces`,
        otlp([otelSpan([attr('langsmith.trace.session_id', a.project.id)])]),
      );
      expectStatus(intoProject, 404, `B: POST ${prefix}/otel/v1/traces with langsmith.trace.session_id of A's project`);
    }
    const asALlm = otelSpan([
      attr('langsmith.span.id', a.t.llm),
      attr('langsmith.trace.id', a.t.root),
      attr('langsmith.span.parent_id', a.t.root),
      attr('langsmith.span.dotted_order', aLlm.dotted_order),
      attr('output.value', '{"hacked":true}'),
    ]);
    const underARoot = otelSpan([
      attr('langsmith.span.parent_id', a.t.root),
      attr('langsmith.trace.session_name', b.project.name),
      attr('langsmith.metadata.thread_id', SHARED_THREAD),
      attr('langsmith.span.kind', 'llm'),
      attr('gen_ai.usage.total_tokens', '1000'),
    ]);
    const res = await send(b, 'POST', '/otel/v1/traces', otlp([asALlm, underARoot]));
    expectStatus(res, 200, 'B: POST /otel/v1/traces with A’s run ids');
    expect(res.body, show('B: POST /otel/v1/traces', res)).toEqual({});
    const underId = `00000000-0000-0000-${underARoot.spanId.slice(0, 4)}-${underARoot.spanId.slice(4)}`;
    expect((await waitForRun(b.ws.apiKey, a.t.llm, (r) => r.outputs?.hacked === true)).session_id).not.toBe(
      a.project.id,
    );
    expect((await waitForRun(b.ws.apiKey, underId)).trace_id).not.toBe(a.t.root); // A's root is unknown to B: placed under B's own trace
    await expectAIntact('after B’s OTel spans naming A’s ids');
    expectStatus(await send(a, 'GET', `/runs/${underId}`), 404, `A: GET /runs/{B's OTel run}`);
  });

  test('POST /feedback: B’s feedback on A’s run, or with the id of A’s feedback, stays B’s; A’s project is unknown to B (404)', async () => {
    for (const prefix of PREFIXES) {
      const onProject = await send(b, 'POST', `${prefix}/feedback`, {
        session_id: a.project.id,
        key: 'intruder',
        score: 0,
      });
      expectStatus(onProject, 404, `B: POST ${prefix}/feedback with session_id of A's project`);
      const onRun = await send(b, 'POST', `${prefix}/feedback`, { run_id: a.t.root, key: 'intruder', score: 0 });
      expectStatus(onRun, 200, `B: POST ${prefix}/feedback on A's run`);
      expect(onRun.body.session_id, show('B: POST /feedback on A’s run', onRun)).not.toBe(a.project.id);
      const sameId = await send(b, 'POST', `${prefix}/feedback`, {
        id: a.feedback.llm,
        run_id: a.t.llm,
        key: 'intruder',
        score: 0,
      });
      expectStatus(sameId, 200, `B: POST ${prefix}/feedback with the id of A's feedback`);
    }
    const bItem = await send(b, 'GET', `/feedback/${a.feedback.llm}`);
    expect(bItem.body, show('B reads its item of A’s feedback id', bItem)).toMatchObject({ key: 'intruder', score: 0 });
    const aItem = await send(a, 'GET', `/feedback/${a.feedback.llm}`);
    expect(aItem.body, show('A reads its feedback', aItem)).toMatchObject({
      key: a.feedbackKey,
      score: 0.5,
      session_id: a.project.id,
    });
    // (B's reads above waited for the feedback projector: B's items are projected by now)
    await expectAIntact('after B’s POST /feedback naming A’s ids');
  });

  test('POST /feedback/tokens: B’s token on A’s run, with the id of A’s feedback, records B’s feedback', async () => {
    for (const prefix of PREFIXES) {
      const token = await send(b, 'POST', `${prefix}/feedback/tokens`, {
        run_id: a.t.llm,
        feedback_key: 'intruder',
        id: a.feedback.llm,
      });
      expectStatus(token, 200, `B: POST ${prefix}/feedback/tokens on A's run`);
      const used = await fetch(token.body.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ score: 0 }),
      });
      expect(used.status, `B's token used: ${token.body.url}`).toBe(200);
    }
    const aItem = await send(a, 'GET', `/feedback/${a.feedback.llm}`);
    expect(aItem.body, show('A reads its feedback', aItem)).toMatchObject({ key: a.feedbackKey, score: 0.5 });
    await expectAIntact('after B’s tokens naming A’s ids');
  });

  test('POST /sessions with the name of A’s project: B gets a project of its own', async () => {
    const same = await createProject(b.ws, { name: a.project.name });
    expectStatus(same, 200, 'B: POST /sessions with the name of A’s project');
    expect(same.body.id, show('B’s project of A’s name', same)).not.toBe(a.project.id);
    const aByName = await send(a, 'GET', `/sessions?name=${encodeURIComponent(a.project.name)}&include_stats=true`);
    expect(aByName.body, show('A reads its project by name', aByName)).toMatchObject([
      { id: a.project.id, run_count: 2 },
    ]);
    const bByName = await send(b, 'GET', `/sessions?name=${encodeURIComponent(a.project.name)}&include_stats=true`);
    expect(bByName.body, show('B reads its project by that name', bByName)).toMatchObject([
      { id: same.body.id, tenant_id: b.ws.id, run_count: 0 },
    ]);
    const bRuns = await send(b, 'POST', '/runs/query', { session: [same.body.id] });
    expect(bRuns.body.runs, show('B lists its project', bRuns)).toEqual([]);
  });

  test('POST /sessions with the id of A’s project: A’s project and data stay A’s, B’s project of that id shows none of it', async () => {
    const taken = await createProject(b.ws, { id: a.second.id, name: `iso-${RUN}-B-taken` });
    expect([200, 409], show('B: POST /sessions with the id of A’s project', taken)).toContain(taken.status);
    const aRead = await send(a, 'GET', `/sessions/${a.second.id}?include_stats=true`);
    expect(aRead.body, show('A reads its project', aRead)).toMatchObject({
      id: a.second.id,
      name: a.second.name,
      tenant_id: a.ws.id,
      run_count: 1,
      total_tokens: 10,
    });
    const aRuns = await send(a, 'POST', '/runs/query', { session: [a.second.id], is_root: true, select: ['id'] });
    expect(runIdsOf(aRuns), show('A lists the project', aRuns)).toEqual([a.second.root]);
    if (taken.status !== 200) return;

    // B now has a project with the same id: every read of it must show B's (empty) project only.
    const id = a.second.id;
    const checks: Array<[string, Promise<Res>, (res: Res) => unknown]> = [
      [
        'GET /sessions/{id}',
        send(b, 'GET', `/sessions/${id}?include_stats=true`),
        (r) => expect(r.body).toMatchObject({ name: `iso-${RUN}-B-taken`, tenant_id: b.ws.id, run_count: 0 }),
      ],
      [
        'GET /sessions?name=',
        send(b, 'GET', `/sessions?name=${encodeURIComponent(a.second.name)}`),
        (r) => expect(r.body).toEqual([]),
      ],
      ['POST /runs/query', send(b, 'POST', '/runs/query', { session: [id] }), (r) => expect(r.body.runs).toEqual([])],
      [
        'GET /sessions/{id}/stats',
        send(b, 'GET', `/sessions/${id}/stats`),
        (r) => expect(r.body).toMatchObject({ trace_count: 0, run_count: 0 }),
      ],
      [
        'POST /runs/stats',
        send(b, 'POST', '/runs/stats', { session: [id] }),
        (r) => expect(r.body).toMatchObject({ trace_count: 0, run_count: 0 }),
      ],
      [
        'POST /sessions/activity',
        send(b, 'POST', '/sessions/activity', { session: [id] }),
        (r) => expect(r.body.projects[0].trace_count.every((n: number) => n === 0)).toBe(true),
      ],
      [
        'POST /api/v2/runs/query',
        send(b, 'POST', '/api/v2/runs/query', { project_ids: [id] }),
        (r) => expect(r.body.items).toEqual([]),
      ],
      [
        'POST /api/v2/traces/query',
        send(b, 'POST', '/api/v2/traces/query', { project_id: id }),
        (r) => expect(r.body.items).toEqual([]),
      ],
      [
        'GET /api/v2/traces/{id}/runs',
        send(b, 'GET', `/api/v2/traces/${a.second.root}/runs?project_id=${id}`),
        (r) => expect(r.status).toBe(404),
      ],
      [
        'GET /api/v2/runs/{id}',
        send(b, 'GET', `/api/v2/runs/${a.second.root}?project_id=${id}`),
        (r) => expect(r.status).toBe(404),
      ],
      [
        'POST /api/v2/threads/query',
        send(b, 'POST', '/api/v2/threads/query', { project_id: id }),
        (r) => expect(r.body.items).toEqual([]),
      ],
      [
        'GET /api/v2/threads/{id}/traces',
        send(b, 'GET', `/api/v2/threads/iso-${RUN}-A-second/traces?project_id=${id}`),
        (r) => expect(r.status).toBe(404),
      ],
      [
        'GET /api/v2/threads/{id}/stats',
        send(b, 'GET', `/api/v2/threads/iso-${RUN}-A-second/stats?session_id=${id}`),
        (r) => expect(r.status).toBe(404),
      ],
    ];
    for (const [what, pending, check] of checks) {
      const res = await pending;
      expect(() => check(res), show(`B: ${what} of its project with A's project id`, res)).not.toThrow();
    }
  });

  test('multipart examples into A’s dataset (a new one, a change of A’s): 404, and A’s dataset as it was', async () => {
    for (const prefix of PREFIXES) {
      const path = `${platformOf(prefix)}/datasets/${a.dataset.id}/examples`;
      const id = randomUUID();
      const form = (exampleId: string, inputs: Record<string, unknown>) => {
        const body = new FormData();
        body.append(exampleId, new Blob([JSON.stringify({})], { type: 'application/json' }));
        body.append(`${exampleId}.inputs`, new Blob([JSON.stringify(inputs)], { type: 'application/json' }));
        return body;
      };
      for (const [method, body] of [
        ['POST', form(id, { by: 'B' })],
        ['PATCH', form(a.example, { by: 'B' })],
      ] as const) {
        const res = await fetch(`${tracingUrl()}${path}`, { method, headers: { 'x-api-key': b.ws.apiKey }, body });
        expect(res.status, `${method} ${path} by B: ${await res.text()}`).toBe(404);
      }
      const read = await send(a, 'GET', `/examples/${a.example}`);
      expect(read.body.inputs, show('A reads its example', read)).toEqual({ owner: 'A', n: 0 });
      expectStatus(await send(a, 'GET', `/examples/${id}`), 404, 'A reads the id B sent');
    }
  });

  test('POST /datasets with A’s dataset id and name, POST /feedback-configs with A’s key: B’s own; A’s unchanged', async () => {
    const dataset = await send(b, 'POST', '/datasets', { id: a.dataset.id, name: a.dataset.name, description: 'B' });
    expectStatus(dataset, 200, 'B creates a dataset with A’s id and name');
    expect(dataset.body, show('B’s dataset', dataset)).toMatchObject({ id: a.dataset.id, tenant_id: b.ws.id });
    const config = await send(b, 'POST', '/feedback-configs', {
      feedback_key: a.configKey,
      feedback_config: { type: 'freeform' },
    });
    expectStatus(config, 200, 'B creates a config of A’s key');
    expect(config.body.id, show('B’s config', config)).not.toBe(a.config);
    const aDataset = await send(a, 'GET', `/datasets/${a.dataset.id}`);
    expect(aDataset.body, show('A reads its dataset', aDataset)).toMatchObject({
      tenant_id: a.ws.id,
      name: a.dataset.name,
    });
    expect(aDataset.body.description ?? '', show('A reads its dataset', aDataset)).not.toBe('B');
    const aConfig = await send(a, 'GET', `/feedback-configs?key=${a.configKey}`);
    expect(idsOf(aConfig.body), show('A lists its config', aConfig)).toEqual([a.config]);
    expect(aConfig.body[0].feedback_config.type, show('A lists its config', aConfig)).toBe('continuous');
  });
});
