// The tracing context's HTTP surface, as fastify plugins the API process registers: the v1
// routes (ingestion over REST, multipart and OTLP; run reads and queries; projects and their
// statistics; feedback) inside an API-key scope, the v2 reads (runs, traces, threads) under
// /api/v2, and the public /info.
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { ConsumerLagMonitor } from '../../platform/kafka/consumerLag.ts';
import type { RunIngestor } from './ingest/runIngestor.ts';
import type { IngestRateLimits } from './ingest/ingestRateLimits.ts';
import type { OtelIngestion } from './otel/otelIngestion.ts';
import type { RouteDeps } from './routes/routeDeps.ts';
import { infoRoutes } from './routes/info.ts';
import { runIngestRoutes } from './routes/runsIngest.ts';
import { otelIngestRoutes } from './routes/otelIngest.ts';
import { runReadRoutes } from './routes/runsRead.ts';
import { runQueryRoutes, v2RunQueryRoutes } from './routes/runsQuery.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { projectStatsRoutes } from './routes/projectStats.ts';
import { feedbackRoutes } from './routes/feedback.ts';
import { feedbackConfigRoutes } from './routes/feedbackConfigs.ts';
import type { FeedbackConfigRegistry } from '../../projections/feedback/feedbackConfigRegistry.ts';
import { v2TraceRoutes } from './routes/traces.ts';
import { v2ThreadRoutes } from './routes/threads.ts';

export interface TracingRouteOptions extends RouteDeps {
  ingestor: RunIngestor;
  /** The ingestion routes' per-workspace rate limits: one set for the process, whichever prefix a request uses. */
  ingestLimits: IngestRateLimits;
  otel: OtelIngestion;
  /** How far the feedback projector is: feedback reads wait on it (read-your-writes). */
  feedbackProjection: Pick<ConsumerLagMonitor, 'caughtUp'>;
  /** Feedback configs, folded from their topic. */
  feedbackConfigs: FeedbackConfigRegistry;
  logger: Logger;
}

/** GET /info: what the official clients read before they send anything. Public. */
export const tracingPublicRoutes: FastifyPluginAsync<{ config: Config }> = async (app, { config }) => {
  infoRoutes(app, config);
};

/** The v1 routes; every one needs the caller's workspace (request.tenantId). */
export const tracingRoutes: FastifyPluginAsync<TracingRouteOptions> = async (app, options) => {
  const { config, ingestor, ingestLimits, otel, ch, blobs, tables } = options;
  runIngestRoutes(app, config, ingestor, ingestLimits);
  otelIngestRoutes(app, config, otel);
  runReadRoutes(app, ch, blobs, tables);
  runQueryRoutes(app, options);
  sessionRoutes(app, options);
  projectStatsRoutes(app, options);
  feedbackRoutes(app, {
    ...options,
    projection: options.feedbackProjection,
    logger: options.logger.child({ routes: 'feedback' }),
  });
  feedbackConfigRoutes(app, options);
};

/** The v2 reads, served under /api/v2. */
export const tracingV2Routes: FastifyPluginAsync<RouteDeps> = async (app, deps) => {
  v2RunQueryRoutes(app, deps);
  v2TraceRoutes(app, deps);
  v2ThreadRoutes(app, deps);
};
