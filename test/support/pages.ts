// The browser pages (apps/), built from the current sources by the global setup before any page
// test opens them, the way `npm run build:apps` builds them (a test run alone must not test a
// stale apps/dist/).
import { join } from 'node:path';
import { run } from './pythonEnv.ts';
import { repoRoot } from './serviceProcess.ts';

export async function buildPages(): Promise<void> {
  const vite = join(repoRoot, 'node_modules', 'vite', 'bin', 'vite.js');
  // Not vitest's NODE_ENV=test: Vite would bundle React's development build.
  const env = { ...process.env, NODE_ENV: 'production' };
  const built = await run(
    process.execPath,
    [vite, 'build', '--config', join(repoRoot, 'apps', 'vite.config.ts'), '--logLevel', 'warn'],
    env,
    5 * 60_000,
    repoRoot,
  );
  if (built.code !== 0)
    throw new Error(`vite build of apps/ failed (exit ${built.code}):\n${built.stdout}\n${built.stderr}`);
}
