import { describe, expect, test } from 'vitest';
import { checkLineage, dottedSegment, type SegmentCache } from '../../../../services/tracing/ingest/dottedOrder.ts';

const root = '018f0000-0000-7000-8000-000000000001';
const child = '018f0000-0000-7000-8000-000000000002';
const other = '018f0000-0000-7000-8000-000000000003';
const t = Date.UTC(2026, 0, 1) * 1000;
const rootOrder = dottedSegment(t, root);
const childOrder = `${rootOrder}.${dottedSegment(t + 5, child)}`;

describe('dotted_order lineage', () => {
  test('accepts consistent roots and children', () => {
    expect(
      checkLineage({ runId: root, traceId: root, parentRunId: null, dottedOrder: rootOrder, op: 'post' }),
    ).toHaveLength(1);
    expect(
      checkLineage({ runId: child, traceId: root, parentRunId: root, dottedOrder: childOrder, op: 'post' }),
    ).toHaveLength(2);
  });
  test('rejects inconsistent ones with a message that says what is wrong', () => {
    expect(() =>
      checkLineage({ runId: child, traceId: child, parentRunId: null, dottedOrder: childOrder, op: 'post' }),
    ).toThrow(/starts with run/);
    expect(() =>
      checkLineage({
        runId: other,
        traceId: other,
        parentRunId: null,
        dottedOrder: dottedSegment(t, other),
        op: 'post',
      }),
    ).not.toThrow();
    expect(() =>
      checkLineage({ runId: root, traceId: other, parentRunId: null, dottedOrder: dottedSegment(t, root), op: 'post' }),
    ).toThrow(/starts with run/);
    expect(() =>
      checkLineage({ runId: child, traceId: root, parentRunId: other, dottedOrder: childOrder, op: 'post' }),
    ).toThrow(/extend its parent/);
    expect(() =>
      checkLineage({ runId: other, traceId: root, parentRunId: root, dottedOrder: childOrder, op: 'post' }),
    ).toThrow(/own segment/);
    expect(() =>
      checkLineage({ runId: root, traceId: root, parentRunId: null, dottedOrder: 'garbage', op: 'post' }),
    ).toThrow(/segment 1/);
    expect(() =>
      checkLineage({ runId: child, traceId: root, parentRunId: null, dottedOrder: childOrder, op: 'post' }),
    ).toThrow(/no parent_run_id/);
  });
  test("a request's segment cache gives the same segments, and still refuses what does not agree", () => {
    const cache: SegmentCache = new Map();
    const rootSegments = checkLineage(
      { runId: root, traceId: root, parentRunId: null, dottedOrder: rootOrder, op: 'post' },
      cache,
    );
    const childSegments = checkLineage(
      { runId: child, traceId: root, parentRunId: root, dottedOrder: childOrder, op: 'post' },
      cache,
    );
    expect(childSegments).toEqual(
      checkLineage({ runId: child, traceId: root, parentRunId: root, dottedOrder: childOrder, op: 'post' }),
    );
    expect(childSegments[0]).toBe(rootSegments[0]);
    expect(cache.size).toBe(2);
    expect(() =>
      checkLineage({ runId: child, traceId: root, parentRunId: other, dottedOrder: childOrder, op: 'post' }, cache),
    ).toThrow(/extend its parent/);
    expect(() =>
      checkLineage(
        {
          runId: root,
          traceId: root,
          parentRunId: null,
          dottedOrder: `${rootOrder.slice(0, 4)}1399${rootOrder.slice(8)}`,
          op: 'post',
        },
        cache,
      ),
    ).toThrow(/invalid date/);
  });
});
