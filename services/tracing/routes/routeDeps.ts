// What the read and project routes are given: one object, so routes take what they need.
import type { Config } from '../../../platform/config.ts';
import { errors } from '../../../platform/errors.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import type { BlobStore } from '../../../platform/blobStore.ts';
import type { EventLog } from '../../../platform/kafka/eventLog.ts';
import type { ReadModelTables } from '../../../projections/readModelTables.ts';
import type { ProjectRegistry } from '../../../projections/projects/projectRegistry.ts';

export interface RouteDeps {
  config: Config;
  ch: ClickHouseClient;
  blobs: BlobStore;
  eventLog: EventLog;
  projects: ProjectRegistry;
  /** Read-model table names; the live ones (replays swap tables under these names). */
  tables: ReadModelTables;
}

/** The caller's project, or 404 (another workspace's project is not found either). */
export function requireProject(deps: RouteDeps, tenantId: string, projectId: string): void {
  if (!deps.projects.get(tenantId, projectId)) throw errors.notFound(`project ${projectId}`);
}
