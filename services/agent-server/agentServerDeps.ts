// What the agent server's routes share.
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { WorkspaceCheckpointer } from '../../platform/workspaceThreads.ts';
import type { AgentServerConfig } from './agentConfig.ts';
import type { GraphRegistry } from './graphRegistry.ts';
import type { RunManager } from './runs/runManager.ts';
import type { AgentRecordStore } from './store/agentRecords.ts';

export interface AgentServerDeps {
  config: Config;
  agentConfig: AgentServerConfig;
  graphs: GraphRegistry;
  store: AgentRecordStore;
  checkpointer: WorkspaceCheckpointer;
  runs: RunManager;
  logger: Logger;
}
