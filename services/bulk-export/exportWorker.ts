// The export worker: every few seconds it
//   1. schedules the runs of due windows (ids derived from export and range, so replicas and
//      restarts append the same ids and the fold keeps one);
//   2. hands back runs whose worker stopped reporting (a killed process), as a failed attempt;
//   3. stops its own runs that were cancelled (or lost);
//   4. claims pending runs up to its concurrency and exports them (a project's runs, or a
//      dataset's examples at the export's version), ClickHouse → Parquet → S3.
// Every decision is an event on the bulk-export topic, decided by the fold's order: two workers
// claiming one run append two claims, the first wins and the other stands down.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import type { BlobStore } from '../../platform/blobStore.ts';
import { event, type EventLog, type EventToAppend } from '../../platform/kafka/eventLog.ts';
import type { ReadModelTables } from '../../projections/readModelTables.ts';
import { nowMicros } from '../../platform/time.ts';
import {
  destinationFailureMessage,
  destinationS3Client,
  failureReason,
  isDestinationFailure,
} from './destinations/destinationS3.ts';
import type { OutboundHostPolicy } from '../../platform/outboundHostPolicy.ts';
import { dueRuns } from './exportSchedule.ts';
import { exportEventKey, type BulkExport, type ExportRun, type ExportState } from './exportState.ts';
import type { DestinationCredentials, DestinationLocation, ExportedFile, ExportTaskBase } from './exportTypes.ts';
import { exportRunsToParquet } from './parquet/runsExport.ts';
import { exportExamplesToParquet } from './parquet/examplesExport.ts';
import type { ExportRunOptions } from './parquet/exportFiles.ts';
import type { SecretBox } from '../../platform/secretBox.ts';
import { attemptsRemain, isRetryable, retry, retryDelayMs, type RetryPolicy } from '../../platform/retry.ts';

export interface ExportWorkerDeps {
  ch: ClickHouseClient;
  blobs: BlobStore;
  tables: Pick<ReadModelTables, 'runs' | 'runKeys' | 'feedback' | 'examples' | 'exampleIds'>;
  eventLog: EventLog;
  state: ExportState;
  secrets: SecretBox;
  /** The hosts destinations may reach (destinationHostPolicy), checked as each connection is made. */
  destinationPolicy: OutboundHostPolicy;
}

/** Why a worker stopped a run of its own. */
type StopReason = 'cancelled' | 'timed out' | 'shutdown';

interface ActiveRun {
  run: ExportRun;
  attempt: number;
  controller: AbortController;
  done: Promise<void>;
}

const exportKey = (e: BulkExport): string => exportEventKey(e.tenantId, e.id);

/**
 * A failed export run is tried again after BULK_EXPORT_RETRY_DELAY_MS, then at doubling intervals
 * up to 10 minutes, BULK_EXPORT_MAX_RETRIES times. Not awaited: each retry is scheduled by an
 * event (`retry_at`), so any worker takes it up, after a restart too.
 */
/** What the worker reads: its schedule, concurrency, file size, retries, time limit and lease. */
export type ExportWorkerConfig = Pick<
  Config,
  | 'BULK_EXPORT_LAG_SECONDS'
  | 'BULK_EXPORT_POLL_MS'
  | 'BULK_EXPORT_CONCURRENCY'
  | 'BULK_EXPORT_FILE_MAX_BYTES'
  | 'BULK_EXPORT_MAX_RETRIES'
  | 'BULK_EXPORT_RETRY_DELAY_MS'
  | 'BULK_EXPORT_RUN_TIMEOUT_MS'
  | 'BULK_EXPORT_LEASE_MS'
>;

export const exportRunRetry = (
  config: Pick<Config, 'BULK_EXPORT_RETRY_DELAY_MS' | 'BULK_EXPORT_MAX_RETRIES'>,
): RetryPolicy => ({
  initialDelayMs: config.BULK_EXPORT_RETRY_DELAY_MS,
  backoffCoefficient: 2,
  maxDelayMs: 10 * 60_000,
  maxAttempts: config.BULK_EXPORT_MAX_RETRIES + 1,
});

/**
 * Recording a run's progress while Kafka is away: from 250 ms, doubling to 5 s apart, for about a
 * lease (a file written but not recorded is written again by the next attempt).
 */
const recordRetry = (config: Pick<Config, 'BULK_EXPORT_LEASE_MS'>): RetryPolicy => ({
  initialDelayMs: 250,
  backoffCoefficient: 2,
  maxDelayMs: 5000,
  maxAttempts: Infinity,
  maxElapsedMs: config.BULK_EXPORT_LEASE_MS,
});

