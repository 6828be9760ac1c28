// The trace view of the explorer (apps/explorer/trace/) in a real browser. An agent trace sent by
// the official `langsmith` client: a chat model whose messages include a tool call and whose usage
// rolls up to the chains above it, a tool that fails with a stack, feedback, an attachment. What a
// person checks: the run names in tree order beside waterfall bars ordered by start, the messages
// with their roles and the tool call, the error and its stack, the feedback (and adding some), the
// attachment's bytes, the tokens of the parents, search and the keyboard. Then a trace of 10,000
// runs (sent through our own POST /runs/batch, faster than the client): rendered with far fewer
// rows in the DOM, its last run reachable; the time to the first rows is printed, not asserted.
import { readFile } from 'node:fs/promises';
import { crc32, deflateSync } from 'node:zlib';
import { Client } from 'langsmith';
import { getCurrentRunTree, traceable } from 'langsmith/traceable';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { formatDottedTimestamp } from '../../../platform/time.ts';
import { startExplorerBrowser, waitForTraceCount, type ExplorerBrowser } from '../../support/explorer.ts';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../support/tracingClient.ts';
import type { TestRun } from '../../support/runFactory.ts';
import type { Page } from 'playwright-core';

const QUESTION = 'What is the weather in Paris?';
const SEARCH_FAILURE = 'search backend unavailable';
/** A 16×16 PNG (a gradient): binary bytes a download must not decode or re-encode, and an image the page previews. */
const CHART = png(16, 16, (x, y) => [x * 16, y * 16, 128]);

function png(width: number, height: number, pixel: (x: number, y: number) => [number, number, number]): Uint8Array {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, no interlace
  const rows = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) rows.set(pixel(x, y), y * (1 + width * 3) + 1 + x * 3);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(
    Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]),
  );
}

let noBrowser: string | null = null;
let explorer: ExplorerBrowser | undefined;
let workspace: Workspace;
let client: Client;
let projectId: string;
const projectName = `trace-view-${Date.now()}`;
/** The agent trace's run ids, by name. */
const ids: Record<string, string> = {};

/**
 * agent (chain) → plan (chain) → chat-model (llm: OpenAI-style messages in, a LangChain AIMessage
 * with a tool call and usage out) → search (tool, fails with a stack) → render-chart (tool, with an
 * attachment) → lookup-docs (retriever: documents with metadata).
 */
async function seedAgentTrace(): Promise<void> {
  const options = { client, project_name: projectName, tracingEnabled: true };
  const record =
    <A extends unknown[], R>(fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      const run = getCurrentRunTree();
      ids[run.name] = run.id;
      return fn(...args);
    };
  const chatModel = traceable(
    record(async (_input: { messages: Array<{ role: string; content: string }> }) => {
      // Streamed: its first token comes a little after its start.
      await new Promise((r) => setTimeout(r, 5));
      getCurrentRunTree().addEvent({ name: 'new_token', time: new Date().toISOString(), kwargs: { token: 'Let' } });
      return {
        generations: [
          [
            {
              text: '',
              message: {
                lc: 1,
                type: 'constructor',
                id: ['langchain_core', 'messages', 'AIMessage'],
                kwargs: {
                  content: 'Let me look that up.',
                  tool_calls: [{ id: 'call_1', name: 'search', args: { query: 'weather Paris' }, type: 'tool_call' }],
                  usage_metadata: {
                    input_tokens: 30,
                    output_tokens: 12,
                    total_tokens: 42,
                    input_cost: 0.0003,
                    output_cost: 0.00024,
                  },
                },
              },
            },
          ],
        ],
      };
    }),
    {
      ...options,
      name: 'chat-model',
      run_type: 'llm',
      metadata: { ls_provider: 'openai', ls_model_name: 'gpt-4o-mini', ls_temperature: 0 },
    },
  );
  const plan = traceable(
    record(async (question: string) =>
      chatModel({
        messages: [
          { role: 'system', content: 'You are a weather assistant.' },
          { role: 'user', content: question },
        ],
      }),
    ),
    { ...options, name: 'plan' },
  );
  const renderChart = traceable(
    record(async (input: { caption: string; image: Uint8Array }) => ({ rendered: input.caption })),
    {
      ...options,
      name: 'render-chart',
      run_type: 'tool',
      extractAttachments: (input: { caption: string; image: Uint8Array }) => [
        { chart: ['image/png', input.image] },
        { caption: input.caption },
      ],
    },
  );
  const lookupDocs = traceable(
    record(async (_query: string) => ({
      documents: [
        { page_content: 'Paris: light rain in the afternoon.', metadata: { source: 'forecast-feed', score: 0.92 } },
        { page_content: 'Paris averages 15 °C in May.', metadata: { source: 'climate-wiki' } },
      ],
    })),
    { ...options, name: 'lookup-docs', run_type: 'retriever' },
  );
  const agent = traceable(
    record(async (question: string) => {
      await plan(question);
      // A failing tool whose error carries its stack (the JS traceable sends String(error), no stack).
      const search = getCurrentRunTree().createChild({
        name: 'search',
        run_type: 'tool',
        inputs: { query: 'weather Paris' },
      });
      ids.search = search.id;
      await search.postRun();
      const failure = new Error(SEARCH_FAILURE);
      await search.end(undefined, failure.stack);
      await search.patchRun();
      await renderChart({ caption: 'forecast', image: CHART });
      await lookupDocs('weather Paris');
      return { answer: 'I could not find the weather.' };
    }),
    { ...options, name: 'agent', tags: ['trace-ui'], metadata: { user: 'ada' } },
  );
  await agent(QUESTION);
  await client.awaitPendingTraceBatches();
}

