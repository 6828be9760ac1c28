// Where LangGraph keeps thread checkpoints, and the records beside them: in memory (lost on
// restart) or in PostgreSQL (`AGENT_SERVER_CHECKPOINTER=postgres` with POSTGRES_URL).
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import pg from 'pg';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { AgentRecordStore } from './store/agentRecords.ts';
import { MemoryCheckpointer } from './store/memoryCheckpointer.ts';
import { MemoryRecordStore } from './store/memoryRecordStore.ts';
import { PostgresRecordStore } from './store/postgresRecordStore.ts';
import { TemporaryThreadCheckpointer } from './store/temporaryThreads.ts';

export interface AgentPersistence {
  checkpointer: BaseCheckpointSaver;
  store: AgentRecordStore;
  close(): Promise<void>;
}

/**
 * A pool that survives losing an idle connection (PostgreSQL restarted, an administrator ended the
 * session, a database dropped WITH (FORCE)): pg emits that on the pool, and an 'error' event
 * without a listener would end the process. The pool opens a new connection at the next query.
 */
export function postgresPool(url: string, logger: Pick<Logger, 'warn'>, max = 10): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on('error', (err) => logger.warn({ err: err.message }, 'an idle PostgreSQL connection was lost; the next query opens another'));
  return pool;
}

export async function openPersistence(config: Config, logger: Pick<Logger, 'warn'>): Promise<AgentPersistence> {
  if (config.AGENT_SERVER_CHECKPOINTER === 'memory') {
    const store = new MemoryRecordStore();
    return { checkpointer: new MemoryCheckpointer(), store, close: () => store.close() };
  }
  const url = config.POSTGRES_URL;
  if (!url) throw new Error('AGENT_SERVER_CHECKPOINTER=postgres needs POSTGRES_URL');
  const durable = new PostgresSaver(postgresPool(url, logger));
  await durable.setup();
  const store = await PostgresRecordStore.open(postgresPool(url, logger));
  return {
    // stateless runs' threads in memory: see store/temporaryThreads.ts
    checkpointer: new TemporaryThreadCheckpointer(durable),
    store,
    close: async () => {
      await store.close();
      await durable.end();
    },
  };
}
