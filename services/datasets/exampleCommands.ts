// Create, change and delete a dataset's examples. Each call is one write, so one version of the
// dataset: its events share one modified_at (the version's time, returned as `as_of`). Checked
// before anything is appended, against the datasets registry and the examples read model as it
// is once the projector has caught up: the dataset is live and the workspace's, the examples
// named exist there (or, for a creation, their ids are free), inputs and outputs satisfy the
// dataset's schemas. Attachments go to object storage first; the events point at them.
import { randomUUID } from 'node:crypto';
import type { BlobStore } from '../../platform/blobStore.ts';
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { errors } from '../../platform/errors.ts';
import { checkAgainstSchema } from '../../platform/json/jsonSchemas.ts';
import { event, type EventLog, type EventToAppend } from '../../platform/kafka/eventLog.ts';
import type { ConsumerLagMonitor } from '../../platform/kafka/consumerLag.ts';
import type { Logger } from '../../platform/logger.ts';
import { nowMicros } from '../../platform/time.ts';
import { datasetKey, type Dataset, type DatasetRegistry } from '../../projections/datasets/datasetRegistry.ts';
import { exampleDatasetsQuery, examplesQuery } from '../../projections/examples/exampleQueries.ts';
import { runByIdQuery } from '../../projections/runs/runQueries.ts';
import type { ExampleRow } from '../../projections/examples/exampleRow.ts';
import type { ReadModelTables } from '../../projections/readModelTables.ts';
import type { BlobRef, ExampleAttachment } from '../../schemas/events.generated.ts';

export type Json = Record<string, unknown>;

/** A file sent with an example (a multipart part `<id>.attachment.<name>`). */
export interface AttachmentUpload {
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

export interface NewExample {
  /** The client's id when it chose one. */
  id?: string | null;
  inputs: Json;
  outputs: Json | null;
  /** Without dataset_split: `splits` holds it. */
  metadata: Json | null;
  /** Null: the `base` split. */
  splits: string[] | null;
  sourceRunId: string | null;
  /** Microseconds; now when absent. */
  createdAt: number | null;
  attachments: AttachmentUpload[];
}

export interface ExampleChange {
  id: string;
  /** Null or absent: the field stays as it is. */
  inputs?: Json | null;
  /** Undefined: as it is; null: cleared. */
  outputs?: Json | null;
  metadata?: Json | null;
  splits?: string[] | null;
  attachments?: AttachmentUpload[];
  /** Names of the attachments kept (all when absent), and renames (old to new). */
  attachmentsRetain?: string[] | null;
  attachmentsRename?: Record<string, string> | null;
}

export interface WriteResult {
  exampleIds: string[];
  count: number;
  /** Microseconds: the version the write made. */
  asOf: number;
}

export interface ExampleCommandDeps {
  datasets: DatasetRegistry;
  eventLog: EventLog;
  blobs: BlobStore;
  ch: ClickHouseClient;
  tables: Pick<ReadModelTables, 'examples' | 'exampleIds'>;
  /** The examples projector's lag: reads and checks wait for it (read-your-writes). */
  projection: Pick<ConsumerLagMonitor, 'caughtUp'>;
  logger: Logger;
  catchUpMs?: number;
}

export const DEFAULT_SPLIT = 'base';

export class ExampleCommands {
  readonly #deps: ExampleCommandDeps;

  constructor(deps: ExampleCommandDeps) {
    this.#deps = deps;
  }

