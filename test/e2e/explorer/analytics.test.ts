// The explorer's analytics view in a real browser, on traces sent by the official `langsmith`
// client at several hours of the last day (RunTree with past start times, each with an llm
// child reporting its usage; one errored): the summary numbers equal what
// GET /sessions/{id}/stats answers for the range, the four uPlot charts are drawn, and the time
// range is in the URL. Screenshots in test-output/explorer/analytics/.
import { Client, RunTree } from 'langsmith';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { count, percent, seconds } from '../../../apps/explorer/core/format.ts';
import { startExplorerBrowser, waitForTraceCount, type ExplorerBrowser } from '../../support/explorer.ts';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../support/tracingClient.ts';

let noBrowser: string | null = null;
let explorer: ExplorerBrowser | undefined;
let workspace: Workspace;
let projectId: string;
const projectName = `analytics-page-${Date.now()}`;
const MINUTE = 60_000;
/** Minutes before now each trace started, its latency in seconds, and whether it failed. */
const TRACES: [number, number, boolean][] = [
  [30, 1, false],
  [130, 2, true],
  [140, 3, false],
  [300, 4, false],
  [540, 5, false],
  [545, 0.5, false],
];

beforeAll(async () => {
  const started = await startExplorerBrowser('analytics');
  if (typeof started === 'string') {
    noBrowser = started;
    return;
  }
  explorer = started;
  [workspace] = (await createWorkspaces(1)) as [Workspace];
  const client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: workspace.apiKey });
  const now = Date.now();
  for (const [minutesAgo, latency, failed] of TRACES) {
    const start = now - minutesAgo * MINUTE;
    const root = new RunTree({
      name: 'answer',
      run_type: 'chain',
      inputs: { q: `asked ${minutesAgo}m ago` },
      start_time: start,
      project_name: projectName,
      client,
      tracingEnabled: true,
    });
    await root.postRun();
    const llm = root.createChild({ name: 'model', run_type: 'llm', inputs: { prompt: 'p' }, start_time: start + 100 });
    await llm.postRun();
    await llm.end(
      { content: 'ok', usage_metadata: { input_tokens: 20, output_tokens: 10, total_tokens: 30 } },
      undefined,
      start + latency * 1000 - 100,
    );
    await llm.patchRun();
    await root.end(
      failed ? undefined : { answer: 'ok' },
      failed ? 'upstream failed' : undefined,
      start + latency * 1000,
    );
    await root.patchRun();
  }
  await client.awaitPendingTraceBatches();
  projectId = await waitForTraceCount(workspace.apiKey, projectName, TRACES.length);
  // Their ends and usage too (patched after the traces were created).
  await vi.waitFor(
    async () => {
      const stats = (await api(`/sessions/${projectId}/stats`, { apiKey: workspace.apiKey })).body;
      expect([stats.total_tokens, stats.trace_error_count, stats.series.length > 0]).toEqual([
        30 * TRACES.length,
        1,
        true,
      ]);
      expect(stats.latency_p99).toBeGreaterThan(4);
    },
    { timeout: 60_000, interval: 500 },
  );
}, 20 * 60_000);

afterAll(async () => {
  await explorer?.close();
});

describe('the analytics view', () => {
  test('summary numbers equal the stats API for the range; the four charts are drawn; the range is in the URL', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(
      workspace.apiKey,
      `/ui/projects/${projectId}/analytics?range=24h`,
    );
    await page.getByTestId('analytics-summary').waitFor();
    const since = new Date(Date.now() - 24 * 60 * MINUTE).toISOString();
    const stats = (
      await api(`/sessions/${projectId}/stats?start_time=${since}&bucket=auto`, { apiKey: workspace.apiKey })
    ).body;
    expect(stats.trace_count).toBe(TRACES.length);
    // Several buckets (of 15 minutes: two pairs of traces may share one).
    expect(stats.series.filter((b: { trace_count: number }) => b.trace_count > 0).length).toBeGreaterThanOrEqual(4);
    const figures = {
      'sum-traces': count(stats.trace_count),
      'sum-runs': count(stats.run_count),
      'sum-error-rate': percent(stats.trace_error_rate),
      'sum-p50': seconds(stats.latency_p50),
      'sum-p99': seconds(stats.latency_p99),
      'sum-tokens': count(stats.total_tokens),
    };
    for (const [testId, text] of Object.entries(figures))
      expect(await page.getByTestId(testId).textContent(), testId).toBe(text);
    expect(figures['sum-traces']).toBe('6');
    expect(figures['sum-tokens']).toBe('180');
    expect(figures['sum-error-rate']).toBe('16.7%');

    for (const chart of ['chart-traces', 'chart-latency', 'chart-error-rate', 'chart-tokens']) {
      expect(await page.getByTestId(chart).locator('canvas').count(), chart).toBe(1);
      expect(await page.getByTestId(chart).locator('.u-legend').count(), chart).toBe(1);
    }
    expect(await page.getByTestId('chart-latency').locator('.u-legend .u-label').allTextContents()).toEqual([
      'Time',
      'p50',
      'p99',
    ]);
    await page.setViewportSize({ width: 1280, height: 1000 }); // all four charts in the picture
    await shot('01-analytics-24h');

    // The range: in the URL, and a shorter one narrows the figures.
    await page.getByTestId('time-range').selectOption('1h');
    await expect.poll(() => page.getByTestId('sum-traces').textContent()).toBe('1');
    expect(new URL(page.url()).searchParams.get('range')).toBe('1h');
    await shot('02-analytics-1h');
    await page.getByTestId('time-range').selectOption('7d');
    await expect.poll(() => page.getByTestId('sum-traces').textContent()).toBe('6');
    expect(new URL(page.url()).searchParams.get('range')).toBeNull(); // the default
    await shot('03-analytics-7d');
    expect(problems).toEqual([]);
    await page.close();
  });

  test('a project with no traces in the range says what to do', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const empty = await api('/sessions', {
      method: 'POST',
      apiKey: workspace.apiKey,
      json: { name: `no-traces-${Date.now()}` },
    });
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, `/ui/projects/${empty.body.id}/analytics`);
    await page.getByTestId('analytics-empty').waitFor();
    expect(await page.getByTestId('sum-traces').textContent()).toBe('0');
    expect(await page.locator('canvas').count()).toBe(0);
    await shot('04-analytics-empty');
    expect(problems).toEqual([]);
    await page.close();
  });
});
