// The explorer's annotation queues in a real browser, over data written through the API: a
// project of four traces (sent with the `langsmith` client), feedback configs (a categorical
// key, a continuous one from 1 to 5, a freeform one), three datasets, and a queue with a rubric
// holding one run. In the pages: the queues list, a queue created with a rubric (its keys offered
// from the feedback configs) and the API's queue edited and deleted; runs sent to the new queue
// from the traces table's checked rows and from a run's detail (and added to a dataset from
// both); two runs reviewed, with the keyboard and with the form, their feedback read back and the
// queue's pending count dropping; Previous/Next, Skip and the end of the to-do; Add to dataset
// from the reviewer's page; a run's feedback edited and deleted on its detail; "Show more" past a
// hundred queues. Screenshots in
// test-output/explorer/annotation-queues/.
import { randomUUID } from 'node:crypto';
import { Client, RunTree } from 'langsmith';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import {
  startExplorerBrowser,
  waitForTraceCount,
  type ExplorerBrowser,
  type ExplorerPage,
} from '../../support/explorer.ts';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../support/tracingClient.ts';

let noBrowser: string | null = null;
let explorer: ExplorerBrowser | undefined;
let workspace: Workspace;
let projectId: string;
const stamp = Date.now();
const projectName = `aq-capitals-${stamp}`;
const queueName = `capitals-review-${stamp}`;
const apiQueueName = `triage-${stamp}`;
/** The queue's default dataset, the traces table's dataset, the run detail's dataset. */
const datasets = { golden: { id: '', name: `aq-golden-${stamp}` }, picked: { id: '', name: `aq-picked-${stamp}` } };
const detailDataset = { id: '', name: `aq-from-detail-${stamp}` };
/** Root run (= trace) ids by name. */
const runs: Record<string, string> = {};
const QA: Array<[string, string, string]> = [
  ['capital-france', 'What is the capital of France?', 'Paris'],
  ['capital-japan', 'What is the capital of Japan?', 'Tokyo'],
  ['capital-peru', 'What is the capital of Peru?', 'Cusco'],
  ['capital-kenya', 'What is the capital of Kenya?', 'Nairobi'],
];
let apiQueueId: string;
let queueId: string;
/** The runs of the new queue in the order they were sent, and the ones reviewed by the page. */
let queued: string[] = [];
const reviewed: Record<string, string> = {};

