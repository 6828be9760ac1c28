// The explorer's projects page in a real browser, on traces sent by the official `langsmith`
// client: a project's numbers and its activity sparkline (one POST /sessions/activity for the
// list), the list shown before its statistics arrive, and a project created, renamed and
// deleted (after a confirmation naming it) through the page, each reflected in the list and in
// the API; a taken name shows the API's 409 in words. Screenshots in test-output/explorer/projects/.
import { Client } from 'langsmith';
import { traceable } from 'langsmith/traceable';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startExplorerBrowser, waitForTraceCount, type ExplorerBrowser } from '../../support/explorer.ts';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../support/tracingClient.ts';

let noBrowser: string | null = null;
let explorer: ExplorerBrowser | undefined;
let workspace: Workspace;
let projectId: string;
const projectName = `projects-page-${Date.now()}`;

beforeAll(async () => {
  const started = await startExplorerBrowser('projects');
  if (typeof started === 'string') {
    noBrowser = started;
    return;
  }
  explorer = started;
  [workspace] = (await createWorkspaces(1)) as [Workspace];
  const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: workspace.apiKey });
  const options = { client, project_name: projectName, tracingEnabled: true };
  const answer = traceable(
    async (q: string) => ({
      content: `echo ${q}`,
      usage_metadata: { input_tokens: 8, output_tokens: 4, total_tokens: 12 },
    }),
    {
      ...options,
      name: 'answer',
      run_type: 'llm',
    },
  );
  const fail = traceable(
    async (_q: string) => {
      throw new Error('no answer');
    },
    { ...options, name: 'fail' },
  );
  await answer('one');
  await answer('two');
  await fail('three').catch(() => undefined);
  await client.awaitPendingTraceBatches();
  projectId = await waitForTraceCount(workspace.apiKey, projectName, 3);
}, 20 * 60_000);

afterAll(async () => {
  await explorer?.close();
});

