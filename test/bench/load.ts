// Driving load against a benchmark's own tracing stack, shared by the benchmarks: concurrent
// workers sending prepared multipart bodies, the HTTP sender for POST /runs/multipart, how far
// the runs projector is behind, and the pids of the shared infrastructure (for CPU readings).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Pool } from 'undici';
import type { Admin } from '@platformatic/kafka';
import { repoRoot } from '../support/serviceProcess.ts';
import type { Batch } from './traceGenerator.ts';
import type { ThreadGroups } from './measure.ts';

export interface PhaseResult {
  seconds: number;
  requests: number;
  runs: number;
  ops: number;
  bytes: number;
  latenciesMs: number[];
  failures: Record<string, number>;
  endedBy: 'time' | 'runs';
  firstStartAt: number;
}

export type Send = (batch: Batch) => Promise<{ ok: boolean; status: string; doneAt: number }>;

/** Counts one answered batch into a phase's result, its latency from `since`; true when accepted. */
function record(
  result: PhaseResult,
  batch: Batch,
  { ok, status, doneAt }: Awaited<ReturnType<Send>>,
  since: number,
): boolean {
  result.requests++;
  result.latenciesMs.push(doneAt - since);
  if (!ok) {
    result.failures[status] = (result.failures[status] ?? 0) + 1;
    return false;
  }
  result.runs += batch.postedRunIds.length;
  result.ops += batch.ops;
  result.bytes += batch.body.length;
  return true;
}

/**
 * Runs `concurrency` workers, each sending the next batch as soon as its previous one is
 * answered, until `seconds` pass or the batches run out (or, with `cycle`, only time).
 */
