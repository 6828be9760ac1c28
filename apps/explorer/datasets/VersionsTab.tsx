// What changed in a dataset from one version to another (GET /datasets/{id}/versions/diff): two
// versions chosen in the URL (by default the one before the newest, and the newest), the examples
// added, removed and modified, each opening into the example as it was at each version (read at
// that version) with what changed in it named.
import { useState } from 'react';
import type { Credentials } from '../core/api.ts';
import { count } from '../core/format.ts';
import { EmptyCard, LoadState } from '../core/ListState.tsx';
import { navigate, type Route } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import { diffVersions, listVersions, readExample, type DatasetVersion, type Example } from './examplesApi.ts';
import { findVersion, LATEST, VersionSelect, versionLabel } from './VersionSelect.tsx';

type DiffRoute = Extract<Route, { page: 'datasetDiff' }>;
type Change = 'added' | 'removed' | 'modified';

/** Ids listed at first in each section; "Show more" adds as many. */
const SHOWN = 100;

export function VersionsTab({
  credentials,
  datasetId,
  route,
}: {
  credentials: Credentials;
  datasetId: string;
  route: DiffRoute;
}) {
  const versions = useLoad(
    () => listVersions(credentials, datasetId),
    [credentials.apiKey, credentials.workspaceId, datasetId],
  );
  return (
    <LoadState load={versions} what="versions" onRetry={versions.refresh}>
      {(list) => {
        if (list.length === 0)
          return (
            <EmptyCard testId="versions-empty" title="No versions yet">
              <p>Each write of the dataset's examples is a version; this one has none to compare.</p>
            </EmptyCard>
          );
        // By default: what the newest write changed.
        const from = route.from ?? list[1]?.as_of ?? list[0]!.as_of;
        const to = route.to ?? LATEST;
        const go = (change: Partial<DiffRoute>) => navigate({ ...route, from, to, ...change }, { replace: true });
        return (
          <>
            <div className="dataset-toolbar">
              <VersionSelect
                versions={list}
                value={from}
                onChange={(v) => go({ from: v ?? LATEST })}
                testId="diff-from"
                label="From"
              />
              <VersionSelect
                versions={list}
                value={to}
                onChange={(v) => go({ to: v ?? LATEST })}
                testId="diff-to"
                label="To"
              />
              <button
                type="button"
                className="ghost"
                data-testid="diff-swap"
                onClick={() => go({ from: to, to: from })}
              >
                Swap
              </button>
            </div>
            <Diff
              key={`${from}|${to}`}
              credentials={credentials}
              datasetId={datasetId}
              from={from}
              to={to}
              versions={list}
            />
          </>
        );
      }}
    </LoadState>
  );
}

function Diff({
  credentials,
  datasetId,
  from,
  to,
  versions,
}: {
  credentials: Credentials;
  datasetId: string;
  from: string;
  to: string;
  versions: DatasetVersion[];
}) {
  const diff = useLoad(
    () => diffVersions(credentials, datasetId, from, to),
    [credentials.apiKey, credentials.workspaceId, datasetId, from, to],
  );
  const label = (v: string) => {
    if (v === LATEST) return 'the latest version';
    const found = findVersion(versions, v);
    return found ? versionLabel(found) : v;
  };
  return (
    <LoadState load={diff} what="the changes" onRetry={diff.refresh}>
      {(d) => {
        const none = d.examples_added.length + d.examples_removed.length + d.examples_modified.length === 0;
        if (none)
          return (
            <p className="muted" data-testid="diff-none">
              No example differs from {label(from)} to {label(to)}.
            </p>
          );
        const at = { credentials, from, to, fromLabel: label(from), toLabel: label(to) };
        return (
          <div className="diff-sections">
            <DiffSection change="added" title="Added" ids={d.examples_added} {...at} />
            <DiffSection change="removed" title="Removed" ids={d.examples_removed} {...at} />
            <DiffSection change="modified" title="Modified" ids={d.examples_modified} {...at} />
          </div>
        );
      }}
    </LoadState>
  );
}

