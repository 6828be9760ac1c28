// The bulk-export API as the exports page reads it (services/bulk-export/bulkExportRoutes.ts;
// docs/bulk-export.md): destinations (credentials write-only: never in an answer), exports with
// their progress, an export's runs, create and cancel.
import { apiCall, type Credentials } from '../core/api.ts';

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

export interface BulkExport {
  id: string;
  bulk_export_destination_id: string;
  session_id: string;
  start_time: string;
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

export interface NewExport {
  bulk_export_destination_id: string;
  session_id: string;
  start_time: string;
  end_time?: string;
  interval_hours?: number;
  format: 'Parquet';
  format_version: 'v1' | 'v2_beta';
  compression: string;
  filter?: string;
}

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

/** Statuses after which nothing changes any more. */
export const FINAL_STATUSES: ReadonlySet<ExportStatus> = new Set(['Completed', 'Failed', 'Cancelled', 'TimedOut']);
