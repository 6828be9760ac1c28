// The trace explorer (apps/explorer/, served by the tracing API under /ui/) in a real browser,
// on traces sent by the official `langsmith` client: / opens the sign-in, the project shows its
// run count, its traces table lists the root runs, a filter narrows it and a bad filter shows
// the API's message, a trace shows its runs in tree order and a run's inputs, and the link
// `client.getRunUrl()` prints opens that run; a key of several workspaces switches between them
// (GET /workspaces), an empty one saying how to send traces. Each step leaves a screenshot in
// test-output/explorer/basics/ (git-ignored).
import { join } from 'node:path';
import { Client } from 'langsmith';
import { getCurrentRunTree, traceable } from 'langsmith/traceable';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startExplorerBrowser, waitForTraceCount, type ExplorerBrowser } from '../../support/explorer.ts';
import { repoRoot } from '../../support/serviceProcess.ts';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../support/tracingClient.ts';

const QUESTION = 'What is the capital of France?';

let noBrowser: string | null = null;
let explorer: ExplorerBrowser | undefined;
let workspace: Workspace;
let client: Client;
const projectName = `explorer-${Date.now()}`;
/** The pipeline trace's run ids, by name. */
const ids: Record<string, string> = {};

/** Three traces: a pipeline of four runs (tag alpha), a summary (tag beta), and one that fails. */
async function seedTraces(): Promise<void> {
  const options = { client, project_name: projectName, tracingEnabled: true };
  const record =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const run = getCurrentRunTree();
      ids[run.name] = run.id;
      return fn(...args);
    };
  // Its usage, as a chat model reports it: the project's and the run's tokens.
  const llm = traceable(
    record(async (prompt: string) => ({
      content: `Paris (${prompt.length} chars of prompt)`,
      usage_metadata: { input_tokens: 12, output_tokens: 5, total_tokens: 17 },
    })),
    { ...options, name: 'llm', run_type: 'llm' },
  );
  const retrieve = traceable(
    record(async (_q: string) => ['doc-france', 'doc-capitals']),
    { ...options, name: 'retrieve', run_type: 'retriever' },
  );
  const generate = traceable(
    record(async (q: string, docs: string[]) => llm(`${q} using ${docs.join(', ')}`)),
    { ...options, name: 'generate' },
  );
  const pipeline = traceable(
    record(async (question: string) => generate(question, await retrieve(question))),
    { ...options, name: 'pipeline', tags: ['alpha'], metadata: { env: 'test' } },
  );
  const summarize = traceable(async (text: string) => text.slice(0, 10), {
    ...options,
    name: 'summarize',
    tags: ['beta'],
  });
  const flaky = traceable(
    async (_x: number) => {
      throw new Error('upstream timed out');
    },
    { ...options, name: 'flaky' },
  );
  await pipeline(QUESTION);
  await summarize('A long text to summarize');
  await flaky(1).catch(() => undefined);
  await client.awaitPendingTraceBatches();
}

beforeAll(async () => {
  const started = await startExplorerBrowser('basics');
  if (typeof started === 'string') {
    noBrowser = started;
    return;
  }
  explorer = started;
  [workspace] = (await createWorkspaces(1)) as [Workspace];
  client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: workspace.apiKey, webUrl: tracingUrl() });
  await seedTraces();
  await waitForTraceCount(workspace.apiKey, projectName, 3);
}, 20 * 60_000);

afterAll(async () => {
  await explorer?.close();
});

const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(repoRoot, 'test-output', 'explorer', 'basics', `${name}.png`) });

