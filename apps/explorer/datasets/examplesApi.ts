// A dataset's examples and versions as the dataset page reads them (docs/evaluation.md): a page of
// examples at a version and in a split, one example at a version, the versions with their tags,
// the splits, tagging a version, and what changed from one version to another.
import { apiCall, type Credentials } from '../core/api.ts';

/** An example as GET /examples answers it: its splits in metadata.dataset_split, its version's time as modified_at. */
export interface Example {
  id: string;
  dataset_id: string;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  metadata: Record<string, unknown> & { dataset_split?: string[] };
  created_at: string;
  modified_at: string;
  source_run_id: string | null;
}

/** A version of a dataset: the time of one write of its examples, and the tags naming it. */
export interface DatasetVersion {
  as_of: string;
  tags: string[];
}

export interface VersionDiff {
  examples_added: string[];
  examples_removed: string[];
  examples_modified: string[];
}

/** Examples are shown this many a page. */
export const EXAMPLES_PAGE = 50;
/** The API's largest page (examples, versions). */
const API_PAGE = 100;
/** Versions read for the selectors: the newest this many. */
const MAX_VERSIONS = 1000;

/**
 * A page of the dataset's examples (oldest first) at `asOf` (a time or tag; null: the latest), in
 * `split`; one more is asked for than shown, to know whether a next page exists.
 */
export async function listExamples(
  c: Credentials,
  datasetId: string,
  selection: { asOf: string | null; split: string | null; offset: number },
): Promise<{ examples: Example[]; more: boolean }> {
  const params = new URLSearchParams({
    dataset: datasetId,
    offset: String(selection.offset),
    limit: String(EXAMPLES_PAGE + 1),
  });
  if (selection.asOf) params.set('as_of', selection.asOf);
  if (selection.split) params.set('splits', selection.split);
  const examples = await apiCall<Example[]>(c, 'GET', `/examples?${params}`);
  return { examples: examples.slice(0, EXAMPLES_PAGE), more: examples.length > EXAMPLES_PAGE };
}

/** Examples by id at a version (null: the latest), a hundred ids a request; ids not live then are left out. */
export async function examplesById(c: Credentials, ids: readonly string[], asOf: string | null): Promise<Example[]> {
  const out: Example[] = [];
  for (let i = 0; i < ids.length; i += API_PAGE) {
    const params = new URLSearchParams({ limit: String(API_PAGE) });
    for (const id of ids.slice(i, i + API_PAGE)) params.append('id', id);
    if (asOf) params.set('as_of', asOf);
    out.push(...(await apiCall<Example[]>(c, 'GET', `/examples?${params}`)));
  }
  return out;
}

/** One example as it was at a version (a time or tag); null when it was not in the dataset then. */
export async function readExample(c: Credentials, id: string, asOf: string): Promise<Example | null> {
  const [example] = await examplesById(c, [id], asOf);
  return example ?? null;
}

/** The dataset's versions, newest first (the newest thousand). */
export async function listVersions(c: Credentials, datasetId: string): Promise<DatasetVersion[]> {
  const all: DatasetVersion[] = [];
  while (all.length < MAX_VERSIONS) {
    const params = new URLSearchParams({ offset: String(all.length), limit: String(API_PAGE) });
    const page = await apiCall<DatasetVersion[]>(c, 'GET', `/datasets/${datasetId}/versions?${params}`);
    all.push(...page);
    if (page.length < API_PAGE) break;
  }
  return all;
}

export const listSplits = (c: Credentials, datasetId: string, asOf: string | null) =>
  apiCall<string[]>(c, 'GET', `/datasets/${datasetId}/splits${asOf ? `?${new URLSearchParams({ as_of: asOf })}` : ''}`);

/** Tags the version at or before `asOf`; a tag on another version moves here. */
export const tagVersion = (c: Credentials, datasetId: string, asOf: string, tag: string) =>
  apiCall<DatasetVersion>(c, 'PUT', `/datasets/${datasetId}/tags`, { as_of: asOf, tag });

export const diffVersions = (c: Credentials, datasetId: string, from: string, to: string) =>
  apiCall<VersionDiff>(
    c,
    'GET',
    `/datasets/${datasetId}/versions/diff?${new URLSearchParams({ from_version: from, to_version: to })}`,
  );

/** A run to make an example of: its id, and its inputs and outputs when the page has them. */
export interface SourceRun {
  id: string;
  inputs?: unknown;
  outputs?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Examples made from runs (each with its source_run_id): the inputs and outputs the page has, or,
 * without them, the run's own (`use_source_run_io`, read by the API). One run: POST /examples;
 * several: POST /examples/bulk (one version of the dataset).
 */
export function addRunsToDataset(c: Credentials, datasetId: string, runs: readonly SourceRun[]): Promise<unknown> {
  const bodies = runs.map((r) =>
    isObject(r.inputs)
      ? {
          dataset_id: datasetId,
          source_run_id: r.id,
          inputs: r.inputs,
          outputs: isObject(r.outputs) ? r.outputs : r.outputs == null ? null : { output: r.outputs },
        }
      : { dataset_id: datasetId, source_run_id: r.id, use_source_run_io: true },
  );
  return bodies.length === 1
    ? apiCall<Example>(c, 'POST', '/examples', bodies[0])
    : apiCall<Example[]>(c, 'POST', '/examples/bulk', bodies);
}
