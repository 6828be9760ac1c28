// A span's attributes, events and status as run fields, the way LangSmith maps them (the table
// is docs/otel.md). The result is a run body as POST /runs/batch takes it, minus the ids and
// lineage (spanIdentity.ts and traceAssembly.ts decide those).
import { errors } from '../../../platform/errors.ts';
import { MAX_JSON_DEPTH, jsonTooDeep } from '../../../platform/json/jsonNesting.ts';
import { RUN_TYPES } from '../ingest/runDraft.ts';
import { toUuid } from '../../../platform/ids.ts';
import { formatIsoMicros } from '../../../platform/time.ts';
import type { AttributeValue, Attributes, OtelEvent, OtelSpan } from './otlpSpans.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: AttributeValue | undefined): string | null =>
  v === undefined || v === null
    ? null
    : typeof v === 'string'
      ? v
      : typeof v === 'object'
        ? JSON.stringify(v)
        : String(v);

/**
 * JSON carried as a string attribute, parsed. A text nested deeper than MAX_JSON_DEPTH throws,
 * like invalid JSON, so the callers keep it as the string it arrived as (a string is not nested).
 */
function parseAttributeJson(value: string): unknown {
  if (jsonTooDeep(value)) throw errors.jsonTooDeep('a JSON string attribute', MAX_JSON_DEPTH);
  return JSON.parse(value);
}

