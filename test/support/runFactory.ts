// Builds runs and multipart bodies the way the official clients do, for tests and benchmarks.
import { v7 as uuidv7 } from 'uuid';
import { formatDottedTimestamp } from '../../platform/time.ts';
import type { RunOp } from '../../schemas/events.generated.ts';

/** A run operation as the RunOpsAppended event carries it: a post of run `r` that says nothing, but what `fields` say. */
export function runOp(fields: Partial<RunOp>): RunOp {
  return {
    op: 'post',
    run_id: 'r',
    session_id: null,
    parent_run_id: null,
    dotted_order: null,
    name: null,
    run_type: null,
    start_time: null,
    end_time: null,
    inputs: null,
    outputs: null,
    events: null,
    extra: null,
    serialized: null,
    error: null,
    tags: null,
    reference_example_id: null,
    attachments: [],
    ...fields,
  };
}

export interface TestRun {
  id: string;
  trace_id: string;
  parent_run_id: string | null;
  dotted_order: string;
  name: string;
  run_type: string;
  start_time: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  end_time?: string;
  [key: string]: unknown;
}

/** A trace starting at `t0` (microseconds): a root and `children` direct children, with consistent ids and dotted_order. */
export function makeTrace(children = 2, extra: Partial<TestRun> = {}, t0 = Date.now() * 1000): TestRun[] {
  const rootId = uuidv7();
  const rootOrder = formatDottedTimestamp(t0) + rootId;
  const root: TestRun = {
    id: rootId,
    trace_id: rootId,
    parent_run_id: null,
    dotted_order: rootOrder,
    name: 'root',
    run_type: 'chain',
    start_time: new Date(t0 / 1000).toISOString(),
    inputs: { question: 'q' },
    ...extra,
  };
  const runs = [root];
  for (let i = 0; i < children; i++) {
    const id = uuidv7();
    const t = t0 + (i + 1) * 1000;
    runs.push({
      id,
      trace_id: rootId,
      parent_run_id: rootId,
      dotted_order: `${rootOrder}.${formatDottedTimestamp(t)}${id}`,
      name: `child-${i}`,
      run_type: 'llm',
      start_time: new Date(t / 1000).toISOString(),
      inputs: { i },
      ...extra,
    });
  }
  return runs;
}

/**
 * An end_time for a patch of `runs`: now, or just after the latest start among them when that is
 * later (makeTrace starts children up to a few ms after now, and the API refuses an end_time
 * before its run's start_time with a 422).
 */
export function endTimeAfter(runs: TestRun[]): string {
  const latest = Math.max(...runs.map((r) => Date.parse(r.start_time)));
  return new Date(Math.max(Date.now(), latest + 1)).toISOString();
}

export interface Part {
  name: string;
  body: string | Uint8Array;
  contentType?: string;
  /** 'param' (JS: `; length=`), 'header' (Python: Content-Length), 'none', or a wrong number. */
  length?: 'param' | 'header' | 'none' | number;
}

export function multipartBody(
  parts: Part[],
  boundary = `----LangSmithFormBoundary${Math.random().toString(16).slice(2)}`,
): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const bytes = typeof p.body === 'string' ? Buffer.from(p.body) : Buffer.from(p.body);
    const type = p.contentType ?? 'application/json';
    const mode = p.length ?? 'param';
    let headers = `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"\r\n`;
    if (mode === 'param') headers += `Content-Type: ${type}; length=${bytes.length}\r\n`;
    else if (mode === 'header') headers += `Content-Type: ${type}\r\nContent-Length: ${bytes.length}\r\n`;
    else if (mode === 'none') headers += `Content-Type: ${type}\r\n`;
    else headers += `Content-Type: ${type}; length=${mode}\r\n`;
    chunks.push(Buffer.from(headers + '\r\n'), bytes, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** Parts for posting runs as the JS client does: the run minus inputs/outputs, then those as their own parts. */
export function postParts(runs: TestRun[], op: 'post' | 'patch' = 'post'): Part[] {
  const parts: Part[] = [];
  for (const run of runs) {
    const { inputs, outputs, ...rest } = run;
    parts.push({ name: `${op}.${run.id}`, body: JSON.stringify(rest) });
    if (inputs) parts.push({ name: `${op}.${run.id}.inputs`, body: JSON.stringify(inputs) });
    if (outputs) parts.push({ name: `${op}.${run.id}.outputs`, body: JSON.stringify(outputs) });
  }
  return parts;
}