export class ExportWorker {
  readonly id = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  readonly #config: ExportWorkerConfig;
  readonly #logger: Logger;
  readonly #deps: ExportWorkerDeps;
  readonly #active = new Map<string, ActiveRun>();
  /** Per export, the first window whose runs may not all be scheduled yet. */
  readonly #nextWindow = new Map<string, number>();
  #timer: NodeJS.Timeout | null = null;
  #ticking: Promise<void> | null = null;
  #closed = false;

  constructor(config: ExportWorkerConfig, logger: Logger, deps: ExportWorkerDeps) {
    this.#config = config;
    this.#logger = logger.child({ worker: this.id });
    this.#deps = deps;
  }

  start(): void {
    const loop = () => {
      if (this.#closed) return;
      this.#ticking = this.tick()
        .catch((err: Error) => this.#logger.warn({ err: err.message }, 'export worker tick failed; trying again'))
        .finally(() => {
          this.#ticking = null;
          if (!this.#closed) this.#timer = setTimeout(loop, this.#config.BULK_EXPORT_POLL_MS);
        });
    };
    loop();
  }

  /** One round of scheduling, hand-backs, cancellations and claims. */
  async tick(): Promise<void> {
    await this.#deps.state.catchUp();
    const now = nowMicros();
    await this.#schedule(now);
    await this.#handBackAbandoned(now);
    this.#stopCancelled();
    await this.#claim(now);
  }

  /** Stops taking work; runs under way are handed back (Failed, retried at once by any worker). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#ticking;
    for (const a of this.#active.values()) a.controller.abort('shutdown' satisfies StopReason);
    await Promise.allSettled([...this.#active.values()].map((a) => a.done));
  }

  // ---- 1. scheduling ----

  async #schedule(now: number): Promise<void> {
    const lag = this.#config.BULK_EXPORT_LAG_SECONDS * 1_000_000;
    const events: EventToAppend[] = [];
    const advanced = new Map<string, number>();
    for (const e of this.#deps.state.allExports()) {
      if (e.cancelledAt !== null) continue;
      const { runs, nextWindow } = dueRuns(e, now, lag, { fromWindow: this.#nextWindow.get(e.id) ?? 0 });
      for (const r of runs)
        if (!e.runs.has(r.id))
          events.push(
            event('ExportRunScheduled', exportKey(e), {
              tenant_id: e.tenantId,
              export_id: e.id,
              run_id: r.id,
              start_time: r.startTime,
              end_time: r.endTime,
              scheduled_at: now,
            }),
          );
      advanced.set(e.id, nextWindow);
    }
    if (events.length) {
      await this.#deps.eventLog.append(events);
      this.#logger.info({ runs: events.length }, 'export runs scheduled');
    }
    for (const [id, k] of advanced) this.#nextWindow.set(id, k);
  }

  // ---- 2. runs whose worker went silent ----

  async #handBackAbandoned(now: number): Promise<void> {
    const leaseMicros = this.#config.BULK_EXPORT_LEASE_MS * 1000;
    const events: EventToAppend[] = [];
    for (const { export: e, run } of this.#deps.state.unfinishedRuns()) {
      if (run.phase !== 'claimed' || this.#active.has(run.id) || now - run.lastReportAt < leaseMicros) continue;
      const error = `the worker running this attempt (${run.owner}) stopped reporting for ${Math.round(leaseMicros / 1e6)} s`;
      events.push(this.#failure(e, run, run.attempt, error, now, 0));
    }
    if (events.length) {
      this.#logger.warn({ runs: events.length }, 'handing back export runs of a silent worker');
      await this.#deps.eventLog.append(events);
    }
  }

  // ---- 3. cancellations ----

  #stopCancelled(): void {
    for (const a of this.#active.values()) {
      const run = this.#deps.state.export(a.run.tenantId, a.run.exportId)?.runs.get(a.run.id);
      const stillOurs = run && run.phase === 'claimed' && run.owner === this.id && run.attempt === a.attempt;
      if (!stillOurs && !a.controller.signal.aborted) a.controller.abort('cancelled' satisfies StopReason);
    }
  }

  // ---- 4. claims ----

  async #claim(now: number): Promise<void> {
    const free = this.#config.BULK_EXPORT_CONCURRENCY - this.#active.size;
    if (free <= 0 || this.#closed) return;
    const candidates: Array<{ e: BulkExport; run: ExportRun }> = [];
    for (const { export: e, run } of this.#deps.state.unfinishedRuns()) {
      if (candidates.length >= free) break;
      if (run.phase === 'pending' && run.retryAt <= now) candidates.push({ e, run });
    }
    if (candidates.length === 0) return;
    await this.#deps.eventLog.append(
      candidates.map(({ e, run }) =>
        event('ExportRunStarted', exportKey(e), {
          tenant_id: e.tenantId,
          export_id: e.id,
          run_id: run.id,
          attempt: run.attempt,
          worker_id: this.id,
          started_at: nowMicros(),
        }),
      ),
    );
    await this.#deps.state.catchUp();
    for (const { e, run } of candidates) {
      const attempt = run.attempt;
      if (run.phase !== 'claimed' || run.owner !== this.id) continue; // another worker's claim came first
      const controller = new AbortController();
      const active: ActiveRun = { run, attempt, controller, done: Promise.resolve() };
      active.done = this.#execute(e, run, attempt, controller).finally(() => this.#active.delete(run.id));
      this.#active.set(run.id, active);
    }
  }

  // ---- running one attempt ----

  async #execute(e: BulkExport, run: ExportRun, attempt: number, controller: AbortController): Promise<void> {
    const log = this.#logger.child({ export_id: e.id, run_id: run.id, attempt });
    const timeout = setTimeout(
      () => controller.abort('timed out' satisfies StopReason),
      this.#config.BULK_EXPORT_RUN_TIMEOUT_MS,
    );
    const heartbeat = setInterval(
      () => {
        this.#deps.eventLog
          .append([this.#progress(e, run, attempt, null)])
          .catch((err: Error) => log.warn({ err: err.message }, 'heartbeat not recorded'));
      },
      Math.max(1000, Math.floor(this.#config.BULK_EXPORT_LEASE_MS / 4)),
    );
    let s3: S3Client | null = null;
    let credentials: DestinationCredentials | null = null;
    try {
      const destination = this.#deps.state.destination(e.tenantId, e.destinationId);
      if (!destination) throw new Error(`destination ${e.destinationId} does not exist`);
      // The credentials current now: a rotation later does not touch this attempt.
      credentials = this.#deps.secrets.open<DestinationCredentials>(destination.credentials);
      const location: DestinationLocation = {
        bucket: destination.bucket,
        prefix: destination.prefix,
        endpointUrl: destination.endpointUrl,
        region: destination.region,
      };
      s3 = destinationS3Client(location, credentials, { policy: this.#deps.destinationPolicy });
      const resumeAfter = await this.#recoverPendingFile(e, run, attempt, s3, location, log);
      const task: ExportTaskBase = {
        tenantId: e.tenantId,
        exportId: e.id,
        runId: run.id,
        attempt,
        formatVersion: e.formatVersion,
        compression: e.compression,
        exportFields: e.exportFields,
        resumeAfter,
      };
      const options: ExportRunOptions = {
        signal: controller.signal,
        maxFileBytes: this.#config.BULK_EXPORT_FILE_MAX_BYTES,
        beforeFileCompletes: (file) =>
          this.#appendPatiently([this.#filePending(e, run, attempt, file)], controller.signal),
        onFile: (file) => this.#appendPatiently([this.#progress(e, run, attempt, file)], controller.signal),
      };
      log.info({ resume_after: resumeAfter, resource: e.resource }, 'export run started');
      const { ch, tables, blobs } = this.#deps;
      const result =
        e.resource === 'examples'
          ? await exportExamplesToParquet(
              { ch, tables, s3 },
              { ...task, datasetId: e.datasetId!, asOf: e.asOf! },
              location,
              options,
            )
          : await exportRunsToParquet(
              { ch, tables, blobs, s3 },
              {
                ...task,
                sessionId: e.sessionId!,
                startMicros: run.startTime,
                endMicros: run.endTime,
                filter: e.filter,
              },
              location,
              options,
            );
      await this.#appendPatiently([this.#finished(e, run, attempt, 'Completed', null, null)]);
      log.info({ rows: result.rows, files: result.files.length }, 'export run completed');
    } catch (err) {
      const reason = controller.signal.aborted ? (controller.signal.reason as StopReason) : null;
      // What the destination answered is worded as the destination check words it (a refused or
      // unreachable endpoint reads the same whatever the cause); the real reason is logged.
      const fromDestination = credentials !== null && isDestinationFailure(err);
      const message = fromDestination ? destinationFailureMessage(err, credentials!) : (err as Error).message;
      if (fromDestination)
        log.warn({ reason: failureReason(err), err: (err as Error).message }, 'destination request failed');
      if (reason === 'cancelled') log.info('export run stopped: cancelled');
      else if (reason === 'timed out') {
        const error = `the run took longer than ${Math.round(this.#config.BULK_EXPORT_RUN_TIMEOUT_MS / 1000)} s`;
        await this.#appendPatiently([this.#finished(e, run, attempt, 'TimedOut', error, null)]).catch(() => {});
      } else if (reason === 'shutdown') {
        await this.#appendPatiently([
          this.#failure(e, run, attempt, 'the worker shut down during this attempt', nowMicros(), 0),
        ]).catch(() => {});
      } else {
        // An error retrying cannot help (ClickHouse refusing the export's query) ends the run now.
        const final = !isRetryable(err);
        log.warn({ err: message, final }, 'export run attempt failed');
        const delayMs = retryDelayMs(exportRunRetry(this.#config), attempt + 1);
        await this.#appendPatiently([
          this.#failure(e, run, attempt, message, nowMicros(), final ? null : delayMs),
        ]).catch(() => {});
      }
    } finally {
      clearTimeout(timeout);
      clearInterval(heartbeat);
      s3?.destroy();
    }
  }

  /**
   * Where this attempt starts: after the last recorded file, or after a file an earlier attempt
   * was completing when it ended (recorded now, when the object is there). Without permission to
   * look at objects, the file is written again under this attempt's name (never overwritten).
   */
  async #recoverPendingFile(
    e: BulkExport,
    run: ExportRun,
    attempt: number,
    s3: S3Client,
    location: DestinationLocation,
    log: Logger,
  ): Promise<ExportTaskBase['resumeAfter']> {
    const pending = run.pendingFile;
    if (!pending || run.files.includes(pending.key)) return run.cursor;
    try {
      const head = await s3.send(new HeadObjectCommand({ Bucket: location.bucket, Key: pending.key }));
      const file: ExportedFile = {
        key: pending.key,
        rows: pending.rows,
        bytes: head.ContentLength ?? 0,
        cursor: pending.cursor,
      };
      await this.#appendPatiently([this.#progress(e, run, attempt, file)]);
      log.info({ file: pending.key }, 'a file the previous attempt completed is recorded');
      return pending.cursor;
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status !== 404)
        log.warn(
          { file: pending.key, status },
          'cannot tell whether the previous attempt completed its last file; its rows are written again',
        );
      return run.cursor;
    }
  }

  /** A failed attempt (`attempt` counts from 0): retried after `delayMs` while retries remain; final otherwise, or with null. */
  #failure(
    e: BulkExport,
    run: ExportRun,
    attempt: number,
    error: string,
    now: number,
    delayMs: number | null,
  ): EventToAppend {
    const retries = delayMs !== null && attemptsRemain(exportRunRetry(this.#config), attempt + 1);
    const retryAt = retries ? now + delayMs * 1000 : null;
    return this.#finished(e, run, attempt, 'Failed', error, retryAt);
  }

  #finished(
    e: BulkExport,
    run: ExportRun,
    attempt: number,
    status: 'Completed' | 'Failed' | 'TimedOut',
    error: string | null,
    retryAt: number | null,
  ): EventToAppend {
    return event('ExportRunFinished', exportKey(e), {
      tenant_id: e.tenantId,
      export_id: e.id,
      run_id: run.id,
      attempt,
      status,
      error: error === null ? null : error.slice(0, 2000),
      retry_at: retryAt,
      finished_at: nowMicros(),
    });
  }

  #filePending(e: BulkExport, run: ExportRun, attempt: number, file: Omit<ExportedFile, 'bytes'>): EventToAppend {
    return event('ExportRunFilePending', exportKey(e), {
      tenant_id: e.tenantId,
      export_id: e.id,
      run_id: run.id,
      attempt,
      worker_id: this.id,
      file: file.key,
      file_rows: file.rows,
      cursor_start_time: file.cursor.startTime,
      cursor_id: file.cursor.id,
      recorded_at: nowMicros(),
    });
  }

  #progress(e: BulkExport, run: ExportRun, attempt: number, file: ExportedFile | null): EventToAppend {
    return event('ExportRunProgressed', exportKey(e), {
      tenant_id: e.tenantId,
      export_id: e.id,
      run_id: run.id,
      attempt,
      worker_id: this.id,
      file: file?.key ?? null,
      file_rows: file?.rows ?? 0,
      file_bytes: file?.bytes ?? 0,
      cursor_start_time: file?.cursor.startTime ?? null,
      cursor_id: file?.cursor.id ?? null,
      recorded_at: nowMicros(),
    });
  }

  /** Appends, retrying while Kafka is away (recordRetry), until `signal` stops the attempt. */
  async #appendPatiently(events: EventToAppend[], signal?: AbortSignal): Promise<void> {
    const append = () => this.#deps.eventLog.append(events);
    await retry(recordRetry(this.#config), append, { what: 'record export progress', logger: this.#logger, signal });
  }
}
