// Runs read by id, as GET /runs/{id} answers each, for other contexts (an annotation queue's
// reviewer reads the runs of its items): through the runs query, a hundred ids a request.
import { storedRunIdsQuery } from '../../../projections/runs/runQueries.ts';
import { queryRuns } from '../query/queryRuns.ts';
import { runsQueryFromBody } from '../query/runsQueryRequest.ts';
import type { RouteDeps } from '../routes/routeDeps.ts';

const IDS_PER_QUERY = 100;

/** The workspace's runs among `ids`, by id (a run not there, or another workspace's, is left out). */
export async function runsByIds(
  deps: Pick<RouteDeps, 'ch' | 'blobs' | 'tables'>,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, Record<string, unknown>>> {
  const out = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
    const chunk = ids.slice(i, i + IDS_PER_QUERY);
    const page = await queryRuns(deps, tenantId, runsQueryFromBody({ id: chunk, limit: IDS_PER_QUERY }));
    for (const run of page.runs) out.set(String(run.id), run);
  }
  return out;
}

/** Which of `ids` are the workspace's stored runs (without reading them). */
export const storedRunIds = (
  deps: Pick<RouteDeps, 'ch' | 'tables'>,
  tenantId: string,
  ids: readonly string[],
): Promise<Set<string>> =>
  ids.length === 0 ? Promise.resolve(new Set()) : storedRunIdsQuery(deps.ch, tenantId, ids, deps.tables.runLocations);