export async function drive(
  batches: Batch[],
  concurrency: number,
  seconds: number,
  cycle: boolean,
  send: Send,
  onAccepted?: (batch: Batch, doneAt: number) => void,
): Promise<PhaseResult> {
  const result: PhaseResult = {
    seconds: 0,
    requests: 0,
    runs: 0,
    ops: 0,
    bytes: 0,
    latenciesMs: [],
    failures: {},
    endedBy: 'time',
    firstStartAt: 0,
  };
  let next = 0;
  const startedAt = performance.now();
  result.firstStartAt = startedAt;
  const deadline = startedAt + seconds * 1000;
  let lastDoneAt = startedAt;
  const worker = async () => {
    while (performance.now() < deadline) {
      if (next >= batches.length) {
        if (!cycle) {
          result.endedBy = 'runs';
          return;
        }
        next = 0;
      }
      const batch = batches[next++]!;
      const t0 = performance.now();
      const answer = await send(batch);
      lastDoneAt = Math.max(lastDoneAt, answer.doneAt);
      if (record(result, batch, answer, t0)) onAccepted?.(batch, answer.doneAt);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  result.seconds = (lastDoneAt - startedAt) / 1000;
  return result;
}

/**
 * Open loop: sends the batches at `runsPerSecond` (each batch when its time comes, whether or not
 * earlier ones were answered) for `seconds`, cycling through them. A latency counts from the
 * batch's scheduled time, so a server that falls behind shows it (no coordinated omission).
 */
export async function pace(
  batches: Batch[],
  runsPerSecond: number,
  seconds: number,
  send: Send,
  onAccepted?: (batch: Batch, doneAt: number) => void,
): Promise<PhaseResult> {
  const result: PhaseResult = {
    seconds: 0,
    requests: 0,
    runs: 0,
    ops: 0,
    bytes: 0,
    latenciesMs: [],
    failures: {},
    endedBy: 'time',
    firstStartAt: performance.now(),
  };
  const startedAt = result.firstStartAt;
  const deadline = startedAt + seconds * 1000;
  const inFlight = new Set<Promise<void>>();
  let dueAt = startedAt;
  for (let i = 0; dueAt < deadline; i++) {
    const batch = batches[i % batches.length]!;
    const wait = dueAt - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const scheduledAt = dueAt;
    const request = send(batch).then((answer) => {
      if (record(result, batch, answer, scheduledAt)) onAccepted?.(batch, answer.doneAt);
    });
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
    dueAt += (batch.postedRunIds.length / runsPerSecond) * 1000;
  }
  await Promise.all(inFlight);
  result.seconds = (performance.now() - startedAt) / 1000;
  return result;
}

/** Sends a batch as POST /runs/multipart the way the JS client does; logs the first few failures. */
export function multipartSender(pool: Pool, apiKey: string, log: (msg: string) => void): Send {
  let failuresLogged = 0;
  return async (batch) => {
    try {
      const res = await pool.request({
        path: '/runs/multipart',
        method: 'POST',
        headers: { 'content-type': batch.contentType, 'x-api-key': apiKey, 'user-agent': 'langsmith-js/0.12.0' },
        body: batch.body,
      });
      const text = await res.body.text();
      const doneAt = performance.now();
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      if (!ok && failuresLogged++ < 5) log(`POST /runs/multipart answered ${res.statusCode}: ${text.slice(0, 300)}`);
      return { ok, status: String(res.statusCode), doneAt };
    } catch (err) {
      return { ok: false, status: (err as NodeJS.ErrnoException).code ?? 'error', doneAt: performance.now() };
    }
  };
}

/**
 * Events of the runs topic the projector has not committed yet. It commits only after the rows
 * are inserted, so 0 means everything appended so far is in ClickHouse. Asking Kafka is cheap;
 * counting distinct rows in ClickHouse every few milliseconds would load the machine we measure.
 * null when Kafka cannot answer right now.
 */
export async function projectorLag(
  admin: Admin,
  topic: string,
  groupId: string,
  partitions: number,
  log: (msg: string) => void,
): Promise<bigint | null> {
  try {
    const [ends] = await admin.listOffsets({
      topics: [
        {
          name: topic,
          partitions: Array.from({ length: partitions }, (_, p) => ({ partitionIndex: p, timestamp: -1n })),
        },
      ],
    });
    const [group] = await admin.listConsumerGroupOffsets({ groups: [groupId] });
    const committed = new Map(
      (group?.topics.find((t) => t.name === topic)?.partitions ?? []).map((p) => [p.partitionIndex, p.committedOffset]),
    );
    let lag = 0n;
    for (const p of ends?.partitions ?? []) {
      const c = committed.get(p.partitionIndex) ?? -1n;
      lag += p.offset - (c < 0n ? 0n : c);
    }
    return lag;
  } catch (err) {
    log(`reading the projector's lag failed (${(err as Error).message.slice(0, 120)}); retrying`);
    return null;
  }
}

/** The pid of a local infrastructure server (`kafka`, `clickhouse`, `minio`, `postgres`) from its pid file. */
export function pidOfInfra(name: string): number | null {
  try {
    const pid = Number(readFileSync(join(repoRoot, '.local', 'run', `${name}.pid`), 'utf8').trim());
    return Number.isInteger(pid) && pid > 1 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * ClickHouse's background merges as a thread group to meter apart from the rest of its work
 * (queries and inserts): its 18.16 release names those threads `BackgrProcPool`. Empty when
 * ClickHouse's pid is unknown.
 */
export function clickhouseMergeThreads(): ThreadGroups {
  const pid = pidOfInfra('clickhouse');
  return pid ? { clickhouse_merges: { pid, name: /^BackgrProcPool$/ } } : {};
}

/** Pids of Kafka, ClickHouse and MinIO by their pid files (read again per phase: they may restart). */
export function infraPids(): Record<string, number> {
  const pids: Record<string, number> = {};
  for (const name of ['kafka', 'clickhouse', 'minio']) {
    const pid = pidOfInfra(name);
    if (pid) pids[name] = pid;
  }
  return pids;
}
