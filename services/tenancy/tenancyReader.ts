// The API keys for a process that only authenticates callers and runs no admin command (the agent
// server, the example chat app): the tenancy topic made if it is missing (such a process may start
// before the tracing API has made it), its keys folded in, and what to close once done.
import type { Config, EventLogConfig } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { EventLog } from '../../platform/kafka/eventLog.ts';
import { ensureTopics, type TopicAdminConfig } from '../../platform/kafka/topicAdmin.ts';
import { TOPIC_DECLARATIONS, TOPICS } from '../../schemas/topics.ts';
import { TenancyService } from './tenancyService.ts';

export type TenancyReaderConfig = TopicAdminConfig & EventLogConfig & Pick<Config, 'SECRETS_ENCRYPTION_KEY'>;

export interface TenancyReader {
  tenancy: TenancyService;
  close(): Promise<void>;
}

/** Resolves once the keys appended so far are folded in; `clientId` names the process to Kafka. */
export async function openTenancyReader(
  config: TenancyReaderConfig,
  logger: Logger,
  clientId: string,
): Promise<TenancyReader> {
  await ensureTopics(
    config,
    TOPIC_DECLARATIONS.filter((topic) => topic.name === TOPICS.tenancy),
  );
  // TenancyService appends only for the admin commands, which such a process never runs.
  const eventLog = new EventLog(config, clientId);
  const tenancy = new TenancyService(config, eventLog, logger);
  try {
    await tenancy.start();
  } catch (err) {
    await eventLog.close();
    throw err;
  }
  return {
    tenancy,
    close: async () => {
      await tenancy.close();
      await eventLog.close();
    },
  };
}
