// Datasets, folded from the datasets topic in every process that needs them (the API's dataset
// and example routes). The topic has one partition, so every replica folds the same events in
// the same order and reaches the same state; a dataset is a few hundred bytes, and a workspace
// has hundreds of them, not millions (its examples live in ClickHouse).
//
// Fold rules (deterministic, so replicas agree without talking to each other):
// - a name belongs to the first live dataset of the workspace created with it: a later creation
//   of a held name is ignored (the command that appended it reads that back and answers 409);
// - a creation of an id already live or deleted is ignored;
// - a deleted id stays deleted: later updates of it are ignored, and its name is free again;
// - a rename to a name another live dataset holds is ignored as a whole;
// - a tag names one version of a live dataset; tagging another version moves it;
// - a comparison of experiments belongs to a live dataset; its id is used once.
import type { EventLogConfig } from '../../platform/config.ts';
import { parseStoredJson } from '../../platform/json/jsonNesting.ts';
import type { Logger } from '../../platform/logger.ts';
import { event, type EventToAppend } from '../../platform/kafka/eventLog.ts';
import { FoldedTopic } from '../../platform/kafka/topicState.ts';
import { nowMicros } from '../../platform/time.ts';
import type { DecodedEvent } from '../../schemas/registry.ts';
import type {
  ComparativeExperimentCreated,
  DatasetCreated,
  DatasetDeleted,
  DatasetTagged,
  DatasetUpdated,
} from '../../schemas/events.generated.ts';
import { TOPICS } from '../../schemas/topics.ts';

export const DATA_TYPES = ['kv', 'llm', 'chat'] as const;
export type DataType = (typeof DATA_TYPES)[number];

export interface Dataset {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly description: string | null;
  readonly dataType: DataType;
  /** The dataset's extra JSON object; `extra.metadata` is its metadata. */
  readonly extra: Readonly<Record<string, unknown>> | null;
  readonly inputsSchema: Readonly<Record<string, unknown>> | null;
  readonly outputsSchema: Readonly<Record<string, unknown>> | null;
  readonly transformations: readonly unknown[] | null;
  /** Microseconds since the epoch. */
  readonly createdAt: number;
  /** Microseconds since the epoch: the creation, or the last change. */
  readonly modifiedAt: number;
  /** Tags of versions: tag -> the version's time (microseconds). */
  readonly tags: Readonly<Record<string, number>>;
}

/** What a creation sets; every field but the name and type may be left out. */
export interface NewDataset {
  name: string;
  dataType: DataType;
  description?: string | null;
  extra?: Record<string, unknown> | null;
  inputsSchema?: Record<string, unknown> | null;
  outputsSchema?: Record<string, unknown> | null;
  transformations?: unknown[] | null;
}

/** What an update changes; null or absent leaves a field as it is. */
export interface DatasetChanges {
  name?: string | null;
  description?: string | null;
  extra?: Record<string, unknown> | null;
  inputsSchema?: Record<string, unknown> | null;
  outputsSchema?: Record<string, unknown> | null;
}

/** The Kafka key of a dataset's events. */
export const datasetKey = (tenantId: string, datasetId: string): string => `${tenantId}/${datasetId}`;

const json = (value: unknown): string | null => (value == null ? null : JSON.stringify(value));

function parsed<T>(text: string | null, accept: (value: unknown) => value is T): T | null {
  if (text === null) return null;
  try {
    const value: unknown = parseStoredJson(text);
    return accept(value) ? value : null;
  } catch {
    return null;
  }
}
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isArray = (v: unknown): v is unknown[] => Array.isArray(v);
const dataType = (text: string): DataType =>
  (DATA_TYPES as readonly string[]).includes(text) ? (text as DataType) : 'kv';

export function datasetCreatedEvent(
  tenantId: string,
  datasetId: string,
  d: NewDataset,
): EventToAppend<'DatasetCreated'> {
  return event('DatasetCreated', datasetKey(tenantId, datasetId), {
    tenant_id: tenantId,
    dataset_id: datasetId,
    name: d.name,
    description: d.description ?? null,
    data_type: d.dataType,
    extra: json(d.extra),
    inputs_schema: json(d.inputsSchema),
    outputs_schema: json(d.outputsSchema),
    transformations: json(d.transformations),
    created_at: nowMicros(),
  });
}

