// The agent server inside another process: an app that serves its own graphs on the agent streaming
// protocol (the example chat app) runs them through the same run manager and protocol
// implementation as the agent server, in memory, one process. The app keeps its own routes and
// signs its callers in itself; it hands each command and subscription here with the caller's
// workspace (`callerIn`), and mounts them under its own paths (sendProtocolStream, the schemas).
import type { Logger } from '../../platform/logger.ts';
import type { ThreadKey, WorkspaceCheckpointer } from '../../platform/workspaceThreads.ts';
import { Caller } from './auth/callers.ts';
import { ANONYMOUS } from './auth/customAuth.ts';
import { GraphRegistry, type ServableGraph } from './graphRegistry.ts';
import { ProtocolService } from './protocol/protocolService.ts';
import { ProtocolStreams } from './protocol/protocolStreams.ts';
import { RunManager } from './runs/runManager.ts';
import { MemoryRecordStore } from './store/memoryRecordStore.ts';

export interface EmbeddedAgentServerOptions {
  /** The graphs, each an assistant by its graph id; their checkpointer becomes `checkpointer`. */
  graphs: { graphId: string; graph: unknown; description?: string }[];
  /** Where threads' checkpoints live, each workspace's apart (platform/workspaceThreads.ts). */
  checkpointer: WorkspaceCheckpointer;
  logger: Logger;
  /** At most this many protocol events of a run are kept for replay. */
  maxEventsPerRun: number;
  /** A finished run's events stay replayable this long (unless the thread's next run starts first). */
  finishedTtlMs: number;
}

export interface EmbeddedAgentServer {
  /** Commands and subscriptions of the agent streaming protocol. */
  protocol: ProtocolService;
  /** A caller acting in `workspaceId` (the app has signed it in). */
  callerIn(workspaceId: string): Caller;
  /** Whether the thread has a run pending or running. */
  hasRunUnderWay(thread: ThreadKey): Promise<boolean>;
  /** Cancels the thread's runs (waiting for them to stop), ends its subscriptions and forgets its runs; its checkpoints are the app's to delete. */
  deleteThread(thread: ThreadKey): Promise<void>;
  close(): Promise<void>;
}

export function embeddedAgentServer(options: EmbeddedAgentServerOptions): EmbeddedAgentServer {
  const { checkpointer, logger } = options;
  const graphs = GraphRegistry.of(
    options.graphs.map(({ graphId, graph, description }) => ({ graphId, graph: graph as ServableGraph, description })),
    checkpointer,
  );
  const store = new MemoryRecordStore();
  const streams = new ProtocolStreams({
    logger,
    maxEventsPerRun: options.maxEventsPerRun,
    finishedTtlMs: options.finishedTtlMs,
  });
  const runs = new RunManager({ graphs, store, checkpointer, logger, protocol: streams });
  return {
    protocol: new ProtocolService({ runs, store, graphs, streams }),
    callerIn: (workspaceId) => new Caller(workspaceId, ANONYMOUS),
    hasRunUnderWay: async (thread) => (await runs.unfinished(thread)).length > 0,
    async deleteThread(thread) {
      await runs.cancelThread(thread);
      streams.forget(thread);
      await store.deleteThread({ workspaceId: thread.workspaceId }, thread.threadId);
    },
    async close() {
      await runs.close();
      await streams.close();
      await store.close();
    },
  };
}
