// Where an export's files go: Hive-style partitions by export, tenant, project (runs) or dataset
// (examples), resource and a UTC day: of the runs' start time, or of the version an examples
// export read. File names carry the export run, its attempt and a sequence number, so no rerun,
// retry or other window ever overwrites a file.

/** A partition: of a project's runs (sessionId) or of a dataset's examples (datasetId). */
export type ExportPartition = {
  exportId: string;
  tenantId: string;
  /** Any time (microseconds) in the partition's UTC day. */
  startMicros: number;
} & ({ sessionId: string } | { datasetId: string });

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/**
 * `<prefix>/export_id=<e>/tenant_id=<t>/session_id=<s>/resource=runs/year=<yyyy>/month=<mm>/day=<dd>`, or
 * `…/tenant_id=<t>/dataset_id=<d>/resource=examples/…` (no leading slash when prefix is '').
 */
export function exportRunDirectory(prefix: string, partition: ExportPartition): string {
  const day = new Date(Math.floor(partition.startMicros / 1000));
  const parts = [
    `export_id=${partition.exportId}`,
    `tenant_id=${partition.tenantId}`,
    ...('sessionId' in partition
      ? [`session_id=${partition.sessionId}`, 'resource=runs']
      : [`dataset_id=${partition.datasetId}`, 'resource=examples']),
    `year=${pad(day.getUTCFullYear(), 4)}`,
    `month=${pad(day.getUTCMonth() + 1, 2)}`,
    `day=${pad(day.getUTCDate(), 2)}`,
  ];
  return prefix === '' ? parts.join('/') : `${prefix}/${parts.join('/')}`;
}

/** The n-th file (from 0) of an export run's attempt: `<directory>/<runId>-<attempt>-<seq, 5 digits>.parquet`. */
export function exportObjectKey(
  prefix: string,
  partition: ExportPartition & { runId: string; attempt: number },
  sequence: number,
): string {
  return `${exportRunDirectory(prefix, partition)}/${partition.runId}-${partition.attempt}-${pad(sequence, 5)}.parquet`;
}
