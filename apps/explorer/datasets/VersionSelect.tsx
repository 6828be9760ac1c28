// Choosing a version of a dataset: "Latest", then its versions newest first, each as its time
// (to the millisecond: writes a moment apart are versions apart) and its tags. A version named in
// the URL by a tag or by a time between versions is shown as it was named.
import type { DatasetVersion } from './examplesApi.ts';
import { when } from '../core/format.ts';

export const LATEST = 'latest';

/** A version's time as the page shows it: date and time to the millisecond. */
export function versionTime(asOf: string): string {
  const millis = /\.(\d{3})/.exec(asOf)?.[1] ?? '000';
  return `${when(asOf)}.${millis}`;
}

export function versionLabel(v: DatasetVersion): string {
  return v.tags.length > 0 ? `${versionTime(v.as_of)} — ${v.tags.join(', ')}` : versionTime(v.as_of);
}

/** The version `value` names (a time of a version or one of its tags), if it is one of `versions`. */
export const findVersion = (versions: readonly DatasetVersion[], value: string | null): DatasetVersion | undefined =>
  value ? versions.find((v) => v.as_of === value || v.tags.includes(value)) : undefined;

/** The option of a select that `value` (a time, a tag, null or "latest") chooses among `versions`. */
export function versionOption(versions: readonly DatasetVersion[], value: string | null): string {
  const found = findVersion(versions, value);
  return found ? found.as_of : value && value !== LATEST ? value : LATEST;
}

/** The options of a version select: Latest, `selected` when it is none of the versions, the versions. */
export function VersionOptions({ versions, selected }: { versions: readonly DatasetVersion[]; selected: string }) {
  return (
    <>
      <option value={LATEST}>Latest</option>
      {selected !== LATEST && !versions.some((v) => v.as_of === selected) && (
        <option value={selected}>{selected}</option>
      )}
      {versions.map((v) => (
        <option key={v.as_of} value={v.as_of}>
          {versionLabel(v)}
        </option>
      ))}
    </>
  );
}

export function VersionSelect({
  versions,
  value,
  onChange,
  testId,
  label,
}: {
  versions: readonly DatasetVersion[];
  /** A time or tag; null or "latest" for the newest. */
  value: string | null;
  onChange: (value: string | null) => void;
  testId: string;
  label: string;
}) {
  const selected = versionOption(versions, value);
  return (
    <label className="field-inline">
      <span className="muted">{label}</span>
      <select
        className="range-select"
        data-testid={testId}
        value={selected}
        onChange={(e) => onChange(e.target.value === LATEST ? null : e.target.value)}
      >
        <VersionOptions versions={versions} selected={selected} />
      </select>
    </label>
  );
}
