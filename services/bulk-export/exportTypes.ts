// The vocabulary of bulk export, shared by the API, the scheduler, the worker and the Parquet
// pipeline: what is exported, compressions, format versions, what one export run has to do, and
// what it wrote.

/** runs: a project's runs in a time range; examples: a dataset's examples at one version. */
export const EXPORT_RESOURCES = ['runs', 'examples'] as const;
export type ExportResource = (typeof EXPORT_RESOURCES)[number];

export const EXPORT_COMPRESSIONS = ['none', 'gzip', 'snappy', 'zstandard'] as const;
export type ExportCompression = (typeof EXPORT_COMPRESSIONS)[number];

/** `v1` writes naive timestamps; `v2_beta` writes UTC timezone-aware ones. */
export const EXPORT_FORMAT_VERSIONS = ['v1', 'v2_beta'] as const;
export type ExportFormatVersion = (typeof EXPORT_FORMAT_VERSIONS)[number];

/** Where a run's export got to: the last (start_time, id) written to a completed file (examples: created_at, id). */
export interface ExportCursor {
  /** Microseconds since the epoch. */
  startTime: number;
  id: string;
}

/** S3 credentials of a destination (decrypted only in memory, only where used). */
export interface DestinationCredentials {
  access_key_id: string;
  secret_access_key: string;
  session_token?: string | null;
}

/** Where files go: a destination's bucket settings. */
export interface DestinationLocation {
  bucket: string;
  /** Key prefix inside the bucket, without leading or trailing slashes ('' for the bucket root). */
  prefix: string;
  /** S3-compatible endpoint; null for AWS S3 itself. */
  endpointUrl: string | null;
  region: string | null;
}

/** What every export run's work names, whatever it exports. */
export interface ExportTaskBase {
  tenantId: string;
  exportId: string;
  runId: string;
  /** 0 for the first attempt, n for the n-th retry; part of every file name. */
  attempt: number;
  formatVersion: ExportFormatVersion;
  compression: ExportCompression;
  /** The columns to write, in order; null for the default set. */
  exportFields: readonly string[] | null;
  /** Rows up to and including this cursor were written by earlier attempts' completed files. */
  resumeAfter: ExportCursor | null;
}

/**
 * One export run's work: a project's runs whose start_time is in [startMicros, endMicros).
 * A run never crosses a UTC midnight, so all its files share one day partition.
 */
export interface ExportRunTask extends ExportTaskBase {
  sessionId: string;
  startMicros: number;
  endMicros: number;
  /** Only runs that match this, in the runs filter language (`and(eq(run_type, "llm"), …)`); null for all. */
  filter: string | null;
}

/**
 * The one run of an examples export: the dataset's live examples at version `asOf`
 * (microseconds), oldest first. Its files lie in the day partition of `asOf`.
 */
export interface ExamplesExportTask extends ExportTaskBase {
  datasetId: string;
  asOf: number;
}

/** A completed Parquet file (its upload finished). */
export interface ExportedFile {
  /** Object key inside the bucket. */
  key: string;
  rows: number;
  bytes: number;
  /** (start_time, id) of the file's last row. */
  cursor: ExportCursor;
}