beforeAll(async () => {
  const started = await startExplorerBrowser('trace');
  if (typeof started === 'string') {
    noBrowser = started;
    return;
  }
  explorer = started;
  [workspace] = (await createWorkspaces(1)) as [Workspace];
  client = new Client({ apiUrl: `${tracingUrl()}/api/v1`, apiKey: workspace.apiKey, webUrl: tracingUrl() });
  await seedAgentTrace();
  projectId = await waitForTraceCount(workspace.apiKey, projectName, 1);
  await client.createFeedback({
    runId: ids['chat-model']!,
    sessionId: projectId,
    key: 'helpfulness',
    score: 0.8,
    comment: 'asked the right tool',
  });
  // Every run of the trace projected, the feedback too.
  await vi.waitFor(
    async () => {
      const runs = await api(`/api/v2/traces/${ids.agent}/runs?project_id=${projectId}`, { apiKey: workspace.apiKey });
      expect(runs.body.items?.length).toBe(6);
      const feedback = await api(`/feedback?run=${ids['chat-model']}`, { apiKey: workspace.apiKey });
      expect(feedback.body.length).toBe(1);
    },
    { timeout: 60_000, interval: 500 },
  );
}, 20 * 60_000);

afterAll(async () => {
  await explorer?.close();
});

describe('the API under the trace view', () => {
  test('a chain reports the usage of the model below it (rolled up)', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    for (const name of ['agent', 'plan', 'chat-model']) {
      const run = await api(`/runs/${ids[name]}`, { apiKey: workspace.apiKey });
      expect([name, run.body.total_tokens, run.body.prompt_tokens, run.body.completion_tokens]).toEqual([
        name,
        42,
        30,
        12,
      ]);
    }
    const queried = await api('/runs/query', {
      apiKey: workspace.apiKey,
      method: 'POST',
      json: {
        session: [projectId],
        trace: ids.agent,
        select: ['id', 'name', 'total_tokens', 'prompt_tokens', 'completion_tokens'],
      },
    });
    const byName = Object.fromEntries(
      queried.body.runs.map((r: { name: string; total_tokens: number }) => [r.name, r.total_tokens]),
    );
    expect(byName).toEqual({ agent: 42, plan: 42, 'chat-model': 42, search: 0, 'render-chart': 0, 'lookup-docs': 0 });
    const search = await api(`/runs/${ids.search}`, { apiKey: workspace.apiKey });
    expect(search.body.error).toContain(SEARCH_FAILURE);
  });
});

