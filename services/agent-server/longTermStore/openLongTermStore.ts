// The long-term store of a server, as its persistence is: in PostgreSQL on the record store's
// pool when there is one (so every replica shares it), else in memory; with the config file's
// index and TTLs, and the sweeper of expired items.
import type pg from 'pg';
import type { Logger } from '../../../platform/logger.ts';
import type { StoreConfig } from '../agentConfig.ts';
import type { StoreSettings } from './baseLongTermStore.ts';
import { MemoryLongTermStore } from './memoryLongTermStore.ts';
import { PostgresLongTermStore } from './postgresLongTermStore.ts';
import type { LongTermStore } from './store.ts';
import { loadStoreIndex } from './storeIndex.ts';
import { startTtlSweeper } from './ttlSweeper.ts';

export async function openLongTermStore(
  config: StoreConfig,
  pool: pg.Pool | undefined,
  logger: Pick<Logger, 'info' | 'warn'>,
): Promise<{ store: LongTermStore; close(): Promise<void> }> {
  const settings: StoreSettings = { ttl: config.ttl, index: await loadStoreIndex(config.index) };
  const store = pool ? await PostgresLongTermStore.open(pool, settings) : new MemoryLongTermStore(settings);
  const sweeper = startTtlSweeper(store, config.ttl.sweepIntervalMinutes, logger);
  return {
    store,
    async close() {
      await sweeper.stop();
      await store.close();
    },
  };
}