async function call(path: string, init: RequestInit & { json?: unknown } = {}): Promise<any> {
  const res = await api(path, { ...init, apiKey: workspace.apiKey });
  expect(res.status, `${init.method ?? 'GET'} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

beforeAll(async () => {
  const started = await startExplorerBrowser('annotation-queues');
  if (typeof started === 'string') {
    noBrowser = started;
    return;
  }
  explorer = started;
  [workspace] = (await createWorkspaces(1)) as [Workspace];
  const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: workspace.apiKey });
  const start = Date.now() - 10 * 60_000;
  for (const [i, [name, question, answer]] of QA.entries()) {
    const run = new RunTree({
      name,
      run_type: 'chain',
      start_time: start + i * 60_000,
      project_name: projectName,
      client,
      inputs: { question },
    });
    runs[name] = run.id;
    await run.end({ answer }, undefined, start + i * 60_000 + 400 + i * 100);
    await run.postRun();
  }
  await client.awaitPendingTraceBatches();
  projectId = await waitForTraceCount(workspace.apiKey, projectName, QA.length);

  const config = (feedback_key: string, feedback_config: unknown) =>
    call('/feedback-configs', { method: 'POST', json: { feedback_key, feedback_config } });
  await config('correctness', {
    type: 'categorical',
    categories: [
      { value: 0, label: 'wrong' },
      { value: 1, label: 'right' },
    ],
  });
  await config('helpfulness', { type: 'continuous', min: 1, max: 5 });
  await config('explanation', { type: 'freeform' });
  for (const d of [datasets.golden, datasets.picked, detailDataset])
    d.id = (await call('/datasets', { method: 'POST', json: { name: d.name } })).id;

  // A queue made by the API, with a rubric and one run.
  apiQueueId = (
    await call('/annotation-queues', {
      method: 'POST',
      json: {
        name: apiQueueName,
        description: 'made by the API',
        rubric_instructions: 'Mark anything odd.',
        rubric_items: [{ feedback_key: 'correctness', description: 'Is it right?' }],
      },
    })
  ).id;
  await call(`/annotation-queues/${apiQueueId}/runs`, { method: 'POST', json: [runs['capital-kenya']] });
}, 10 * 60_000);

afterAll(async () => {
  await explorer?.close();
});

/** A page of the explorer; a wait for something not there fails in 15 s, saying what it waited for. */
async function open(path: string): Promise<ExplorerPage> {
  const opened = await explorer!.open(workspace.apiKey, path);
  opened.page.setDefaultTimeout(15_000);
  return opened;
}

const queueRow = (page: Page, id: string) => page.locator(`[data-testid="queue-row"][data-queue-id="${id}"]`);
const reviewRunId = (page: Page) => page.getByTestId('review-run').getAttribute('data-run-id');

describe('annotation queues in the explorer', () => {
  test('the queues list; a queue created with a rubric; the API’s queue edited, then deleted after a confirmation', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await open('/ui/');
    await page.getByTestId('nav-annotation-queues').click();
    expect(new URL(page.url()).pathname).toBe('/ui/annotation-queues');
    await expect.poll(() => queueRow(page, apiQueueId).getByTestId('queue-name').textContent()).toBe(apiQueueName);
    expect(await queueRow(page, apiQueueId).getByTestId('queue-rubric').textContent()).toBe('correctness');
    expect(await queueRow(page, apiQueueId).getByTestId('queue-total').textContent()).toBe('1');
    expect(await queueRow(page, apiQueueId).getByTestId('queue-pending').textContent()).toBe('1');
    await shot('01-queues');

    // A new queue: its rubric's keys offered from the feedback configs, each with what its config takes.
    await page.getByTestId('queue-new').click();
    const dialog = page.getByTestId('dialog');
    await dialog.getByTestId('queue-name-input').fill(queueName);
    await dialog.getByTestId('queue-description-input').fill('Answers of the capitals bot');
    await dialog
      .getByTestId('queue-instructions-input')
      .fill('Check the capital against an atlas; judge the tone too.');
    expect(
      await dialog.locator('#feedback-keys option').evaluateAll((os) => os.map((o) => o.getAttribute('value'))),
    ).toEqual(['correctness', 'explanation', 'helpfulness']);
    const item = (i: number) => dialog.getByTestId('rubric-item').nth(i);
    await dialog.getByTestId('rubric-add').click();
    await item(0).getByTestId('rubric-key-input').fill('correctness');
    await expect.poll(() => item(0).getByTestId('rubric-config').textContent()).toBe('categorical: wrong, right');
    await item(0).getByTestId('rubric-description-input').fill('Is the capital right?');
    await item(0).getByTestId('rubric-required-input').check();
    await dialog.getByTestId('rubric-add').click();
    await item(1).getByTestId('rubric-key-input').fill('helpfulness');
    await expect.poll(() => item(1).getByTestId('rubric-config').textContent()).toBe('continuous: 1 to 5');
    await item(1).getByTestId('rubric-description-input').fill('Would it help someone planning a trip?');
    await item(1).getByTestId('score-describe-all').click();
    expect(
      await item(1)
        .getByTestId('score-input')
        .evaluateAll((is) => is.map((i) => (i as any).value)),
    ).toEqual(['1', '2', '3', '4', '5']);
    await item(1).getByTestId('score-description-input').nth(0).fill('useless');
    await item(1).getByTestId('score-description-input').nth(4).fill('all one needs');
    await dialog.getByTestId('rubric-add').click();
    await item(2).getByTestId('rubric-key-input').fill('explanation');
    await expect.poll(() => item(2).getByTestId('rubric-config').textContent()).toBe('freeform: text');
    await dialog.getByTestId('queue-dataset-input').selectOption(datasets.golden.id);
    await dialog.evaluate((el) => el.scrollTo(0, 0));
    await shot('02-new-queue-dialog');
    await item(1).scrollIntoViewIfNeeded();
    await shot('02-new-queue-rubric');
    await dialog.getByTestId('dialog-confirm').click();
    await expect.poll(() => page.getByTestId('dialog').count()).toBe(0);
    const [made] = await call(`/annotation-queues?name=${encodeURIComponent(queueName)}`);
    queueId = made.id;
    expect(made).toMatchObject({
      description: 'Answers of the capitals bot',
      rubric_instructions: 'Check the capital against an atlas; judge the tone too.',
      default_dataset: datasets.golden.id,
      num_reviewers_per_item: 1,
      total_runs: 0,
    });
    // (each item read with its key's feedback config)
    expect(made.rubric_items).toEqual([
      {
        feedback_key: 'correctness',
        description: 'Is the capital right?',
        score_descriptions: null,
        is_required: true,
        feedback_config: expect.objectContaining({ type: 'categorical' }),
      },
      {
        feedback_key: 'helpfulness',
        description: 'Would it help someone planning a trip?',
        score_descriptions: { '1': 'useless', '5': 'all one needs' },
        is_required: false,
        feedback_config: expect.objectContaining({ type: 'continuous', min: 1, max: 5 }),
      },
      {
        feedback_key: 'explanation',
        description: null,
        score_descriptions: null,
        is_required: false,
        feedback_config: expect.objectContaining({ type: 'freeform' }),
      },
    ]);
    await expect
      .poll(() => queueRow(page, queueId).getByTestId('queue-rubric').locator('.tag').allTextContents())
      .toEqual(['correctness', 'helpfulness', 'explanation']);

    // The API's queue edited: its form holds what the API wrote.
    await queueRow(page, apiQueueId).getByTestId('queue-edit').click();
    expect(await dialog.getByTestId('queue-name-input').inputValue()).toBe(apiQueueName);
    expect(await dialog.getByTestId('queue-instructions-input').inputValue()).toBe('Mark anything odd.');
    expect(await item(0).getByTestId('rubric-key-input').inputValue()).toBe('correctness');
    await dialog.getByTestId('queue-description-input').fill('made by the API, edited in the page');
    await dialog.getByTestId('dialog-confirm').click();
    await expect
      .poll(() => queueRow(page, apiQueueId).locator('.queue-description').textContent())
      .toBe('made by the API, edited in the page');
    expect((await call(`/annotation-queues/${apiQueueId}`)).rubric_items).toEqual([
      {
        feedback_key: 'correctness',
        description: 'Is it right?',
        score_descriptions: null,
        is_required: false,
        feedback_config: expect.objectContaining({ type: 'categorical' }),
      },
    ]);

    // Deleted after a confirmation naming it and its run.
    await queueRow(page, apiQueueId).getByTestId('queue-delete').click();
    expect(await dialog.getByTestId('delete-question').textContent()).toBe(
      `Delete the annotation queue ${apiQueueName} and its 1 run to review? The runs and the feedback given in it stay. This cannot be undone.`,
    );
    await shot('03-delete-queue');
    await dialog.getByTestId('dialog-confirm').click();
    await expect.poll(() => queueRow(page, apiQueueId).count()).toBe(0);
    expect((await api(`/annotation-queues/${apiQueueId}`, { apiKey: workspace.apiKey })).status).toBe(404);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('runs sent to the queue from the traces table’s checked rows and from a run’s detail; the rows added to a dataset', async (context) => {
    if (noBrowser || !queueId) return context.skip(noBrowser ?? 'no queue');
    const { page, problems, shot } = await open(`/ui/projects/${projectId}`);
    await expect.poll(() => page.getByTestId('trace-row').count()).toBe(QA.length);
    expect(await page.getByTestId('selected-to-queue').isDisabled()).toBe(true);
    const row = (name: string) => page.locator(`[data-testid="trace-row"][data-run-id="${runs[name]}"]`);
    await row('capital-france').getByTestId('select-row').check();
    await row('capital-peru').getByTestId('select-row').check();
    await expect.poll(() => new URL(page.url()).searchParams.get('selected')?.split(',').length).toBe(2);
    queued = new URL(page.url()).searchParams.get('selected')!.split(',');
    expect(await page.getByTestId('selected-to-queue').isDisabled()).toBe(false);
    await shot('04-traces-checked');

    await page.getByTestId('selected-to-queue').click();
    const dialog = page.getByTestId('dialog');
    await expect
      .poll(() => dialog.getByTestId('queue-picker').locator('option').allTextContents())
      .toEqual([`${queueName} — 0 pending`]);
    await shot('05-send-checked-to-queue');
    await dialog.getByTestId('dialog-confirm').click();
    expect(await dialog.getByTestId('sent-to-queue').textContent()).toBe(
      `Sent 2 runs to ${queueName} (a run already there keeps its place).`,
    );
    await dialog.getByTestId('dialog-close').click();

    // The same rows, as examples of a dataset chosen by name.
    await page.getByTestId('selected-to-dataset').click();
    await dialog.getByTestId('dataset-picker-search').fill('aq-picked');
    await expect
      .poll(() => dialog.getByTestId('dataset-picker').locator('option').allTextContents())
      .toEqual([datasets.picked.name]);
    await dialog.getByTestId('dialog-confirm').click();
    expect(await dialog.getByTestId('added-to-dataset').textContent()).toBe(
      `Added 2 examples to ${datasets.picked.name}, from the runs’ inputs and outputs.`,
    );
    await dialog.getByTestId('dialog-close').click();
    const examples = await call(`/examples?dataset=${datasets.picked.id}`);
    expect(examples.map((e: any) => e.source_run_id).sort()).toEqual([...queued].sort());
    const peru = examples.find((e: any) => e.source_run_id === runs['capital-peru']);
    expect([peru.inputs, peru.outputs]).toEqual([{ question: 'What is the capital of Peru?' }, { answer: 'Cusco' }]);

    // A third run, from its detail.
    await row('capital-japan').getByTestId('trace-link').click();
    await expect.poll(() => page.getByTestId('run-detail-name').textContent()).toBe('capital-japan');
    await page.getByTestId('run-send-to-queue').click();
    await expect
      .poll(() => dialog.getByTestId('queue-picker').locator('option').allTextContents())
      .toEqual([`${queueName} — 2 pending`]);
    await dialog.getByTestId('dialog-confirm').click();
    expect(await dialog.getByTestId('sent-to-queue').textContent()).toBe(`Sent the run to ${queueName}.`);
    await shot('06-run-sent-to-queue');
    await dialog.getByTestId('dialog-close').click();
    queued.push(runs['capital-japan']!);

    const queue = await call(`/annotation-queues/${queueId}`);
    expect([queue.total_runs, queue.pending_runs]).toEqual([3, 3]);
    const inQueue = await call(`/annotation-queues/${queueId}/runs`);
    expect(inQueue.map((r: any) => r.id)).toEqual(queued);
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a reviewer’s page: two runs reviewed (the keyboard, then the form), Previous/Next, Skip, Add to dataset, the end', async (context) => {
    if (noBrowser || queued.length !== 3) return context.skip(noBrowser ?? 'no runs queued');
    const { page, problems, shot } = await open('/ui/annotation-queues');
    await queueRow(page, queueId).getByTestId('queue-review').click();
    expect(new URL(page.url()).pathname).toBe(`/ui/annotation-queues/${queueId}/review`);
    await expect.poll(() => page.getByTestId('review-left').textContent()).toBe('3 of 3 left');
    await expect.poll(() => reviewRunId(page)).toBe(queued[0]);
    expect(await page.getByTestId('queue-title').textContent()).toBe(queueName);
    expect(await page.getByTestId('rubric-instructions').textContent()).toContain('Check the capital against an atlas');
    // The run's inputs and outputs, field by field.
    expect(await page.getByTestId('review-inputs').getByTestId('io-field').textContent()).toBe(
      `question${QA.find(([n]) => runs[n] === queued[0])![1]}`,
    );
    // The rubric as a form: the categories, each score of the range (described), free text.
    const field = (key: string) => page.locator(`[data-testid="rubric-field"][data-key="${key}"]`);
    expect(await field('correctness').getByTestId('choice').allTextContents()).toEqual(['1wrong', '2right']);
    expect(await field('helpfulness').getByTestId('choice').allTextContents()).toEqual([
      '11useless',
      '22',
      '33',
      '44',
      '55all one needs',
    ]);
    expect(await field('explanation').getByTestId('text-box').count()).toBe(1);
    expect(await page.getByTestId('review-keys').textContent()).toContain('Enter submit');
    await shot('07-review');

    // → and ← move through my to-do.
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => reviewRunId(page)).toBe(queued[1]);
    expect(await page.getByTestId('review-place').textContent()).toBe('run 2 of the 3 needing your review');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => reviewRunId(page)).toBe(queued[0]);

    // Enter with nothing scored is refused: the rubric's required key first.
    await page.keyboard.press('Enter');
    expect(await page.getByTestId('review-problem').textContent()).toBe('correctness is required');
    // The keyboard: 2 (right) for correctness, then 4 for helpfulness (the mark moves on), a comment, Enter.
    await page.keyboard.press('2');
    await page.keyboard.press('4');
    expect(await field('correctness').locator('[aria-pressed="true"]').textContent()).toBe('2right');
    expect(await field('helpfulness').locator('[aria-pressed="true"]').textContent()).toBe('44');
    expect(await field('helpfulness').getByTestId('score-box').inputValue()).toBe('4');
    expect(await field('explanation').getAttribute('class')).toContain('active');
    await page.getByTestId('review-comment').fill('clear and right');
    await shot('08-review-scored');
    await page.getByTestId('review-comment').press('Enter');
    const first = queued[0]!;
    const firstName = Object.keys(runs).find((n) => runs[n] === first)!;
    await expect
      .poll(() => page.getByTestId('review-note').textContent())
      .toBe(`Submitted correctness right, helpfulness 4 for ${firstName}.`);
    await expect.poll(() => page.getByTestId('review-left').textContent()).toBe('2 of 3 left');
    await expect.poll(() => reviewRunId(page)).toBe(queued[1]);
    reviewed.keyboard = first;

    // The form: a click on a category, a typed score, free text, Submit.
    await field('correctness').getByTestId('choice').filter({ hasText: 'wrong' }).click();
    await field('helpfulness').getByTestId('score-box').fill('2.5');
    await field('explanation').getByTestId('text-box').fill('Cusco was the Inca capital; Lima is the capital of Peru.');
    await page.getByTestId('review-submit').click();
    await expect.poll(() => page.getByTestId('review-left').textContent()).toBe('1 of 3 left');
    reviewed.form = queued[1]!;

    // The feedback is on the runs, given in the app; the queue's pending count dropped.
    await vi.waitFor(
      async () => {
        const got = await call(`/feedback?run=${reviewed.keyboard}`);
        const of = (key: string) => got.find((f: any) => f.key === key);
        expect(got).toHaveLength(2);
        expect(of('correctness')).toMatchObject({ score: 1, value: 'right', comment: 'clear and right' });
        expect(of('helpfulness')).toMatchObject({ score: 4, value: null, comment: 'clear and right' });
        expect(of('correctness').feedback_source.type).toBe('app');
      },
      { timeout: 30_000, interval: 300 },
    );
    await vi.waitFor(
      async () => {
        const got = await call(`/feedback?run=${reviewed.form}`);
        const of = (key: string) => got.find((f: any) => f.key === key);
        expect(got).toHaveLength(3);
        expect(of('correctness')).toMatchObject({ score: 0, value: 'wrong', comment: null });
        expect(of('helpfulness')).toMatchObject({ score: 2.5 });
        expect(of('explanation')).toMatchObject({
          score: null,
          value: 'Cusco was the Inca capital; Lima is the capital of Peru.',
        });
      },
      { timeout: 30_000, interval: 300 },
    );
    const queue = await call(`/annotation-queues/${queueId}`);
    expect([queue.total_runs, queue.pending_runs]).toEqual([3, 1]);

    // Skip: the run stays in my to-do; past it, the end of the list leads back to it.
    await expect.poll(() => reviewRunId(page)).toBe(queued[2]);
    await page.keyboard.press('s');
    await expect
      .poll(() => page.getByTestId('review-end-of-list').textContent())
      .toContain('1 run you skipped still needs your review.');
    await page.getByTestId('review-first').click();
    await expect.poll(() => reviewRunId(page)).toBe(queued[2]);

    // Add to dataset: the queue's default dataset is chosen.
    await page.keyboard.press('d');
    const dialog = page.getByTestId('dialog');
    await expect.poll(() => dialog.getByTestId('dataset-picker').inputValue()).toBe(datasets.golden.id);
    await shot('09-review-add-to-dataset');
    await dialog.getByTestId('dialog-confirm').click();
    await dialog.getByTestId('added-to-dataset').waitFor();
    await dialog.getByTestId('dialog-close').click();
    const [example] = await call(`/examples?dataset=${datasets.golden.id}`);
    expect(example).toMatchObject({
      source_run_id: runs['capital-japan'],
      inputs: { question: 'What is the capital of Japan?' },
      outputs: { answer: 'Tokyo' },
    });

    // The last one, then nothing is left.
    await page.keyboard.press('2');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('review-done').textContent()).toContain('Nothing left for you to review');
    expect(await page.getByTestId('review-left').textContent()).toBe('0 of 3 left');
    await shot('10-review-done');
    expect((await call(`/annotation-queues/${queueId}`)).pending_runs).toBe(0);

    // The list says so too.
    await page.getByRole('link', { name: 'Annotation queues' }).first().click();
    await expect.poll(() => queueRow(page, queueId).getByTestId('queue-pending').textContent()).toBe('0');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a run’s detail: its feedback edited and deleted; the run added to a dataset', async (context) => {
    if (noBrowser || !reviewed.keyboard) return context.skip(noBrowser ?? 'no run reviewed');
    const runId = reviewed.keyboard;
    const { page, problems, shot } = await open(`/ui/projects/${projectId}/traces/${runId}`);
    const row = (key: string) =>
      page.locator('[data-testid="feedback-row"]', { has: page.locator('.feedback-key', { hasText: key }) });
    await expect.poll(() => page.getByTestId('feedback-row').count()).toBe(2);
    expect(await row('correctness').locator('td').allTextContents()).toEqual([
      'correctness',
      '1',
      'right',
      'clear and right',
      expect.any(String),
      'EditDelete',
    ]);

    // Edit: the score, the comment and a correction (JSON).
    await row('helpfulness').getByTestId('feedback-edit').click();
    const editor = page.getByTestId('feedback-editor');
    expect(await editor.getByTestId('edit-score').inputValue()).toBe('4');
    await editor.getByTestId('edit-score').fill('x');
    await editor.getByTestId('edit-save').click();
    expect(await editor.getByTestId('edit-problem').textContent()).toBe('The score must be a number; got "x".');
    await editor.getByTestId('edit-score').fill('3');
    await editor.getByTestId('edit-comment').fill('on reflection, a bit terse');
    await editor.getByTestId('edit-correction').fill('{"answer": "Paris, on the Seine"}');
    await shot('11-feedback-edit');
    await editor.getByTestId('edit-save').click();
    await expect.poll(() => row('helpfulness').locator('.feedback-score').textContent()).toBe('3');
    expect(await row('helpfulness').locator('.feedback-comment').textContent()).toBe('on reflection, a bit terse');
    const [helpfulness] = await call(`/feedback?run=${runId}&key=helpfulness`);
    expect(helpfulness).toMatchObject({
      score: 3,
      comment: 'on reflection, a bit terse',
      correction: { answer: 'Paris, on the Seine' },
    });

    // Delete, after "are you sure?".
    await row('correctness').getByTestId('feedback-delete').click();
    await row('correctness').getByTestId('feedback-delete-confirm').waitFor();
    await shot('12-feedback-delete');
    await row('correctness').getByTestId('feedback-delete-yes').click();
    await expect.poll(() => page.getByTestId('feedback-row').count()).toBe(1);
    await vi.waitFor(
      async () => expect((await call(`/feedback?run=${runId}`)).map((f: any) => f.key)).toEqual(['helpfulness']),
      { timeout: 30_000, interval: 300 },
    );
    // Read again, the page says the same.
    await page.reload();
    await expect.poll(() => page.getByTestId('feedback-row').count()).toBe(1);
    expect(await row('helpfulness').locator('.feedback-score').textContent()).toBe('3');

    // Add to dataset: an example of the run, its inputs and outputs, the run as its source.
    await page.getByTestId('run-add-to-dataset').click();
    const dialog = page.getByTestId('dialog');
    await dialog.getByTestId('dataset-picker-search').fill('aq-from-detail');
    await expect
      .poll(() => dialog.getByTestId('dataset-picker').locator('option').allTextContents())
      .toEqual([detailDataset.name]);
    await dialog.getByTestId('dialog-confirm').click();
    expect(await dialog.getByTestId('added-to-dataset').textContent()).toBe(
      `Added an example to ${detailDataset.name}, from the run’s inputs and outputs.`,
    );
    await shot('13-run-added-to-dataset');
    const [example] = await call(`/examples?dataset=${detailDataset.id}`);
    const [name, question, answer] = QA.find(([n]) => runs[n] === runId)!;
    expect(name).toBeTruthy();
    expect(example).toMatchObject({ source_run_id: runId, inputs: { question }, outputs: { answer } });
    // Its link opens the dataset.
    await dialog.getByTestId('added-dataset-link').click();
    await expect.poll(() => page.getByTestId('example-row').count()).toBe(1);
    expect(problems).toEqual([]);
    await page.close();
  });
  test('a run the API cannot read (never sent) is in no count: the page reviews the readable ones, then says it is done', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { id } = await call('/annotation-queues', { method: 'POST', json: { name: `unreadable-${stamp}` } });
    await call(`/annotation-queues/${id}/runs`, { method: 'POST', json: [randomUUID(), runs['capital-kenya']] });
    const { page, problems, shot } = await open(`/ui/annotation-queues/${id}/review`);
    await expect.poll(() => reviewRunId(page)).toBe(runs['capital-kenya']);
    expect(await page.getByTestId('review-left').textContent()).toBe('1 of 1 left');
    // No rubric: the run is marked done.
    expect(await page.getByTestId('review-submit').textContent()).toBe('Done Enter');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('review-done').textContent()).toContain('Nothing left for you to review');
    await shot('14-review-unreadable-not-counted');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('an empty workspace says how to make a queue; past a hundred, Show more reads the next hundred', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const [many] = (await createWorkspaces(1)) as [Workspace];
    const { page, problems, shot } = await explorer!.open(many.apiKey, '/ui/annotation-queues');
    page.setDefaultTimeout(15_000);
    await page.getByTestId('queues-empty').waitFor();
    // Created oldest first: the list is newest first, so "queue-000" is the last one listed.
    const names = Array.from({ length: 101 }, (_, i) => `queue-${String(i).padStart(3, '0')}`);
    for (const name of names) {
      const res = await api('/annotation-queues', { method: 'POST', apiKey: many.apiKey, json: { name } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    await page.reload();
    await expect.poll(() => page.getByTestId('queue-row').count()).toBe(100);
    expect(await page.getByTestId('queue-name').first().textContent()).toBe('queue-100');
    await page.getByTestId('queues-more').click();
    await expect.poll(() => page.getByTestId('queue-row').count()).toBe(101);
    expect(await page.getByTestId('queue-name').last().textContent()).toBe('queue-000');
    expect(await page.getByTestId('queues-more').count()).toBe(0);
    await shot('15-queues-show-more');
    // The search is the API's (name_contains), so it reaches queues not read yet.
    await page.reload();
    await expect.poll(() => page.getByTestId('queue-row').count()).toBe(100);
    await page.getByTestId('queue-search').fill('QUEUE-00');
    await expect.poll(() => page.getByTestId('queue-name').allTextContents()).toEqual(names.slice(0, 10).reverse());
    expect(problems).toEqual([]);
    await page.close();
  });
});
