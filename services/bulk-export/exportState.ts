// Destinations, exports and export runs, folded from the bulk-export topic in every process
// that needs them: the tracing API (what GET returns, and the checks of commands) and the
// export workers (what is due, who runs what). The topic has one partition, so every process
// folds the same events in the same order and reaches the same state.
//
// Fold rules (deterministic; no clocks, so replicas agree without talking to each other):
// - a run id is scheduled once: later schedulings of it (other replicas, restarts) are ignored;
// - the first claim (ExportRunStarted) of a run's current attempt wins; later claims are ignored;
// - progress and ends count only from the claimant, for the current attempt;
// - a cancelled export is final: its unfinished runs become Cancelled, nothing new is scheduled.
import type { EventLogConfig } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { FoldedTopic } from '../../platform/kafka/topicState.ts';
import { TOPICS } from '../../schemas/topics.ts';
import type { DecodedEvent } from '../../schemas/registry.ts';
import type {
  DestinationCreated,
  DestinationCredentialsRotated,
  ExportCancelled,
  ExportCreated,
  ExportRunFilePending,
  ExportRunFinished,
  ExportRunProgressed,
  ExportRunScheduled,
  ExportRunStarted,
} from '../../schemas/events.generated.ts';
import type { ExportCompression, ExportCursor, ExportFormatVersion, ExportResource } from './exportTypes.ts';

/** Kafka keys of the topic's events: a destination's, and an export's (its runs' events too). */
export const destinationEventKey = (tenantId: string, destinationId: string): string =>
  `${tenantId}/destination/${destinationId}`;
export const exportEventKey = (tenantId: string, exportId: string): string => `${tenantId}/export/${exportId}`;

export interface Destination {
  readonly id: string;
  readonly tenantId: string;
  readonly type: string;
  readonly displayName: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly endpointUrl: string | null;
  readonly region: string | null;
  /** Sealed by SecretBox; opened only by a worker that starts a run. */
  credentials: string;
  credentialsKeys: readonly string[];
  readonly createdAt: number;
  updatedAt: number;
}

export type ExportStatus =
  | 'Created'
  | 'Running'
  | 'Completed'
  | 'Failed'
  | 'Cancelled'
  | 'TimedOut'
  | 'IntervalScheduled';
export type ExportRunStatus = Exclude<ExportStatus, 'IntervalScheduled'>;

export interface ExportRun {
  readonly id: string;
  readonly exportId: string;
  readonly tenantId: string;
  /** The run's range of start_time, microseconds: [startTime, endTime); of an examples export, both its as_of. */
  readonly startTime: number;
  readonly endTime: number;
  readonly createdAt: number;
  updatedAt: number;
  /** Attempt now due or under way: 0 first, n the n-th retry (the API's retry_number). */
  attempt: number;
  /** pending: waiting for a worker (from retryAt); claimed: a worker has it; done: final. */
  phase: 'pending' | 'claimed' | 'done';
  status: ExportRunStatus;
  owner: string | null;
  /** When the claimant last reported (claim, file, heartbeat): microseconds, from its events. */
  lastReportAt: number;
  retryAt: number;
  rowsWritten: number;
  bytesWritten: number;
  files: string[];
  cursor: ExportCursor | null;
  /** A file whose upload was being completed, not yet recorded as written (the next attempt checks for it). */
  pendingFile: { key: string; rows: number; cursor: ExportCursor } | null;
  /** Error of each failed attempt, keyed retry_<attempt>. */
  errors: Record<string, string>;
  finishedAt: number | null;
}

export interface BulkExport {
  readonly id: string;
  readonly tenantId: string;
  readonly destinationId: string;
  readonly resource: ExportResource;
  /** runs: the project; null for examples. */
  readonly sessionId: string | null;
  /** examples: the dataset; null for runs. */
  readonly datasetId: string | null;
  /** examples: the version read (microseconds), pinned at creation; null for runs. */
  readonly asOf: number | null;
  /** runs: microseconds, inclusive; null for examples. */
  readonly startTime: number | null;
  /** runs: microseconds, exclusive; null when scheduled, and for examples (one-time, one run). */
  readonly endTime: number | null;
  readonly intervalHours: number | null;
  readonly format: string;
  readonly formatVersion: ExportFormatVersion;
  readonly compression: ExportCompression;
  readonly exportFields: readonly string[] | null;
  readonly filter: string | null;
  readonly createdAt: number;
  updatedAt: number;
  cancelledAt: number | null;
  /** In scheduling order. */
  readonly runs: Map<string, ExportRun>;
}

class TenantExports {
  readonly destinations = new Map<string, Destination>();
  readonly exports = new Map<string, BulkExport>();
}

