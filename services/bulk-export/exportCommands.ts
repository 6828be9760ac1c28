// The bulk-export commands of the API: create a destination, rotate its credentials, create
// and cancel an export (of a project's runs, or of a dataset's examples at a version pinned here).
// Each checks against the folded state (and, for destinations, writes a test object with the
// credentials), appends its event, then waits until the state has folded it, so the answer is
// what GET returns next.
import { randomUUID } from 'node:crypto';
import { errors } from '../../platform/errors.ts';
import { event, type EventLog } from '../../platform/kafka/eventLog.ts';
import type { ProjectRegistry } from '../../projections/projects/projectRegistry.ts';
import { nowMicros } from '../../platform/time.ts';
import { checkDestinationWrite, type CheckLogger } from './destinations/destinationS3.ts';
import type { OutboundHostPolicy } from '../../platform/outboundHostPolicy.ts';
import type { SecretBox } from '../../platform/secretBox.ts';
import type { DatasetVersions } from '../datasets/index.ts';
import {
  destinationEventKey,
  exportEventKey,
  exportStatus,
  type BulkExport,
  type Destination,
  type ExportState,
} from './exportState.ts';
import type { DestinationCredentials, ExportCompression, ExportFormatVersion } from './exportTypes.ts';

export interface NewDestination {
  displayName: string;
  bucket: string;
  prefix: string;
  endpointUrl: string | null;
  region: string | null;
  credentials: DestinationCredentials;
}

interface NewExportBase {
  destinationId: string;
  formatVersion: ExportFormatVersion;
  compression: ExportCompression;
  exportFields: readonly string[] | null;
}

/** An export of a project's runs in a time range. */
export interface NewRunsExport extends NewExportBase {
  resource?: 'runs';
  sessionId: string;
  startTime: number;
  endTime: number | null;
  intervalHours: number | null;
  filter: string | null;
}

/** An export of a dataset's examples at a version: `asOf` a time, a tag, or null (or `latest`) for the newest. */
export interface NewExamplesExport extends NewExportBase {
  resource: 'examples';
  datasetId: string;
  asOf: string | null;
}

export type NewExport = NewRunsExport | NewExamplesExport;

/** Names of the credential fields given (what responses show instead of the values). */
const credentialsKeys = (c: DestinationCredentials): string[] =>
  Object.keys(c).filter((k) => c[k as keyof DestinationCredentials] != null);

export class ExportCommands {
  readonly #state: ExportState;
  readonly #projects: ProjectRegistry;
  readonly #log: EventLog;
  readonly #secrets: SecretBox | null;
  readonly #destinationPolicy: OutboundHostPolicy;
  readonly #datasets: DatasetVersions | null;

  /**
   * `destinationPolicy`: the hosts destinations may point at (destinationHostPolicy); `datasets`:
   * where an examples export finds its dataset and pins its version (none: examples are not exported).
   */
  constructor(
    state: ExportState,
    projects: ProjectRegistry,
    log: EventLog,
    secrets: SecretBox | null,
    destinationPolicy: OutboundHostPolicy,
    datasets: DatasetVersions | null = null,
  ) {
    this.#state = state;
    this.#projects = projects;
    this.#log = log;
    this.#secrets = secrets;
    this.#destinationPolicy = destinationPolicy;
    this.#datasets = datasets;
  }

  #secretBox(): SecretBox {
    if (!this.#secrets)
      throw errors.notConfigured(
        'bulk export destinations need SECRETS_ENCRYPTION_KEY (32 bytes, hex or base64) to encrypt their credentials',
      );
    return this.#secrets;
  }

