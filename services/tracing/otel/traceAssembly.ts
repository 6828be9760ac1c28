// Where spans go in their trace trees (docs/otel.md, "Spans in any order"). A run's dotted_order
// needs every ancestor's id and start time, but an exporter sends a span when it ends: children
// usually arrive before their parents, often in earlier requests. So:
//  - placeSpans: a span goes under its parent when the parent is in the same request or was
//    placed before; otherwise it is placed provisionally, under a stand-in path
//    (trace root, then the parent it names, then itself), so it is stored and readable at once.
//  - graftsFor: once more of a trace is known, every recorded run whose dotted_order does not
//    extend its parent's (as it should now be) gets a patch with the right dotted_order and
//    parent. A patch overrides both, so the read model converges on the real tree whatever the
//    arrival order. Pure functions; otelIngestion.ts feeds them.
import { toUuid } from '../../../platform/ids.ts';
import { dottedSegment } from '../ingest/dottedOrder.ts';
import type { SpanIdentity } from './spanIdentity.ts';

/** A run where it sits: its id and dotted_order. */
export interface Located {
  runId: string;
  dottedOrder: string;
}

export interface SpanToPlace extends SpanIdentity {
  startMicros: number;
}

export interface Placement {
  runId: string;
  traceId: string;
  parentRunId: string | null;
  dottedOrder: string;
}

/** `trace/ref` keys for lookups of parents outside the request. */
export const refKey = (traceId: string, ref: string): string => `${traceId}/${ref}`;

const segmentsOf = (dottedOrder: string): string[] => dottedOrder.split('.');
/** The run id a dotted_order segment ends with (after its 22-character timestamp). */
const segmentRunId = (segment: string): string => toUuid(segment.slice(22)) ?? segment.slice(22);

/** The parents the spans name that are not in the request: look these up before placing. */
export function refsOutside(spans: SpanToPlace[]): Array<{ traceId: string; ref: string }> {
  const inRequest = new Set(spans.flatMap((s) => [s.runId, s.spanRunId]));
  const out = new Map<string, { traceId: string; ref: string }>();
  for (const s of spans)
    if (s.dottedOrder === null && s.parentRef !== null && !inRequest.has(s.parentRef))
      out.set(refKey(s.traceId, s.parentRef), { traceId: s.traceId, ref: s.parentRef });
  return [...out.values()];
}

/** Places every span: under its parent (from the request or `known`, keyed by refKey) or provisionally. */
export function placeSpans(spans: SpanToPlace[], known: ReadonlyMap<string, Located>): Map<SpanToPlace, Placement> {
  const byRef = new Map<string, SpanToPlace>();
  for (const s of spans) for (const ref of [s.spanRunId, s.runId]) if (!byRef.has(ref)) byRef.set(ref, s);
  const placed = new Map<SpanToPlace, Placement>();
  const visiting = new Set<SpanToPlace>();

  const place = (s: SpanToPlace): Placement => {
    const done = placed.get(s);
    if (done) return done;
    visiting.add(s);
    const own = dottedSegment(s.startMicros, s.runId);
    let p: Placement;
    if (s.dottedOrder !== null) {
      p = { runId: s.runId, traceId: s.traceId, parentRunId: s.parentRef, dottedOrder: s.dottedOrder };
    } else if (s.parentRef === null) {
      p = { runId: s.runId, traceId: s.traceId, parentRunId: null, dottedOrder: own };
    } else {
      const parentSpan = byRef.get(s.parentRef);
      const parent = parentSpan && parentSpan !== s && !visiting.has(parentSpan) ? place(parentSpan) : null;
      const located: Located | undefined = parent ?? known.get(refKey(s.traceId, s.parentRef));
      if (located) {
        const traceId = parent ? parent.traceId : segmentRunId(segmentsOf(located.dottedOrder)[0]!);
        p = { runId: s.runId, traceId, parentRunId: located.runId, dottedOrder: `${located.dottedOrder}.${own}` };
      } else {
        // Provisional: the parent is not known yet (graftsFor moves the run once it is).
        const path = [dottedSegment(s.startMicros, s.traceId)];
        if (s.parentRef !== s.traceId) path.push(dottedSegment(s.startMicros, s.parentRef));
        p = { runId: s.runId, traceId: s.traceId, parentRunId: s.parentRef, dottedOrder: [...path, own].join('.') };
      }
    }
    visiting.delete(s);
    placed.set(s, p);
    return p;
  };
  for (const s of spans) place(s);
  return placed;
}

/** A run as the lineage topic last recorded it. */
export interface RecordedRun {
  runId: string;
  dottedOrder: string;
  sessionId: string;
}

export interface Graft {
  runId: string;
  parentRunId: string;
  dottedOrder: string;
  sessionId: string;
}

/**
 * The runs of one trace whose recorded dotted_order is not their parent's (as placed now) plus
 * their own segment. `resolve` turns the id a dotted_order names into the id of a recorded run
 * (following span-id aliases), or null when that run is not known.
 */
export function graftsFor(runs: ReadonlyMap<string, RecordedRun>, resolve: (ref: string) => string | null): Graft[] {
  /** Where a run should be now; parentRunId null when its parent is not known (it stays where it is). */
  const desired = new Map<string, { dottedOrder: string; parentRunId: string | null }>();
  const visiting = new Set<string>();

  const desiredOf = (run: RecordedRun): { dottedOrder: string; parentRunId: string | null } => {
    const memo = desired.get(run.runId);
    if (memo) return memo;
    const segments = segmentsOf(run.dottedOrder);
    let result = { dottedOrder: run.dottedOrder, parentRunId: null as string | null };
    const parentId = segments.length > 1 ? resolve(segmentRunId(segments.at(-2)!)) : null;
    const parent = parentId === null ? undefined : runs.get(parentId);
    if (parent && !visiting.has(parent.runId)) {
      visiting.add(run.runId);
      result = { dottedOrder: `${desiredOf(parent).dottedOrder}.${segments.at(-1)}`, parentRunId: parent.runId };
      visiting.delete(run.runId);
    }
    desired.set(run.runId, result);
    return result;
  };

  const grafts: Graft[] = [];
  for (const run of runs.values()) {
    const want = desiredOf(run);
    if (want.parentRunId !== null && want.dottedOrder !== run.dottedOrder)
      grafts.push({
        runId: run.runId,
        parentRunId: want.parentRunId,
        dottedOrder: want.dottedOrder,
        sessionId: run.sessionId,
      });
  }
  return grafts;
}