/** What an export's status is, from its runs (a one-time export) or its schedule. */
export function exportStatus(e: BulkExport): ExportStatus {
  if (e.cancelledAt !== null) return 'Cancelled';
  if (e.intervalHours !== null) return 'IntervalScheduled';
  const runs = [...e.runs.values()];
  if (runs.length === 0 || runs.every((r) => r.status === 'Created')) return 'Created';
  if (runs.some((r) => r.phase !== 'done')) return 'Running';
  for (const s of ['TimedOut', 'Failed', 'Cancelled'] as const) if (runs.some((r) => r.status === s)) return s;
  return 'Completed';
}

/** When a one-time export ended (its last run), or was cancelled; null while it goes on. */
export function exportFinishedAt(e: BulkExport): number | null {
  if (e.cancelledAt !== null) return e.cancelledAt;
  if (e.intervalHours !== null) return null;
  const runs = [...e.runs.values()];
  if (runs.length === 0 || runs.some((r) => r.phase !== 'done')) return null;
  return Math.max(...runs.map((r) => r.finishedAt ?? 0));
}

export class ExportState extends FoldedTopic {
  readonly #tenants = new Map<string, TenantExports>();
  /** Runs not finished yet, of every export, in scheduling order: what workers look through each tick. */
  readonly #unfinished = new Map<string, { export: BulkExport; run: ExportRun }>();

  constructor(config: EventLogConfig, logger: Logger) {
    super(config, TOPICS.bulkExport, 'bulk exports', logger);
  }

  override readonly apply = (e: DecodedEvent): void => {
    switch (e.name) {
      case 'DestinationCreated':
        return this.#destinationCreated(e.payload);
      case 'DestinationCredentialsRotated':
        return this.#credentialsRotated(e.payload);
      case 'ExportCreated':
        return this.#exportCreated(e.payload);
      case 'ExportCancelled':
        return this.#exportCancelled(e.payload);
      case 'ExportRunScheduled':
        return this.#runScheduled(e.payload);
      case 'ExportRunStarted':
        return this.#runStarted(e.payload);
      case 'ExportRunProgressed':
        return this.#runProgressed(e.payload);
      case 'ExportRunFilePending':
        return this.#filePending(e.payload);
      case 'ExportRunFinished':
        return this.#runFinished(e.payload);
    }
  };