export function datasetUpdatedEvent(
  tenantId: string,
  datasetId: string,
  c: DatasetChanges,
): EventToAppend<'DatasetUpdated'> {
  return event('DatasetUpdated', datasetKey(tenantId, datasetId), {
    tenant_id: tenantId,
    dataset_id: datasetId,
    name: c.name ?? null,
    description: c.description ?? null,
    extra: json(c.extra),
    inputs_schema: json(c.inputsSchema),
    outputs_schema: json(c.outputsSchema),
    updated_at: nowMicros(),
  });
}

export const datasetDeletedEvent = (tenantId: string, datasetId: string): EventToAppend<'DatasetDeleted'> =>
  event('DatasetDeleted', datasetKey(tenantId, datasetId), {
    tenant_id: tenantId,
    dataset_id: datasetId,
    deleted_at: nowMicros(),
  });

export const datasetTaggedEvent = (
  tenantId: string,
  datasetId: string,
  tag: string,
  asOf: number,
): EventToAppend<'DatasetTagged'> =>
  event('DatasetTagged', datasetKey(tenantId, datasetId), {
    tenant_id: tenantId,
    dataset_id: datasetId,
    tag,
    as_of: asOf,
    tagged_at: nowMicros(),
  });

/** A comparison of experiments of one dataset (pairwise evaluation). */
export interface ComparativeExperiment {
  readonly id: string;
  readonly tenantId: string;
  readonly datasetId: string;
  readonly name: string;
  readonly description: string | null;
  readonly experimentIds: readonly string[];
  readonly extra: Readonly<Record<string, unknown>> | null;
  /** Microseconds since the epoch. */
  readonly createdAt: number;
}

export const comparativeExperimentCreatedEvent = (
  c: Omit<ComparativeExperiment, 'createdAt'>,
): EventToAppend<'ComparativeExperimentCreated'> =>
  event('ComparativeExperimentCreated', datasetKey(c.tenantId, c.datasetId), {
    tenant_id: c.tenantId,
    dataset_id: c.datasetId,
    comparative_experiment_id: c.id,
    name: c.name,
    description: c.description,
    experiment_ids: [...c.experimentIds],
    extra: json(c.extra),
    created_at: nowMicros(),
  });

/** One workspace's datasets. */
class TenantDatasets {
  readonly live = new Map<string, Dataset>();
  readonly comparatives = new Map<string, ComparativeExperiment>();
  readonly deleted = new Set<string>();
  readonly byName = new Map<string, string>();
}

export class DatasetRegistry extends FoldedTopic {
  readonly #tenants = new Map<string, TenantDatasets>();

  constructor(config: EventLogConfig, logger: Logger) {
    super(config, TOPICS.datasets, 'datasets', logger);
  }

  override readonly apply = (e: DecodedEvent): void => {
    if (e.name === 'DatasetCreated') this.#created(e.payload);
    else if (e.name === 'DatasetUpdated') this.#updated(e.payload);
    else if (e.name === 'DatasetDeleted') this.#deleted(e.payload);
    else if (e.name === 'DatasetTagged') this.#tagged(e.payload);
    else if (e.name === 'ComparativeExperimentCreated') this.#compared(e.payload);
  };

