// Where an export's files go: Hive-style partitions by export, tenant, project, resource and the
// UTC day of the runs' start time. File names carry the export run, its attempt and a sequence
// number, so no rerun, retry or other window ever overwrites a file.

export interface ExportPartition {
  exportId: string;
  tenantId: string;
  sessionId: string;
  /** Any time (microseconds) in the partition's UTC day. */
  startMicros: number;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** `<prefix>/export_id=<e>/tenant_id=<t>/session_id=<s>/resource=runs/year=<yyyy>/month=<mm>/day=<dd>` (no leading slash when prefix is ''). */
export function exportRunDirectory(prefix: string, partition: ExportPartition): string {
  const day = new Date(Math.floor(partition.startMicros / 1000));
  const parts = [
    `export_id=${partition.exportId}`,
    `tenant_id=${partition.tenantId}`,
    `session_id=${partition.sessionId}`,
    'resource=runs',
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
