// Workspaces and a key linked to all of them, on a given stack (through the tenancy commands).
import { createLogger } from '../../platform/logger.ts';
import { EventLog } from '../../platform/kafka/eventLog.ts';
import { TenancyService } from '../../services/tenancy/tenancyService.ts';
import type { TracingStack } from './tracingStack.ts';

export async function createTenancyForStack(
  stack: TracingStack,
  workspaces: number,
): Promise<{ key: string; workspaceIds: string[]; close(): Promise<void> }> {
  const log = new EventLog(stack.config, 'test-admin');
  const tenancy = new TenancyService(stack.config, log, createLogger('test-admin', 'warn'));
  const workspaceIds: string[] = [];
  for (let i = 0; i < workspaces; i++) workspaceIds.push(await tenancy.createWorkspace(`ws-${i}`));
  const key = await tenancy.issueKey(workspaceIds, 'multi-workspace test key');
  return { key, workspaceIds, close: () => log.close() };
}

export interface Workspace {
  id: string;
  apiKey: string;
}

/** A new workspace on the stack, with a key of its own. */
export async function createWorkspace(stack: Pick<TracingStack, 'config'>, name: string): Promise<Workspace> {
  const log = new EventLog(stack.config, 'test-admin');
  try {
    const tenancy = new TenancyService(stack.config, log, createLogger('test-admin', 'warn'));
    const id = await tenancy.createWorkspace(name);
    return { id, apiKey: await tenancy.issueKey([id], `${name} test key`) };
  } finally {
    await log.close();
  }
}
