// What the agent server's routes share.
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { WorkspaceCheckpointer } from '../../platform/workspaceThreads.ts';
import type { AgentServerConfig } from './agentConfig.ts';
import type { Assistants } from './assistants/assistants.ts';
import type { CronScheduler } from './crons/cronScheduler.ts';
import type { GraphRegistry } from './graphRegistry.ts';
import type { LongTermStore } from './longTermStore/store.ts';
import type { ProtocolStreams } from './protocol/protocolStreams.ts';
import type { RunManager } from './runs/runManager.ts';
import type { AgentRecordStore } from './store/agentRecords.ts';
import type { CheckpointMaintenance } from './threads/checkpointMaintenance.ts';

export interface AgentServerDeps {
  config: Config;
  agentConfig: AgentServerConfig;
  graphs: GraphRegistry;
  /** The config file's assistants and the workspaces' own. */
  assistants: Assistants;
  store: AgentRecordStore;
  checkpointer: WorkspaceCheckpointer;
  /** The long-term store (LangGraph's `store`): items across threads, per workspace. */
  longTermStore: LongTermStore;
  /** Copies, prunes and patches threads' checkpoints. */
  checkpoints: CheckpointMaintenance;
  runs: RunManager;
  /** The crons (its store) and the scheduler that starts their runs. */
  crons: CronScheduler;
  /** The agent streaming protocol's events of the runs executed here, and their subscriptions. */
  protocolStreams: ProtocolStreams;
  logger: Logger;
}
