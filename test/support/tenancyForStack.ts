// Workspaces and a key linked to all of them, on a given stack (through the tenancy commands).
import { createLogger } from '../../platform/logger.ts';
import { EventLog } from '../../platform/kafka/eventLog.ts';
import { TenancyService } from '../../services/tenancy/tenancyService.ts';
import type { TracingStack } from './tracingStack.ts';

export async function createTenancyForStack(stack: TracingStack, workspaces: number): Promise<{ key: string; workspaceIds: string[]; close(): Promise<void> }> {
  const log = new EventLog(stack.config, 'test-admin');
  const tenancy = new TenancyService(stack.config, log, createLogger('test-admin', 'warn'));
  const workspaceIds: string[] = [];
  for (let i = 0; i < workspaces; i++) workspaceIds.push(await tenancy.createWorkspace(`ws-${i}`));
  const key = await tenancy.issueKey(workspaceIds, 'multi-workspace test key');
  return { key, workspaceIds, close: () => log.close() };
}
