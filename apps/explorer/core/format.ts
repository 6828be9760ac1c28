// How numbers and times read in the explorer's tables.

export const dash = '—';

export function seconds(value: number | null | undefined): string {
  if (value == null) return dash;
  // Rounded first, so 0.9999 s reads 1.00 s, not 1000 ms.
  const ms = Math.round(value * 1000);
  return ms < 1000 ? `${ms} ms` : `${value.toFixed(2)} s`;
}

export function latencyOf(start: string, end: string | null | undefined): number | null {
  if (!end) return null;
  return (Date.parse(end) - Date.parse(start)) / 1000;
}

export function percent(value: number | null | undefined): string {
  return value == null ? dash : `${(value * 100).toFixed(value > 0 && value < 0.01 ? 2 : 1)}%`;
}

export function count(value: number | null | undefined): string {
  return value == null ? dash : value.toLocaleString('en-US');
}

/** A count with its noun: "1 run", "2,000 runs". */
export function counted(value: number, one: string, many = `${one}s`): string {
  return `${count(value)} ${value === 1 ? one : many}`;
}

export function when(iso: string | null | undefined): string {
  if (!iso) return dash;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });
}

export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)}m ago`;
  if (s < 86400) return `${Math.round(s / 3600)}h ago`;
  return `${Math.round(s / 86400)}d ago`;
}
