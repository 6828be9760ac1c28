// dotted_order: segments joined by '.', each `YYYYMMDDTHHMMSSffffffZ<run uuid>`. A root has one
// segment (and trace_id = its id); a child's value is its parent's plus its own segment.
import { errors } from '../../../platform/errors.ts';
import { checkStorableMicros, formatDottedTimestamp, parseDottedTimestamp } from '../../../platform/time.ts';
import { toUuid } from '../../../platform/ids.ts';

export interface DottedSegment {
  micros: number;
  runId: string;
}

const SEGMENT = /^(\d{8}T\d{12}Z)([0-9a-fA-F-]{32,36})$/;

/**
 * Segments already parsed, by their text: a child's dotted_order repeats its ancestors' segments,
 * so one request's runs share most of theirs (one cache per request; it holds valid segments only).
 */
export type SegmentCache = Map<string, DottedSegment>;

export function parseDottedOrder(value: string, runId: string, cache?: SegmentCache): DottedSegment[] {
  const parts = value.split('.');
  return parts.map((part, i) => {
    const known = cache?.get(part);
    if (known) return known;
    const m = SEGMENT.exec(part);
    const id = m ? toUuid(m[2]!) : null;
    if (!m || !id)
      throw errors.invalidField(
        `dotted_order of run ${runId}: segment ${i + 1} "${part.slice(0, 80)}" is not <YYYYMMDDTHHMMSSffffffZ><uuid>`,
      );
    const micros = parseDottedTimestamp(m[1]!);
    if (formatDottedTimestamp(micros) !== m[1])
      throw errors.invalidField(`dotted_order of run ${runId}: segment ${i + 1} has an invalid date "${m[1]}"`);
    checkStorableMicros(micros, `dotted_order of run ${runId}: the time of segment ${i + 1}`, m[1]);
    const segment = { micros, runId: id };
    cache?.set(part, segment);
    return segment;
  });
}

export const dottedSegment = (startMicros: number, runId: string): string => formatDottedTimestamp(startMicros) + runId;

/** Whether `child` is `parent`, a dot, and more: without building `parent + '.'` for each run. */
export const extendsDottedOrder = (child: string, parent: string): boolean =>
  child.length > parent.length + 1 && child.charCodeAt(parent.length) === 46 /* . */ && child.startsWith(parent);

export interface LineageClaim {
  runId: string;
  traceId: string;
  parentRunId: string | null;
  dottedOrder: string;
  op: 'post' | 'patch';
}

/**
 * Checks that trace_id, parent_run_id and dotted_order agree: the dotted_order ends with the
 * run's own segment, starts with the trace's root, and (for a child) its parent's segment
 * comes just before its own. Returns the parsed segments.
 */
export function checkLineage(claim: LineageClaim, cache?: SegmentCache): DottedSegment[] {
  const segments = parseDottedOrder(claim.dottedOrder, claim.runId, cache);
  const own = segments.at(-1)!;
  if (own.runId !== claim.runId)
    throw errors.invalidField(
      `dotted_order of run ${claim.runId} must end with the run's own segment, but ends with ${own.runId}`,
    );
  if (segments[0]!.runId !== claim.traceId)
    throw errors.invalidField(
      `dotted_order of run ${claim.runId} starts with run ${segments[0]!.runId}, but trace_id is ${claim.traceId}`,
    );
  if (claim.op === 'post' || claim.parentRunId !== null) {
    if (claim.parentRunId === null) {
      if (segments.length !== 1)
        throw errors.invalidField(
          `run ${claim.runId} has no parent_run_id but its dotted_order has ${segments.length} segments`,
        );
      if (claim.traceId !== claim.runId)
        throw errors.invalidField(
          `root run ${claim.runId} must have trace_id equal to its own id, got ${claim.traceId}`,
        );
    } else {
      const parent = segments.at(-2);
      if (!parent || parent.runId !== claim.parentRunId)
        throw errors.invalidField(
          `dotted_order of run ${claim.runId} must extend its parent ${claim.parentRunId}'s dotted_order`,
        );
    }
  }
  return segments;
}
