// Once per `vitest run`: make sure the infrastructure is up, build the browser pages from the
// current sources (once: page tests in parallel workers must not rebuild apps/dist/ under one
// another), and start the tracing stack the main suite shares (each test file then works in a
// workspace of its own).
import type { TestProject } from 'vitest/node';
import { provideInfra, releaseInfra } from './infra.ts';
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
  await Promise.all([provideInfra(), buildPages()]);
  // The whole product: API, projectors and an export worker that schedules due windows at once.
  const stack = await startTracingStack('shared', { BULK_EXPORT_LAG_SECONDS: '1', BULK_EXPORT_POLL_MS: '250', BULK_EXPORT_RETRY_DELAY_MS: '500', BULK_EXPORT_LEASE_MS: '5000' });
  stack.startExportWorker();
  project.provide('tracingUrl', stack.url);
  project.provide('bootstrapApiKey', stack.apiKey);
  project.provide('tracingEnv', stack.env);
  return async () => {
    await stack.stop();
    await releaseInfra();
  };
}
