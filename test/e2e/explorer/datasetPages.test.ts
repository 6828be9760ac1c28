// The explorer's pages of one dataset in a real browser, over data written through the API: a
// dataset whose examples went through versions (three examples in two splits, tagged "v1"; then
// one changed, one deleted, one added), and two experiments of it (projects naming the dataset,
// root runs naming their examples, feedback on those runs under a key where higher is better and
// one where lower is). The examples switch with the version and the split, a version gets a tag,
// the diff lists the examples added, removed and modified with each one as it was, the
// experiments show their means per key, the comparison marks regressions and improvements
// against the baseline, and a CSV upload makes a dataset with the columns chosen. Screenshots in
// test-output/explorer/dataset-pages/.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startExplorerBrowser, type ExplorerBrowser } from '../../support/explorer.ts';
import { api, createWorkspaces, type Workspace } from '../../support/tracingClient.ts';

let noBrowser: string | null = null;
let explorer: ExplorerBrowser | undefined;
let workspace: Workspace;
let datasetId: string;
const datasetName = `dataset-pages-${Date.now()}`;
/** e1 and e2 (train), e3 (test) at v1; then e2's outputs change, e3 is deleted, e4 (test) is added. */
const e = { e1: randomUUID(), e2: randomUUID(), e3: randomUUID(), e4: randomUUID() };
/** The version tagged v1 (its as_of). */
let v1: string;
const experiments = { baseline: { id: '', name: '' }, candidate: { id: '', name: '' } };

