import { defineConfig } from 'vitest/config';

// Three groups run one after the other: the main suite, then the fault tests, which stop
// ClickHouse and kill workers and so must not share the stack with anything else, then the
// audit of what the run left behind (its logs swept for the suite's secrets). In every test
// process, every answer a test reads through fetch is swept for them too (secretSweep.setup.ts).
export default defineConfig({
  test: {
    globalSetup: ['test/support/globalSetup.ts'],
    setupFiles: ['test/support/secretSweep.setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // How long expect.poll waits for its condition (1 s by default): a page's next request and
    // render took longer than that under the whole suite's load (a projects page's "Show more"
    // failed a CI run so). A bound on waiting, not a timing assertion: a poll ends when it holds.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: 'main', include: ['test/**/*.test.ts'], exclude: ['test/faults/**', 'test/audit/**', 'node_modules/**'], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        test: { name: 'faults', include: ['test/faults/**/*.test.ts'], maxWorkers: 1, fileParallelism: false, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: { name: 'audit', include: ['test/audit/**/*.test.ts'], maxWorkers: 1, sequence: { groupOrder: 2 } },
      },
    ],
  },
});
