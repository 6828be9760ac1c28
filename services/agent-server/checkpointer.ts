// Where LangGraph keeps thread checkpoints, and the records beside them: in memory (lost on
// restart) or in PostgreSQL (`AGENT_SERVER_CHECKPOINTER=postgres` with POSTGRES_URL).
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import type { Config } from '../../platform/config.ts';
import type { AgentRecordStore } from './store/agentRecords.ts';
import { MemoryCheckpointer } from './store/memoryCheckpointer.ts';
import { MemoryRecordStore } from './store/memoryRecordStore.ts';
import { PostgresRecordStore } from './store/postgresRecordStore.ts';

export interface AgentPersistence {
  checkpointer: BaseCheckpointSaver;
  store: AgentRecordStore;
  close(): Promise<void>;
}

export async function openPersistence(config: Config): Promise<AgentPersistence> {
  if (config.AGENT_SERVER_CHECKPOINTER === 'memory') {
    const store = new MemoryRecordStore();
    return { checkpointer: new MemoryCheckpointer(), store, close: () => store.close() };
  }
  const url = config.POSTGRES_URL;
  if (!url) throw new Error('AGENT_SERVER_CHECKPOINTER=postgres needs POSTGRES_URL');
  const checkpointer = PostgresSaver.fromConnString(url);
  await checkpointer.setup();
  const store = await PostgresRecordStore.open(url);
  return {
    checkpointer,
    store,
    close: async () => {
      await store.close();
      await checkpointer.end();
    },
  };
}
