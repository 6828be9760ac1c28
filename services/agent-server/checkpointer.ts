// Where LangGraph keeps thread checkpoints, and the records beside them: in memory (lost on
// restart) or in PostgreSQL (`AGENT_SERVER_CHECKPOINTER=postgres` with POSTGRES_URL). Thread ids
// are per workspace: checkpoints are stored under the workspace's thread (workspaceThreads.ts).
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { WorkspaceCheckpointer } from '../../platform/workspaceThreads.ts';
import type { AgentRecordStore } from './store/agentRecords.ts';
import { MemoryCheckpointer } from './store/memoryCheckpointer.ts';
import { MemoryRecordStore } from './store/memoryRecordStore.ts';
import { PostgresRecordStore } from './store/postgresRecordStore.ts';
import { TemporaryThreadCheckpointer } from './store/temporaryThreads.ts';
import { MemoryAssistantStore, type AssistantStore } from './assistants/assistantStore.ts';
import { PostgresAssistantStore } from './assistants/postgresAssistantStore.ts';
import {
  PostgresCheckpointMaintenance,
  SaverCheckpointMaintenance,
  type CheckpointMaintenance,
} from './threads/checkpointMaintenance.ts';

export interface AgentPersistence {
  checkpointer: WorkspaceCheckpointer;
  /** Where stateless runs' threads are held in memory, when checkpoints are durable. */
  temporaryThreads?: TemporaryThreadCheckpointer;
  store: AgentRecordStore;
  /** The assistants created through the API. */
  assistants: AssistantStore;
  /** Copies, prunes and patches threads' checkpoints. */
  checkpoints: CheckpointMaintenance;
  close(): Promise<void>;
}

/**
 * A pool that survives losing an idle connection (PostgreSQL restarted, an administrator ended the
 * session, a database dropped WITH (FORCE)): pg emits that on the pool, and an 'error' event
 * without a listener would end the process. The pool opens a new connection at the next query.
 */
export function postgresPool(url: string, logger: Pick<Logger, 'warn'>, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', (err) =>
    logger.warn({ err: err.message }, 'an idle PostgreSQL connection was lost; the next query opens another'),
  );
  return pool;
}

/** Held while a server creates or migrates its tables (its own lock key: the record store takes another inside). */
const SETUP_LOCK = 0x61677374; // "agst"

/**
 * Runs `work` while no other agent server on the database does the same: replicas starting
 * together on a new database would otherwise run LangGraph's checkpoint migrations at once, and
 * all but one die on its migrations table's primary key.
 */
async function oneServerAtATime<T>(url: string, work: () => Promise<T>): Promise<T> {
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [SETUP_LOCK]);
    return await work();
  } finally {
    await lock.end(); // ending the session releases its lock
  }
}

export async function openPersistence(config: Config, logger: Pick<Logger, 'warn'>): Promise<AgentPersistence> {
  if (config.AGENT_SERVER_CHECKPOINTER === 'memory') {
    const store = new MemoryRecordStore();
    const checkpointer = new WorkspaceCheckpointer(new MemoryCheckpointer());
    return {
      checkpointer,
      store,
      assistants: new MemoryAssistantStore(),
      checkpoints: new SaverCheckpointMaintenance(checkpointer),
      close: () => store.close(),
    };
  }
  const url = config.POSTGRES_URL;
  if (!url) throw new Error('AGENT_SERVER_CHECKPOINTER=postgres needs POSTGRES_URL');
  const durable = new PostgresSaver(postgresPool(url, logger));
  const { store, assistants } = await oneServerAtATime(url, async () => {
    await durable.setup();
    const records = await PostgresRecordStore.open(postgresPool(url, logger));
    return { store: records, assistants: await PostgresAssistantStore.open(records.pool) };
  });
  // stateless runs' threads in memory: see store/temporaryThreads.ts
  const temporaryThreads = new TemporaryThreadCheckpointer(durable);
  const checkpointer = new WorkspaceCheckpointer(temporaryThreads);
  return {
    checkpointer,
    temporaryThreads,
    store,
    assistants,
    checkpoints: new PostgresCheckpointMaintenance(checkpointer, store.pool),
    close: async () => {
      await store.close();
      await durable.end();
    },
  };
}
