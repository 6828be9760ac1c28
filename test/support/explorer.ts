// The trace explorer's browser tests share this: one chromium per test file (Debian's, through
// chromium.ts), pages opened already signed in (the key put where the sign-in puts it), page
// errors collected, screenshots under test-output/explorer/<area>/ (git-ignored; look at them),
// and the wait for a project's traces to be in the read model before a page is opened.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect, vi } from 'vitest';
import { ensureChromium, launchChromium } from './chromium.ts';
import { repoRoot } from './serviceProcess.ts';
import { api, tracingUrl } from './tracingClient.ts';

export interface ExplorerBrowser {
  browser: Browser;
  /**
   * A page of 1280×800, signed in with the key (and workspace), at the explorer path (e.g. /ui/exports)
   * of the shared stack, or of another tracing API (baseUrl: a stack of the test's own).
   */
  open(apiKey: string, path?: string, options?: { workspaceId?: string; baseUrl?: string }): Promise<ExplorerPage>;
  close(): Promise<void>;
}

export interface ExplorerPage {
  page: Page;
  /** Uncaught errors of the page so far: a test ends expecting none. */
  problems: string[];
  /** Saves test-output/explorer/<area>/<name>.png. */
  shot(name: string): Promise<void>;
}

/** The browser for one test file's explorer pages, or why there is none here (the tests skip). */
export async function startExplorerBrowser(area: string): Promise<ExplorerBrowser | string> {
  const missing = await ensureChromium();
  if (missing) return missing;
  const browser = await launchChromium();
  const shots = join(repoRoot, 'test-output', 'explorer', area);
  mkdirSync(shots, { recursive: true });
  return {
    browser,
    async open(apiKey, path = '/ui/', options = {}) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const problems: string[] = [];
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      await page.addInitScript(
        ([key, workspaceId]) => {
          localStorage.setItem('explorer.apiKey', key!);
          if (workspaceId) localStorage.setItem('explorer.workspaceId', workspaceId);
        },
        [apiKey, options.workspaceId ?? ''],
      );
      await page.goto((options.baseUrl ?? tracingUrl()) + path);
      return {
        page,
        problems,
        shot: (name) => page.screenshot({ path: join(shots, `${name}.png`) }).then(() => undefined),
      };
    },
    close: () => browser.close(),
  };
}

/** Waits until the project's traces (root runs) are all in the read model its statistics come from. */
export async function waitForTraceCount(
  apiKey: string,
  projectName: string,
  traces: number,
  timeout = 60_000,
): Promise<string> {
  let projectId = '';
  await vi.waitFor(
    async () => {
      const res = await api(`/sessions?include_stats=true&name=${encodeURIComponent(projectName)}`, { apiKey });
      expect(res.body?.[0]?.run_count, JSON.stringify(res.body)).toBe(traces);
      projectId = res.body[0].id;
    },
    { timeout, interval: 500 },
  );
  return projectId;
}