interface At {
  credentials: Credentials;
  from: string;
  to: string;
  fromLabel: string;
  toLabel: string;
}

function DiffSection({ change, title, ids, ...at }: At & { change: Change; title: string; ids: string[] }) {
  const [shown, setShown] = useState(SHOWN);
  return (
    <section className="diff-section card" data-testid={`diff-${change}`}>
      <h3>
        {title} <span className={`diff-count diff-${change}-count`}>{count(ids.length)}</span>
      </h3>
      {ids.length === 0 ? (
        <p className="muted">None.</p>
      ) : (
        <ul className="diff-list">
          {ids.slice(0, shown).map((id) => (
            <DiffItem key={id} id={id} change={change} {...at} />
          ))}
        </ul>
      )}
      {ids.length > shown && (
        <button type="button" className="ghost small" onClick={() => setShown((n) => n + SHOWN)}>
          Show more ({count(ids.length - shown)} left)
        </button>
      )}
    </section>
  );
}

function DiffItem({ id, change, ...at }: At & { id: string; change: Change }) {
  const [open, setOpen] = useState(false);
  return (
    <li className={open ? 'diff-item open' : 'diff-item'} data-testid="diff-item" data-example-id={id}>
      <button type="button" className="json-toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        <span className="json-caret" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <code>{id}</code>
      </button>
      {open && <ExampleVersions id={id} change={change} {...at} />}
    </li>
  );
}

/** The example as it was at the versions it was in: before (removed, modified) and after (added, modified). */
function ExampleVersions({
  id,
  change,
  credentials,
  from,
  to,
  fromLabel,
  toLabel,
}: At & { id: string; change: Change }) {
  const read = useLoad(
    async () =>
      Promise.all([
        change === 'added' ? null : readExample(credentials, id, from),
        change === 'removed' ? null : readExample(credentials, id, to),
      ]),
    [id, from, to],
  );
  return (
    <LoadState load={read} what="the example">
      {([before, after]) => {
        const changed = before && after ? changedParts(before, after) : [];
        return (
          <div className="diff-detail">
            {changed.length > 0 && (
              <p className="muted" data-testid="diff-changed">
                Changed: {changed.join(', ')}
              </p>
            )}
            <div className="diff-columns">
              {change !== 'added' && (
                <ExampleAt example={before} label={fromLabel} changed={changed} testId="example-before" />
              )}
              {change !== 'removed' && (
                <ExampleAt example={after} label={toLabel} changed={changed} testId="example-after" />
              )}
            </div>
          </div>
        );
      }}
    </LoadState>
  );
}

function ExampleAt({
  example,
  label,
  changed,
  testId,
}: {
  example: Example | null;
  label: string;
  changed: readonly string[];
  testId: string;
}) {
  return (
    <div className="example-at" data-testid={testId}>
      <h4>At {label}</h4>
      {example ? (
        <dl className="example-parts">
          {PARTS.map((part) => (
            <div key={part} className={changed.includes(part) ? 'changed' : undefined}>
              <dt>{part}</dt>
              <dd>
                <code>{JSON.stringify(partOf(example, part))}</code>
              </dd>
            </div>
          ))}
        </dl>
      ) : (
        <p className="muted">Not in the dataset at this version.</p>
      )}
    </div>
  );
}

const PARTS = ['inputs', 'outputs', 'metadata', 'splits'] as const;

function partOf(e: Example, part: (typeof PARTS)[number]): unknown {
  const { dataset_split: splits = [], ...metadata } = e.metadata;
  return part === 'inputs' ? e.inputs : part === 'outputs' ? e.outputs : part === 'metadata' ? metadata : splits;
}

/** The parts of an example that differ between two of its versions. */
function changedParts(before: Example, after: Example): string[] {
  return PARTS.filter((p) => JSON.stringify(partOf(before, p)) !== JSON.stringify(partOf(after, p)));
}
