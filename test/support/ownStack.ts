// A tracing stack of the test file's own (its own topics and ClickHouse database): started before
// the file's tests, stopped after them, with a client for its database.
import { afterAll, beforeAll, expect } from 'vitest';
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { postMultipart, stackClickHouse, startTracingStack, type TracingStack } from './tracingStack.ts';
import type { Part } from './runFactory.ts';

export interface OwnStack {
  stack: TracingStack;
  ch: ClickHouseClient;
  /** Posts multipart parts to the stack and expects them accepted (202). */
  send(parts: Part[]): Promise<void>;
}

export function ownStack(name: string, env: Record<string, string> = {}): OwnStack {
  const own = {
    async send(parts: Part[]) {
      expect((await postMultipart(own.stack, parts)).status).toBe(202);
    },
  } as OwnStack;
  beforeAll(async () => {
    own.stack = await startTracingStack(name, env);
    own.ch = stackClickHouse(own.stack);
  });
  afterAll(async () => {
    await own.ch?.close();
    await own.stack?.stop();
  });
  return own;
}
