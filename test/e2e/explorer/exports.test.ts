// The explorer's bulk-exports page (apps/explorer/exports/) in a real browser, on the shared stack
// (its export worker runs due windows at once): runs traced by the official `langsmith` client,
// a destination made from the page's form in a bucket of the test's MinIO with a user of its own
// (a refused key first: the API's words on the page), its secret never in the page's HTML (typed,
// sent, listed); a one-time export made from the page reaching Completed with its progress and
// its run's rows; a scheduled export showing its schedule, then cancelled. A dataset's version
// exported (another workspace: a dataset of five examples whose first three are tagged v1): from
// the dataset page's "Export as Parquet" at v1 (the form preset to it; an unknown tag's 404 in the
// form), and from the exports page's form (the dataset searched for, Latest), both to Completed
// with their rows, listed with the dataset's name linking to it at the version exported.
// Screenshots in test-output/explorer/exports/.
import { randomBytes } from 'node:crypto';
import { Client } from 'langsmith';
import { traceable } from 'langsmith/traceable';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, test, vi } from 'vitest';
import { createUserWithPolicy, removeUser } from '../../../infra/minioAdmin.ts';
import { createBucket, destinationBody, listKeys } from '../../support/bulkExportClient.ts';
import { startExplorerBrowser, waitForTraceCount, type ExplorerBrowser } from '../../support/explorer.ts';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../support/tracingClient.ts';

const RUN = randomBytes(3).toString('hex');
const BUCKET = `explorer-exports-${RUN}`;
const ACCESS_KEY = `explorer-${RUN}`;
const SECRET = `s3cret-${randomBytes(12).toString('hex')}`;
const TRACES = 3;

let noBrowser: string | null = null;
let explorer: ExplorerBrowser | undefined;
let workspace: Workspace;
const projectName = `explorer-exports-${Date.now()}`;
/** The workspace of the dataset exports, its dataset (five examples, the first three tagged v1) and a decoy. */
let datasetWorkspace: Workspace;
let datasetId: string;
const datasetName = `exported-dataset-${RUN}`;