/** Attribute access that remembers what was used: the rest is kept apart in extra.otel.attributes. */
class AttributeReader {
  readonly #attributes: Attributes;
  readonly #used = new Set<string>();
  constructor(attributes: Attributes) {
    this.#attributes = attributes;
  }
  get(key: string): AttributeValue | undefined {
    if (!(key in this.#attributes)) return undefined;
    this.#used.add(key);
    return this.#attributes[key];
  }
  text(key: string): string | null {
    return text(this.get(key));
  }
  /** The keys with this prefix and their values, all marked used. */
  withPrefix(prefix: string): Array<[string, AttributeValue]> {
    const out: Array<[string, AttributeValue]> = [];
    for (const [k, v] of Object.entries(this.#attributes)) {
      if (!k.startsWith(prefix)) continue;
      this.#used.add(k);
      out.push([k.slice(prefix.length), v]);
    }
    return out;
  }
  has(predicate: (key: string) => boolean): boolean {
    return Object.keys(this.#attributes).some(predicate);
  }
  unused(): Attributes {
    return Object.fromEntries(Object.entries(this.#attributes).filter(([k]) => !this.#used.has(k)));
  }
}

/** LangSmith attributes that only steer ingestion (ids are read by spanIdentity.ts). */
const STEERING = [
  'langsmith.span.id',
  'langsmith.trace.id',
  'langsmith.span.parent_id',
  'langsmith.span.dotted_order',
  'langsmith.is_root',
  'langsmith.traceable',
  'langsmith.traceable_parent_otel_span_id',
];

const LLM_OPERATIONS = new Set(['chat', 'completion', 'text_completion', 'generate_content']);
const OPENINFERENCE_KINDS: Record<string, string> = {
  llm: 'llm',
  embedding: 'embedding',
  tool: 'tool',
  retriever: 'retriever',
  reranker: 'retriever',
  prompt: 'prompt',
};

function runTypeOf(a: AttributeReader): string {
  const kind = a.text('langsmith.span.kind')?.toLowerCase();
  if (kind && (RUN_TYPES as readonly string[]).includes(kind)) return kind;
  const operation = a.text('gen_ai.operation.name')?.toLowerCase();
  if (operation) {
    if (LLM_OPERATIONS.has(operation)) return 'llm';
    if (operation === 'embeddings' || operation === 'embedding') return 'embedding';
    if (operation === 'execute_tool') return 'tool';
    return 'chain'; // invoke_agent, create_agent, …
  }
  const openInference = a.text('openinference.span.kind')?.toLowerCase();
  if (openInference)
    return Object.hasOwn(OPENINFERENCE_KINDS, openInference) ? OPENINFERENCE_KINDS[openInference]! : 'chain';
  if (a.get('gen_ai.tool.name') !== undefined) return 'tool';
  if (a.has((k) => k.startsWith('gen_ai.'))) return 'llm';
  return 'chain';
}

/** A payload attribute as a run's inputs/outputs object: JSON objects as they are, anything else under `key`. */
function payloadObject(value: AttributeValue, key: 'input' | 'output'): Json {
  if (typeof value === 'string') {
    try {
      const parsed: unknown = parseAttributeJson(value);
      return isObject(parsed) ? parsed : { [key]: parsed };
    } catch {
      return { [key]: value };
    }
  }
  return isObject(value) ? value : { [key]: value };
}

/** gen_ai.prompt.{n}.role / .content (or .message.role / .message.content) as a message list. */
function indexedMessages(a: AttributeReader, prefix: string): Json[] | null {
  const messages = new Map<number, Json>();
  for (const [rest, value] of a.withPrefix(prefix)) {
    const m = /^(\d+)\.(?:message\.)?(.+)$/.exec(rest);
    if (!m) continue;
    const n = Number(m[1]);
    const message = messages.get(n) ?? {};
    message[m[2]!] = value;
    messages.set(n, message);
  }
  if (messages.size === 0) return null;
  return [...messages.entries()].sort(([x], [y]) => x - y).map(([, message]) => message);
}

function jsonArray(value: AttributeValue | undefined): unknown[] | null {
  if (Array.isArray(value)) return value;
  if (typeof value !== 'string') return null;
  try {
    const parsed: unknown = parseAttributeJson(value);
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

const eventMessage = (e: OtelEvent, role: string): Json => {
  const content = e.attributes['content'] ?? e.attributes['gen_ai.event.content'] ?? null;
  return { role: text(e.attributes['role'] ?? null) ?? role, content };
};

function inputsOf(a: AttributeReader, events: OtelEvent[]): Json | null {
  for (const key of ['gen_ai.prompt', 'input.value', 'traceloop.entity.input']) {
    const v = a.get(key);
    if (v !== undefined && v !== null) return payloadObject(v, 'input');
  }
  const indexed = indexedMessages(a, 'gen_ai.prompt.');
  if (indexed) return { messages: indexed };
  const listed = jsonArray(a.get('gen_ai.input.messages'));
  if (listed) return { messages: listed };
  const fromEvents = events
    .filter(
      (e) =>
        e.name === 'gen_ai.system.message' || e.name === 'gen_ai.user.message' || e.name === 'gen_ai.content.prompt',
    )
    .map((e) => eventMessage(e, e.name === 'gen_ai.system.message' ? 'system' : 'user'));
  return fromEvents.length ? { messages: fromEvents } : null;
}

function outputsOf(a: AttributeReader, events: OtelEvent[]): Json | null {
  for (const key of ['gen_ai.completion', 'output.value', 'traceloop.entity.output']) {
    const v = a.get(key);
    if (v !== undefined && v !== null) return payloadObject(v, 'output');
  }
  const indexed = indexedMessages(a, 'gen_ai.completion.');
  if (indexed) return { messages: indexed };
  const listed = jsonArray(a.get('gen_ai.output.messages'));
  if (listed) return { messages: listed };
  const fromEvents = events
    .filter(
      (e) =>
        e.name === 'gen_ai.choice' || e.name === 'gen_ai.assistant.message' || e.name === 'gen_ai.content.completion',
    )
    .map((e) => eventMessage(e, 'assistant'));
  return fromEvents.length ? { messages: fromEvents } : null;
}

const INVOCATION_PARAMS: Record<string, string> = {
  'gen_ai.request.model': 'model',
  'gen_ai.request.temperature': 'temperature',
  'gen_ai.request.top_p': 'top_p',
  'gen_ai.request.top_k': 'top_k',
  'gen_ai.request.max_tokens': 'max_tokens',
  'gen_ai.request.frequency_penalty': 'frequency_penalty',
  'gen_ai.request.presence_penalty': 'presence_penalty',
  'gen_ai.request.seed': 'seed',
  'gen_ai.request.stop_sequences': 'stop',
  'gen_ai.request.encoding_formats': 'encoding_formats',
  'gen_ai.tool.name': 'tool_name',
};

function usageOf(a: AttributeReader): Json | null {
  const given = a.text('langsmith.usage_metadata');
  if (given) {
    try {
      const parsed: unknown = parseAttributeJson(given);
      if (isObject(parsed)) return parsed;
    } catch {
      /* fall back to the gen_ai counts */
    }
  }
  const count = (...keys: string[]) => {
    for (const k of keys) {
      const v = Number(a.get(k) ?? NaN);
      if (Number.isFinite(v)) return v;
    }
    return null;
  };
  const input = count('gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens');
  const output = count('gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens');
  const total = count('gen_ai.usage.total_tokens');
  if (input === null && output === null && total === null) return null;
  return { input_tokens: input ?? 0, output_tokens: output ?? 0, total_tokens: total ?? (input ?? 0) + (output ?? 0) };
}

function metadataOf(a: AttributeReader, span: OtelSpan): Json {
  const metadata: Json = {};
  const serviceName = span.resource['service.name'];
  if (serviceName !== undefined && serviceName !== null) metadata['service.name'] = serviceName;
  const provider = a.text('gen_ai.system') ?? a.text('gen_ai.provider.name');
  if (provider) metadata.ls_provider = provider;
  const model = a.text('gen_ai.request.model') ?? a.text('gen_ai.response.model');
  if (model) metadata.ls_model_name = model;
  const usage = usageOf(a);
  if (usage) metadata.usage_metadata = usage;
  // Last, so what the span says in langsmith.metadata.* wins.
  for (const [key, value] of a.withPrefix('langsmith.metadata.')) if (key) metadata[key] = value;
  return metadata;
}

function errorOf(span: OtelSpan): string | null {
  const exception = span.events.find((e) => e.name === 'exception');
  const exceptionText = exception
    ? [
        [text(exception.attributes['exception.type'] ?? null), text(exception.attributes['exception.message'] ?? null)]
          .filter(Boolean)
          .join(': '),
        text(exception.attributes['exception.stacktrace'] ?? null),
      ]
        .filter(Boolean)
        .join('\n\n')
    : '';
  if (span.status.code !== 2 && !exception) return null;
  return span.status.message || exceptionText || 'error';
}

function tagsOf(a: AttributeReader): string[] | null {
  const v = a.get('langsmith.span.tags');
  if (v === undefined || v === null) return null;
  const items = Array.isArray(v) ? v.map((t) => text(t) ?? '') : (text(v) ?? '').split(',');
  const tags = items.map((t) => t.trim()).filter(Boolean);
  return tags.length ? tags : null;
}

const SPAN_KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];
const MAX_NAME = 1024;

/** The run fields of a span; `defaultProject` is the request's Langsmith-Project header. */
export function spanFields(span: OtelSpan, defaultProject: string | null): Json {
  const a = new AttributeReader(span.attributes);
  for (const key of STEERING) a.get(key);
  const name = (a.text('langsmith.trace.name') || span.name || `span ${span.spanId}`).slice(0, MAX_NAME);
  const runType = runTypeOf(a);
  const inputs = inputsOf(a, span.events);
  const outputs = outputsOf(a, span.events);
  const metadata = metadataOf(a, span);
  const invocationParams: Json = {};
  for (const [key, param] of Object.entries(INVOCATION_PARAMS)) {
    const v = a.get(key);
    if (v !== undefined && v !== null) invocationParams[param] = v;
  }
  const sessionId = a.text('langsmith.trace.session_id');
  const sessionName = a.text('langsmith.trace.session_name');
  const referenceExample = a.text('langsmith.reference_example_id');
  const tags = tagsOf(a);

  const extra: Json = {
    metadata,
    ...(Object.keys(invocationParams).length ? { invocation_params: invocationParams } : {}),
    otel: {
      trace_id: span.traceId,
      span_id: span.spanId,
      parent_span_id: span.parentSpanId,
      span_kind: SPAN_KINDS[span.kind] ?? String(span.kind),
      scope: span.scope,
      resource: span.resource,
      attributes: a.unused(),
    },
  };
  return {
    name,
    run_type: runType,
    start_time: formatIsoMicros(span.startMicros),
    end_time: span.endMicros === null ? null : formatIsoMicros(span.endMicros),
    inputs: inputs ?? {},
    outputs,
    extra,
    error: errorOf(span),
    events: span.events.length
      ? span.events.map((e) => ({ name: e.name, time: formatIsoMicros(e.timeMicros), kwargs: e.attributes }))
      : null,
    tags,
    // An id that is not a UUID is the sender's mistake, but not a reason to lose the span: it lands in the default project.
    ...(sessionId && toUuid(sessionId)
      ? { session_id: toUuid(sessionId) }
      : sessionName
        ? { session_name: sessionName }
        : defaultProject
          ? { session_name: defaultProject }
          : {}),
    ...(referenceExample && toUuid(referenceExample) ? { reference_example_id: toUuid(referenceExample) } : {}),
  };
}