describe('the projects page', () => {
  test("a project's numbers and its activity sparkline; the list first, its statistics after", async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, '/ui/', {});
    // Hold the statistics back until the list is on the page: the list must not wait for them.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/sessions?include_stats=true*', async (route) => {
      await held;
      await route.continue();
    });
    await page.reload();
    const row = page.locator(`[data-testid="project-row"][data-project-id="${projectId}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-stats')).toBe('pending');
    expect(await row.getByTestId('project-run-count').textContent()).toBe('…');
    await shot('01-list-before-stats');
    release();
    await expect.poll(() => row.getAttribute('data-stats')).toBe('loaded');

    const stats = (await api(`/sessions/${projectId}?include_stats=true`, { apiKey: workspace.apiKey })).body;
    expect(stats.run_count).toBe(3);
    expect(await row.getByTestId('project-run-count').textContent()).toBe('3');
    expect(await row.getByTestId('project-tokens').textContent()).toBe('24');
    expect(await row.getByTestId('project-error-rate').textContent()).toBe(`${(stats.error_rate * 100).toFixed(1)}%`);

    // The sparkline: the three traces, drawn as bars (one request for the whole list).
    const sparkline = row.getByTestId('sparkline');
    await expect.poll(() => sparkline.getAttribute('data-total')).toBe('3');
    expect(await sparkline.locator('rect.sparkline-bar').count()).toBeGreaterThan(0);
    expect(await sparkline.locator('rect.sparkline-error').count()).toBe(1);
    const activity = await api('/sessions/activity', {
      method: 'POST',
      apiKey: workspace.apiKey,
      json: { session: [projectId], bucket: '6h' },
    });
    expect(activity.body.projects[0].trace_count.reduce((a: number, b: number) => a + b, 0)).toBe(3);
    await shot('02-projects');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('create, rename and delete a project through the page; a taken name is a 409 in words', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(workspace.apiKey);
    await page.locator(`[data-testid="project-row"][data-project-id="${projectId}"]`).waitFor();
    const byName = async (name: string) =>
      (await api(`/sessions?name=${encodeURIComponent(name)}`, { apiKey: workspace.apiKey })).body as {
        id: string;
        name: string;
      }[];

    // Create.
    const created = `created-${Date.now()}`;
    await page.getByTestId('project-new').click();
    await page.getByTestId('project-name-input').fill(created);
    await page.getByTestId('project-description-input').fill('made in the browser');
    await shot('03-create-dialog');
    await page.getByTestId('dialog-confirm').click();
    const createdRow = page.locator('[data-testid="project-row"]', { has: page.getByText(created, { exact: true }) });
    await createdRow.waitFor();
    expect(await page.getByTestId('dialog').count()).toBe(0);
    const [inApi] = await byName(created);
    expect(inApi?.name).toBe(created);
    expect(await createdRow.getAttribute('data-project-id')).toBe(inApi!.id);
    // A new project has no traces: an empty sparkline.
    await expect.poll(() => createdRow.getByTestId('sparkline').getAttribute('data-total')).toBe('0');

    // A taken name: the API's 409, in words, in the dialog.
    await page.getByTestId('project-new').click();
    await page.getByTestId('project-name-input').fill(projectName);
    await page.getByTestId('dialog-confirm').click();
    const error = page.getByTestId('dialog').getByTestId('error');
    await error.waitFor();
    expect(await error.textContent()).toContain(`a project named "${projectName}" already exists`);
    expect(await error.textContent()).toContain('CONFLICT');
    await shot('04-duplicate-name');
    await page.getByTestId('dialog-cancel').click();

    // Rename.
    const renamed = `${created}-renamed`;
    await createdRow.getByTestId('project-rename').click();
    expect(await page.getByTestId('project-name-input').inputValue()).toBe(created);
    await page.getByTestId('project-name-input').fill(renamed);
    await page.getByTestId('dialog-confirm').click();
    const renamedRow = page.locator(`[data-testid="project-row"][data-project-id="${inApi!.id}"]`);
    await expect.poll(() => renamedRow.getByTestId('project-link').textContent()).toBe(renamed);
    expect((await api(`/sessions/${inApi!.id}`, { apiKey: workspace.apiKey })).body.name).toBe(renamed);

    // Delete: the confirmation names the project; Cancel keeps it, Delete removes it.
    await renamedRow.getByTestId('project-delete').click();
    expect(await page.getByTestId('delete-question').textContent()).toContain(`Delete the project ${renamed}?`);
    await shot('05-delete-confirmation');
    await page.getByTestId('dialog-cancel').click();
    expect(await renamedRow.count()).toBe(1);
    await renamedRow.getByTestId('project-delete').click();
    await page.getByTestId('dialog-confirm').click();
    await expect.poll(() => renamedRow.count()).toBe(0);
    expect((await api(`/sessions/${inApi!.id}`, { apiKey: workspace.apiKey })).status).toBe(404);
    // The other project stays listed (polled: the list is read again after the delete).
    await expect
      .poll(() => page.locator(`[data-testid="project-row"][data-project-id="${projectId}"]`).count())
      .toBe(1);

    // Search by name narrows the list, in the URL.
    await page.getByTestId('project-search').fill('no-such-project');
    await page.getByTestId('projects-no-match').waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('no-such-project');
    await shot('06-no-match');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('more than a hundred projects: a hundred at a time with Show more, and a search finds one beyond the first hundred', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const [many] = (await createWorkspaces(1)) as [Workspace];
    // Created oldest first: the list is newest first, so "project-000" is the last one listed.
    const names = Array.from({ length: 105 }, (_, i) => `project-${String(i).padStart(3, '0')}`);
    for (const name of names) {
      const res = await api('/sessions', { method: 'POST', apiKey: many.apiKey, json: { name } });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    }
    const { page, problems, shot } = await explorer!.open(many.apiKey);
    await expect.poll(() => page.getByTestId('project-row').count()).toBe(100);
    expect(await page.getByTestId('project-link').first().textContent()).toBe('project-104');
    await page.getByTestId('projects-more').click();
    await expect.poll(() => page.getByTestId('project-row').count()).toBe(105);
    expect(await page.getByTestId('project-link').last().textContent()).toBe('project-000');
    expect(await page.getByTestId('projects-more').count()).toBe(0);
    await shot('07-show-more');
    // The search is the API's (name_contains), so it reaches projects not read yet.
    await page.reload();
    await expect.poll(() => page.getByTestId('project-row').count()).toBe(100);
    await page.getByTestId('project-search').fill('PROJECT-00');
    await expect.poll(() => page.getByTestId('project-link').allTextContents()).toEqual(names.slice(0, 10).reverse());
    expect(problems).toEqual([]);
    await page.close();
  });
});
