// Where the example agent's spans go: OTLP/HTTP (protobuf) to the tracing API's
// {LANGSMITH_ENDPOINT}/otel/v1/traces, with the workspace's API key and the project by name.
import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { ExampleAgentConfig } from './exampleAgentConfig.ts';

export interface SpanExport {
  tracer: Tracer;
  /** True when spans are sent anywhere (tracing on and an API key set). */
  exporting: boolean;
  /** Sends the spans still queued, then stops. */
  shutdown(): Promise<void>;
}

export function otlpTracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/otel/v1/traces`;
}

export function startSpanExport(config: ExampleAgentConfig, serviceName: string): SpanExport {
  const exporting = config.LANGSMITH_TRACING === 'true' && config.LANGSMITH_API_KEY !== undefined;
  const exporter = exporting
    ? new OTLPTraceExporter({
        url: otlpTracesUrl(config.LANGSMITH_ENDPOINT),
        headers: { 'x-api-key': config.LANGSMITH_API_KEY!, 'Langsmith-Project': config.LANGSMITH_PROJECT },
      })
    : null;
  // Batches follow the standard OTEL_BSP_* variables (OTEL_BSP_SCHEDULE_DELAY: how long spans wait, 5 s by default).
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: exporter ? [new BatchSpanProcessor(exporter)] : [],
  });
  // Registering installs the AsyncLocalStorage context manager: the agent's executor, called deep
  // inside the A2A SDK's request handler, then finds the request's span as the active span.
  provider.register();
  return { tracer: provider.getTracer(serviceName), exporting, shutdown: () => provider.shutdown() };
}
