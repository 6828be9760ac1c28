// Once per project of a `vitest run` (vitest.config.ts): make sure the infrastructure is up. For the
// main suite only, build the browser pages from the current sources (once: page tests in parallel
// workers must not rebuild apps/dist/ under one another) and start the tracing stack it shares
// (each test file then works in a workspace of its own). The fault tests start stacks of their
// own and the audit none: a shared stack for each of them (API, projector and an export worker
// polling every 250 ms, all run long) cost CPU all through the suite and served no test.
import type { TestProject } from 'vitest/node';
import { provideInfra, releaseInfra, STACK_UP } from './infra.ts';
import { buildPages } from './pages.ts';
import { startTracingStack } from './tracingStack.ts';
import { startSweep } from './secretSweep.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    tracingUrl: string;
    bootstrapApiKey: string;
    tracingEnv: Record<string, string>;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  startSweep();
  // The stack is up: the test processes, started after every project's setup, need not see to it.
  await provideInfra();
  process.env[STACK_UP] = '1';
  if (project.name !== 'main') return async () => undefined; // the main project's teardown releases it
  // The whole product: API, projectors and an export worker that schedules due windows at once;
  // started while the pages build.
  const [stack] = await Promise.all([
    startTracingStack('shared', {
      BULK_EXPORT_LAG_SECONDS: '1',
      BULK_EXPORT_POLL_MS: '250',
      BULK_EXPORT_RETRY_DELAY_MS: '500',
      BULK_EXPORT_LEASE_MS: '5000',
    }),
    buildPages(),
  ]);
  stack.startExportWorker();
  project.provide('tracingUrl', stack.url);
  project.provide('bootstrapApiKey', stack.apiKey);
  project.provide('tracingEnv', stack.env);
  return async () => {
    await stack.stop();
    await releaseInfra();
  };
}