/** The names of the rows in the DOM, top to bottom. */
const rowNames = (page: Page) => page.locator('[data-testid="tree-run"] .run-name').allTextContents();
const detailId = (page: Page) => page.getByTestId('run-detail').getAttribute('data-run-id');
const row = (page: Page, name: string) => page.locator(`[data-testid="tree-run"][data-run-id="${ids[name]}"]`);

describe('an agent trace', () => {
  test('tree and waterfall, messages with a tool call, rolled-up tokens, error with stack, feedback, attachment, search, keys', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const { page, problems, shot } = await explorer!.open(
      workspace.apiKey,
      `/ui/projects/${projectId}/traces/${ids.agent}`,
    );

    // The runs in tree order, each with a waterfall bar; the bars start in that order (the agent's
    // steps ran one after another), the first at the trace's start.
    await expect
      .poll(() => rowNames(page))
      .toEqual(['agent', 'plan', 'chat-model', 'search', 'render-chart', 'lookup-docs']);
    const offsets = await page
      .getByTestId('waterfall-bar')
      .evaluateAll((bars) => bars.map((b) => Number(b.getAttribute('data-offset'))));
    expect(offsets).toHaveLength(6);
    expect(offsets[0]).toBe(0);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(await page.getByTestId('time-axis').textContent()).toMatch(/^0/);

    // The root is selected: its tokens are the model's, rolled up through plan.
    await expect.poll(() => detailId(page)).toBe(ids.agent);
    await expect.poll(() => page.getByTestId('run-tokens').textContent()).toBe('42 (30 prompt, 12 completion)');
    expect(await page.getByTestId('run-cost').textContent()).toBe('$0.000540');
    expect(await row(page, 'plan').locator('.run-tokens').textContent()).toBe('42 tok');
    expect(await page.getByTestId('run-tags').textContent()).toContain('trace-ui');
    expect(await page.getByTestId('run-metadata').textContent()).toContain('"ada"');
    await shot('01-trace');

    // The model: its input messages with their roles, its answer with the tool call and arguments.
    await row(page, 'chat-model').click();
    await expect.poll(() => detailId(page)).toBe(ids['chat-model']);
    const inputs = page.getByTestId('run-inputs');
    await expect
      .poll(() => inputs.getByTestId('message').evaluateAll((ms) => ms.map((m) => m.getAttribute('data-role'))))
      .toEqual(['system', 'user']);
    expect(await inputs.getByTestId('message').nth(1).textContent()).toContain(QUESTION);
    const outputs = page.getByTestId('run-outputs');
    expect(
      await outputs.getByTestId('message').evaluateAll((ms) => ms.map((m) => m.getAttribute('data-role'))),
    ).toEqual(['assistant']);
    expect(await outputs.getByTestId('message').textContent()).toContain('Let me look that up.');
    const call = outputs.getByTestId('tool-call');
    expect(await call.locator('.tool-call-name').textContent()).toBe('search');
    expect(await call.locator('.json').textContent()).toContain('"query": "weather Paris"');
    expect(await page.getByTestId('run-tokens').textContent()).toBe('42 (30 prompt, 12 completion)');
    expect(await page.getByTestId('run-first-token').textContent()).toMatch(/^\d+ ms$/);
    expect(await page.getByTestId('run-model').textContent()).toBe('Model gpt-4o-mini (openai), temperature 0');
    await shot('02-messages');
    // Copy takes the outputs as JSON.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: tracingUrl() });
    await page.getByTestId('run-outputs-copy').click();
    await expect.poll(() => page.getByTestId('run-outputs-copy').textContent()).toBe('Copied');
    const copied = JSON.parse(await page.evaluate('navigator.clipboard.readText()'));
    expect(copied.generations[0][0].message.kwargs.tool_calls[0].args).toEqual({ query: 'weather Paris' });
    // The same outputs as JSON, and raw.
    await outputs.locator('button[data-mode="pretty"]').click();
    expect(await outputs.locator('.json').first().textContent()).toContain('"generations": [');
    await outputs.locator('button[data-mode="raw"]').click();
    expect(await outputs.locator('.json').textContent()).toContain('"generations":[[{');
    // Its feedback, sent by the client; and feedback added here.
    const feedback = page.getByTestId('feedback-row');
    await expect.poll(() => feedback.count()).toBe(1);
    expect(await feedback.locator('td').allTextContents()).toEqual([
      'helpfulness',
      '0.8',
      '—',
      'asked the right tool',
      expect.any(String),
      'EditDelete',
    ]);
    await page.getByTestId('feedback-key').fill('correctness');
    await page.getByTestId('feedback-score').fill('abc');
    await page.getByTestId('feedback-submit').click();
    expect(await page.getByTestId('feedback-problem').textContent()).toBe('The score must be a number; got "abc".');
    await page.getByTestId('feedback-score').fill('1');
    await page.getByTestId('feedback-comment').fill('right tool, right query');
    await page.getByTestId('feedback-submit').click();
    await expect.poll(() => feedback.count()).toBe(2);
    await vi.waitFor(
      async () => {
        const stored = await api(`/feedback?run=${ids['chat-model']}&key=correctness`, { apiKey: workspace.apiKey });
        expect(stored.body.map((f: { score: number; comment: string }) => [f.score, f.comment])).toEqual([
          [1, 'right tool, right query'],
        ]);
      },
      { timeout: 30_000, interval: 300 },
    );
    await shot('03-feedback');

    // The failed tool: marked in the tree, its error with the stack, line by line.
    expect(await row(page, 'search').getByTestId('error-mark').count()).toBe(1);
    expect(await page.getByTestId('error-mark').count()).toBe(1);
    await row(page, 'search').click();
    await expect.poll(() => page.getByTestId('run-error').textContent()).toContain(`Error: ${SEARCH_FAILURE}\n    at `);
    const style = (e: unknown) =>
      (globalThis as unknown as { getComputedStyle(e: unknown): { whiteSpace: string } }).getComputedStyle(e)
        .whiteSpace;
    expect(await page.getByTestId('run-error').evaluate(style)).toBe('pre-wrap');
    await shot('04-error');

    // The attachment downloads with its bytes.
    await row(page, 'render-chart').click();
    const link = page.locator('[data-testid="attachment"][data-name="chart"]');
    await link.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    // Chromium adds the extension of the type it was sent with.
    expect(download.suggestedFilename()).toBe('chart.png');
    expect(new Uint8Array(await readFile((await download.path())!))).toEqual(CHART);
    // An image is previewed too.
    const width = (img: unknown) => (img as { naturalWidth: number }).naturalWidth;
    await expect.poll(() => page.getByTestId('attachment-preview').evaluate(width)).toBe(16);
    await shot('05-attachment');

    // The retriever's documents, each with its metadata.
    await row(page, 'lookup-docs').click();
    const documents = page.getByTestId('run-outputs').getByTestId('document');
    await expect.poll(() => documents.count()).toBe(2);
    expect(await documents.first().textContent()).toContain('Paris: light rain in the afternoon.');
    expect(await documents.first().locator('.document-metadata').textContent()).toBe('sourceforecast-feedscore0.92');
    await shot('05b-documents');

    // Search: `/` focuses it; a match keeps its ancestors and is highlighted; Esc clears it.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('/');
    await page.keyboard.type('chat');
    await expect.poll(() => rowNames(page)).toEqual(['agent', 'plan', 'chat-model']);
    expect(await page.getByTestId('trace-search-count').textContent()).toBe('1 run matches');
    expect(await row(page, 'chat-model').locator('mark').textContent()).toBe('chat');
    await shot('06-search');
    await page.keyboard.press('Escape');
    await expect
      .poll(() => rowNames(page))
      .toEqual(['agent', 'plan', 'chat-model', 'search', 'render-chart', 'lookup-docs']);

    // Keys: ↑ to the root, j down to plan, ← collapses it, → opens it, → again to its child, ← back to plan.
    await row(page, 'agent').click();
    await page.keyboard.press('j');
    await expect.poll(() => detailId(page)).toBe(ids.plan);
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => rowNames(page)).toEqual(['agent', 'plan', 'search', 'render-chart', 'lookup-docs']);
    await shot('07-collapsed');
    await page.keyboard.press('Enter');
    await expect
      .poll(() => rowNames(page))
      .toEqual(['agent', 'plan', 'chat-model', 'search', 'render-chart', 'lookup-docs']);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => detailId(page)).toBe(ids['chat-model']);
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => detailId(page)).toBe(ids.plan);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => detailId(page)).toBe(ids.search);

    // The URL names the run: opened elsewhere, it shows the same run.
    const url = new URL(page.url());
    expect(url.pathname).toBe(`/ui/projects/${projectId}/traces/${ids.agent}`);
    expect(url.searchParams.get('run')).toBe(ids.search);
    const again = await explorer!.open(workspace.apiKey, url.pathname + url.search);
    await expect.poll(() => detailId(again.page)).toBe(ids.search);
    expect(await again.page.getByTestId('run-detail-name').textContent()).toBe('search');
    await again.page.close();

    expect(problems).toEqual([]);
    await page.close();
  });
});