describe('the explorer page routes', () => {
  test('/ redirects to /ui/, the page and its assets are served under /ui/, a client run link redirects to the run', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const get = (path: string) => fetch(tracingUrl() + path, { redirect: 'manual' });
    const root = await get('/');
    expect([root.status, root.headers.get('location')]).toEqual([302, '/ui/']);
    const deep = await get('/ui/projects/whatever?filter=x');
    expect(deep.status).toBe(200);
    const html = await deep.text();
    expect(html).toContain('<title>Trace explorer</title>');
    const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    const asset = await get(script!);
    expect([asset.status, asset.headers.get('content-type')]).toEqual([200, expect.stringContaining('javascript')]);
    const runId = ids.generate!;
    const link = await get(`/o/${workspace.id}/projects/p/00000000-0000-4000-8000-000000000001/r/${runId}?poll=true`);
    expect([link.status, link.headers.get('location')]).toEqual([
      302,
      `/ui/projects/00000000-0000-4000-8000-000000000001/runs/${runId}?workspace=${workspace.id}`,
    ]);
    expect((await get(`/o/not-a-uuid/projects/p/x/r/y`)).status).toBe(422);
    // Not in the API's document: pages, not operations.
    const doc = (await (await get('/docs/json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => p === '/' || p.startsWith('/ui') || p.startsWith('/o/'))).toEqual([]);
  });
});

describe('the explorer in a browser', () => {
  test('sign in, a project with its run count, its traces, a filter, a trace tree with a run, a client run link', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const page = await explorer!.browser.newPage({ viewport: { width: 1280, height: 800 } });
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));

    // 1. / opens the sign-in.
    await page.goto(tracingUrl() + '/');
    expect(new URL(page.url()).pathname).toBe('/ui/');
    await page.getByTestId('sign-in').waitFor();
    await shot(page, '01-sign-in');

    // 2. Signed in: the project, with its three traces.
    await page.getByTestId('api-key').fill(workspace.apiKey);
    await page.getByTestId('sign-in-submit').click();
    const row = page.locator('[data-testid="project-row"]', { hasText: projectName });
    await row.waitFor();
    await expect.poll(() => row.getByTestId('project-run-count').textContent()).toBe('3'); // statistics fill in after the list
    expect(await row.getByTestId('project-tokens').textContent()).toBe('17');
    await shot(page, '02-projects');

    // 3. The project's traces, newest first.
    await row.getByTestId('project-link').click();
    await expect.poll(() => page.getByTestId('trace-row').count()).toBe(3);
    // Newest first: the pipeline ran before the other two (which may share a millisecond).
    const names = await page.getByTestId('trace-link').allTextContents();
    expect([names.slice(0, 2).sort(), names[2]]).toEqual([['flaky', 'summarize'], 'pipeline']);
    await shot(page, '03-traces');

    // 4. A filter narrows the table (and is in the URL); a bad one shows the API's message.
    await page.getByTestId('filter-input').fill('has(tags, "beta")');
    await page.getByTestId('filter-apply').click();
    await expect.poll(() => page.getByTestId('trace-link').allTextContents()).toEqual(['summarize']);
    expect(new URL(page.url()).searchParams.get('filter')).toBe('has(tags, "beta")');
    await shot(page, '04-filtered');
    await page.getByTestId('filter-input').fill('eq(name,');
    await page.getByTestId('filter-apply').click();
    await page.getByTestId('filter-error').waitFor();
    const badFilter = await api('/api/v2/traces/query', {
      apiKey: workspace.apiKey,
      method: 'POST',
      json: { project_id: await projectIdOf(projectName), trace_filter: 'eq(name,' },
    });
    expect(badFilter.body.error).toBe('INVALID_FILTER');
    expect(await page.getByTestId('filter-error').textContent()).toBe(badFilter.body.detail);
    await shot(page, '05-bad-filter');

    // 5. A trace: its runs in tree order, a run's inputs.
    await page.getByTestId('filter-input').fill('');
    await page.getByTestId('filter-apply').click();
    await page.locator('[data-testid="trace-link"]', { hasText: 'pipeline' }).click();
    await expect.poll(() => page.getByTestId('tree-run').count()).toBe(4);
    expect(await page.locator('[data-testid="tree-run"] .run-name').allTextContents()).toEqual([
      'pipeline',
      'retrieve',
      'generate',
      'llm',
    ]);
    await page.locator(`[data-testid="tree-run"][data-run-id="${ids.retrieve}"]`).click();
    await expect.poll(() => page.getByTestId('run-detail').getAttribute('data-run-id')).toBe(ids.retrieve);
    expect(await page.getByTestId('run-inputs').textContent()).toContain(QUESTION);
    expect(new URL(page.url()).searchParams.get('run')).toBe(ids.retrieve);
    await shot(page, '06-trace');
    // The keyboard moves through the tree: j to the next run, k back.
    await page.keyboard.press('j');
    await expect.poll(() => page.getByTestId('run-detail').getAttribute('data-run-id')).toBe(ids.generate);
    await page.keyboard.press('k');
    await expect.poll(() => page.getByTestId('run-detail').getAttribute('data-run-id')).toBe(ids.retrieve);

    // 6. The link the client prints opens that run in its trace.
    const runUrl = await client.getRunUrl({ runId: ids.generate! });
    expect(runUrl.startsWith(tracingUrl() + '/o/')).toBe(true);
    // The clients' newer call (client.runs.getURL, GET /api/v2/runs/{id}/url) gives the same link.
    const v2 = await client.runs.getURL(ids.generate!, {
      project_id: await projectIdOf(projectName),
      trace_id: ids.pipeline!,
    });
    expect(new URL((v2 as { url: string }).url).pathname).toBe(new URL(runUrl).pathname);
    await page.goto(runUrl);
    await expect.poll(() => page.getByTestId('run-detail').getAttribute('data-run-id')).toBe(ids.generate);
    expect(new URL(page.url()).pathname).toBe(`/ui/projects/${await projectIdOf(projectName)}/traces/${ids.pipeline}`);
    expect(await page.getByTestId('run-detail-name').textContent()).toBe('generate');
    await page.locator(`[data-testid="tree-run"][data-run-id="${ids.llm}"]`).click();
    await expect.poll(() => page.getByTestId('run-tokens').textContent()).toBe('17 (12 prompt, 5 completion)');
    await page.locator(`[data-testid="tree-run"][data-run-id="${ids.generate}"]`).click();
    await expect.poll(() => page.getByTestId('run-detail').getAttribute('data-run-id')).toBe(ids.generate);
    await shot(page, '07-run-link');

    // 7. Sign-out forgets the key.
    await page.getByTestId('sign-out').click();
    await page.getByTestId('sign-in').waitFor();
    expect(await page.evaluate('localStorage.getItem("explorer.apiKey")')).toBeNull();
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe('a key of several workspaces', () => {
  test('signs in to the first, shows the empty state there, and switches to the other with its project', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const [first, second] = (await createWorkspaces(2, { shareKey: true })) as [Workspace, Workspace];
    const name = `explorer-second-${Date.now()}`;
    const created = await api('/sessions', {
      method: 'POST',
      apiKey: second.apiKey,
      headers: { 'x-tenant-id': second.id },
      json: { name },
    });
    expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
    const page = await explorer!.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(tracingUrl() + '/ui/');
    await page.getByTestId('api-key').fill(first.apiKey);
    await page.getByTestId('sign-in-submit').click();
    await page.getByTestId('projects-empty').waitFor();
    expect(await page.getByTestId('projects-empty').textContent()).toContain(`LANGSMITH_ENDPOINT=${tracingUrl()}`);
    const select = page.getByTestId('workspace-select');
    expect(await select.inputValue()).toBe(first.id);
    expect(
      await select
        .locator('option')
        .evaluateAll((options) => options.map((o) => (o as unknown as { value: string }).value)),
    ).toEqual([first.id, second.id]);
    await shot(page, '08-empty-workspace');
    await select.selectOption(second.id);
    await page.locator('[data-testid="project-row"]', { hasText: name }).waitFor();
    expect(await page.getByTestId('project-row').count()).toBe(1);
    await shot(page, '09-switched-workspace');
    await page.close();
  });
});

describe('paging', () => {
  test('27 traces: a first page of 25, Older shows the last 2 (the cursor in the URL), Newer goes back', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const name = `explorer-paged-${Date.now()}`;
    const step = traceable(async (i: number) => i, { client, project_name: name, tracingEnabled: true, name: 'step' });
    for (let i = 0; i < 27; i++) await step(i);
    await client.awaitPendingTraceBatches();
    await waitForTraceCount(workspace.apiKey, name, 27);
    const page = await explorer!.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(tracingUrl() + '/ui/');
    await page.getByTestId('api-key').fill(workspace.apiKey);
    await page.getByTestId('sign-in-submit').click();
    await page.locator('[data-testid="project-link"]', { hasText: name }).click();
    await expect.poll(() => page.getByTestId('trace-row').count()).toBe(25);
    const firstPage = await page
      .getByTestId('trace-row')
      .evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { runId: string } }).dataset.runId));
    expect(await page.getByTestId('page-newer').isDisabled()).toBe(true);
    await page.getByTestId('page-older').click();
    await expect.poll(() => page.getByTestId('trace-row').count()).toBe(2);
    expect(new URL(page.url()).searchParams.get('cursor')).toBeTruthy();
    const secondPage = await page
      .getByTestId('trace-row')
      .evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { runId: string } }).dataset.runId));
    expect(new Set([...firstPage, ...secondPage]).size).toBe(27);
    expect(await page.getByTestId('page-older').isDisabled()).toBe(true);
    await shot(page, '10-second-page');
    await page.getByTestId('page-newer').click();
    await expect.poll(() => page.getByTestId('trace-row').count()).toBe(25);
    expect(new URL(page.url()).searchParams.get('cursor')).toBeNull();
    await page.close();
  });
});

async function projectIdOf(name: string): Promise<string> {
  const res = await api(`/sessions?name=${name}`, { apiKey: workspace.apiKey });
  return res.body[0].id;
}