async function call(path: string, init: RequestInit & { json?: unknown } = {}): Promise<any> {
  const res = await api(path, { ...init, apiKey: workspace.apiKey });
  expect(res.status, `${init.method ?? 'GET'} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

/** An experiment: a project naming the dataset, a finished root run per example with its feedback. */
async function experiment(
  name: string,
  runs: Array<{
    example: string;
    outputs: Record<string, unknown> | null;
    error?: string;
    feedback: Record<string, number>;
  }>,
): Promise<string> {
  const project = await call('/sessions', { method: 'POST', json: { name, reference_dataset_id: datasetId } });
  const start = Date.now() - 60_000;
  const ids: string[] = [];
  for (const [i, r] of runs.entries()) {
    const id = randomUUID();
    ids.push(id);
    await call('/runs', {
      method: 'POST',
      json: {
        id,
        name: 'target',
        run_type: 'chain',
        session_id: project.id,
        reference_example_id: r.example,
        inputs: { example: r.example },
        outputs: r.outputs,
        error: r.error ?? null,
        start_time: new Date(start + i * 1000).toISOString(),
        end_time: new Date(start + i * 1000 + 250 * (i + 1)).toISOString(),
      },
    });
  }
  // Feedback once the runs are read (so each item names its project at once).
  await vi.waitFor(
    async () => {
      const stats = await call(`/sessions?include_stats=true&id=${project.id}`);
      expect(stats[0]?.run_count).toBe(runs.length);
    },
    { timeout: 60_000, interval: 250 },
  );
  for (const [i, r] of runs.entries())
    for (const [key, score] of Object.entries(r.feedback))
      await call('/feedback', { method: 'POST', json: { run_id: ids[i], key, score } });
  const expected = runs.flatMap((r) => Object.keys(r.feedback));
  await vi.waitFor(
    async () => {
      const [stats] = await call(`/sessions?include_stats=true&id=${project.id}`);
      const n = Object.values(stats.feedback_stats ?? {}).reduce((sum: number, s: any) => sum + s.n, 0);
      expect(n).toBe(expected.length);
    },
    { timeout: 60_000, interval: 250 },
  );
  return project.id;
}

beforeAll(async () => {
  const started = await startExplorerBrowser('dataset-pages');
  if (typeof started === 'string') {
    noBrowser = started;
    return;
  }
  explorer = started;
  [workspace] = (await createWorkspaces(1)) as [Workspace];
  datasetId = (await call('/datasets', { method: 'POST', json: { name: datasetName, description: 'capitals' } })).id;

  // Version 1: three examples in one write, tagged v1.
  const example = (id: string, question: string, answer: string, split: string) => ({
    id,
    dataset_id: datasetId,
    inputs: { question },
    outputs: { answer },
    metadata: { source: 'atlas' },
    split,
  });
  await call('/examples/bulk', {
    method: 'POST',
    json: [
      example(e.e1, 'Capital of France?', 'Paris', 'train'),
      example(e.e2, 'Capital of Australia?', 'Sydney', 'train'),
      example(e.e3, 'Capital of Canada?', 'Ottawa', 'test'),
    ],
  });
  [{ as_of: v1 }] = await call(`/datasets/${datasetId}/versions`);
  await call(`/datasets/${datasetId}/tags`, { method: 'PUT', json: { as_of: v1, tag: 'v1' } });
  // Then: e2 corrected, e3 deleted, e4 added (three more versions).
  await call(`/examples/${e.e2}`, { method: 'PATCH', json: { outputs: { answer: 'Canberra' } } });
  await call(`/examples/${e.e3}`, { method: 'DELETE' });
  await call('/examples', { method: 'POST', json: example(e.e4, 'Capital of Japan?', 'Tokyo', 'test') });

  // The feedback key "hallucination" is better lower.
  await call('/feedback-configs', {
    method: 'POST',
    json: {
      feedback_key: 'hallucination',
      feedback_config: { type: 'continuous', min: 0, max: 1 },
      is_lower_score_better: true,
    },
  });
  experiments.baseline.name = `${datasetName}-baseline`;
  experiments.baseline.id = await experiment(experiments.baseline.name, [
    { example: e.e1, outputs: { answer: 'Paris' }, feedback: { correctness: 1, hallucination: 0 } },
    { example: e.e2, outputs: { answer: 'Canberra' }, feedback: { correctness: 1 } },
    { example: e.e4, outputs: { answer: 'Kyoto' }, feedback: { correctness: 0 } },
  ]);
  experiments.candidate.name = `${datasetName}-candidate`;
  experiments.candidate.id = await experiment(experiments.candidate.name, [
    { example: e.e1, outputs: { answer: 'Paris, France' }, feedback: { correctness: 1, hallucination: 1 } },
    { example: e.e2, outputs: null, error: 'TimeoutError: the model did not answer', feedback: { correctness: 0 } },
    { example: e.e4, outputs: { answer: 'Tokyo' }, feedback: { correctness: 0.5 } },
  ]);
}, 10 * 60_000);

afterAll(async () => {
  await explorer?.close();
});

const exampleIds = (page: Page) =>
  page
    .getByTestId('example-row')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-example-id')).sort()) as Promise<string[]>;
const sorted = (...ids: string[]) => [...ids].sort();

/** Waits for a list the page reads (its statistics may take a while on a busy machine), failing with the API's error if it shows one. */
async function shown(page: Page, testId: string): Promise<void> {
  await page.getByTestId(testId).or(page.getByTestId('error')).first().waitFor({ timeout: 30_000 });
  const error = page.getByTestId('error');
  if ((await error.count()) > 0) throw new Error(`the page shows an error: ${await error.first().textContent()}`);
}

describe("a dataset's pages", () => {
  test('examples: from the datasets list; the version and the split switch them; tag this version', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, '/ui/datasets');
    await page.locator(`[data-dataset-id="${datasetId}"]`).getByTestId('dataset-name').click();
    expect(new URL(page.url()).pathname).toBe(`/ui/datasets/${datasetId}`);
    await expect.poll(() => page.getByTestId('dataset-title').textContent()).toBe(datasetName);

    // The latest version: e1, e2 (corrected), e4.
    await shown(page, 'examples-table');
    await expect.poll(() => exampleIds(page)).toEqual(sorted(e.e1, e.e2, e.e4));
    const row = (id: string) => page.locator(`[data-testid="example-row"][data-example-id="${id}"]`);
    expect(await row(e.e2).getByTestId('example-outputs').textContent()).toContain('"answer":"Canberra"');
    expect(await row(e.e4).getByTestId('split-chip').allTextContents()).toEqual(['test']);
    expect(await row(e.e1).getByTestId('example-metadata').textContent()).toContain('"source":"atlas"');
    expect(await page.getByTestId('examples-range').textContent()).toBe('Examples 1–3 of 3');
    // JSON opens into indented JSON.
    await row(e.e1).getByTestId('example-inputs').getByRole('button').click();
    expect(await row(e.e1).getByTestId('example-inputs').locator('pre').textContent()).toBe(
      '{\n  "question": "Capital of France?"\n}',
    );
    await shot('01-examples-latest');

    // The versions, newest first with their tags, after "Latest".
    const options = await page.getByTestId('version-select').locator('option').allTextContents();
    expect(options).toHaveLength(5);
    expect(options[0]).toBe('Latest');
    expect(options[4]).toMatch(/ — v1$/);

    // Version v1: e1, e2 (as it was), e3.
    await page.getByTestId('version-select').selectOption(v1);
    await expect.poll(() => exampleIds(page)).toEqual(sorted(e.e1, e.e2, e.e3));
    expect(new URL(page.url()).searchParams.get('as_of')).toBe(v1);
    expect(await row(e.e2).getByTestId('example-outputs').textContent()).toContain('"answer":"Sydney"');
    expect(await page.getByTestId('version-tags').textContent()).toBe('v1');
    // The split "test" at v1: e3 alone.
    await expect
      .poll(() => page.getByTestId('split-select').locator('option').allTextContents())
      .toEqual(['All splits', 'test', 'train']);
    await page.getByTestId('split-select').selectOption('test');
    await expect.poll(() => exampleIds(page)).toEqual([e.e3]);
    expect(new URL(page.url()).searchParams.get('split')).toBe('test');
    await shot('02-examples-v1-test-split');

    // A URL naming the version by its tag shows the same.
    await page.goto(page.url().replace(encodeURIComponent(v1), 'v1'));
    await expect.poll(() => exampleIds(page)).toEqual([e.e3]);

    // Tag the latest version "prod".
    await page.getByTestId('version-select').selectOption('latest');
    await page.getByTestId('split-select').selectOption('');
    await expect.poll(() => exampleIds(page)).toEqual(sorted(e.e1, e.e2, e.e4));
    await page.getByTestId('tag-version').click();
    await page.getByTestId('tag-input').fill('prod');
    await shot('03-tag-dialog');
    await page.getByTestId('dialog-confirm').click();
    await expect.poll(() => page.getByTestId('version-tags').textContent()).toBe('prod');
    const [newest] = await call(`/datasets/${datasetId}/versions`);
    expect(await call(`/datasets/${datasetId}/version?tag=prod`)).toEqual({ as_of: newest.as_of, tags: ['prod'] });
    expect(problems).toEqual([]);
    await page.close();
  });

  test('examples are paged with the offset and limit of the API', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const big = (await call('/datasets', { method: 'POST', json: { name: `${datasetName}-big` } })).id;
    await call('/examples/bulk', {
      method: 'POST',
      json: Array.from({ length: 60 }, (_, i) => ({ dataset_id: big, inputs: { i } })),
    });
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, `/ui/datasets/${big}`);
    await shown(page, 'examples-table');
    await expect.poll(() => page.getByTestId('example-row').count()).toBe(50);
    expect(await page.getByTestId('examples-range').textContent()).toBe('Examples 1–50 of 60');
    expect(await page.getByTestId('examples-previous').isDisabled()).toBe(true);
    await page.getByTestId('examples-next').click();
    await expect.poll(() => page.getByTestId('example-row').count()).toBe(10);
    expect(new URL(page.url()).searchParams.get('offset')).toBe('50');
    expect(await page.getByTestId('examples-range').textContent()).toBe('Examples 51–60 of 60');
    expect(await page.getByTestId('examples-next').isDisabled()).toBe(true);
    await shot('04-examples-second-page');
    await page.getByTestId('examples-previous').click();
    await expect.poll(() => page.getByTestId('example-row').count()).toBe(50);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('an empty dataset says how to add examples and run experiments; a comparison needs two', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const empty = (await call('/datasets', { method: 'POST', json: { name: `${datasetName}-empty` } })).id;
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, `/ui/datasets/${empty}`);
    await page.getByTestId('examples-empty').waitFor();
    expect(await page.getByTestId('examples-empty').textContent()).toContain('createExamples');
    expect(await page.getByTestId('tag-version').isDisabled()).toBe(true);
    await shot('11-empty-dataset');
    await page.getByTestId('tab-diff').click();
    await page.getByTestId('versions-empty').waitFor();
    await page.getByTestId('tab-experiments').click();
    await page.getByTestId('experiments-empty').waitFor();
    expect(await page.getByTestId('experiments-empty').textContent()).toContain('evaluate(');
    await page.getByTestId('comparisons-empty').waitFor();
    await shot('12-no-experiments');
    await page.goto(page.url().replace(/\/experiments$/, `/compare?experiments=${experiments.baseline.id}`));
    await page.getByTestId('compare-empty').waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });

  test('compare versions: the examples added, removed and modified, each as it was at each version', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, `/ui/datasets/${datasetId}`);
    await page.getByTestId('tab-diff').click();
    await page.getByTestId('diff-from').selectOption(v1);
    await page.getByTestId('diff-to').selectOption('latest');
    const ids = (change: string) =>
      page
        .getByTestId(`diff-${change}`)
        .getByTestId('diff-item')
        .evaluateAll((items) => items.map((i) => i.getAttribute('data-example-id')));
    await expect.poll(() => ids('added')).toEqual([e.e4]);
    expect(await ids('removed')).toEqual([e.e3]);
    expect(await ids('modified')).toEqual([e.e2]);
    expect(await call(`/datasets/${datasetId}/versions/diff?from_version=v1&to_version=latest`)).toEqual({
      examples_added: [e.e4],
      examples_removed: [e.e3],
      examples_modified: [e.e2],
    });
    const url = new URL(page.url());
    expect(url.pathname).toBe(`/ui/datasets/${datasetId}/versions`);
    expect(url.searchParams.get('from')).toBe(v1);

    // The modified example as it was at each version, and what changed.
    const modified = page.getByTestId('diff-modified').getByTestId('diff-item');
    await modified.getByRole('button').click();
    await modified.getByTestId('diff-changed').waitFor();
    expect(await modified.getByTestId('diff-changed').textContent()).toBe('Changed: outputs');
    expect(await modified.getByTestId('example-before').textContent()).toContain('"answer":"Sydney"');
    expect(await modified.getByTestId('example-after').textContent()).toContain('"answer":"Canberra"');
    // The removed one as it was before; it is not after.
    const removed = page.getByTestId('diff-removed').getByTestId('diff-item');
    await removed.getByRole('button').click();
    await removed.getByTestId('example-before').waitFor();
    expect(await removed.getByTestId('example-before').textContent()).toContain('Capital of Canada?');
    expect(await removed.getByTestId('example-after').count()).toBe(0);
    await shot('05-version-diff');

    // Swapped: what was added is removed.
    await page.getByTestId('diff-swap').click();
    await expect.poll(() => ids('removed')).toEqual([e.e4]);
    expect(await ids('added')).toEqual([e.e3]);
    expect(problems).toEqual([]);
    await page.close();
  });

  test("experiments: newest first, runs, error rate and each key's mean; two checked open the comparison", async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, `/ui/datasets/${datasetId}/experiments`);
    await shown(page, 'experiments-table');
    const rows = page.getByTestId('experiment-row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.getByTestId('experiment-name').allTextContents()).toEqual([
      experiments.candidate.name,
      experiments.baseline.name,
    ]);
    const row = (id: string) => page.locator(`[data-testid="experiment-row"][data-experiment-id="${id}"]`);
    const scores = (id: string) =>
      row(id)
        .getByTestId('experiment-score')
        .evaluateAll((cells) => cells.map((c) => [c.getAttribute('data-key'), c.textContent]));
    expect(await scores(experiments.baseline.id)).toEqual([
      ['correctness', '0.667'],
      ['hallucination', '0'],
    ]);
    expect(await scores(experiments.candidate.id)).toEqual([
      ['correctness', '0.5'],
      ['hallucination', '1'],
    ]);
    expect(await row(experiments.baseline.id).getByTestId('experiment-runs').textContent()).toBe('3');
    expect(await row(experiments.candidate.id).getByTestId('experiment-error-rate').textContent()).toBe('33.3%');
    expect(await row(experiments.baseline.id).getByTestId('experiment-error-rate').textContent()).toBe('0.0%');
    expect(await page.getByTestId('compare-experiments').isDisabled()).toBe(true);

    // The baseline checked first.
    await row(experiments.baseline.id).getByTestId('experiment-check').check();
    await row(experiments.candidate.id).getByTestId('experiment-check').check();
    await shot('06-experiments');
    await page.getByTestId('compare-experiments').click();
    const url = new URL(page.url());
    expect(url.pathname).toBe(`/ui/datasets/${datasetId}/compare`);
    expect(url.searchParams.get('experiments')).toBe(`${experiments.baseline.id},${experiments.candidate.id}`);
    await page.getByTestId('compare-table').waitFor();
    expect(problems).toEqual([]);
    await page.close();
  });

  test('the comparison: a row per example, regressions and improvements against the baseline, the means', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { baseline, candidate } = experiments;
    const { page, problems, shot } = await explorer!.open(
      workspace.apiKey,
      `/ui/datasets/${datasetId}/compare?experiments=${baseline.id},${candidate.id}`,
    );
    await shown(page, 'compare-table');
    expect(await page.getByTestId('compare-baseline').textContent()).toBe(baseline.name);
    const rowIds = () =>
      page.getByTestId('compare-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-example-id')));
    // In the dataset's order (the examples' creation).
    expect(await rowIds()).toEqual([e.e1, e.e2, e.e4]);
    const cell = (example: string, experiment: string) =>
      page.locator(
        `[data-testid="compare-row"][data-example-id="${example}"] [data-testid="compare-cell"][data-experiment-id="${experiment}"]`,
      );
    const verdicts = (example: string, experiment: string) =>
      cell(example, experiment)
        .getByTestId('score')
        .evaluateAll((chips) =>
          chips.map((c) => [
            c.getAttribute('data-key'),
            c.querySelector('.score-value')?.textContent,
            c.getAttribute('data-verdict'),
          ]),
        );
    // The baseline's own scores are not judged.
    expect(await verdicts(e.e2, baseline.id)).toEqual([['correctness', '1', '']]);
    // e1: the same correctness; hallucination up, where lower is better: a regression.
    expect(await verdicts(e.e1, candidate.id)).toEqual([
      ['correctness', '1', 'same'],
      ['hallucination', '1', 'regression'],
    ]);
    // e2: correctness down (and the run errored); e4: up.
    expect(await verdicts(e.e2, candidate.id)).toEqual([['correctness', '0', 'regression']]);
    expect(await cell(e.e2, candidate.id).textContent()).toContain('TimeoutError: the model did not answer');
    expect(await verdicts(e.e4, candidate.id)).toEqual([['correctness', '0.5', 'improvement']]);
    expect(await cell(e.e4, candidate.id).getByTestId('compare-output').textContent()).toContain('"answer":"Tokyo"');
    expect(
      await page
        .locator(`[data-testid="compare-row"][data-example-id="${e.e4}"]`)
        .getByTestId('compare-inputs')
        .textContent(),
    ).toContain('Capital of Japan?');
    expect(await page.getByTestId('compare-tally').textContent()).toBe('2 worse 1 better');

    // The means per key and experiment, the candidate's judged against the baseline's.
    const means = (experiment: string) =>
      page
        .locator(`[data-testid="summary-cell"][data-experiment-id="${experiment}"]`)
        .getByTestId('summary-score')
        .evaluateAll((chips) =>
          chips.map((c) => [
            c.getAttribute('data-key'),
            c.querySelector('.score-value')?.textContent,
            c.getAttribute('data-verdict'),
          ]),
        );
    expect(await means(baseline.id)).toEqual([
      ['correctness', '0.667', ''],
      ['hallucination', '0', ''],
    ]);
    expect(await means(candidate.id)).toEqual([
      ['correctness', '0.5', 'regression'],
      ['hallucination', '1', 'regression'],
    ]);
    await shot('07-comparison');

    // Only the examples with a regression.
    await page.getByTestId('only-regressions').check();
    await expect.poll(rowIds).toEqual([e.e1, e.e2]);
    await page.getByTestId('only-regressions').uncheck();

    // The candidate as the baseline: the verdicts turn.
    await page.getByTestId('make-baseline').click();
    await expect.poll(() => page.getByTestId('compare-baseline').textContent()).toBe(candidate.name);
    await expect.poll(() => verdicts(e.e2, baseline.id)).toEqual([['correctness', '1', 'improvement']]);

    // Saved, the comparison is listed on the experiments tab.
    await page.getByTestId('save-comparison').click();
    await expect
      .poll(() => page.getByTestId('comparison-saved').textContent())
      .toBe(`Saved as “${candidate.name} vs. ${baseline.name}”`);
    const saved = await call(`/datasets/${datasetId}/comparative`);
    expect(saved[0].experiments_info.map((x: { id: string }) => x.id)).toEqual([candidate.id, baseline.id]);
    await page.getByTestId('tab-experiments').click();
    await expect
      .poll(() => page.getByTestId('comparison-row').allTextContents())
      .toEqual([expect.stringContaining(`${candidate.name} vs. ${baseline.name}`)]);
    await shot('08-experiments-with-comparison');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('Upload CSV: the header as input and output columns, the name from the file; the dataset opens', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, '/ui/datasets');
    await page.getByTestId('dataset-upload').click();
    const csv =
      'id,question,answer,notes\n1,"Capital of Italy, in Europe?",Rome,"checked\ntwice"\n2,Capital of Peru?,Lima,\n';
    await page.getByTestId('csv-file').setInputFiles({
      name: 'capitals.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    });
    await expect.poll(() => page.getByTestId('csv-outline').textContent()).toBe('4 columns, 2 rows');
    expect(await page.getByTestId('csv-name').inputValue()).toBe('capitals');
    const checked = (kind: string) =>
      page
        .getByTestId(kind)
        .evaluateAll((boxes) =>
          boxes.filter((b) => (b as unknown as { checked: boolean }).checked).map((b) => b.getAttribute('data-column')),
        );
    // By default the last column is the output, the others the inputs.
    expect(await checked('csv-input')).toEqual(['id', 'question', 'answer']);
    expect(await checked('csv-output')).toEqual(['notes']);
    const box = (kind: string, column: string) => page.locator(`[data-testid="${kind}"][data-column="${column}"]`);
    await box('csv-input', 'id').uncheck();
    await box('csv-input', 'answer').uncheck();
    await box('csv-output', 'notes').uncheck();
    await box('csv-output', 'answer').check();
    await shot('09-upload-csv');
    await page.getByTestId('dialog-confirm').click();

    await page.waitForURL(/\/ui\/datasets\/[0-9a-f-]{36}$/);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    await shown(page, 'examples-table');
    await expect.poll(() => page.getByTestId('example-row').count()).toBe(2);
    await expect.poll(() => page.getByTestId('dataset-title').textContent()).toBe('capitals');
    const examples = await call(`/examples?dataset=${id}`);
    expect(examples.map((x: { inputs: unknown; outputs: unknown }) => [x.inputs, x.outputs])).toEqual([
      [{ question: 'Capital of Italy, in Europe?' }, { answer: 'Rome' }],
      [{ question: 'Capital of Peru?' }, { answer: 'Lima' }],
    ]);
    expect(await page.getByTestId('example-inputs').first().textContent()).toContain('Capital of Italy, in Europe?');
    await shot('10-uploaded-dataset');

    // The same name again: the API's 409 in the dialog.
    await page.goto(page.url().replace(/\/datasets\/.*$/, '/datasets'));
    await page.getByTestId('dataset-upload').click();
    await page
      .getByTestId('csv-file')
      .setInputFiles({ name: 'capitals.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByTestId('csv-outline').waitFor();
    await page.getByTestId('dialog-confirm').click();
    await page.getByTestId('dialog').getByTestId('error').waitFor();
    expect(await page.getByTestId('dialog').getByTestId('error').textContent()).toContain('already exists');
    expect(problems).toEqual([]);
    await page.close();
  });
});