  /** Waits (bounded) until the examples projector has what was appended before the call. */
  async upToDate(): Promise<void> {
    const ms = this.#deps.catchUpMs ?? 5000;
    if (!(await this.#deps.projection.caughtUp(ms)))
      this.#deps.logger.warn({ waitedMs: ms }, 'examples served before the projector caught up');
  }

  /** The live dataset, or a 404 the clients recognise ("dataset … not found"). */
  async dataset(tenantId: string, datasetId: string): Promise<Dataset> {
    await this.#deps.datasets.catchUp();
    const dataset = this.#deps.datasets.get(tenantId, datasetId);
    if (!dataset) throw errors.notFound(`dataset ${datasetId}`);
    return dataset;
  }

  async create(tenantId: string, datasetId: string, examples: NewExample[]): Promise<WriteResult> {
    const dataset = await this.dataset(tenantId, datasetId);
    const ids = examples.map((e) => e.id ?? randomUUID());
    const repeated = firstRepeated(ids);
    if (repeated) throw errors.badRequest(`example ${repeated} is given twice in one request`);
    examples.forEach((e, i) => checkData(dataset, e.inputs, e.outputs, `example ${ids[i]}`));
    await this.upToDate();
    const taken = await exampleDatasetsQuery(this.#deps.ch, this.#deps.tables, tenantId, ids);
    if (taken.size > 0) {
      const live = await this.#liveIn(tenantId, taken);
      const id = ids.find((i) => live.has(i));
      if (id) throw errors.conflict(`example ${id} already exists; update it, or give the new example another id`);
    }
    const modifiedAt = nowMicros();
    const events: EventToAppend[] = [];
    for (const [i, e] of examples.entries()) {
      events.push(
        event('ExampleCreated', datasetKey(tenantId, datasetId), {
          tenant_id: tenantId,
          dataset_id: datasetId,
          example_id: ids[i]!,
          inputs: JSON.stringify(e.inputs),
          outputs: e.outputs === null ? null : JSON.stringify(e.outputs),
          metadata: e.metadata === null ? null : JSON.stringify(e.metadata),
          splits: e.splits ?? [DEFAULT_SPLIT],
          source_run_id: e.sourceRunId,
          attachments: await this.#store(tenantId, e.attachments),
          // a microsecond apart, in the request's order: listed (oldest first) as they were sent
          created_at: e.createdAt ?? modifiedAt - (examples.length - 1 - i),
          modified_at: modifiedAt,
        }),
      );
    }
    await this.#deps.eventLog.append(events);
    return { exampleIds: ids, count: ids.length, asOf: modifiedAt };
  }

  /**
   * Changes examples of one dataset (`datasetId`), or, when it is null, of whichever datasets
   * they are in. Every example named must be live; a 404 names the first that is not.
   */
  async update(tenantId: string, datasetId: string | null, changes: ExampleChange[]): Promise<WriteResult> {
    const ids = changes.map((c) => c.id);
    const repeated = firstRepeated(ids);
    if (repeated) throw errors.badRequest(`example ${repeated} is given twice in one request`);
    if (datasetId !== null) await this.dataset(tenantId, datasetId);
    const current = await this.#current(tenantId, ids, datasetId);
    const datasets = new Map<string, Dataset>();
    for (const c of changes) {
      const row = current.get(c.id)!;
      let dataset = datasets.get(row.dataset_id);
      if (!dataset) datasets.set(row.dataset_id, (dataset = await this.dataset(tenantId, row.dataset_id)));
      checkData(dataset, c.inputs ?? null, c.outputs === undefined ? null : c.outputs, `example ${c.id}`);
    }
    const modifiedAt = nowMicros();
    const events: EventToAppend[] = [];
    for (const c of changes) {
      const row = current.get(c.id)!;
      const fields = [
        ...(c.inputs != null ? ['inputs'] : []),
        ...(c.outputs !== undefined ? ['outputs'] : []),
        ...(c.metadata != null ? ['metadata'] : []),
        ...(c.splits != null ? ['splits'] : []),
      ];
      events.push(
        event('ExampleUpdated', datasetKey(tenantId, row.dataset_id), {
          tenant_id: tenantId,
          dataset_id: row.dataset_id,
          example_id: c.id,
          fields,
          inputs: c.inputs == null ? null : JSON.stringify(c.inputs),
          outputs: c.outputs == null ? null : JSON.stringify(c.outputs),
          metadata: c.metadata == null ? null : JSON.stringify(c.metadata),
          splits: c.splits ?? [],
          attachments_retain: c.attachmentsRetain ?? null,
          attachments_rename: c.attachmentsRename ? JSON.stringify(c.attachmentsRename) : null,
          attachments_added: await this.#store(tenantId, c.attachments ?? []),
          modified_at: modifiedAt,
        }),
      );
    }
    await this.#deps.eventLog.append(events);
    return { exampleIds: ids, count: ids.length, asOf: modifiedAt };
  }

  /**
   * Deletes examples (of one dataset when `datasetId` is given); every one named must be live. A
   * hard deletion takes them out of every version of the read model, not only the ones from now on
   * (the event log keeps them: a replay purges them again when it reaches the deletion).
   */
  async delete(
    tenantId: string,
    ids: string[],
    { datasetId = null, hard = false }: { datasetId?: string | null; hard?: boolean } = {},
  ): Promise<WriteResult> {
    const unique = [...new Set(ids)];
    // A hard deletion may purge an example deleted before (its older versions are still there).
    const datasetOf = hard
      ? await this.#datasetsOf(tenantId, unique, datasetId)
      : new Map([...(await this.#current(tenantId, unique, datasetId))].map(([id, row]) => [id, row.dataset_id]));
    const modifiedAt = nowMicros();
    await this.#deps.eventLog.append(
      unique.map((id) => {
        const dataset = datasetOf.get(id)!;
        return event('ExampleDeleted', datasetKey(tenantId, dataset), {
          tenant_id: tenantId,
          dataset_id: dataset,
          example_id: id,
          modified_at: modifiedAt,
          hard,
        });
      }),
    );
    return { exampleIds: unique, count: unique.length, asOf: modifiedAt };
  }

  /** The newest versions of live examples by id; a 404 for the first id that is not one (in `datasetId`, when given). */
  async #current(tenantId: string, ids: string[], datasetId: string | null): Promise<Map<string, ExampleRow>> {
    await this.upToDate();
    const where = await exampleDatasetsQuery(this.#deps.ch, this.#deps.tables, tenantId, ids);
    const byDataset = new Map<string, string[]>();
    for (const [id, d] of where) {
      if (datasetId !== null && d !== datasetId) continue;
      if (!this.#deps.datasets.get(tenantId, d)) continue; // its dataset was deleted
      byDataset.set(d, [...(byDataset.get(d) ?? []), id]);
    }
    const rows = new Map<string, ExampleRow>();
    for (const [d, some] of byDataset)
      for (const row of await examplesQuery(this.#deps.ch, this.#deps.tables, tenantId, { datasetId: d, ids: some }))
        rows.set(row.id, row);
    const missing = ids.find((id) => !rows.has(id));
    if (missing)
      throw errors.notFound(datasetId === null ? `example ${missing}` : `example ${missing} in dataset ${datasetId}`);
    return rows;
  }

  /** The datasets of examples that have versions (live or deleted), in live datasets; a 404 for the first id without. */
  async #datasetsOf(tenantId: string, ids: string[], datasetId: string | null): Promise<Map<string, string>> {
    await this.upToDate();
    const where = await exampleDatasetsQuery(this.#deps.ch, this.#deps.tables, tenantId, ids);
    for (const [id, d] of where)
      if ((datasetId !== null && d !== datasetId) || !this.#deps.datasets.get(tenantId, d)) where.delete(id);
    const missing = ids.find((id) => !where.has(id));
    if (missing) throw errors.notFound(`example ${missing}`);
    return where;
  }

  /** Of ids that have been examples, those live now. */
  async #liveIn(tenantId: string, where: Map<string, string>): Promise<Set<string>> {
    const byDataset = new Map<string, string[]>();
    for (const [id, d] of where) byDataset.set(d, [...(byDataset.get(d) ?? []), id]);
    const live = new Set<string>();
    for (const [d, some] of byDataset)
      for (const row of await examplesQuery(this.#deps.ch, this.#deps.tables, tenantId, { datasetId: d, ids: some }))
        live.add(row.id);
    return live;
  }

  /** A run's inputs and outputs (read from object storage when the run's payload is kept there); a 404 when there is no such run. */
  async sourceRunIo(tenantId: string, runId: string): Promise<{ inputs: Json; outputs: Json | null }> {
    const run = await runByIdQuery(this.#deps.ch, tenantId, runId);
    if (!run) throw errors.notFound(`run ${runId}`);
    const refs = JSON.parse(run.payload_refs || '{}') as Partial<Record<'inputs' | 'outputs', BlobRef>>;
    const read = async (field: 'inputs' | 'outputs'): Promise<Json | null> => {
      const ref = refs[field];
      const text = ref ? await this.#deps.blobs.getText(ref) : run[field];
      if (!text) return null;
      const value = JSON.parse(text) as unknown;
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Json)
        : { [field]: value };
    };
    return { inputs: (await read('inputs')) ?? {}, outputs: await read('outputs') };
  }

  async #store(tenantId: string, uploads: AttachmentUpload[]): Promise<ExampleAttachment[]> {
    const stored: ExampleAttachment[] = [];
    for (const a of uploads) {
      const blob = await this.#deps.blobs.put(tenantId, 'example-attachments', a.bytes, a.contentType);
      stored.push({ name: a.name, bucket: blob.bucket, key: blob.key, size: blob.size, content_type: a.contentType });
    }
    return stored;
  }
}

/** Inputs and outputs against the dataset's schemas (a 422 naming the example and where). */
function checkData(dataset: Dataset, inputs: Json | null, outputs: Json | null, what: string): void {
  if (inputs !== null && dataset.inputsSchema) checkAgainstSchema(dataset.inputsSchema, inputs, `${what}: inputs`);
  if (outputs !== null && dataset.outputsSchema) checkAgainstSchema(dataset.outputsSchema, outputs, `${what}: outputs`);
}

/** The first id given a second time (a Set: a write holds thousands). */
function firstRepeated(ids: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) return id;
    seen.add(id);
  }
  return undefined;
}
