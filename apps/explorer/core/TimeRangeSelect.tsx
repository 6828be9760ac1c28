// The time range of the threads and analytics views: how far back from now they look, kept in
// the URL (route.ts `range`).
import { TIME_RANGES, type TimeRange } from './route.ts';

const LABELS: Record<TimeRange, string> = {
  '1h': 'Last hour',
  '6h': 'Last 6 hours',
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
};

const HOUR_MS = 3_600_000;
const SPAN_MS: Record<TimeRange, number> = {
  '1h': HOUR_MS,
  '6h': 6 * HOUR_MS,
  '24h': 24 * HOUR_MS,
  '7d': 7 * 24 * HOUR_MS,
  '30d': 30 * 24 * HOUR_MS,
  '90d': 90 * 24 * HOUR_MS,
};

/** The range's start as RFC 3339, counted back from `now`. */
export const rangeStart = (range: TimeRange, now = Date.now()): string => new Date(now - SPAN_MS[range]).toISOString();

export const rangeLabel = (range: TimeRange): string => LABELS[range];

export function TimeRangeSelect({ value, onChange }: { value: TimeRange; onChange: (range: TimeRange) => void }) {
  return (
    <select
      className="range-select"
      data-testid="time-range"
      aria-label="Time range"
      value={value}
      onChange={(e) => onChange(e.target.value as TimeRange)}
    >
      {TIME_RANGES.map((r) => (
        <option key={r} value={r}>
          {LABELS[r]}
        </option>
      ))}
    </select>
  );
}
