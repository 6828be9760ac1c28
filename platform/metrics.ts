// Prometheus metrics, one registry per process, served at /metrics.
import { Registry, Counter, Histogram, Gauge, collectDefaultMetrics } from 'prom-client';

export const registry = new Registry();
// The event-loop delay histogram samples with a libuv timer: at prom-client's default 10 ms that
// woke every process 100 times a second with nothing to do (about 0.4 % of a core each, most of
// an idle stack's CPU: npm run bench:idle). Sampled every 500 ms, a stall shows as before (the
// sample that waits behind it records its length); only the shortest delays are seen less often.
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 500 });

export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency by route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const eventsAppended = new Counter({
  name: 'events_appended_total',
  help: 'Events appended to Kafka (acknowledged by all in-sync replicas)',
  labelNames: ['topic', 'event'] as const,
  registers: [registry],
});

export const runsAccepted = new Counter({
  name: 'runs_accepted_total',
  help: 'Run operations accepted by the ingestion routes',
  labelNames: ['route', 'op'] as const,
  registers: [registry],
});

export const ingestRequestsRateLimited = new Counter({
  name: 'ingest_requests_rate_limited_total',
  help: "Ingestion requests refused (429) for being over their workspace's rate limit, per limit (basic: POST /runs and PATCH /runs/{id}; batch: /runs/batch and /runs/multipart)",
  labelNames: ['limit'] as const,
  registers: [registry],
});

export const projectorLag = new Gauge({
  name: 'projector_lag_messages',
  help: 'Messages in the topic not yet projected, per projector and partition',
  labelNames: ['projector', 'partition'] as const,
  registers: [registry],
});

export const projectorRowsWritten = new Counter({
  name: 'projector_rows_written_total',
  help: 'Rows inserted into ClickHouse by projectors',
  labelNames: ['projector'] as const,
  registers: [registry],
});

export const projectorBatchSeconds = new Histogram({
  name: 'projector_batch_seconds',
  help: 'Time to project one batch (decode, merge, insert, commit)',
  labelNames: ['projector'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const projectorDeadLetters = new Counter({
  name: 'projector_dead_letters_total',
  help: 'Messages a projector could not read and moved to the dead-letter topic of their topic',
  labelNames: ['projector'] as const,
  registers: [registry],
});

export const statsSliceWriteFailures = new Counter({
  name: 'stats_slice_write_failures_total',
  help: 'Hour stats slices a stats read computed and could not write back (the next read computes them again from trace rows)',
  registers: [registry],
});
