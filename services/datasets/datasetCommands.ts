// Create, update and delete datasets: check against the registry, append the event, then wait
// until the registry has folded it (read-your-writes). Name uniqueness is decided by the topic's
// order, which every replica folds alike: the fold ignores a creation (or rename) to a name a
// live dataset already holds, so after appending we read back whether ours took effect, and
// answer 409 when another replica's came first.
import { randomUUID } from 'node:crypto';
import { errors } from '../../platform/errors.ts';
import type { EventLog } from '../../platform/kafka/eventLog.ts';
import {
  datasetCreatedEvent,
  datasetDeletedEvent,
  datasetUpdatedEvent,
  type Dataset,
  type DatasetChanges,
  type DatasetRegistry,
  type NewDataset,
} from '../../projections/datasets/datasetRegistry.ts';

const nameTaken = (name: string, holder: Dataset) =>
  errors.conflict(`a dataset named "${name}" already exists (id ${holder.id}); choose another name`);

export class DatasetCommands {
  readonly #datasets: DatasetRegistry;
  readonly #log: EventLog;

  constructor(datasets: DatasetRegistry, log: EventLog) {
    this.#datasets = datasets;
    this.#log = log;
  }

  /** POST /datasets. `id` is the caller's when given (Python's upload_csv sends one). */
  async create(tenantId: string, input: NewDataset & { id?: string | null }): Promise<Dataset> {
    await this.#datasets.catchUp();
    const holder = this.#datasets.byName(tenantId, input.name);
    if (holder) throw nameTaken(input.name, holder);
    if (input.id != null && this.#datasets.isTaken(tenantId, input.id))
      throw errors.conflict(`dataset id ${input.id} is already taken`);
    const id = input.id ?? randomUUID();
    await this.#log.append([datasetCreatedEvent(tenantId, id, input)]);
    await this.#datasets.catchUp();
    const created = this.#datasets.get(tenantId, id);
    if (created) return created;
    const winner = this.#datasets.byName(tenantId, input.name);
    if (winner) throw nameTaken(input.name, winner);
    throw errors.conflict(`dataset "${input.name}" was deleted while it was being created`);
  }

  /**
   * PATCH /datasets/{id}: a null or absent field is left as it is; `metadata` replaces
   * extra.metadata, the rest of extra (the one given, else the dataset's) kept.
   */
  async update(
    tenantId: string,
    datasetId: string,
    { metadata, ...changes }: DatasetChanges & { metadata?: Record<string, unknown> | null },
  ): Promise<Dataset> {
    await this.#datasets.catchUp();
    const dataset = this.#datasets.get(tenantId, datasetId);
    if (!dataset) throw errors.notFound(`dataset ${datasetId}`);
    if (metadata != null) changes.extra = { ...(changes.extra ?? dataset.extra ?? {}), metadata };
    const rename = changes.name != null && changes.name !== dataset.name ? changes.name : null;
    if (rename !== null) {
      const holder = this.#datasets.byName(tenantId, rename);
      if (holder) throw nameTaken(rename, holder);
    }
    const unchanged =
      rename === null &&
      changes.description == null &&
      changes.extra == null &&
      changes.inputsSchema == null &&
      changes.outputsSchema == null;
    if (unchanged) return dataset;
    await this.#log.append([datasetUpdatedEvent(tenantId, datasetId, { ...changes, name: rename })]);
    await this.#datasets.catchUp();
    const updated = this.#datasets.get(tenantId, datasetId);
    if (!updated) throw errors.notFound(`dataset ${datasetId}`);
    // The fold ignores a rename to a name another replica gave a dataset just before ours.
    if (rename !== null && updated.name !== rename) {
      const holder = this.#datasets.byName(tenantId, rename);
      if (holder) throw nameTaken(rename, holder);
    }
    return updated;
  }

  /** DELETE /datasets/{id}: a tombstone; the id is never live again and the name is free. */
  async delete(tenantId: string, datasetId: string): Promise<void> {
    await this.#datasets.catchUp();
    if (!this.#datasets.get(tenantId, datasetId)) throw errors.notFound(`dataset ${datasetId}`);
    await this.#log.append([datasetDeletedEvent(tenantId, datasetId)]);
    await this.#datasets.catchUp();
  }
}
