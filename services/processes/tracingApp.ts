// Wires the API process (port 1984): the adapters it shares, the tracing context with the
// bulk-export and tenancy contexts' HTTP surfaces at / and under /api/v1 (v2 reads under
// /api/v2), the trace explorer's page under /ui/ (tracing's explorerPage.ts), and shutdown.
// A process root: it composes the contexts' plugins, which the contexts never do themselves.
import type { FastifyInstance } from 'fastify';
import { controlPlaneUrl, type Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { createHttpServer } from '../../platform/http/server.ts';
import { KafkaReadiness } from '../../platform/http/kafkaReadiness.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ensureReadModels, warnIfRunsTableOutdated } from '../../projections/readModels.ts';
import { warnIfCopiesIncomplete } from '../../projections/copiesUpgrade.ts';
import { runByIdQuery } from '../../projections/runs/runQueries.ts';
import { BlobStore } from '../../platform/blobStore.ts';
import { blobStoreReadiness } from '../../platform/blobStoreReadiness.ts';
import { EventLog } from '../../platform/kafka/eventLog.ts';
import { ensureTopics, topicName } from '../../platform/kafka/topicAdmin.ts';
import { TOPICS, TOPIC_DECLARATIONS } from '../../schemas/topics.ts';
import { ConsumerLagMonitor } from '../../platform/kafka/consumerLag.ts';
import { runsProjectorGroupId } from '../../projections/runsProjector.ts';
import { feedbackProjectorGroupId } from '../../projections/feedback/feedbackProjector.ts';
import { requireApiKey, TenancyService } from '../tenancy/index.ts';
import { currentWorkspaceRoutes, workspaceRoutes } from '../tenancy/plugins.ts';
import { ProjectRegistry } from '../../projections/projects/projectRegistry.ts';
import {
  explorerPageRoutes,
  ingestRateLimits,
  LineageIndex,
  OtelIngestion,
  RunIngestor,
  SERVICE_VERSION,
  tracingPublicRoutes,
  tracingRoutes,
  feedbackTokenRoutes,
  tracingV2Routes,
  type RouteDeps,
} from '../tracing/plugins.ts';
import { readJsonBody } from '../../platform/http/requestBody.ts';
import { LIVE_TABLES } from '../../projections/readModelTables.ts';
import { ExportState } from '../bulk-export/index.ts';
import { bulkExportRoutes } from '../bulk-export/plugins.ts';
import { datasetRoutes, datasetRunsRoutes, exampleRoutes } from '../datasets/plugins.ts';
import { DatasetVersions } from '../datasets/index.ts';
import { examplesProjectorGroupId } from '../../projections/examples/examplesProjector.ts';
import { DatasetRegistry } from '../../projections/datasets/datasetRegistry.ts';
import { AnnotationQueueRegistry } from '../../projections/annotation-queues/annotationQueueRegistry.ts';
import { annotationQueueRoutes } from '../annotation-queues/plugins.ts';
import { PromptRegistry } from '../../projections/prompts/promptRegistry.ts';
import { promptRoutes } from '../prompts/plugins.ts';
import { FeedbackConfigRegistry } from '../../projections/feedback/feedbackConfigRegistry.ts';
import { SecretBox } from '../../platform/secretBox.ts';
import { retry, type RetryPolicy } from '../../platform/retry.ts';

export interface TracingApp {
  app: FastifyInstance;
  tenancy: TenancyService;
  close(): Promise<void>;
}

/** Creating the read models and the payload bucket at start-up: from 500 ms, doubling to 10 s apart, until done. */
const STARTUP_SETUP_RETRY: RetryPolicy = {
  initialDelayMs: 500,
  backoffCoefficient: 2,
  maxDelayMs: 10_000,
  maxAttempts: Infinity,
};

export async function buildTracingApp(config: Config, logger: Logger): Promise<TracingApp> {
  await ensureTopics(config, TOPIC_DECLARATIONS);
  const ch = ClickHouseClient.fromConfig(config);
  const blobs = new BlobStore(config);
  // Writes need only Kafka: a ClickHouse or object store that is down at start-up is reported
  // and retried in the background, not a reason to refuse runs (the projector creates the
  // tables too; reads answer 503 until ClickHouse is back).
  const setup = new AbortController();
  const createReadModels = async () => {
    await ensureReadModels(ch);
    await warnIfRunsTableOutdated(ch, logger);
    await warnIfCopiesIncomplete(ch, logger);
  };
  const setupTasks = [
    ['create the read models', createReadModels],
    ['create the payload bucket', () => blobs.ensureBucket()],
  ] as const;
  for (const [what, task] of setupTasks)
    retry(STARTUP_SETUP_RETRY, task, { what, logger, signal: setup.signal }).catch((err) => {
      if (!setup.signal.aborted) logger.error({ err }, `could not ${what}, and retrying cannot help`);
    });
  const eventLog = new EventLog(config, 'tracing-api');
  const tenancy = new TenancyService(config, eventLog, logger);
  const projects = new ProjectRegistry(config, logger);
  const datasets = new DatasetRegistry(config, logger);
  const annotationQueues = new AnnotationQueueRegistry(config, logger);
  const prompts = new PromptRegistry(config, logger);
  const feedbackConfigs = new FeedbackConfigRegistry(config, logger);
  const exports = new ExportState(config, logger);
  const lineage = new LineageIndex(config, logger, async (tenantId, runId) => {
    const row = await runByIdQuery(ch, tenantId, runId);
    return row ? { traceId: row.trace_id, dottedOrder: row.dotted_order, sessionId: row.session_id } : null;
  });
  await Promise.all([
    tenancy.start(),
    projects.start(),
    datasets.start(),
    annotationQueues.start(),
    prompts.start(),
    feedbackConfigs.start(),
    lineage.start(),
    exports.start(),
  ]);
  if (config.BOOTSTRAP_API_KEY) await tenancy.ensureBootstrapKey(config.BOOTSTRAP_API_KEY);
  const ingestor = new RunIngestor(config, eventLog, blobs, projects, lineage);
  const otel = new OtelIngestion(config, logger, ingestor, lineage);
  await otel.start();

  const readiness = new KafkaReadiness(config);
  readiness.start();
  /** A projector's lag, for /metrics and for the read-your-writes waits of the reads of its model. */
  const watchLag = (groupId: string, topic: string, label: string) => {
    const lag = new ConsumerLagMonitor(config, groupId, topicName(config, topic), label);
    lag.start();
    return lag;
  };
  const projectorLag = watchLag(runsProjectorGroupId(config), TOPICS.runs, 'runs');
  // Feedback reads wait for theirs; example reads too (a client reads each example it has just written).
  const feedbackLag = watchLag(feedbackProjectorGroupId(config), TOPICS.feedback, 'feedback');
  const examplesLag = watchLag(examplesProjectorGroupId(config), TOPICS.examples, 'examples');
  const app = await createHttpServer({
    logger,
    title: 'Tracing API',
    version: SERVICE_VERSION,
    description: 'LangSmith-compatible run ingestion and reads. Every route is served at / and under /api/v1.',
    ready: readiness.ready,
    bearerAuth: true,
  });

  // Request bodies: JSON and multipart, with gzip/zstd Content-Encoding and a decoded-size limit.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', (request, payload, done) => {
    readJsonBody(payload, request.headers, config.INGEST_SIZE_LIMIT_BYTES).then(
      (body) => done(null, body),
      (err: Error) => done(err),
    );
  });
  app.addContentTypeParser('multipart/form-data', (_request, payload, done) => done(null, payload));

  const deps: RouteDeps = { config, ch, blobs, eventLog, projects, tables: LIVE_TABLES };
  const tracingOptions = {
    ...deps,
    ingestor,
    ingestLimits: ingestRateLimits(config),
    otel,
    feedbackProjection: feedbackLag,
    feedbackConfigs,
    logger,
  };
  const bulkExportOptions = {
    config,
    eventLog,
    projects,
    tables: LIVE_TABLES,
    exports,
    // An export of examples pins its dataset's version as example reads do (after the projector).
    datasets: new DatasetVersions({
      datasets,
      ch,
      tables: LIVE_TABLES,
      projection: examplesLag,
      logger: logger.child({ routes: 'bulk-exports' }),
    }),
    secrets: SecretBox.fromConfig(config),
    // Its routes answer 503 until object storage has answered (a first `npm start` builds MinIO meanwhile).
    storage: blobStoreReadiness(blobs, 'bulk export'),
  };
  for (const prefix of ['', '/api/v1']) {
    await app.register(
      async (scope) => {
        await scope.register(tracingPublicRoutes, { config });
        // A presigned feedback token is its own credential: public.
        await scope.register(feedbackTokenRoutes, {
          ...deps,
          projection: feedbackLag,
          logger: logger.child({ routes: 'feedback-tokens' }),
        });
        // Checks the key itself: a key of several workspaces lists them without X-Tenant-Id.
        await scope.register(workspaceRoutes, { tenancy });
        // Sibling of the public routes, so the API-key hook cannot reach them.
        await scope.register(async (authed) => {
          requireApiKey(authed, tenancy, { bearer: true });
          await authed.register(tracingRoutes, tracingOptions);
          await authed.register(bulkExportRoutes, bulkExportOptions);
          await authed.register(datasetRoutes, {
            eventLog,
            datasets,
            projects,
            ch,
            tables: LIVE_TABLES,
            examples: examplesLag,
            feedback: feedbackLag,
          });
          await authed.register(datasetRunsRoutes, {
            datasets,
            projects,
            ch,
            blobs,
            tables: LIVE_TABLES,
            examples: examplesLag,
            feedback: feedbackLag,
          });
          await authed.register(exampleRoutes, {
            eventLog,
            datasets,
            projects,
            blobs,
            ch,
            tables: LIVE_TABLES,
            projection: examplesLag,
            logger: logger.child({ routes: 'examples' }),
            bodyLimitBytes: config.INGEST_SIZE_LIMIT_BYTES,
          });
          await authed.register(annotationQueueRoutes, {
            eventLog,
            queues: annotationQueues,
            feedbackConfigs,
            ch,
            blobs,
            tables: LIVE_TABLES,
          });
          await authed.register(promptRoutes, {
            eventLog,
            prompts,
            workspace: (id) => tenancy.state.workspaces.get(id),
          });
          await authed.register(currentWorkspaceRoutes, { tenancy });
        });
      },
      { prefix },
    );
  }
  // The trace explorer's page: public, under /ui/ (and / redirected there).
  await app.register(explorerPageRoutes, { controlPlaneUrl: controlPlaneUrl(config) });
  await app.register(
    async (v2) => {
      requireApiKey(v2, tenancy, { bearer: true });
      await v2.register(tracingV2Routes, deps);
    },
    { prefix: '/api/v2' },
  );

  return {
    app,
    tenancy,
    async close() {
      setup.abort();
      await app.close();
      await Promise.allSettled([
        readiness.close(),
        projectorLag.close(),
        feedbackLag.close(),
        examplesLag.close(),
        tenancy.close(),
        projects.close(),
        datasets.close(),
        annotationQueues.close(),
        prompts.close(),
        feedbackConfigs.close(),
        lineage.close(),
        exports.close(),
        otel.close(),
      ]);
      await eventLog.close();
      await ch.close();
      blobs.close();
    },
  };
}
