// The crons of a server: kept where its threads are (PostgreSQL beside them, or memory), and the
// scheduler that starts their runs through the server's run manager.
import type { Config } from '../../../platform/config.ts';
import type { Logger } from '../../../platform/logger.ts';
import type { RunManager } from '../runs/runManager.ts';
import type { AgentRecordStore } from '../store/agentRecords.ts';
import { PostgresRecordStore } from '../store/postgresRecordStore.ts';
import { startCronRun } from './cronRun.ts';
import { CronScheduler } from './cronScheduler.ts';
import { MemoryCronStore } from './memoryCronStore.ts';
import { PostgresCronStore } from './postgresCronStore.ts';

/** The server's crons, not yet scheduling: start() once the run manager takes work, stop() before it closes. */
export async function openCrons(
  records: AgentRecordStore,
  runs: RunManager,
  config: Pick<Config, 'AGENT_SERVER_CRON_TICK_MS'>,
  logger: Logger,
): Promise<CronScheduler> {
  const store =
    records instanceof PostgresRecordStore ? await PostgresCronStore.open(records.pool) : new MemoryCronStore();
  return new CronScheduler({
    store,
    start: (stored) => startCronRun(runs, stored),
    logger,
    tickMs: config.AGENT_SERVER_CRON_TICK_MS,
  });
}
