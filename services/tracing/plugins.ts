// The tracing context's HTTP surface: the plugins the API process registers
// (services/processes/tracingApp.ts) and the parts it wires them with (ingestion, lineage,
// OTLP). Only a process root imports this module; other contexts use index.ts.
export { tracingPublicRoutes, tracingRoutes, tracingV2Routes } from './tracingRoutes.ts';
export { feedbackTokenRoutes } from './routes/feedback.ts';
export { explorerPageRoutes } from './explorerPage.ts';
export type { RouteDeps } from './routes/routeDeps.ts';
export { LineageIndex } from './lineage/lineageIndex.ts';
export { RunIngestor } from './ingest/runIngestor.ts';
export { ingestRateLimits } from './ingest/ingestRateLimits.ts';
export { OtelIngestion } from './otel/otelIngestion.ts';
export { SERVICE_VERSION } from './version.ts';
