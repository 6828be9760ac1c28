// Runs the projectors (one instance of each consumer group): runs (with run_locations and
// traces), feedback and dataset examples. Started by services/main.ts, or alone.
import { configOrExit, loadConfig } from '../platform/config.ts';
import { createLogger } from '../platform/logger.ts';
import { ClickHouseClient } from '../platform/clickhouse/client.ts';
import { ensureReadModels, warnIfRunsTableOutdated } from './readModels.ts';
import { ensureTopics } from '../platform/kafka/topicAdmin.ts';
import { TOPIC_DECLARATIONS } from '../schemas/topics.ts';
import { BlobStore } from '../platform/blobStore.ts';
import { RunsProjector } from './runsProjector.ts';
import { FeedbackProjector } from './feedback/feedbackProjector.ts';
import { ExamplesProjector } from './examples/examplesProjector.ts';
import { ProjectRegistry } from './projects/projectRegistry.ts';
import { PROJECTOR_STORE_RETRY } from './shared/projectorRuntime.ts';
import { LIVE_TABLES } from './readModelTables.ts';
import { retry } from '../platform/retry.ts';
import { useConsumerBufferPool } from '../platform/kafka/consumerBuffers.ts';
import { lowerProcessPriority } from '../platform/processPriority.ts';

useConsumerBufferPool();
const config = configOrExit('the projectors', loadConfig);
const logger = createLogger('projectors', config.LOG_LEVEL);
lowerProcessPriority(config.PROJECTOR_NICE);
await ensureTopics(config, TOPIC_DECLARATIONS);
const ch = ClickHouseClient.fromConfig(config);
// ClickHouse may be down at start: wait for it rather than exit (events wait safely in Kafka);
// DDL it refuses is a bug of this release, and exits.
await retry(
  PROJECTOR_STORE_RETRY,
  async () => {
    await ensureReadModels(ch);
    await warnIfRunsTableOutdated(ch, logger);
  },
  { what: 'create the read models', logger },
);
const blobs = new BlobStore(config);
// Project tombstones: the projectors skip a deleted project's events and delete its rows.
const projects: ProjectRegistry = new ProjectRegistry(config, logger.child({ fold: 'projects' }), {
  onDeleted: (tenantId, projectId) => {
    runs.requestProjectDeletion(tenantId, projectId);
    feedback.requestProjectDeletion(tenantId, projectId);
  },
});
const isProjectDeleted = (tenantId: string, projectId: string) => projects.isDeleted(tenantId, projectId);
const runs = new RunsProjector(config, ch, logger.child({ projector: 'runs' }), { blobs, isProjectDeleted });
const feedback = new FeedbackProjector(config, ch, logger.child({ projector: 'feedback' }), {
  tables: LIVE_TABLES,
  isProjectDeleted,
});
const examples = new ExamplesProjector(config, ch, logger.child({ projector: 'examples' }), { tables: LIVE_TABLES });
await projects.start();
await Promise.all([runs.start(), feedback.start(), examples.start()]);
logger.info('projectors started');

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    void Promise.allSettled([runs.stop(), feedback.stop(), examples.stop(), projects.close()]).finally(() =>
      process.exit(0),
    );
  });
