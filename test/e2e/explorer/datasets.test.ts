// The explorer's datasets page in a real browser: datasets made with the official `langsmith`
// client listed with their type and experiments; a dataset created, edited and deleted (after a
// confirmation naming it) through the page, each reflected in the API; a taken name shows the
// API's 409 in words; an empty workspace says how to make one; more than a hundred datasets a
// hundred at a time. Screenshots in test-output/explorer/datasets/.
import { Client } from 'langsmith';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startExplorerBrowser, type ExplorerBrowser } from '../../support/explorer.ts';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../support/tracingClient.ts';

let noBrowser: string | null = null;
let explorer: ExplorerBrowser | undefined;
let workspace: Workspace;
let datasetId: string;
const datasetName = `datasets-page-${Date.now()}`;

beforeAll(async () => {
  const started = await startExplorerBrowser('datasets');
  if (typeof started === 'string') {
    noBrowser = started;
    return;
  }
  explorer = started;
  [workspace] = (await createWorkspaces(1)) as [Workspace];
  const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: workspace.apiKey });
  const dataset = await client.createDataset(datasetName, {
    description: 'questions about the docs',
    dataType: 'chat',
  });
  datasetId = dataset.id;
  for (const suffix of ['baseline', 'candidate'])
    await client.createProject({ projectName: `${datasetName}-${suffix}`, referenceDatasetId: datasetId });
}, 20 * 60_000);

afterAll(async () => {
  await explorer?.close();
});

const row = (page: import('playwright-core').Page, id: string) =>
  page.locator(`[data-testid="dataset-row"][data-dataset-id="${id}"]`);

describe('the datasets page', () => {
  test("a workspace's datasets with their type and experiments, reached from the top bar", async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, '/ui/');
    await page.getByTestId('nav-datasets').click();
    expect(new URL(page.url()).pathname).toBe('/ui/datasets');
    const r = row(page, datasetId);
    await r.waitFor();
    expect(await r.getByTestId('dataset-name').textContent()).toBe(datasetName);
    expect(await r.textContent()).toContain('questions about the docs');
    expect(await r.getByTestId('dataset-type').textContent()).toBe('Chat');
    expect(await r.getByTestId('dataset-examples').textContent()).toBe('0');
    expect(await r.getByTestId('dataset-experiments').textContent()).toBe('2');
    await shot('01-datasets');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('create, edit and delete a dataset through the page; a taken name is a 409 in words', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, '/ui/datasets');
    await row(page, datasetId).waitFor();
    const byName = async (name: string) =>
      (await api(`/datasets?name=${encodeURIComponent(name)}`, { apiKey: workspace.apiKey })).body as Array<{
        id: string;
        name: string;
        description: string | null;
        data_type: string;
      }>;

    const created = `created-${Date.now()}`;
    await page.getByTestId('dataset-new').click();
    await page.getByTestId('dataset-name-input').fill(created);
    await page.getByTestId('dataset-description-input').fill('made in the browser');
    await page.getByTestId('dataset-type-input').selectOption('llm');
    await shot('02-create-dialog');
    await page.getByTestId('dialog-confirm').click();
    const createdRow = page.locator('[data-testid="dataset-row"]', { has: page.getByText(created, { exact: true }) });
    await createdRow.waitFor();
    expect(await page.getByTestId('dialog').count()).toBe(0);
    const [inApi] = await byName(created);
    expect(inApi).toMatchObject({ name: created, description: 'made in the browser', data_type: 'llm' });
    expect(await createdRow.getAttribute('data-dataset-id')).toBe(inApi!.id);
    expect(await createdRow.getByTestId('dataset-type').textContent()).toBe('LLM');

    // A taken name: the API's 409, in words, in the dialog.
    await page.getByTestId('dataset-new').click();
    await page.getByTestId('dataset-name-input').fill(datasetName);
    await page.getByTestId('dialog-confirm').click();
    const error = page.getByTestId('dialog').getByTestId('error');
    await error.waitFor();
    expect(await error.textContent()).toContain(`a dataset named "${datasetName}" already exists`);
    await shot('03-duplicate-name');
    await page.getByTestId('dialog-cancel').click();

    // Edit the name and description.
    const renamed = `${created}-renamed`;
    await createdRow.getByTestId('dataset-edit').click();
    expect(await page.getByTestId('dataset-name-input').inputValue()).toBe(created);
    await page.getByTestId('dataset-name-input').fill(renamed);
    await page.getByTestId('dataset-description-input').fill('edited');
    await page.getByTestId('dialog-confirm').click();
    const editedRow = row(page, inApi!.id);
    await expect.poll(() => editedRow.getByTestId('dataset-name').textContent()).toBe(renamed);
    expect((await api(`/datasets/${inApi!.id}`, { apiKey: workspace.apiKey })).body).toMatchObject({
      name: renamed,
      description: 'edited',
    });

    // Delete: the confirmation names the dataset; Cancel keeps it, Delete removes it.
    await editedRow.getByTestId('dataset-delete').click();
    expect(await page.getByTestId('delete-question').textContent()).toContain(`Delete the dataset ${renamed}?`);
    await shot('04-delete-confirmation');
    await page.getByTestId('dialog-cancel').click();
    expect(await editedRow.count()).toBe(1);
    await editedRow.getByTestId('dataset-delete').click();
    await page.getByTestId('dialog-confirm').click();
    await expect.poll(() => editedRow.count()).toBe(0);
    expect((await api(`/datasets/${inApi!.id}`, { apiKey: workspace.apiKey })).status).toBe(404);
    await expect.poll(() => row(page, datasetId).count()).toBe(1);

    // Search by name narrows the list, in the URL.
    await page.getByTestId('dataset-search').fill('no-such-dataset');
    await page.getByTestId('datasets-no-match').waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('no-such-dataset');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('an empty workspace says how to make a dataset; past a hundred, Show more', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const [many] = (await createWorkspaces(1)) as [Workspace];
    const { page, problems, shot } = await explorer!.open(many.apiKey, '/ui/datasets');
    await page.getByTestId('datasets-empty').waitFor();
    expect(await page.getByTestId('datasets-empty').textContent()).toContain('createDataset');
    await shot('05-empty');

    // Created oldest first: the list is newest first, so "dataset-000" is the last one listed.
    const names = Array.from({ length: 105 }, (_, i) => `dataset-${String(i).padStart(3, '0')}`);
    for (const name of names) {
      const res = await api('/datasets', { method: 'POST', apiKey: many.apiKey, json: { name } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    await page.reload();
    await expect.poll(() => page.getByTestId('dataset-row').count()).toBe(100);
    expect(await page.getByTestId('dataset-name').first().textContent()).toBe('dataset-104');
    await page.getByTestId('datasets-more').click();
    await expect.poll(() => page.getByTestId('dataset-row').count()).toBe(105);
    expect(await page.getByTestId('dataset-name').last().textContent()).toBe('dataset-000');
    expect(await page.getByTestId('datasets-more').count()).toBe(0);
    await shot('06-show-more');
    // The search is the API's (name_contains), so it reaches datasets not read yet.
    await page.reload();
    await expect.poll(() => page.getByTestId('dataset-row').count()).toBe(100);
    await page.getByTestId('dataset-search').fill('DATASET-00');
    await expect.poll(() => page.getByTestId('dataset-name').allTextContents()).toEqual(names.slice(0, 10).reverse());
    expect(problems).toEqual([]);
    await page.close();
  });
});