  #tenant(tenantId: string): TenantDatasets {
    let t = this.#tenants.get(tenantId);
    if (!t) this.#tenants.set(tenantId, (t = new TenantDatasets()));
    return t;
  }

  #created(d: DatasetCreated): void {
    const t = this.#tenant(d.tenant_id);
    if (t.deleted.has(d.dataset_id) || t.live.has(d.dataset_id) || t.byName.has(d.name)) return;
    t.live.set(d.dataset_id, {
      id: d.dataset_id,
      tenantId: d.tenant_id,
      name: d.name,
      description: d.description,
      dataType: dataType(d.data_type),
      extra: parsed(d.extra, isObject),
      inputsSchema: parsed(d.inputs_schema, isObject),
      outputsSchema: parsed(d.outputs_schema, isObject),
      transformations: parsed(d.transformations, isArray),
      createdAt: d.created_at,
      modifiedAt: d.created_at,
      tags: {},
    });
    t.byName.set(d.name, d.dataset_id);
  }

  #updated(d: DatasetUpdated): void {
    const t = this.#tenant(d.tenant_id);
    const dataset = t.live.get(d.dataset_id);
    if (!dataset) return;
    const rename = d.name !== null && d.name !== dataset.name;
    if (rename && t.byName.has(d.name!)) return;
    t.live.set(d.dataset_id, {
      ...dataset,
      name: d.name ?? dataset.name,
      description: d.description ?? dataset.description,
      extra: d.extra === null ? dataset.extra : parsed(d.extra, isObject),
      inputsSchema: d.inputs_schema === null ? dataset.inputsSchema : parsed(d.inputs_schema, isObject),
      outputsSchema: d.outputs_schema === null ? dataset.outputsSchema : parsed(d.outputs_schema, isObject),
      modifiedAt: Math.max(dataset.modifiedAt, d.updated_at),
    });
    if (rename) {
      t.byName.delete(dataset.name);
      t.byName.set(d.name!, d.dataset_id);
    }
  }

  #tagged(d: DatasetTagged): void {
    const t = this.#tenant(d.tenant_id);
    const dataset = t.live.get(d.dataset_id);
    if (!dataset) return;
    t.live.set(d.dataset_id, { ...dataset, tags: { ...dataset.tags, [d.tag]: d.as_of } });
  }

  #compared(c: ComparativeExperimentCreated): void {
    const t = this.#tenant(c.tenant_id);
    if (!t.live.has(c.dataset_id) || t.comparatives.has(c.comparative_experiment_id)) return;
    t.comparatives.set(c.comparative_experiment_id, {
      id: c.comparative_experiment_id,
      tenantId: c.tenant_id,
      datasetId: c.dataset_id,
      name: c.name,
      description: c.description,
      experimentIds: c.experiment_ids,
      extra: parsed(c.extra, isObject),
      createdAt: c.created_at,
    });
  }

  #deleted(d: DatasetDeleted): void {
    const t = this.#tenant(d.tenant_id);
    t.deleted.add(d.dataset_id);
    const dataset = t.live.get(d.dataset_id);
    if (!dataset) return;
    t.live.delete(d.dataset_id);
    t.byName.delete(dataset.name);
  }

  /** A live dataset of the workspace; undefined when unknown, deleted, or another workspace's. */
  get(tenantId: string, datasetId: string): Dataset | undefined {
    return this.#tenants.get(tenantId)?.live.get(datasetId);
  }

  /** The live dataset that holds `name` in the workspace. */
  byName(tenantId: string, name: string): Dataset | undefined {
    const t = this.#tenants.get(tenantId);
    const id = t?.byName.get(name);
    return id === undefined ? undefined : t!.live.get(id);
  }

  /** Whether the id was ever used in the workspace (live or deleted): a new dataset may not take it. */
  isTaken(tenantId: string, datasetId: string): boolean {
    const t = this.#tenants.get(tenantId);
    return t !== undefined && (t.live.has(datasetId) || t.deleted.has(datasetId));
  }

  /** A comparison of experiments, when its dataset is live. */
  comparative(tenantId: string, id: string): ComparativeExperiment | undefined {
    const t = this.#tenants.get(tenantId);
    const c = t?.comparatives.get(id);
    return c && t!.live.has(c.datasetId) ? c : undefined;
  }

  /** The comparisons of a live dataset's experiments, newest first. */
  comparatives(tenantId: string, datasetId: string): ComparativeExperiment[] {
    const t = this.#tenants.get(tenantId);
    if (!t?.live.has(datasetId)) return [];
    return [...t.comparatives.values()]
      .filter((c) => c.datasetId === datasetId)
      .sort((a, b) => b.createdAt - a.createdAt);
  }

  /** The workspace's live datasets, newest first (created_at, then id). */
  list(tenantId: string): Dataset[] {
    const live = [...(this.#tenants.get(tenantId)?.live.values() ?? [])];
    return live.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }
}
