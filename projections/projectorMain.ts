// Runs the projectors (one instance of each consumer group): runs (with run_locations and
// traces) and feedback. Started by services/main.ts, or alone.
import { configOrExit, loadConfig } from '../services/common/config.ts';
import { createLogger } from '../services/common/logger.ts';
import { ClickHouseClient } from '../services/common/clickhouse/client.ts';
import { ensureReadModels } from '../services/common/clickhouse/schema.ts';
import { ensureTopics } from '../services/common/kafka/topics.ts';
import { BlobStore } from '../services/common/blobStore.ts';
import { RunsProjector } from './runs/runsProjector.ts';
import { FeedbackProjector } from './feedback/feedbackProjector.ts';
import { ProjectRegistry } from '../services/tracing/projects/projectRegistry.ts';

const config = configOrExit('the projectors', loadConfig);
const logger = createLogger('projectors', config.LOG_LEVEL);
await ensureTopics(config);
const ch = new ClickHouseClient({ url: config.CLICKHOUSE_URL, database: config.CLICKHOUSE_DATABASE, user: config.CLICKHOUSE_USER, password: config.CLICKHOUSE_PASSWORD });
// ClickHouse may be down at start: wait for it rather than exit (events wait safely in Kafka).
for (let attempt = 1; ; attempt++) {
  try {
    await ensureReadModels(ch);
    break;
  } catch (err) {
    logger.warn({ err: (err as Error).message, attempt }, 'ClickHouse not ready; retrying');
    await new Promise((r) => setTimeout(r, Math.min(5000, 200 * attempt)));
  }
}
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
const feedback = new FeedbackProjector(config, ch, logger.child({ projector: 'feedback' }), { isProjectDeleted });
await projects.start();
await Promise.all([runs.start(), feedback.start()]);
logger.info('projectors started');

for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, () => {
    Promise.allSettled([runs.stop(), feedback.stop(), projects.close()]).finally(() => process.exit(0));
  });