/**
 * A trace of 10,000 runs: a root, 99 chains under it, 100 model calls under each; the very last
 * call fails. Start times 1 ms apart in tree order.
 */
function bigTrace(sessionId: string): TestRun[] {
  const t0 = Date.now() * 1000 - 60_000_000;
  let tick = 0;
  const at = () => t0 + tick++ * 1000;
  const run = (name: string, runType: string, parent: TestRun | null): TestRun => {
    const id = uuidv7();
    const start = at();
    const order = `${parent ? `${parent.dotted_order}.` : ''}${formatDottedTimestamp(start)}${id}`;
    return {
      id,
      trace_id: parent?.trace_id ?? id,
      parent_run_id: parent?.id ?? null,
      dotted_order: order,
      name,
      run_type: runType,
      session_id: sessionId,
      start_time: new Date(start / 1000).toISOString(),
      end_time: new Date(start / 1000 + 5).toISOString(),
      inputs: { n: tick },
      outputs: { ok: true },
    };
  };
  const root = run('big-root', 'chain', null);
  const runs = [root];
  for (let c = 0; c < 99; c++) {
    const chain = run(`step-${c}`, 'chain', root);
    runs.push(chain);
    for (let l = 0; l < 100; l++) runs.push(run(`call-${c}-${l}`, 'llm', chain));
  }
  // A parent ends with its last child.
  const byId = new Map(runs.map((r) => [r.id, r]));
  for (const r of [...runs].reverse()) {
    const parent = r.parent_run_id ? byId.get(r.parent_run_id) : undefined;
    if (parent && parent.end_time! < r.end_time!) parent.end_time = r.end_time;
  }
  const last = runs.at(-1)!;
  last.error = 'Error: the last call failed\n    at bigTrace (trace.test.ts)';
  last.status = 'error';
  return runs;
}

