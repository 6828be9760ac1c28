// The explorer's traces table in a real browser, on traces sent by the official `langsmith`
// client (RunTree, with set start and end times, so latencies are known): sorting by latency
// (server-side, both ways), a time range and each quick filter narrowing the table, a trace sent
// while the page is open appearing without a reload, the URL reproducing the whole view in a
// new page, and exports of the checked rows (JSONL) and of the filtered set (CSV) as downloads.
// Screenshots in test-output/explorer/traces/ (git-ignored).
import { readFileSync } from 'node:fs';
import { Client, RunTree } from 'langsmith';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startExplorerBrowser, type ExplorerBrowser } from '../../support/explorer.ts';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../support/tracingClient.ts';
import { waitFor } from '../../support/serviceProcess.ts';

let noBrowser: string | null = null;
let explorer: ExplorerBrowser | undefined;
let workspace: Workspace;
let client: Client;
let projectId: string;
const projectName = `explorer-traces-${Date.now()}`;
const ids: Record<string, string> = {};

const NOW = Date.now();
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

interface Seed {
  name: string;
  runType: 'chain' | 'llm';
  /** Start, milliseconds before now. */
  ago: number;
  latencyMs: number;
  tags: string[];
  metadata?: Record<string, string>;
  error?: string;
  usage?: { input_tokens: number; output_tokens: number; total_tokens: number; total_cost: number };
}

// Latency order: slow-chain 3 s, old-one 2 s, mid-llm 1 s, broken 0.5 s, fast-llm 0.2 s.
const SEEDS: Seed[] = [
  {
    name: 'slow-chain',
    runType: 'chain',
    ago: 10 * MINUTE,
    latencyMs: 3000,
    tags: ['alpha'],
    metadata: { env: 'prod' },
  },
  {
    name: 'fast-llm',
    runType: 'llm',
    ago: 9 * MINUTE,
    latencyMs: 200,
    tags: ['beta'],
    metadata: { env: 'dev' },
    usage: { input_tokens: 100, output_tokens: 50, total_tokens: 150, total_cost: 0.003 },
  },
  {
    name: 'mid-llm',
    runType: 'llm',
    ago: 8 * MINUTE,
    latencyMs: 1000,
    tags: ['alpha', 'beta'],
    usage: { input_tokens: 30, output_tokens: 10, total_tokens: 40, total_cost: 0.02 },
  },
  {
    name: 'broken',
    runType: 'chain',
    ago: 7 * MINUTE,
    latencyMs: 500,
    tags: ['gamma'],
    metadata: { env: 'prod' },
    error: 'ValueError: boom, "quoted"',
  },
  { name: 'old-one', runType: 'chain', ago: 3 * DAY, latencyMs: 2000, tags: ['alpha'] },
];

async function send(seed: Seed): Promise<void> {
  const start = NOW - seed.ago;
  const run = new RunTree({
    name: seed.name,
    run_type: seed.runType,
    start_time: start,
    project_name: projectName,
    client,
    tags: seed.tags,
    extra: { metadata: seed.metadata ?? {} },
    inputs: { question: `what about ${seed.name}, "really"?\nsecond line` },
  });
  ids[seed.name] = run.id;
  await run.end(
    seed.usage ? { answer: 'ok', usage_metadata: seed.usage } : { answer: 'ok' },
    seed.error,
    start + seed.latencyMs,
  );
  await run.postRun();
}

/** The project's traces, as the API reads them, once all `count` are there and finished. */
async function waitForTraces(count: number): Promise<void> {
  await waitFor(
    `${count} finished traces`,
    async () => {
      const res = await api('/api/v2/traces/query', {
        method: 'POST',
        apiKey: workspace.apiKey,
        json: { project_id: projectId, min_start_time: '1970-01-01T00:00:00Z', page_size: 100 },
      });
      return res.status === 200 &&
        res.body.items.length === count &&
        res.body.items.every((i: any) => i.root_run.end_time)
        ? true
        : null;
    },
    60_000,
    250,
  );
}

