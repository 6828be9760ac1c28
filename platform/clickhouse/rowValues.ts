// Numbers from the values of JSONEachRow rows: ClickHouse sends 64-bit integers as strings, and
// aggregates over nothing (or Nullable columns) as null.

/** The value as a number; 0 when absent or null. */
export const num = (v: unknown): number => Number(v ?? 0);

/** The value as a number, or null when absent or null. */
export const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
