// ADK traces itself with OpenTelemetry (tracer "gcp.vertex.agent": invocation, agent run, LLM
// call and tool spans). When LangSmith tracing is on (LANGSMITH_TRACING=true with an API key, the
// variables the `langsmith` client reads itself, so these are read here as it reads them), the
// wrapper sends those spans to {LANGSMITH_ENDPOINT}/otel/v1/traces, into LANGSMITH_PROJECT, each
// span labelled `langsmith.metadata.thread_id` with the turn's thread: the ADK trace of a turn
// lands in the same tracing thread as the agent server's own run of it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  type ReadableSpan,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';

interface TurnLabels {
  threadId: string;
  runId?: string;
}

const turns = new AsyncLocalStorage<TurnLabels>();

/** Labels every span started during a turn with the turn's thread (and run). */
class TurnLabelProcessor implements SpanProcessor {
  onStart(span: Span, _parent: Context): void {
    const labels = turns.getStore();
    if (!labels) return;
    span.setAttribute('langsmith.metadata.thread_id', labels.threadId);
    if (labels.runId) span.setAttribute('langsmith.metadata.run_id', labels.runId);
  }
  onEnd(_span: ReadableSpan): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

let provider: NodeTracerProvider | null | undefined;

/** Sets up the export once per process when tracing is on; the provider, or null when off. */
export function ensureAdkTracing(env: NodeJS.ProcessEnv = process.env): NodeTracerProvider | null {
  if (provider !== undefined) return provider;
  const on = env.LANGSMITH_TRACING === 'true' || env.LANGCHAIN_TRACING_V2 === 'true';
  const apiKey = env.LANGSMITH_API_KEY ?? env.LANGCHAIN_API_KEY;
  if (!on || !apiKey) return (provider = null);
  const endpoint = (env.LANGSMITH_ENDPOINT ?? env.LANGCHAIN_ENDPOINT ?? 'https://api.smith.langchain.com').replace(
    /\/+$/,
    '',
  );
  const exporter = new OTLPTraceExporter({
    url: `${endpoint}/otel/v1/traces`,
    headers: { 'x-api-key': apiKey, 'Langsmith-Project': env.LANGSMITH_PROJECT ?? env.LANGCHAIN_PROJECT ?? 'default' },
  });
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'adk-agent' }),
    // Spans wait at most a second before they are sent (OTEL_BSP_SCHEDULE_DELAY still wins when set).
    spanProcessors: [
      new TurnLabelProcessor(),
      new BatchSpanProcessor(exporter, { scheduledDelayMillis: Number(env.OTEL_BSP_SCHEDULE_DELAY ?? 1000) }),
    ],
  });
  provider.register();
  return provider;
}

/** Runs `fn` (one ADK turn) with its spans labelled as the turn's. */
export function inTurn<T>(labels: TurnLabels, fn: () => T): T {
  return turns.run(labels, fn);
}
