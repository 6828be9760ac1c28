// Which run a span is, which trace it belongs to, and which run it hangs under (docs/otel.md, "Ids").
//  - The OTel trace id (16 bytes) is the run trace id, byte for byte, and the trace's root span
//    is the run with that id (our model: a root run's id is its trace id).
//  - Any other span's run id is its 8-byte span id behind eight zero bytes, LangSmith's own
//    convention (the langsmith SDK's getUuidFromOtelSpanId): a parent span id then names the
//    parent run without knowing anything else about it, and the langsmith.span.parent_id the
//    SDK derives from span ids matches.
//  - langsmith.span.id / langsmith.trace.id / langsmith.span.parent_id / langsmith.span.dotted_order,
//    when a span carries them (the langsmith Python SDK's OTel mode does), win over the above.
import { toUuid } from '../../../platform/ids.ts';
import { parseDottedOrder } from '../ingest/dottedOrder.ts';
import type { Attributes, OtelSpan } from './otlpSpans.ts';

const uuid = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;

export const traceRunId = (traceIdHex: string): string => uuid(traceIdHex);
export const spanRunId = (spanIdHex: string): string => uuid(spanIdHex.padStart(32, '0'));

/** True for ids spanRunId makes: those only a span id could have produced. */
export const isSpanRunId = (runId: string): boolean => runId.startsWith('00000000-0000-0000-');

export interface SpanIdentity {
  runId: string;
  /** The id the span's children refer to it by (spanRunId of its span id); differs from runId for roots and explicit ids. */
  spanRunId: string;
  traceId: string;
  /** The run the span hangs under, as the span names it (a span run id or a run id); null for a root. */
  parentRef: string | null;
  /** Given by the span itself (langsmith.span.dotted_order); else the server places the run. */
  dottedOrder: string | null;
}

function uuidAttribute(attributes: Attributes, key: string): string | null {
  const v = attributes[key];
  if (v === undefined || v === null || v === '') return null;
  const id = typeof v === 'string' ? toUuid(v) : null;
  if (!id) throw new Error(`${key} must be a UUID, got ${JSON.stringify(v).slice(0, 60)}`);
  return id;
}

export function spanIdentity(span: OtelSpan): SpanIdentity {
  const a = span.attributes;
  const ownSpanRunId = spanRunId(span.spanId);
  const lsRunId = uuidAttribute(a, 'langsmith.span.id');
  const lsTraceId = uuidAttribute(a, 'langsmith.trace.id');
  const lsParentId = uuidAttribute(a, 'langsmith.span.parent_id');
  const dotted = a['langsmith.span.dotted_order'];
  if (span.parentSpanId === span.spanId) throw new Error("parentSpanId is the span's own id");

  if (typeof dotted === 'string' && dotted !== '') {
    // The span says exactly where it is; the ids missing from the attributes come from the dotted order.
    const segments = parseDottedOrder(dotted, lsRunId ?? ownSpanRunId);
    return {
      runId: lsRunId ?? segments.at(-1)!.runId,
      spanRunId: ownSpanRunId,
      traceId: lsTraceId ?? segments[0]!.runId,
      parentRef: lsParentId ?? segments.at(-2)?.runId ?? null,
      dottedOrder: dotted,
    };
  }
  // langsmith.is_root: the langsmith JS SDK marks the first traceable span this way when its OTel
  // parent is a span the SDK does not export (an HTTP server span, say).
  const isRoot =
    lsParentId === null &&
    (span.parentSpanId === null || a['langsmith.is_root'] === true || a['langsmith.is_root'] === 'true');
  if (isRoot) {
    const runId = lsRunId ?? lsTraceId ?? traceRunId(span.traceId);
    return { runId, spanRunId: ownSpanRunId, traceId: lsTraceId ?? runId, parentRef: null, dottedOrder: null };
  }
  return {
    runId: lsRunId ?? ownSpanRunId,
    spanRunId: ownSpanRunId,
    traceId: lsTraceId ?? traceRunId(span.traceId),
    parentRef: lsParentId ?? spanRunId(span.parentSpanId!),
    dottedOrder: null,
  };
}