  #tenant(tenantId: string): TenantExports {
    let t = this.#tenants.get(tenantId);
    if (!t) this.#tenants.set(tenantId, (t = new TenantExports()));
    return t;
  }

  #destinationCreated(p: DestinationCreated): void {
    const t = this.#tenant(p.tenant_id);
    if (t.destinations.has(p.destination_id)) return;
    t.destinations.set(p.destination_id, {
      id: p.destination_id,
      tenantId: p.tenant_id,
      type: p.destination_type,
      displayName: p.display_name,
      bucket: p.bucket_name,
      prefix: p.prefix,
      endpointUrl: p.endpoint_url,
      region: p.region,
      credentials: p.credentials,
      credentialsKeys: p.credentials_keys,
      createdAt: p.created_at,
      updatedAt: p.created_at,
    });
  }

  #credentialsRotated(p: DestinationCredentialsRotated): void {
    const d = this.#tenants.get(p.tenant_id)?.destinations.get(p.destination_id);
    if (!d) return;
    d.credentials = p.credentials;
    d.credentialsKeys = p.credentials_keys;
    d.updatedAt = p.rotated_at;
  }

  #exportCreated(p: ExportCreated): void {
    const t = this.#tenant(p.tenant_id);
    if (t.exports.has(p.export_id)) return;
    // Events applied as they were written (v1 has no resource): a runs export.
    const resource: ExportResource = p.resource === 'examples' ? 'examples' : 'runs';
    t.exports.set(p.export_id, {
      id: p.export_id,
      tenantId: p.tenant_id,
      destinationId: p.destination_id,
      resource,
      sessionId: p.session_id ?? null,
      datasetId: p.dataset_id ?? null,
      asOf: p.as_of ?? null,
      startTime: p.start_time ?? null,
      endTime: p.end_time,
      intervalHours: p.interval_hours,
      format: p.format,
      formatVersion: p.format_version as ExportFormatVersion,
      compression: p.compression as ExportCompression,
      exportFields: p.export_fields,
      filter: p.filter,
      createdAt: p.created_at,
      updatedAt: p.created_at,
      cancelledAt: null,
      runs: new Map(),
    });
  }

  #exportCancelled(p: ExportCancelled): void {
    const e = this.#tenants.get(p.tenant_id)?.exports.get(p.export_id);
    if (!e || e.cancelledAt !== null) return;
    e.cancelledAt = p.cancelled_at;
    e.updatedAt = p.cancelled_at;
    for (const run of e.runs.values()) {
      if (run.phase === 'done') continue;
      this.#unfinished.delete(run.id);
      run.phase = 'done';
      run.status = 'Cancelled';
      run.finishedAt = p.cancelled_at;
      run.updatedAt = p.cancelled_at;
    }
  }

  #runScheduled(p: ExportRunScheduled): void {
    const e = this.#tenants.get(p.tenant_id)?.exports.get(p.export_id);
    if (!e || e.cancelledAt !== null || e.runs.has(p.run_id)) return;
    const run: ExportRun = {
      id: p.run_id,
      exportId: p.export_id,
      tenantId: p.tenant_id,
      startTime: p.start_time,
      endTime: p.end_time,
      createdAt: p.scheduled_at,
      updatedAt: p.scheduled_at,
      attempt: 0,
      phase: 'pending',
      status: 'Created',
      owner: null,
      lastReportAt: p.scheduled_at,
      retryAt: 0,
      rowsWritten: 0,
      bytesWritten: 0,
      files: [],
      cursor: null,
      pendingFile: null,
      errors: {},
      finishedAt: null,
    };
    e.runs.set(run.id, run);
    this.#unfinished.set(run.id, { export: e, run });
    e.updatedAt = p.scheduled_at;
  }

  #run(tenantId: string, exportId: string, runId: string): ExportRun | undefined {
    return this.#tenants.get(tenantId)?.exports.get(exportId)?.runs.get(runId);
  }

  #runStarted(p: ExportRunStarted): void {
    const run = this.#run(p.tenant_id, p.export_id, p.run_id);
    if (!run || run.phase !== 'pending' || run.attempt !== p.attempt) return;
    run.phase = 'claimed';
    run.status = 'Running';
    run.owner = p.worker_id;
    run.lastReportAt = p.started_at;
    run.updatedAt = p.started_at;
  }

  #runProgressed(p: ExportRunProgressed): void {
    const run = this.#run(p.tenant_id, p.export_id, p.run_id);
    if (!run || run.phase !== 'claimed' || run.attempt !== p.attempt || run.owner !== p.worker_id) return;
    run.lastReportAt = p.recorded_at;
    if (p.file === null) return;
    run.pendingFile = null; // it is this file, or it was never completed (a later file is)
    run.files.push(p.file);
    run.rowsWritten += p.file_rows;
    run.bytesWritten += p.file_bytes;
    if (p.cursor_start_time !== null && p.cursor_id !== null)
      run.cursor = { startTime: p.cursor_start_time, id: p.cursor_id };
    run.updatedAt = p.recorded_at;
  }

  #filePending(p: ExportRunFilePending): void {
    const run = this.#run(p.tenant_id, p.export_id, p.run_id);
    if (!run || run.phase !== 'claimed' || run.attempt !== p.attempt || run.owner !== p.worker_id) return;
    run.lastReportAt = p.recorded_at;
    run.pendingFile = { key: p.file, rows: p.file_rows, cursor: { startTime: p.cursor_start_time, id: p.cursor_id } };
  }

  #runFinished(p: ExportRunFinished): void {
    const run = this.#run(p.tenant_id, p.export_id, p.run_id);
    if (!run || run.phase === 'done' || run.attempt !== p.attempt) return;
    run.updatedAt = p.finished_at;
    if (p.error !== null) run.errors[`retry_${p.attempt}`] = p.error;
    if (p.status === 'Failed' && p.retry_at !== null) {
      // Retried: the next attempt resumes after the cursor of the last completed file.
      run.attempt = p.attempt + 1;
      run.phase = 'pending';
      run.owner = null;
      run.retryAt = p.retry_at;
      return;
    }
    this.#unfinished.delete(run.id);
    run.phase = 'done';
    run.status = p.status;
    run.owner = null;
    if (p.status === 'Completed') run.pendingFile = null;
    run.finishedAt = p.finished_at;
  }

  // ---- reads ----

  destination(tenantId: string, id: string): Destination | undefined {
    return this.#tenants.get(tenantId)?.destinations.get(id);
  }

  /** The workspace's destinations, newest first. */
  destinations(tenantId: string): Destination[] {
    return [...(this.#tenants.get(tenantId)?.destinations.values() ?? [])].reverse();
  }

  export(tenantId: string, id: string): BulkExport | undefined {
    return this.#tenants.get(tenantId)?.exports.get(id);
  }

  /** The workspace's exports, newest first. */
  exports(tenantId: string): BulkExport[] {
    return [...(this.#tenants.get(tenantId)?.exports.values() ?? [])].reverse();
  }

  /** Every run not finished yet (pending or claimed), of every export, in scheduling order. */
  unfinishedRuns(): IterableIterator<{ export: BulkExport; run: ExportRun }> {
    return this.#unfinished.values();
  }

  /** Every export of every workspace, in creation order (the scheduler's and workers' view). */
  *allExports(): Generator<BulkExport> {
    for (const t of this.#tenants.values()) yield* t.exports.values();
  }
}
