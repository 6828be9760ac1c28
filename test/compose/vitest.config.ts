import { defineConfig } from 'vitest/config';

// npm run test:compose: docker-compose.yml run for real (infra/compose.ts builds every image without
// a registry), on demand, never in `npm test`. One file, one worker: the tests share one topology
// and run in order (clients, faults, rolling upgrade). Long bounds: a cold build takes minutes.
export default defineConfig({
  test: {
    include: ['test/compose/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 3_600_000,
    expect: { poll: { timeout: 30_000 } },
  },
});
