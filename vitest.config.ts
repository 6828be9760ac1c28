import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Node keeps the code it compiled for every module it loads here (node_modules and our .ts files,
// keyed by their content), so the next process that loads them skips the work: the test workers
// and the hundreds of services the tests start (tracing API, projectors, agent servers, control
// planes) all import the same graphs. The tracing API's graph: 1.4 s of CPU to import, 0.9 s with
// the cache. Set before any worker or service starts: every one inherits it.
process.env.NODE_COMPILE_CACHE ??= fileURLToPath(new URL('.local/node-compile-cache', import.meta.url));

// Two groups run one after the other: the main suite, then the audit of what the run left behind
// (its logs swept for the suite's secrets). The fault tests stop and start only what they started
// themselves (a Kafka broker or a ClickHouse server of their own, test/support/privateServers.ts;
// a broker of a Kafka cluster, a replica of a ClickHouse pair, one of two projectors) and so run in
// the main suite beside everything else. (A project of its own would run after all the others:
// vitest runs a one-worker project's files in a group of their own, at the end.)
// In every test process, every answer a test reads through fetch is swept for the suite's
// secrets too (secretSweep.setup.ts).
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
        test: {
          name: 'main',
          include: ['test/**/*.test.ts'],
          // test/compose: npm run test:compose, on demand (test/compose/vitest.config.ts).
          exclude: ['test/audit/**', 'test/compose/**', 'node_modules/**'],
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: 'audit', include: ['test/audit/**/*.test.ts'], maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
