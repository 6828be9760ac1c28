// A real browser for page tests: Debian's `chromium` package (Playwright cannot download its own
// browser on these machines), installed with apt-get on first use (infra/apt.ts) and driven by
// playwright-core. Concurrent callers (vitest workers, worktrees sharing .local) wait on one
// install lock (installLock.ts); apt-get itself takes dpkg's lock.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { aptInstall } from '../../infra/apt.ts';
import { progress } from '../../infra/commands.ts';
import { localDir, logsDir } from '../../infra/config.ts';
import { withInstallLock } from './installLock.ts';

/** Where Debian's package puts its launcher. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Installs the `chromium` package when it is missing. Returns null when the browser is there, or
 * why it cannot be installed here (not root, so apt-get is not ours to run): a test skips with it.
 */
export async function ensureChromium(): Promise<string | null> {
  if (existsSync(CHROMIUM_PATH)) return null;
  if (process.getuid?.() !== 0)
    return `Debian's chromium is not installed and installing it needs root: run apt-get install -y chromium, then rerun`;
  mkdirSync(logsDir, { recursive: true });
  await withInstallLock(join(localDir, 'chromium-install'), async () => {
    if (existsSync(CHROMIUM_PATH)) return;
    progress('chromium: installing Debian package chromium (apt-get), for the page tests');
    await aptInstall(['chromium'], join(logsDir, 'install-chromium.log'));
  });
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `apt-get installed chromium but ${CHROMIUM_PATH} is missing; see ${join(logsDir, 'install-chromium.log')}`,
    );
  return null;
}

/** Headless chromium; `--no-sandbox` because tests run as root. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
}
