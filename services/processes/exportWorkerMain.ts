// Runs one export worker (scheduler included). Started by services/main.ts, or alone
// (node services/processes/exportWorkerMain.ts); several
// replicas may run at once: they agree through the bulk-export topic.
import { configOrExit, loadConfig } from '../../platform/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ensureTopics } from '../../platform/kafka/topicAdmin.ts';
import { TOPIC_DECLARATIONS } from '../../schemas/topics.ts';
import { EventLog } from '../../platform/kafka/eventLog.ts';
import { BlobStore } from '../../platform/blobStore.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import { ExportState } from '../bulk-export/index.ts';
import { destinationHostPolicy, ExportWorker } from '../bulk-export/worker.ts';
import { SecretBox } from '../../platform/secretBox.ts';

const config = configOrExit('the export worker', loadConfig);
const logger = createLogger('export-worker', config.LOG_LEVEL);
const secrets = SecretBox.fromConfig(config);
if (!secrets) {
  logger.fatal(
    'SECRETS_ENCRYPTION_KEY is not set: destination credentials cannot be opened (npm start generates one into .local/dev-secrets-key)',
  );
  process.exit(1);
}
await ensureTopics(config, TOPIC_DECLARATIONS);
const ch = ClickHouseClient.fromConfig(config);
const blobs = new BlobStore(config);
const eventLog = new EventLog(config, 'export-worker');
const state = new ExportState(config, logger.child({ fold: 'bulk-export' }));
await state.start();
const worker = new ExportWorker(config, logger, {
  ch,
  blobs,
  tables: LIVE_TABLES,
  eventLog,
  state,
  secrets,
  destinationPolicy: destinationHostPolicy(config),
});
worker.start();
logger.info({ worker: worker.id }, 'export worker started');

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    void worker
      .close()
      .then(() => Promise.allSettled([state.close(), eventLog.close(), ch.close()]))
      .finally(() => process.exit(0));
  });