describe('a trace of 10,000 runs', () => {
  test('renders a window of its rows, one request for the tree, its last run reachable by scrolling and by link', async (context) => {
    if (noBrowser) return context.skip(noBrowser);
    const project = await api('/sessions', {
      method: 'POST',
      apiKey: workspace.apiKey,
      json: { name: `trace-view-big-${Date.now()}` },
    });
    expect(project.status).toBe(200);
    const runs = bigTrace(project.body.id);
    expect(runs).toHaveLength(10_000);
    const root = runs[0]!;
    const last = runs.at(-1)!;
    for (let i = 0; i < runs.length; i += 2000) {
      const sent = await api('/runs/batch', {
        method: 'POST',
        apiKey: workspace.apiKey,
        json: { post: runs.slice(i, i + 2000) },
      });
      expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    }
    await vi.waitFor(
      async () => {
        const traces = await api('/api/v2/traces/query', {
          method: 'POST',
          apiKey: workspace.apiKey,
          json: { project_id: project.body.id, trace_ids: [root.id] },
        });
        expect(traces.body.items?.[0]?.trace_aggregates?.run_count).toBe(10_000);
      },
      { timeout: 180_000, interval: 1000 },
    );

    // Signed in elsewhere first, so the time is the trace page's own load: navigation to the first rows.
    const { page, problems, shot } = await explorer!.open(workspace.apiKey, '/ui/exports');
    const apiStarted = Date.now();
    const selects = ['ID', 'NAME', 'RUN_TYPE', 'STATUS', 'START_TIME', 'END_TIME', 'PARENT_RUN_IDS', 'TOTAL_TOKENS']
      .map((s) => `selects=${s}`)
      .join('&');
    const tree = await api(`/api/v2/traces/${root.id}/runs?project_id=${project.body.id}&${selects}`, {
      apiKey: workspace.apiKey,
    });
    const apiMs = Date.now() - apiStarted;
    expect(tree.body.items).toHaveLength(10_000);
    const requests: string[] = [];
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    // The page's own clock when the first row appears.
    await page.addInitScript(`new MutationObserver((_, observer) => {
      if (document.querySelector('[data-testid="tree-run"]')) { window.firstRowAt = performance.now(); observer.disconnect(); }
    }).observe(document, { childList: true, subtree: true })`);
    const started = Date.now();
    await page.goto(`${tracingUrl()}/ui/projects/${project.body.id}/traces/${root.id}`);
    await page.getByTestId('tree-run').first().waitFor();
    const firstRowsMs = Date.now() - started;
    await expect.poll(() => detailId(page)).toBe(root.id);
    const domRows = await page.getByTestId('tree-run').count();
    // Where the time went, by the page's own clock (from the navigation's start): the tree's request.
    const treeFetch = await page.evaluate(`(() => {
      const e = performance.getEntriesByType('resource').find((r) => r.name.includes('/api/v2/traces/'));
      return e ? { sent_ms: Math.round(e.startTime), answered_ms: Math.round(e.responseEnd), rows_shown_ms: Math.round(window.firstRowAt), bytes: e.transferSize } : null;
    })()`);
    console.log(
      JSON.stringify({
        bench: 'trace view, 10,000 runs',
        first_rows_ms: firstRowsMs,
        tree_request_ms: apiMs,
        in_page_tree_fetch: treeFetch,
        dom_rows: domRows,
      }),
    );
    expect(domRows).toBeGreaterThan(10);
    expect(domRows).toBeLessThan(100);
    expect(await page.locator('.wf-head-label').textContent()).toContain('10,000');
    await shot('08-big-trace');

    // Scrolled to the bottom, the last run is there; selected, its detail and error show.
    await page.locator('.wf-scroll').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    const lastRow = page.locator(`[data-testid="tree-run"][data-run-id="${last.id}"]`);
    await lastRow.click();
    await expect.poll(() => detailId(page)).toBe(last.id);
    await expect.poll(() => page.getByTestId('run-error').textContent()).toContain('the last call failed');
    expect(await page.getByTestId('tree-run').count()).toBeLessThan(100);
    await page.keyboard.press('k');
    await expect.poll(() => detailId(page)).toBe(runs.at(-2)!.id);
    await shot('09-big-trace-last');
    // Reading the tree was one request; each selected run one more (no request per row).
    expect(requests.filter((p) => p.startsWith('/api/v2/traces/')).length).toBeLessThanOrEqual(1);
    expect(requests.filter((p) => p.startsWith('/runs/')).length).toBeLessThanOrEqual(3);

    // A link to the last run opens the trace scrolled to it.
    const linked = await explorer!.open(
      workspace.apiKey,
      `/ui/projects/${project.body.id}/traces/${root.id}?run=${last.id}`,
    );
    await expect.poll(() => detailId(linked.page)).toBe(last.id);
    await linked.page.locator(`[data-testid="tree-run"][data-run-id="${last.id}"]`).waitFor();
    await linked.shot('10-big-trace-link');
    expect([...problems, ...linked.problems]).toEqual([]);
    await linked.page.close();
    await page.close();
  }, 300_000);
});
