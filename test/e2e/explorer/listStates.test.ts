// Every list page of the explorer says the same three things the same way (core/ListState.tsx):
// "Loading {what}…" while its read is under way, the API's error with "Try again" when the read
// fails, and its own empty card once the read, tried again, answers an empty list. The list's
// read is held, then failed, by the browser (page.route: the page sees the answer a failing API
// would send); "Try again" then reads the real API of the shared stack (deployments: an empty
// list, as a control plane without deployments answers). The loaded lists are in the pages' own
// tests. Screenshots of each state in test-output/explorer/list-states/.
import type { Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startExplorerBrowser, type ExplorerBrowser } from '../../support/explorer.ts';
import { api, createWorkspaces, tracingUrl, type Workspace } from '../../support/tracingClient.ts';

let noBrowser: string | null = null;
let explorer: ExplorerBrowser | undefined;
/** A workspace without projects, exports or destinations. */
let bare: Workspace;
/** A workspace with one project without traces. */
let withProject: Workspace;
let projectId: string;

beforeAll(async () => {
  const started = await startExplorerBrowser('list-states');
  if (typeof started === 'string') {
    noBrowser = started;
    return;
  }
  explorer = started;
  [bare, withProject] = (await createWorkspaces(2)) as [Workspace, Workspace];
  const name = `quiet-${Date.now()}`;
  const created = await api('/sessions', { method: 'POST', apiKey: withProject.apiKey, json: { name } });
  expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
  projectId = created.body.id;
}, 5 * 60_000);

afterAll(async () => {
  await explorer?.close();
});

/** The answer of a read model that does not answer, as the tracing API sends it. */
const FAILURE = {
  status: 503,
  contentType: 'application/json',
  body: JSON.stringify({
    code: 'READ_MODEL_UNAVAILABLE',
    message: 'ClickHouse did not answer (a failure the test sends)',
  }),
};

interface ListPage {
  name: string;
  workspace: () => Workspace;
  path: () => string;
  /** The list's reads (method and path). */
  reads: (method: string, url: URL) => boolean;
  /** "Loading {what}…" for each list of the page. */
  what: string[];
  /** The empty card (or line) of each list. */
  empty: string[];
  /** How the read is answered once it is tried again (default: by the API). */
  answer?: (route: Route) => Promise<void>;
}

const PAGES: ListPage[] = [
  {
    name: 'projects',
    workspace: () => bare,
    path: () => '/ui/',
    reads: (method, url) => method === 'GET' && url.pathname === '/sessions',
    what: ['projects'],
    empty: ['projects-empty'],
  },
  {
    name: 'traces',
    workspace: () => withProject,
    path: () => `/ui/projects/${projectId}`,
    reads: (method, url) => method === 'POST' && url.pathname === '/api/v2/traces/query',
    what: ['traces'],
    empty: ['traces-empty'],
  },
  {
    name: 'threads',
    workspace: () => withProject,
    path: () => `/ui/projects/${projectId}/threads`,
    reads: (method, url) => method === 'POST' && url.pathname === '/api/v2/threads/query',
    what: ['threads'],
    empty: ['threads-empty'],
  },
  {
    name: 'exports',
    workspace: () => bare,
    path: () => '/ui/exports',
    reads: (method, url) =>
      method === 'GET' && (url.pathname === '/bulk-exports' || url.pathname === '/bulk-exports/destinations'),
    what: ['exports', 'destinations'],
    empty: ['exports-empty', 'destinations-empty'],
  },
  {
    name: 'deployments',
    workspace: () => bare,
    path: () => '/ui/deployments',
    reads: (method, url) => method === 'GET' && url.pathname === '/ui/control-plane/v2/deployments',
    what: ['deployments'],
    empty: ['deployments-empty'],
    answer: (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: '{"resources":[],"offset":0}' }),
  },
];

describe('the list pages: loading, failed, empty', () => {
  for (const list of PAGES) {
    test(`${list.name}: "Loading …", the error with "Try again", then the empty state`, async (context) => {
      if (noBrowser) return context.skip(noBrowser);
      const workspace = list.workspace();
      // Opened elsewhere first: the reads are held from the page's first render on.
      const opened = await explorer!.open(workspace.apiKey, '/ui/exports/none', { workspaceId: workspace.id });
      const { page, problems, shot } = opened;
      let mode: 'hold' | 'fail' | 'answer' = 'hold';
      const held: Route[] = [];
      await page.route(
        (url) => list.reads('GET', url) || list.reads('POST', url),
        async (route) => {
          const request = route.request();
          if (!list.reads(request.method(), new URL(request.url()))) return route.continue();
          if (mode === 'hold') held.push(route);
          else if (mode === 'fail') await route.fulfill(FAILURE);
          else await (list.answer ? list.answer(route) : route.continue());
        },
      );
      await page.goto(tracingUrl() + list.path());

      // 1. Reading.
      const loading = list.what.map((w) => `Loading ${w}…`);
      await expect.poll(() => page.getByTestId('loading').allTextContents()).toEqual(loading);
      await shot(`${list.name}-1-loading`);

      // 2. Failed: the held reads answer the API's error.
      mode = 'fail';
      for (const route of held.splice(0)) await route.fulfill(FAILURE);
      await expect.poll(() => page.getByTestId('retry').count()).toBe(list.what.length);
      expect(await page.getByTestId('loading').count()).toBe(0);
      const errors = await page.getByTestId('error').allTextContents();
      expect(errors).toHaveLength(list.what.length);
      for (const text of errors) expect(text).toContain('READ_MODEL_UNAVAILABLE');
      await shot(`${list.name}-2-error`);

      // 3. Tried again, the read answers: the empty state.
      mode = 'answer';
      // One button at a time: each is gone once its list reads again (no count read before a re-render).
      for (let left = list.what.length; left > 0; left--) {
        await page.getByTestId('retry').first().click();
        await expect.poll(() => page.getByTestId('retry').count()).toBe(left - 1);
      }
      for (const id of list.empty) await page.getByTestId(id).waitFor();
      expect(await page.getByTestId('error').count()).toBe(0);
      await shot(`${list.name}-3-empty`);
      expect(problems).toEqual([]);
      await page.close();
    });
  }
});
