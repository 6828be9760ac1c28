import { describe, expect, test } from 'vitest';
import { spanIdentity, spanRunId, traceRunId } from '../../../../services/tracing/otel/spanIdentity.ts';
import type { OtelSpan } from '../../../../services/tracing/otel/otlpSpans.ts';

const TRACE = '5b8efff798038103d269b633813fc60c';

function span(over: Partial<OtelSpan> = {}): OtelSpan {
  return {
    traceId: TRACE,
    spanId: 'eee19b7ec3c1b174',
    parentSpanId: '0102030405060708',
    name: 'my span',
    kind: 1,
    startMicros: 1747684501221924,
    endMicros: null,
    attributes: {},
    events: [],
    status: { code: 0, message: '' },
    resource: {},
    scope: { name: '', version: '' },
    ...over,
  };
}

describe('spanIdentity', () => {
  const root = traceRunId(TRACE);
  test('ids: the trace id is the root run, other spans are their span id behind zeros (LangSmith convention)', () => {
    expect(root).toBe('5b8efff7-9803-8103-d269-b633813fc60c');
    expect(spanRunId('eee19b7ec3c1b174')).toBe('00000000-0000-0000-eee1-9b7ec3c1b174');
    expect(spanIdentity(span({ parentSpanId: null }))).toEqual({
      runId: root,
      spanRunId: spanRunId('eee19b7ec3c1b174'),
      traceId: root,
      parentRef: null,
      dottedOrder: null,
    });
    expect(spanIdentity(span())).toEqual({
      runId: spanRunId('eee19b7ec3c1b174'),
      spanRunId: spanRunId('eee19b7ec3c1b174'),
      traceId: root,
      parentRef: spanRunId('0102030405060708'),
      dottedOrder: null,
    });
  });

  test('langsmith.is_root makes a span with a parent the root; langsmith.span.parent_id names the parent', () => {
    expect(spanIdentity(span({ attributes: { 'langsmith.is_root': true } }))).toMatchObject({
      runId: root,
      parentRef: null,
    });
    const parent = '00000000-0000-0000-1111-222233334444';
    expect(spanIdentity(span({ attributes: { 'langsmith.span.parent_id': parent } }))).toMatchObject({
      parentRef: parent,
      traceId: root,
    });
  });

  test('explicit langsmith ids and dotted order win', () => {
    const traceId = 'f1c6cfef-6341-4369-a3af-e720eb6579ef';
    const runId = '9067e67a-c5da-4fd8-8d7d-16f34edd564c';
    const dotted = `20250519T195501187802Z${traceId}.20250519T195501221924Z${runId}`;
    expect(spanIdentity(span({ attributes: { 'langsmith.span.dotted_order': dotted } }))).toEqual({
      runId,
      spanRunId: spanRunId('eee19b7ec3c1b174'),
      traceId,
      parentRef: traceId,
      dottedOrder: dotted,
    });
    expect(() => spanIdentity(span({ attributes: { 'langsmith.span.id': 'nope' } }))).toThrow(
      /langsmith.span.id must be a UUID/,
    );
    expect(() => spanIdentity(span({ attributes: { 'langsmith.span.dotted_order': 'garbage' } }))).toThrow(/segment 1/);
  });
});
