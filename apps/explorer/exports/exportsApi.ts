// The bulk-export API as the exports page reads it (services/bulk-export/bulkExportRoutes.ts;
// docs/bulk-export.md): destinations (credentials write-only: never in an answer), exports (of a
// project's runs or a dataset's version) with their progress, an export's runs, create and cancel;
// the names of the projects and datasets exported.
import { apiCall, type Credentials } from '../core/api.ts';
import type { DatasetVersion } from '../datasets/examplesApi.ts';

export interface Destination {
  id: string;
  display_name: string;
  destination_type: string;
  config: { bucket_name: string; prefix: string; endpoint_url: string | null; region: string | null };
  /** The names of the credential fields given (never their values). */
  credentials_keys: string[];
  created_at: string;
}

export type ExportStatus =
  | 'Created'
  | 'Running'
  | 'Completed'
  | 'Failed'
  | 'Cancelled'
  | 'TimedOut'
  | 'IntervalScheduled';

/** What an export writes: a project's runs, or a dataset's examples at a version. */
export type ExportResource = 'runs' | 'examples';

export interface BulkExport {
  id: string;
  bulk_export_destination_id: string;
  resource: ExportResource;
  /** The project of a runs export; null for an examples export. */
  session_id: string | null;
  /** The dataset of an examples export; null for a runs export. */
  dataset_id: string | null;
  /** The version an examples export reads (its time, pinned at creation); null for a runs export. */
  as_of: string | null;
  /** Null for an examples export. */
  start_time: string | null;
  end_time: string | null;
  interval_hours: number | null;
  format: string;
  format_version: 'v1' | 'v2_beta';
  compression: string;
  filter: string | null;
  status: ExportStatus;
  created_at: string;
  finished_at: string | null;
  progress: {
    runs_planned: number | null;
    runs_scheduled: number;
    runs_completed: number;
    runs_failed: number;
    rows_written: number;
    bytes_written: number;
    files_written: number;
    last_error: string | null;
  };
}

export interface ExportRun {
  id: string;
  status: Exclude<ExportStatus, 'IntervalScheduled'>;
  retry_number: number;
  errors: Record<string, string>;
  start_time: string;
  end_time: string;
  metadata: { result: { rows_written: number; bytes_written: number; exported_files: string[]; export_path: string } };
  finished_at: string | null;
}

export interface NewDestination {
  display_name: string;
  config: { bucket_name: string; prefix: string; endpoint_url: string | null; region: string | null };
  credentials: { access_key_id: string; secret_access_key: string };
}

interface NewExportOptions {
  bulk_export_destination_id: string;
  format: 'Parquet';
  format_version: 'v1' | 'v2_beta';
  compression: string;
}

/** A project's runs over a time range (end_time) or on a schedule (interval_hours). */
export interface NewRunsExport extends NewExportOptions {
  resource?: 'runs';
  session_id: string;
  start_time: string;
  end_time?: string;
  interval_hours?: number;
  filter?: string;
}

/** A dataset's examples at a version: a tag, an ISO time or "latest" (the default). */
export interface NewExamplesExport extends NewExportOptions {
  resource: 'examples';
  dataset_id: string;
  as_of?: string;
}

export type NewExport = NewRunsExport | NewExamplesExport;

/** A project to export, as GET /sessions lists it (no statistics needed here). */
export interface ProjectName {
  id: string;
  name: string;
}

export const listDestinations = (c: Credentials) => apiCall<Destination[]>(c, 'GET', '/bulk-exports/destinations');
export const createDestination = (c: Credentials, body: NewDestination) =>
  apiCall<Destination>(c, 'POST', '/bulk-exports/destinations', { destination_type: 's3', ...body });
export const listExports = (c: Credentials) => apiCall<BulkExport[]>(c, 'GET', '/bulk-exports');
export const getExport = (c: Credentials, id: string) => apiCall<BulkExport>(c, 'GET', `/bulk-exports/${id}`);
export const listExportRuns = (c: Credentials, id: string) =>
  apiCall<ExportRun[]>(c, 'GET', `/bulk-exports/${id}/runs`);
export const createExport = (c: Credentials, body: NewExport) => apiCall<BulkExport>(c, 'POST', '/bulk-exports', body);
export const cancelExport = (c: Credentials, id: string) =>
  apiCall<BulkExport>(c, 'PATCH', `/bulk-exports/${id}`, { status: 'Cancelled' });
export const listProjectNames = (c: Credentials) => apiCall<ProjectName[]>(c, 'GET', '/sessions?limit=100');

/** The datasets of these ids that still exist (GET /datasets?id=…, a hundred at most). */
export function listDatasetNames(c: Credentials, ids: readonly string[]): Promise<ProjectName[]> {
  if (ids.length === 0) return Promise.resolve([]);
  const params = new URLSearchParams({ limit: '100' });
  for (const id of ids.slice(0, 100)) params.append('id', id);
  return apiCall<ProjectName[]>(c, 'GET', `/datasets?${params}`);
}

/** The version of a dataset an examples export read, with its tags (404 when the dataset had none then). */
export const getDatasetVersion = (c: Credentials, datasetId: string, asOf: string) =>
  apiCall<DatasetVersion>(c, 'GET', `/datasets/${datasetId}/version?${new URLSearchParams({ as_of: asOf })}`);

/** Statuses after which nothing changes any more. */
export const FINAL_STATUSES: ReadonlySet<ExportStatus> = new Set(['Completed', 'Failed', 'Cancelled', 'TimedOut']);
