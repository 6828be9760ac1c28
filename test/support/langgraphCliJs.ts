// The official JS `langgraph` CLI (npm @langchain/langgraph-cli, its bin `langgraphjs`), pinned, for
// test/e2e/langgraphCli.test.ts. A tool the test runs, not a dependency of the project: it is
// installed on first use into .local/npm-tools/langgraph-cli-<version>/ (as test/bench/agent.bench.ts
// installs langgraph-api), one installer at a time (installLock.ts), and reused after that.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withInstallLock } from './installLock.ts';
import { run } from './pythonEnv.ts';
import { repoRoot } from './serviceProcess.ts';

export const LANGGRAPH_CLI_JS_VERSION = '1.5.1';
const INSTALL_DIR = join(repoRoot, '.local', 'npm-tools', `langgraph-cli-${LANGGRAPH_CLI_JS_VERSION}`);

const manifest = `${JSON.stringify(
  {
    private: true,
    description: 'The official JS langgraph CLI, installed by test/support/langgraphCliJs.ts',
    dependencies: { '@langchain/langgraph-cli': LANGGRAPH_CLI_JS_VERSION },
  },
  null,
  2,
)}\n`;

/** Installs the CLI unless it is there already; the path of its entry point (`langgraphjs`). */
export async function ensureLanggraphCliJs(): Promise<string> {
  const entry = join(INSTALL_DIR, 'node_modules', '@langchain', 'langgraph-cli', 'dist', 'cli', 'cli.mjs');
  const installed = () =>
    existsSync(entry) &&
    existsSync(join(INSTALL_DIR, 'node_modules', '.package-lock.json')) &&
    readFileSync(join(INSTALL_DIR, 'package.json'), 'utf8') === manifest;
  if (installed()) return entry;
  mkdirSync(INSTALL_DIR, { recursive: true });
  return withInstallLock(INSTALL_DIR, async () => {
    if (installed()) return entry;
    writeFileSync(join(INSTALL_DIR, 'package.json'), manifest);
    const out = await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error'],
      process.env,
      10 * 60_000,
      INSTALL_DIR,
    );
    if (out.code !== 0 || !installed())
      throw new Error(
        `npm install of @langchain/langgraph-cli@${LANGGRAPH_CLI_JS_VERSION} in ${INSTALL_DIR} failed (exit ${out.code}):\n${out.stdout}${out.stderr}`,
      );
    return entry;
  });
}
