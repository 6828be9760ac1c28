// Shared checks for the official-client tests: every run a client traced must be readable
// through GET /runs/{id} with the tree the client built (parent, trace, dotted_order
// prefixes) and the payloads, error, status and times it sent.
import { expect, inject } from 'vitest';
import { waitForRun } from '../support/tracingClient.ts';
import { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { loadConfig } from '../../platform/config.ts';
import { runByIdQuery } from '../../projections/runs/runQueries.ts';

export interface ExpectedRun {
  id: string;
  name: string;
  runType: string;
  parentRunId: string | null;
  traceId: string;
  /** The client's own dotted_order, when it made one (batched paths); else the server makes it. */
  dottedOrder?: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  error: string | null;
  /** YYYY-MM-DDTHH:MM:SS.ffffffZ, how the server returns times. */
  startTime?: string;
  endTime: string;
}

/** Server run JSON, as GET /runs/{id} returns it. */
export type ServerRun = Record<string, any>;

const SEGMENT = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{6})Z([0-9a-f-]{36})$/;

/** The time of a dotted_order segment, in the server's ISO form. */
export function segmentIso(segment: string): string {
  const m = SEGMENT.exec(segment);
  if (!m) throw new Error(`not a dotted_order segment: ${segment}`);
  return `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.${m[7]}Z`;
}

/** Epoch milliseconds (JS end_time) in the server's ISO form. */
export const isoMicros = (ms: number): string => new Date(ms).toISOString().replace('Z', '000Z');

/**
 * Waits until every expected run is readable and finished, then checks each against what the
 * client sent and the tree against itself. Returns the runs by id.
 */
export async function expectTracedRuns(apiKey: string, expected: ExpectedRun[]): Promise<Map<string, ServerRun>> {
  const runs = new Map<string, ServerRun>();
  await Promise.all(
    expected.map(async (e) => {
      const status = e.error === null ? 'success' : 'error';
      runs.set(e.id, await waitForRun(apiKey, e.id, (r) => r.status === status && r.end_time !== null, 45_000));
    }),
  );
  const expectedById = new Map(expected.map((e) => [e.id, e]));
  for (const e of expected) {
    const run = runs.get(e.id)!;
    const label = `run ${e.name} (${e.id})`;
    expect(run, label).toMatchObject({
      id: e.id,
      name: e.name,
      run_type: e.runType,
      parent_run_id: e.parentRunId,
      trace_id: e.traceId,
      error: e.error,
      status: e.error === null ? 'success' : 'error',
      end_time: e.endTime,
      is_root: e.parentRunId === null,
    });
    expect(run.inputs, `${label} inputs`).toEqual(e.inputs);
    expect(run.outputs, `${label} outputs`).toEqual(e.outputs);
    if (e.startTime !== undefined) expect(run.start_time, `${label} start_time`).toBe(e.startTime);
    if (e.dottedOrder !== undefined) expect(run.dotted_order, `${label} dotted_order`).toBe(e.dottedOrder);

    // The tree, from the server's own answers: a root is one segment `<start><id>` and is its
    // trace; a child extends its parent's dotted_order by exactly its own segment.
    const segments = String(run.dotted_order).split('.');
    const own = segments.at(-1)!;
    expect(own.endsWith(e.id), `${label}: dotted_order ends with its own id`).toBe(true);
    expect(segmentIso(own), `${label}: dotted_order segment time = start_time`).toBe(run.start_time);
    expect(segments[0]!.endsWith(e.traceId), `${label}: dotted_order starts with the trace root`).toBe(true);
    if (e.parentRunId === null) {
      expect(segments, `${label}: root dotted_order`).toHaveLength(1);
      expect(e.traceId).toBe(e.id);
    } else {
      const parent = runs.get(e.parentRunId);
      if (parent && expectedById.has(e.parentRunId)) {
        expect(
          run.dotted_order.startsWith(parent.dotted_order + '.'),
          `${label}: dotted_order extends the parent's`,
        ).toBe(true);
        expect(segments).toHaveLength(String(parent.dotted_order).split('.').length + 1);
      }
    }
  }
  return runs;
}

/** Which payload fields of a run the read model keeps in object storage (claim check). */
export async function offloadedFields(tenantId: string, runId: string): Promise<string[]> {
  const config = loadConfig(inject('tracingEnv'));
  const ch = ClickHouseClient.fromConfig(config);
  try {
    const row = await runByIdQuery(ch, tenantId, runId);
    if (!row) throw new Error(`run ${runId} is not in the read model`);
    return Object.keys(JSON.parse(row.payload_refs) as Record<string, unknown>).sort();
  } finally {
    await ch.close();
  }
}

/** A deterministic text of about `bytes` bytes, not trivially compressible to nothing. */
export function bigText(bytes: number, seed = 1): string {
  const lines: string[] = [];
  let size = 0;
  let x = seed;
  while (size < bytes) {
    x = (x * 48271) % 2147483647; // MINSTD: products stay exact in a double
    const line = `line ${lines.length} ${x.toString(36)} the quick brown fox jumps over the lazy dog`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}