async function call(apiKey: string, path: string, init: RequestInit & { json?: unknown } = {}): Promise<any> {
  const res = await api(path, { ...init, apiKey });
  expect(res.status, `${init.method ?? 'GET'} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

/** The dataset, its versions and the decoy, written through the API; v1 tags the first three examples. */
async function seedDataset(apiKey: string): Promise<void> {
  await call(apiKey, '/datasets', { method: 'POST', json: { name: `decoy-${RUN}` } });
  datasetId = (await call(apiKey, '/datasets', { method: 'POST', json: { name: datasetName } })).id;
  const example = (i: number) => ({
    dataset_id: datasetId,
    inputs: { question: `q${i}` },
    outputs: { answer: `a${i}` },
  });
  await call(apiKey, '/examples/bulk', { method: 'POST', json: [0, 1, 2].map(example) });
  const v1 = await vi.waitFor(
    async () => {
      const versions = await call(apiKey, `/datasets/${datasetId}/versions`);
      expect(versions).toHaveLength(1);
      return versions[0].as_of as string;
    },
    { timeout: 30_000, interval: 250 },
  );
  await call(apiKey, `/datasets/${datasetId}/tags`, { method: 'PUT', json: { as_of: v1, tag: 'v1' } });
  await call(apiKey, '/examples/bulk', { method: 'POST', json: [3, 4].map(example) });
  await call(apiKey, '/bulk-exports/destinations', {
    method: 'POST',
    json: { ...destinationBody(BUCKET, 'datasets'), display_name: 'dataset lake' },
  });
}

beforeAll(async () => {
  const started = await startExplorerBrowser('exports');
  if (typeof started === 'string') {
    noBrowser = started;
    return;
  }
  explorer = started;
  [workspace, datasetWorkspace] = (await createWorkspaces(2)) as [Workspace, Workspace];
  await createBucket(BUCKET);
  await seedDataset(datasetWorkspace.apiKey);
  await createUserWithPolicy(ACCESS_KEY, SECRET, {
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
        Resource: [`arn:aws:s3:::${BUCKET}/*`],
      },
    ],
  });
  const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: workspace.apiKey });
  const answer = traceable(async (question: string) => `answer to ${question}`, {
    client,
    project_name: projectName,
    tracingEnabled: true,
    name: 'answer',
  });
  for (let i = 0; i < TRACES; i++) await answer(`question ${i}`);
  await client.awaitPendingTraceBatches();
  const projectId = await waitForTraceCount(workspace.apiKey, projectName, TRACES);
  // The rows the export reads: every run in the runs read model.
  await vi.waitFor(
    async () => {
      const res = await api('/runs/query', {
        method: 'POST',
        apiKey: workspace.apiKey,
        json: { session: [projectId], limit: 100 },
      });
      expect(res.body?.runs?.length, JSON.stringify(res.body).slice(0, 300)).toBe(TRACES);
    },
    { timeout: 60_000, interval: 500 },
  );
}, 10 * 60_000);

afterAll(async () => {
  await explorer?.close();
  await removeUser(ACCESS_KEY).catch(() => {});
});

/** A datetime-local value (to the second) in the page's own time zone, `offsetMs` from now. */
const localTime = (page: Page, offsetMs: number) =>
  page.evaluate((offset) => {
    const ms = Math.floor((Date.now() + offset) / 1000) * 1000;
    return new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
  }, offsetMs);

describe('the bulk-exports page', () => {
  test('a destination from the form (secret never in the page), a one-time export to Completed with its progress, a scheduled one with its schedule, cancelled', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, '/ui/exports');

    // 1. Nothing yet: both empty states say what to do next; no export without a destination.
    await page.getByTestId('exports-empty').waitFor();
    expect(await page.getByTestId('exports-empty').textContent()).toContain('Create a destination below');
    expect(await page.getByTestId('destinations-empty').textContent()).toContain('New destination');
    expect(await page.getByTestId('new-export').isDisabled()).toBe(true);
    await shot('01-empty');

    // 2. A key the store does not know: the API's reason, in words, and nothing created.
    await page.getByTestId('new-destination').click();
    const env = inject('tracingEnv');
    await page.getByTestId('destination-name').fill('our lake');
    await page.getByTestId('destination-bucket').fill(BUCKET);
    await page.getByTestId('destination-prefix').fill('exports');
    await page.getByTestId('destination-endpoint').fill(env.S3_ENDPOINT!);
    await page.getByTestId('destination-region').fill('us-east-1');
    await page.getByTestId('destination-access-key').fill(`nobody-${RUN}`);
    await page.getByTestId('destination-secret').fill('not-the-secret');
    await page.getByTestId('destination-submit').click();
    const refused = page.getByTestId('destination-form').getByTestId('error');
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/DESTINATION_CHECK_FAILED.*(Key ID|does not exist|Access denied)/);
    await shot('02-destination-refused');

    // 3. The right key: typed, it is not in the page's HTML; sent, neither; listed without it.
    await page.getByTestId('destination-access-key').fill(ACCESS_KEY);
    await page.getByTestId('destination-secret').fill(SECRET);
    expect(await page.getByTestId('destination-secret').inputValue()).toBe(SECRET); // it was typed
    expect(await page.content()).not.toContain(SECRET);
    await page.getByTestId('destination-submit').click();
    const destination = page.getByTestId('destination-row');
    await destination.waitFor();
    expect(await destination.textContent()).toContain(BUCKET);
    expect(await destination.textContent()).toContain('exports');
    expect(await destination.textContent()).toContain(env.S3_ENDPOINT!);
    expect(await destination.textContent()).toContain('write-only');
    const html = await page.content();
    expect(html).not.toContain(SECRET);
    expect(html).not.toContain(ACCESS_KEY);
    await shot('03-destination');

    // 4. A one-time export of the last hour, up to now: it runs at once, to Completed.
    await page.getByTestId('new-export').click();
    await page.getByTestId('export-form').waitFor();
    expect(await page.getByTestId('export-project').locator('option:checked').textContent()).toBe(projectName);
    await page.getByTestId('export-start').fill(await localTime(page, -3_600_000));
    await page.getByTestId('export-end').fill(await localTime(page, 2_000));
    await page.getByTestId('export-compression').selectOption('zstandard');
    await shot('04-export-form');
    await page.getByTestId('export-submit').click();
    const detail = page.getByTestId('export-detail');
    await detail.waitFor();
    await page
      .locator('[data-testid="export-detail"] [data-testid="export-status"]', { hasText: 'Completed' })
      .waitFor({ timeout: 120_000 });
    expect(await detail.getByTestId('export-schedule').textContent()).toBe('once');
    // One run per UTC day of the window (two when it spans midnight), every one done.
    const progress = (await detail.getByTestId('export-progress').textContent())!;
    expect(progress).toMatch(/^\d+\/\d+ runs · \d+ rows · \d+ files?/);
    const [done, planned, written, files] = /^(\d+)\/(\d+) runs · (\d+) rows · (\d+)/.exec(progress)!.slice(1);
    expect([done, written]).toEqual([planned, String(TRACES)]);
    await page
      .getByTestId('run-row')
      .nth(Number(planned) - 1)
      .waitFor();
    // The runs are a read of their own, polled while any is under way: the export may say Completed
    // a poll before its last run does.
    await expect
      .poll(async () => {
        const rows = (await page.getByTestId('run-rows').allTextContents()).map(Number);
        const statuses = await page.getByTestId('run-row').getByTestId('export-status').allTextContents();
        return [rows.length, rows.reduce((a, b) => a + b, 0), [...new Set(statuses)]];
      })
      .toEqual([Number(planned), TRACES, ['Completed']]);
    await shot('05-export-completed');
    expect((await listKeys(BUCKET, 'exports/export_id=')).filter((k) => k.endsWith('.parquet'))).toHaveLength(
      Number(files),
    );

    // 5. The list: the export, Completed, with its progress.
    await page.getByRole('link', { name: 'Bulk exports' }).first().click();
    const row = page.getByTestId('export-row');
    await row.waitFor();
    expect(await row.getByTestId('export-status').textContent()).toBe('Completed');
    expect(await row.getByTestId('export-progress').textContent()).toBe(progress);
    expect(await row.textContent()).toContain(projectName);
    expect(await row.textContent()).toContain('our lake');

    // 6. A scheduled export, every 6 hours from now: its schedule, no run yet; then cancelled.
    await page.getByTestId('new-export').click();
    await page.getByTestId('export-scheduled').check();
    await page.getByTestId('export-start').fill(await localTime(page, 0));
    await page.getByTestId('export-interval').fill('6');
    await page.getByTestId('export-submit').click();
    await page.getByTestId('export-detail').waitFor();
    expect(await page.getByTestId('export-detail').getByTestId('export-status').textContent()).toBe('Scheduled');
    expect(await page.getByTestId('export-detail').getByTestId('export-schedule').textContent()).toBe('every 6 h');
    await page.getByTestId('runs-empty').waitFor();
    await shot('06-scheduled');
    await page.getByTestId('export-detail').getByTestId('cancel-export').click();
    await page.getByTestId('confirm-cancel-export').click();
    await page
      .locator('[data-testid="export-detail"] [data-testid="export-status"]', { hasText: 'Cancelled' })
      .waitFor();

    await page.getByRole('link', { name: 'Bulk exports' }).first().click();
    await page.getByTestId('export-row').nth(1).waitFor();
    const schedules = await page.getByTestId('export-row').getByTestId('export-schedule').allTextContents();
    expect(schedules.sort()).toEqual(['every 6 h', 'once']);
    expect(await page.content()).not.toContain(SECRET);
    await shot('07-list');
    expect(problems).toEqual([]);
  }, 240_000);

  test('a dataset version exported from the dataset page (preset to v1; an unknown tag refused in the form) and from the form (searched, Latest), listed with the dataset and version', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(
      datasetWorkspace.apiKey,
      `/ui/datasets/${datasetId}?as_of=v1`,
    );
    const completed = page.locator('[data-testid="export-detail"] [data-testid="export-status"]', {
      hasText: 'Completed',
    });

    // 1. The dataset page at v1: "Export as Parquet" opens the exports page's form on this dataset and version.
    await page.getByTestId('example-row').nth(2).waitFor();
    expect(await page.getByTestId('example-row').count()).toBe(3);
    await shot('08-dataset-page');
    await page.getByTestId('export-parquet').click();
    const form = page.getByTestId('export-form');
    await form.waitFor();
    expect(new URL(page.url()).search).toBe(`?dataset=${datasetId}&as_of=v1`);
    expect(await page.getByTestId('export-resource-examples').isChecked()).toBe(true);
    await expect.poll(() => page.getByTestId('dataset-picker').inputValue()).toBe(datasetId);
    await expect.poll(() => page.getByTestId('export-as-of').locator('option:checked').textContent()).toMatch(/ — v1$/);
    expect(await page.getByTestId('export-destination').locator('option:checked').textContent()).toBe('dataset lake');
    await shot('09-dataset-export-form');
    await page.getByTestId('export-submit').click();
    const detail = page.getByTestId('export-detail');
    await detail.waitFor();
    await completed.waitFor({ timeout: 120_000 });
    expect(await detail.locator('h2').textContent()).toBe(datasetName);
    expect(await detail.getByTestId('export-progress').textContent()).toMatch(/^1\/1 runs · 3 rows · 1 file/);
    await expect.poll(() => detail.getByTestId('export-version').textContent()).toMatch(/^\d.+v1$/);
    await page.getByTestId('run-row').waitFor();
    expect(await page.getByTestId('run-rows').textContent()).toBe('3');
    await shot('10-dataset-export-completed');
    const keys = (await listKeys(BUCKET, 'datasets/export_id=')).filter((k) => k.endsWith('.parquet'));
    expect(keys).toHaveLength(1);
    expect(keys[0]).toContain(`/dataset_id=${datasetId}/resource=examples/`);

    // 2. An unknown tag in the URL: the API's 404 naming it, in the form.
    await page.goto(`${new URL(page.url()).origin}/ui/exports?dataset=${datasetId}&as_of=nope`);
    await expect.poll(() => page.getByTestId('dataset-picker').inputValue()).toBe(datasetId);
    await page.getByTestId('export-submit').click();
    const refused = form.getByTestId('error');
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/NOT_FOUND.*tag "nope"/);
    await shot('11-dataset-export-refused');
    await page.getByTestId('export-close').click();
    await form.waitFor({ state: 'detached' });
    expect(new URL(page.url()).search).toBe('');

    // 3. From the exports page's form: a dataset's version, the dataset searched for, Latest.
    await page.getByTestId('new-export').click();
    await page.getByTestId('export-resource-examples').check();
    await page.getByTestId('dataset-picker-search').fill(datasetName);
    await expect
      .poll(() => page.getByTestId('dataset-picker').locator('option').allTextContents())
      .toEqual([datasetName]);
    await page.getByTestId('dataset-picker').selectOption(datasetId);
    await expect.poll(() => page.getByTestId('export-as-of').locator('option').count()).toBe(3); // Latest and two versions
    expect(await page.getByTestId('export-as-of').locator('option:checked').textContent()).toBe('Latest');
    await shot('12-dataset-export-form-search');
    await page.getByTestId('export-submit').click();
    await detail.waitFor();
    await completed.waitFor({ timeout: 120_000 });
    expect(await detail.getByTestId('export-progress').textContent()).toMatch(/^1\/1 runs · 5 rows · 1 file/);

    // 4. The list: both, with the dataset's name and the version exported (v1 by its tag).
    await page.getByRole('link', { name: 'Bulk exports' }).first().click();
    await page.getByTestId('export-row').nth(1).waitFor();
    const rows = page.getByTestId('export-row');
    await expect.poll(() => rows.getByTestId('export-dataset').allTextContents()).toEqual([datasetName, datasetName]);
    await expect.poll(() => rows.getByTestId('export-version-tag').allTextContents()).toEqual(['v1']);
    expect(await rows.getByTestId('export-status').allTextContents()).toEqual(['Completed', 'Completed']);
    expect(await rows.getByTestId('export-progress').allTextContents()).toEqual([
      expect.stringMatching(/^1\/1 runs · 5 rows/),
      expect.stringMatching(/^1\/1 runs · 3 rows/),
    ]);
    expect(await rows.first().textContent()).not.toContain('from —');
    await shot('13-dataset-exports-list');

    // 5. The dataset's name links to its page at the version exported: v1's three examples.
    await rows.nth(1).getByTestId('export-dataset').click();
    await page.getByTestId('examples-table').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/ui/datasets/${datasetId}`);
    await expect.poll(() => page.getByTestId('example-row').count()).toBe(3);
    await expect.poll(() => page.getByTestId('version-tags').textContent()).toBe('v1');
    expect(problems).toEqual([]);
  }, 240_000);
});
