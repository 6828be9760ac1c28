// Placement and grafting, driven the way the OTel route drives them (place, record the lineage,
// graft what is now known, record that), against the real lineage fold fed in-line. The read
// model is simulated by its merge rule for these fields: a post fills, a patch overrides.
import { describe, expect, test } from 'vitest';
import { loadConfig } from '../../../../platform/config.ts';
import { createLogger } from '../../../../platform/logger.ts';
import { OtelLineage } from '../../../../services/tracing/otel/otelLineage.ts';
import {
  graftsFor,
  placeSpans,
  refKey,
  refsOutside,
  type Located,
} from '../../../../services/tracing/otel/traceAssembly.ts';
import { spanIdentity, spanRunId, traceRunId } from '../../../../services/tracing/otel/spanIdentity.ts';
import { dottedSegment } from '../../../../services/tracing/ingest/dottedOrder.ts';
import type { OtelSpan } from '../../../../services/tracing/otel/otlpSpans.ts';

const TRACE = '5b8efff798038103d269b633813fc60c';
const T = traceRunId(TRACE);
const t0 = Date.UTC(2026, 0, 1) * 1000;

function span(
  spanId: string,
  parentSpanId: string | null,
  startOffset: number,
  attributes: OtelSpan['attributes'] = {},
): OtelSpan {
  return {
    traceId: TRACE,
    spanId,
    parentSpanId,
    name: spanId,
    kind: 1,
    startMicros: t0 + startOffset,
    endMicros: t0 + 1000,
    attributes,
    events: [],
    status: { code: 0, message: '' },
    resource: {},
    scope: { name: '', version: '' },
  };
}

interface ModelRow {
  traceId: string;
  parentRunId: string | null;
  dottedOrder: string;
}

/** One API replica's view: the lineage fold, and the runs as the read model would merge them. */
class Simulation {
  readonly fold = new OtelLineage(loadConfig({}), createLogger('test', 'silent'));
  readonly model = new Map<string, ModelRow>();

  #record(runId: string, traceId: string, dottedOrder: string): void {
    this.fold.apply({
      name: 'RunLineageRecorded',
      version: 1,
      payload: {
        tenant_id: 'tenant',
        run_id: runId,
        trace_id: traceId,
        dotted_order: dottedOrder,
        session_id: 'project',
      },
    });
  }

  request(spans: OtelSpan[]): void {
    const places = spans.map((s) => ({ ...spanIdentity(s), startMicros: s.startMicros }));
    const known = new Map<string, Located>();
    for (const { traceId, ref } of refsOutside(places)) {
      const found = this.fold.find('tenant', traceId, ref);
      if (found) known.set(refKey(traceId, ref), found);
    }
    const traces = new Set<string>();
    for (const [place, p] of placeSpans(places, known)) {
      if (!this.model.has(p.runId))
        this.model.set(p.runId, { traceId: p.traceId, parentRunId: p.parentRunId, dottedOrder: p.dottedOrder });
      this.#record(p.runId, p.traceId, p.dottedOrder);
      if (place.spanRunId !== p.runId) this.#record(place.spanRunId, p.traceId, p.dottedOrder);
      traces.add(p.traceId);
    }
    for (const traceId of traces) {
      const { runs, resolve, aliasesOf } = this.fold.traceRuns('tenant', traceId);
      for (const g of graftsFor(runs, resolve)) {
        this.model.set(g.runId, {
          ...this.model.get(g.runId)!,
          parentRunId: g.parentRunId,
          dottedOrder: g.dottedOrder,
        });
        for (const id of [g.runId, ...aliasesOf(g.runId)]) this.#record(id, traceId, g.dottedOrder);
      }
    }
  }
}

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

//  root ─┬─ a ─┬─ b
//        │     └─ c
//        └─ d
const root = span('1000000000000001', null, 0);
const a = span('100000000000000a', root.spanId, 10);
const b = span('100000000000000b', a.spanId, 20);
const c = span('100000000000000c', a.spanId, 30);
const d = span('100000000000000d', root.spanId, 40);
const TREE = [root, a, b, c, d];

const seg = (s: OtelSpan, id = spanRunId(s.spanId)) => dottedSegment(s.startMicros, id);
const EXPECTED = new Map<string, ModelRow>([
  [T, { traceId: T, parentRunId: null, dottedOrder: seg(root, T) }],
  [spanRunId(a.spanId), { traceId: T, parentRunId: T, dottedOrder: `${seg(root, T)}.${seg(a)}` }],
  [
    spanRunId(b.spanId),
    { traceId: T, parentRunId: spanRunId(a.spanId), dottedOrder: `${seg(root, T)}.${seg(a)}.${seg(b)}` },
  ],
  [
    spanRunId(c.spanId),
    { traceId: T, parentRunId: spanRunId(a.spanId), dottedOrder: `${seg(root, T)}.${seg(a)}.${seg(c)}` },
  ],
  [spanRunId(d.spanId), { traceId: T, parentRunId: T, dottedOrder: `${seg(root, T)}.${seg(d)}` }],
]);