beforeAll(async () => {
  const started = await startExplorerBrowser('traces');
  if (typeof started === 'string') {
    noBrowser = started;
    return;
  }
  explorer = started;
  [workspace] = (await createWorkspaces(1)) as [Workspace];
  client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: workspace.apiKey });
  for (const seed of SEEDS) await send(seed);
  await client.awaitPendingTraceBatches();
  await waitFor(
    'the project',
    async () => {
      const res = await api(`/sessions?name=${encodeURIComponent(projectName)}`, { apiKey: workspace.apiKey });
      return res.body?.[0]?.id ?? null;
    },
    30_000,
    200,
  ).then((id) => (projectId = id));
  await waitForTraces(SEEDS.length);
}, 10 * 60_000);

afterAll(async () => {
  await explorer?.close();
});

const names = (page: Page) => page.getByTestId('trace-link').allTextContents();
const rowIds = (page: Page) =>
  page
    .getByTestId('trace-row')
    .evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { runId: string } }).dataset.runId));
const param = (page: Page, name: string) => new URL(page.url()).searchParams.get(name);
const sorted = (list: string[]) => [...list].sort();

describe('the traces table', () => {
  test('sort by latency (server-side, both ways); a time range narrows; each quick filter narrows', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, `/ui/projects/${projectId}`);
    // Default: the last 7 days, newest first.
    await expect.poll(() => names(page)).toEqual(['broken', 'mid-llm', 'fast-llm', 'slow-chain', 'old-one']);
    expect(await page.getByTestId('range-select').inputValue()).toBe('7d');
    await shot('01-default');
    // The keyboard: j/k move the row marker, x checks the row, Enter opens its trace.
    const activeName = () =>
      page.locator('[data-testid="trace-row"][aria-current="true"] [data-testid="trace-link"]').textContent();
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await expect.poll(activeName).toBe('mid-llm');
    await page.keyboard.press('x');
    await expect.poll(() => param(page, 'selected')).toBeTruthy();
    await page.keyboard.press('x');
    await expect.poll(() => param(page, 'selected')).toBeNull();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('trace-name').textContent()).toBe('mid-llm');
    await page.goBack();
    await expect.poll(() => names(page)).toEqual(['broken', 'mid-llm', 'fast-llm', 'slow-chain', 'old-one']);

    await page.getByTestId('sort-latency').click();
    await expect.poll(() => names(page)).toEqual(['slow-chain', 'old-one', 'mid-llm', 'broken', 'fast-llm']);
    expect([param(page, 'sort'), param(page, 'order')]).toEqual(['latency', null]);
    await shot('02-latency-desc');
    await page.getByTestId('sort-latency').click();
    await expect.poll(() => names(page)).toEqual(['fast-llm', 'broken', 'mid-llm', 'old-one', 'slow-chain']);
    expect(param(page, 'order')).toBe('asc');
    await page.getByTestId('sort-total_cost').click();
    await expect.poll(() => names(page).then((n) => n.slice(0, 2))).toEqual(['mid-llm', 'fast-llm']);

    // A time range: the last 24 hours leaves the trace of three days ago out; a custom range keeps only it.
    await page.getByTestId('range-select').selectOption('24h');
    await expect.poll(() => names(page).then(sorted)).toEqual(['broken', 'fast-llm', 'mid-llm', 'slow-chain']);
    expect(param(page, 'range')).toBe('24h');
    await page.getByTestId('range-select').selectOption('custom');
    const local = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * MINUTE).toISOString().slice(0, 16);
    await page.getByTestId('range-from').fill(local(NOW - 4 * DAY));
    await page.getByTestId('range-to').fill(local(NOW - 2 * DAY));
    await page.getByTestId('range-apply').click();
    await expect.poll(() => names(page)).toEqual(['old-one']);
    expect(param(page, 'range')).toBe('custom');
    expect(await page.getByTestId('live-status').getAttribute('data-live')).toBe('off'); // a range that ends in the past
    await shot('03-custom-range');
    await page.getByTestId('range-select').selectOption('all');
    await expect.poll(() => page.getByTestId('trace-row').count()).toBe(5);

    // Quick filters, each alone, and the filter they compose shown.
    await page.getByTestId('quick-errors').check();
    await expect.poll(() => names(page)).toEqual(['broken']);
    expect(await page.getByTestId('effective-filter').textContent()).toBe('eq(status, "error")');
    expect(param(page, 'errors')).toBe('1');
    await shot('04-errors-only');
    await page.getByTestId('quick-errors').uncheck();
    await page.getByTestId('quick-run-type').selectOption('llm');
    await expect.poll(() => names(page).then(sorted)).toEqual(['fast-llm', 'mid-llm']);
    await page.getByTestId('quick-run-type').selectOption('');
    await page.getByTestId('quick-tag').fill('gamma');
    await page.getByTestId('filter-apply').click();
    await expect.poll(() => names(page)).toEqual(['broken']);
    expect(await page.getByTestId('effective-filter').textContent()).toBe('has(tags, "gamma")');
    await page.getByTestId('quick-tag').fill('');
    await page.getByTestId('quick-meta-key').fill('env');
    await page.getByTestId('quick-meta-value').fill('prod');
    await page.getByTestId('filter-apply').click();
    await expect.poll(() => names(page).then(sorted)).toEqual(['broken', 'slow-chain']);
    expect(await page.getByTestId('effective-filter').textContent()).toBe(
      'and(eq(metadata_key, "env"), eq(metadata_value, "prod"))',
    );
    // With the filter box: both must hold.
    await page.getByTestId('filter-input').fill('gt(latency, "1s")');
    await page.getByTestId('filter-apply').click();
    await expect.poll(() => names(page)).toEqual(['slow-chain']);
    await shot('05-metadata-and-filter');
    // A bad expression: the API's message under the box.
    await page.getByTestId('filter-input').fill('gt(latency,');
    await page.getByTestId('filter-apply').click();
    await page.getByTestId('filter-error').waitFor();
    // Its position is in the composed filter, which the page shows.
    const composed = 'and(gt(latency,, and(eq(metadata_key, "env"), eq(metadata_value, "prod")))';
    expect(await page.getByTestId('effective-filter').textContent()).toBe(composed);
    const bad = await api('/api/v2/traces/query', {
      method: 'POST',
      apiKey: workspace.apiKey,
      json: { project_id: projectId, trace_filter: composed },
    });
    expect(bad.body.error).toBe('INVALID_FILTER');
    expect(await page.getByTestId('filter-error').textContent()).toBe(bad.body.detail);
    expect(await page.getByTestId('live-status').count()).toBe(0); // no live line for a view that cannot be read
    await shot('05b-bad-filter');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a trace sent while the page is open appears without a reload', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, `/ui/projects/${projectId}?range=24h`);
    await expect.poll(() => page.getByTestId('trace-row').count()).toBe(4);
    expect(await page.getByTestId('live-status').getAttribute('data-live')).toBe('on');
    await page.evaluate('window.__sameDocument = true');
    const late = new RunTree({
      name: 'late-arrival',
      run_type: 'chain',
      project_name: projectName,
      client,
      inputs: { q: 'late' },
    });
    await late.end({ answer: 'here' });
    await late.postRun();
    await client.awaitPendingTraceBatches();
    await expect
      .poll(() => names(page), { timeout: 30_000 })
      .toEqual(['late-arrival', 'broken', 'mid-llm', 'fast-llm', 'slow-chain']);
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    await shot('06-live-arrival');
    // Sorted otherwise, a new trace is counted and shown in its place on request.
    await page.getByTestId('sort-total_tokens').click();
    await expect.poll(() => names(page).then((n) => n[0])).toBe('fast-llm');
    const later = new RunTree({
      name: 'later-still',
      run_type: 'llm',
      project_name: projectName,
      client,
      inputs: { q: 'later' },
    });
    await later.end({ answer: 'big', usage_metadata: { input_tokens: 900, output_tokens: 100, total_tokens: 1000 } });
    await later.postRun();
    await client.awaitPendingTraceBatches();
    await expect
      .poll(() => page.getByTestId('new-traces').textContent(), { timeout: 30_000 })
      .toBe('1 new trace — show');
    await shot('07-new-traces-counted');
    await page.getByTestId('new-traces').click();
    await expect.poll(() => names(page).then((n) => n[0])).toBe('later-still');
    expect(await page.evaluate('window.__sameDocument')).toBe(true);
    ids['late-arrival'] = late.id;
    ids['later-still'] = later.id;
    expect(problems).toEqual([]);
    await page.close();
  });

  test('the URL reproduces the view in a new page; exports of the checked rows and of the filtered set', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, `/ui/projects/${projectId}`);
    await expect.poll(() => page.getByTestId('trace-row').count()).toBeGreaterThanOrEqual(5);
    await page.getByTestId('quick-tag').fill('alpha');
    await page.getByTestId('filter-apply').click();
    await page.getByTestId('sort-latency').click();
    await expect.poll(() => names(page)).toEqual(['slow-chain', 'old-one', 'mid-llm']);
    const row = (name: string) =>
      page.locator('[data-testid="trace-row"]', { has: page.getByText(name, { exact: true }) });
    await row('slow-chain').getByTestId('select-row').check();
    await row('mid-llm').getByTestId('select-row').check();
    await expect
      .poll(() => param(page, 'selected')?.split(',').sort())
      .toEqual(sorted([ids['slow-chain']!, ids['mid-llm']!]));
    await shot('08-view-with-selection');

    // The same URL in a new page: the same rows in the same order, the same controls, the same rows checked.
    const fresh = await explorer!.open(workspace.apiKey, new URL(page.url()).pathname + new URL(page.url()).search);
    await expect.poll(() => rowIds(fresh.page)).toEqual(await rowIds(page));
    expect(await fresh.page.getByTestId('quick-tag').inputValue()).toBe('alpha');
    expect(await fresh.page.locator('th[aria-sort="descending"]').textContent()).toContain('Latency');
    const checked = await fresh.page
      .getByTestId('trace-row')
      .evaluateAll((rows) =>
        rows
          .filter((r) => (r.querySelector('input[type=checkbox]') as unknown as { checked: boolean }).checked)
          .map((r) => (r as unknown as { dataset: { runId: string } }).dataset.runId),
      );
    expect(sorted(checked)).toEqual(sorted([ids['slow-chain']!, ids['mid-llm']!]));
    await fresh.shot('09-same-view-new-page');
    await fresh.page.close();

    // The checked rows as JSONL: one line per trace, with the root run's inputs and the totals.
    const [jsonl] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-selected').click()]);
    expect(jsonl.suggestedFilename()).toMatch(/^traces-selected-.*\.jsonl$/);
    const lines = readFileSync((await jsonl.path())!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(sorted(lines.map((l) => l.id))).toEqual(sorted([ids['slow-chain']!, ids['mid-llm']!]));
    const mid = lines.find((l) => l.name === 'mid-llm');
    expect(mid).toMatchObject({
      run_type: 'llm',
      status: 'success',
      total_tokens: 40,
      total_cost: 0.02,
      tags: ['alpha', 'beta'],
    });
    expect(mid.latency_seconds).toBeCloseTo(1, 3); // the client moves start times by microseconds to order runs
    expect(mid.inputs.question).toBe('what about mid-llm, "really"?\nsecond line');
    await expect.poll(() => page.getByTestId('export-progress').textContent()).toBe('Exported 2 traces');

    // The filtered set (tag alpha: three traces) as CSV, in the table's order, quoted as RFC 4180 says.
    await page.getByTestId('export-format').selectOption('csv');
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-all').click()]);
    expect(csv.suggestedFilename()).toMatch(/^traces-all-.*\.csv$/);
    const text = readFileSync((await csv.path())!, 'utf8');
    const header = text.slice(0, text.indexOf('\r\n')).split(',');
    expect(header.slice(0, 5)).toEqual(['id', 'trace_id', 'name', 'run_type', 'status']);
    const idsInCsv = [...text.matchAll(/\r\n([0-9a-f-]{36}),/g)].map((m) => m[1]);
    expect(idsInCsv).toEqual([ids['slow-chain'], ids['old-one'], ids['mid-llm']]);
    expect(text).toContain('"{""question"":""what about slow-chain, \\""really\\""?\\nsecond line""}"');
    await shot('10-exported');
    expect(problems).toEqual([]);
    await page.close();
  });
});
