// Once per `vitest run`: make sure the infrastructure is up and start the tracing stack the
// main suite shares (each test file then works in a workspace of its own).
import type { TestProject } from 'vitest/node';
import { provideInfra, releaseInfra } from './infra.ts';
import { startTracingStack } from './tracingStack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    tracingUrl: string;
    bootstrapApiKey: string;
    tracingEnv: Record<string, string>;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await provideInfra();
  const stack = await startTracingStack('shared');
  project.provide('tracingUrl', stack.url);
  project.provide('bootstrapApiKey', stack.apiKey);
  project.provide('tracingEnv', stack.env);
  return async () => {
    await stack.stop();
    await releaseInfra();
  };
}