describe('placing spans', () => {
  test('one request with the whole trace: the tree as OTel has it, root run = trace id', () => {
    const sim = new Simulation();
    sim.request([b, d, root, c, a]);
    expect(sim.model).toEqual(EXPECTED);
  });

  test('a child whose parent is unknown is stored at once, provisionally, under the parent it names', () => {
    const sim = new Simulation();
    sim.request([b]);
    expect(sim.model.get(spanRunId(b.spanId))).toEqual({
      traceId: T,
      parentRunId: spanRunId(a.spanId),
      dottedOrder: `${dottedSegment(b.startMicros, T)}.${dottedSegment(b.startMicros, spanRunId(a.spanId))}.${seg(b)}`,
    });
  });

  test.each(permutations(TREE).map((order) => [order.map((s) => s.name.slice(-1)).join(''), order] as const))(
    'one span per request, in the order %s: the same tree in the end',
    (_, order) => {
      const sim = new Simulation();
      for (const s of order) sim.request([s]);
      expect(sim.model).toEqual(EXPECTED);
    },
  );

  test('batches as a BatchSpanProcessor sends them (children first, root last)', () => {
    const sim = new Simulation();
    sim.request([b, c]);
    sim.request([a, d]);
    sim.request([root]);
    expect(sim.model).toEqual(EXPECTED);
  });

  test('a span with langsmith.span.id: native children sent later still find it (its span id is an alias)', () => {
    const custom = '018f0000-0000-7000-8000-0000000000aa';
    const parent = span('200000000000000a', root.spanId, 10, { 'langsmith.span.id': custom });
    const child = span('200000000000000b', parent.spanId, 20);
    const sim = new Simulation();
    sim.request([child]);
    sim.request([root]);
    sim.request([parent]);
    expect(sim.model.get(custom)).toEqual({
      traceId: T,
      parentRunId: T,
      dottedOrder: `${seg(root, T)}.${dottedSegment(parent.startMicros, custom)}`,
    });
    expect(sim.model.get(spanRunId(child.spanId))).toEqual({
      traceId: T,
      parentRunId: custom,
      dottedOrder: `${seg(root, T)}.${dottedSegment(parent.startMicros, custom)}.${seg(child)}`,
    });
  });

  test('a root marked langsmith.is_root under a span that is never sent: its children find it by its span id', () => {
    const traceableRoot = span('300000000000000a', 'ffffffffffffffff', 5, { 'langsmith.is_root': true });
    const child = span('300000000000000b', traceableRoot.spanId, 20);
    const sim = new Simulation();
    sim.request([child]);
    sim.request([traceableRoot]);
    expect(sim.model.get(T)).toEqual({ traceId: T, parentRunId: null, dottedOrder: seg(traceableRoot, T) });
    expect(sim.model.get(spanRunId(child.spanId))).toEqual({
      traceId: T,
      parentRunId: T,
      dottedOrder: `${seg(traceableRoot, T)}.${seg(child)}`,
    });
  });

  test('explicit dotted orders (the langsmith SDK in OTel mode) are kept as sent', () => {
    const rootId = '018f0000-0000-7000-8000-000000000001';
    const childId = '018f0000-0000-7000-8000-000000000002';
    const rootOrder = dottedSegment(t0, rootId);
    const childOrder = `${rootOrder}.${dottedSegment(t0 + 7, childId)}`;
    const sim = new Simulation();
    sim.request([
      span('400000000000000b', '400000000000000a', 7, {
        'langsmith.span.id': childId,
        'langsmith.trace.id': rootId,
        'langsmith.span.parent_id': rootId,
        'langsmith.span.dotted_order': childOrder,
      }),
    ]);
    sim.request([
      span('400000000000000a', null, 0, {
        'langsmith.span.id': rootId,
        'langsmith.trace.id': rootId,
        'langsmith.span.dotted_order': rootOrder,
      }),
    ]);
    expect(sim.model.get(rootId)).toEqual({ traceId: rootId, parentRunId: null, dottedOrder: rootOrder });
    expect(sim.model.get(childId)).toEqual({ traceId: rootId, parentRunId: rootId, dottedOrder: childOrder });
  });

  test('a parent cycle among the spans of a request does not hang placement', () => {
    const x = span('500000000000000a', '500000000000000b', 1);
    const y = span('500000000000000b', '500000000000000a', 2);
    const sim = new Simulation();
    sim.request([x, y]);
    expect(sim.model.size).toBe(2);
  });
});
