// A dataset's versions as other contexts name them (a bulk export of examples): `as_of` read as
// the examples API reads it (a time, a tag of the dataset, or `latest`), and pinned to one
// version, so that a reader later reads exactly that version however the dataset changes.
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { errors } from '../../platform/errors.ts';
import type { ConsumerLagMonitor } from '../../platform/kafka/consumerLag.ts';
import type { Logger } from '../../platform/logger.ts';
import { ISO_TIMESTAMP, nowMicros, parseTimestampMicros } from '../../platform/time.ts';
import type { Dataset, DatasetRegistry } from '../../projections/datasets/datasetRegistry.ts';
import { datasetVersionsQuery } from '../../projections/examples/exampleQueries.ts';
import type { ReadModelTables } from '../../projections/readModelTables.ts';

/** How long a pin waits for the examples projector to have what was written before it. */
const CATCH_UP_MS = 5000;

/**
 * The version `asOf` names: microseconds, or null for the newest (absent, '' or `latest`). A tag
 * must be one of the dataset's (a 404 naming it otherwise); a time is ISO 8601.
 */
export function versionNamed(dataset: Dataset, asOf: string | null | undefined, field = 'as_of'): number | null {
  if (asOf === undefined || asOf === null || asOf === '' || asOf === 'latest') return null;
  if (ISO_TIMESTAMP.test(asOf.trim())) return parseTimestampMicros(asOf, field);
  const tagged = dataset.tags[asOf];
  if (tagged === undefined) throw errors.notFound(`tag "${asOf.slice(0, 256)}" (${field}) of dataset ${dataset.id}`);
  return tagged;
}

export interface DatasetVersionsDeps {
  datasets: DatasetRegistry;
  ch: ClickHouseClient;
  tables: Pick<ReadModelTables, 'examples' | 'exampleIds'>;
  /** The examples projector's lag: a pin waits for it. */
  projection: Pick<ConsumerLagMonitor, 'caughtUp'>;
  logger: Logger;
}

export class DatasetVersions {
  readonly #deps: DatasetVersionsDeps;

  constructor(deps: DatasetVersionsDeps) {
    this.#deps = deps;
  }

  /** The live dataset of the workspace; undefined when unknown, deleted, or another workspace's. */
  async dataset(tenantId: string, datasetId: string): Promise<Dataset | undefined> {
    await this.#deps.datasets.catchUp();
    return this.#deps.datasets.get(tenantId, datasetId);
  }

  /**
   * The version `asOf` names, pinned: the newest version at or before it (a time not after now;
   * the newest now when null), once the projector has every write made before the call. A
   * dataset with no version by then pins the time itself (it holds no examples at it).
   */
  async pin(tenantId: string, dataset: Dataset, asOf: string | null | undefined): Promise<number> {
    const named = versionNamed(dataset, asOf);
    const at = Math.min(named ?? Number.MAX_SAFE_INTEGER, nowMicros());
    if (!(await this.#deps.projection.caughtUp(CATCH_UP_MS)))
      this.#deps.logger.warn({ waitedMs: CATCH_UP_MS }, 'a dataset version pinned before the projector caught up');
    const [version] = await datasetVersionsQuery(this.#deps.ch, this.#deps.tables, tenantId, dataset.id, {
      offset: 0,
      limit: 1,
      before: at,
    });
    return version?.modifiedAt ?? at;
  }
}