  /** `logger` hears why a test write failed (the caller is told less: destinationS3.ts). */
  async createDestination(tenantId: string, d: NewDestination, logger?: CheckLogger): Promise<Destination> {
    const secrets = this.#secretBox();
    const policy = this.#destinationPolicy;
    await checkDestinationWrite(
      { bucket: d.bucket, prefix: d.prefix, endpointUrl: d.endpointUrl, region: d.region },
      d.credentials,
      { policy, logger },
    );
    const id = randomUUID();
    await this.#log.append([
      event('DestinationCreated', destinationEventKey(tenantId, id), {
        tenant_id: tenantId,
        destination_id: id,
        destination_type: 's3',
        display_name: d.displayName,
        bucket_name: d.bucket,
        prefix: d.prefix,
        endpoint_url: d.endpointUrl,
        region: d.region,
        credentials: secrets.seal(d.credentials),
        credentials_keys: credentialsKeys(d.credentials),
        created_at: nowMicros(),
      }),
    ]);
    await this.#state.catchUp();
    return this.#state.destination(tenantId, id)!;
  }

  /** New credentials, after a test write with them. Runs in flight keep the keys they started with. */
  async rotateCredentials(
    tenantId: string,
    destinationId: string,
    credentials: DestinationCredentials,
    logger?: CheckLogger,
  ): Promise<Destination> {
    const secrets = this.#secretBox();
    await this.#state.catchUp();
    const d = this.#state.destination(tenantId, destinationId);
    if (!d) throw errors.notFound(`destination ${destinationId}`);
    await checkDestinationWrite(
      { bucket: d.bucket, prefix: d.prefix, endpointUrl: d.endpointUrl, region: d.region },
      credentials,
      {
        policy: this.#destinationPolicy,
        logger,
      },
    );
    await this.#log.append([
      event('DestinationCredentialsRotated', destinationEventKey(tenantId, destinationId), {
        tenant_id: tenantId,
        destination_id: destinationId,
        credentials: secrets.seal(credentials),
        credentials_keys: credentialsKeys(credentials),
        rotated_at: nowMicros(),
      }),
    ]);
    await this.#state.catchUp();
    return this.#state.destination(tenantId, destinationId)!;
  }

  async createExport(tenantId: string, x: NewExport): Promise<BulkExport> {
    await Promise.all([this.#state.catchUp(), this.#projects.catchUp()]);
    if (!this.#state.destination(tenantId, x.destinationId))
      throw errors.notFound(`destination (bulk_export_destination_id) ${x.destinationId}`);
    const what = x.resource === 'examples' ? await this.#examplesTarget(tenantId, x) : this.#runsTarget(tenantId, x);
    const id = randomUUID();
    await this.#log.append([
      event('ExportCreated', exportEventKey(tenantId, id), {
        tenant_id: tenantId,
        export_id: id,
        destination_id: x.destinationId,
        ...what,
        format: 'Parquet',
        format_version: x.formatVersion,
        compression: x.compression,
        export_fields: x.exportFields === null ? null : [...x.exportFields],
        created_at: nowMicros(),
      }),
    ]);
    await this.#state.catchUp();
    return this.#state.export(tenantId, id)!;
  }

  /** What an export of runs reads, once its project is known to be the workspace's. */
  #runsTarget(tenantId: string, x: NewRunsExport) {
    if (!this.#projects.get(tenantId, x.sessionId)) throw errors.notFound(`project (session_id) ${x.sessionId}`);
    return {
      resource: 'runs',
      session_id: x.sessionId,
      dataset_id: null,
      as_of: null,
      start_time: x.startTime,
      end_time: x.endTime,
      interval_hours: x.intervalHours,
      filter: x.filter,
    };
  }

  /** What an export of examples reads: the workspace's dataset, at the version its as_of names, pinned now. */
  async #examplesTarget(tenantId: string, x: NewExamplesExport) {
    if (!this.#datasets) throw errors.notConfigured('this server does not export datasets');
    const dataset = await this.#datasets.dataset(tenantId, x.datasetId);
    if (!dataset) throw errors.notFound(`dataset (dataset_id) ${x.datasetId}`);
    return {
      resource: 'examples',
      session_id: null,
      dataset_id: dataset.id,
      as_of: await this.#datasets.pin(tenantId, dataset, x.asOf),
      start_time: null,
      end_time: null,
      interval_hours: null,
      filter: null,
    };
  }

  /** Cancels an export: final; work in flight stops, finished runs stay. Cancelling twice is harmless. */
  async cancelExport(tenantId: string, exportId: string): Promise<BulkExport> {
    await this.#state.catchUp();
    const e = this.#state.export(tenantId, exportId);
    if (!e) throw errors.notFound(`bulk export ${exportId}`);
    const status = exportStatus(e);
    if (status === 'Cancelled') return e;
    if (status === 'Completed' || status === 'Failed' || status === 'TimedOut')
      throw errors.conflict(
        `bulk export ${exportId} has already ended (${status}); only an unfinished export can be cancelled`,
      );
    await this.#log.append([
      event('ExportCancelled', exportEventKey(tenantId, exportId), {
        tenant_id: tenantId,
        export_id: exportId,
        cancelled_at: nowMicros(),
      }),
    ]);
    await this.#state.catchUp();
    return this.#state.export(tenantId, exportId)!;
  }
}
