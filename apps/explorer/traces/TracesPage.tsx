// A project's traces: one row per trace (POST /api/v2/traces/query, read from the `traces` read
// model: no request per row), sorted by the server (start time, latency, tokens, cost; sorting one
// page here would lie), keyset-paged, within a time range, narrowed by the filter language on the
// root run and by quick filters composed into it. Every part of the view is in the URL. The
// first page of an open range polls for new traces; checked rows can be exported as JSONL or CSV,
// added to a dataset or sent to an annotation queue.
import { useEffect, useMemo, useRef, useState } from 'react';
import {
  flexRender,
  getCoreRowModel,
  useReactTable,
  type ColumnDef,
  type RowSelectionState,
  type SortingState,
  type Updater,
} from '@tanstack/react-table';
import type { Credentials } from '../core/api.ts';
import { EmptyCard, ListState } from '../core/ListState.tsx';
import { ProjectHeader } from '../core/ProjectHeader.tsx';
import { count, dash, seconds, when } from '../core/format.ts';
import { linkProps, navigate, type Route } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import { ExportBar } from './ExportBar.tsx';
import { LiveTraces, useNewTraces } from './LiveTraces.tsx';
import { SelectionActions } from './SelectionActions.tsx';
import { queryTraces, type TraceRow, type TracesQuery } from './tracesApi.ts';
import {
  composedFilter,
  DEFAULT_RANGE,
  quickClauses,
  RANGES,
  rangeOf,
  sortFields,
  sortOf,
  windowIsOpen,
  windowOf,
  type SortBy,
  type TracesView,
} from './traceView.ts';
import './traces.css';

type TracesRoute = Extract<Route, { page: 'traces' }>;

const PAGE_SIZE = 25;
/** At most this many rows can be checked (the API takes up to 1000 trace ids). */
const MAX_SELECTED = 1000;
const RUN_TYPES = ['chain', 'llm', 'tool', 'retriever', 'prompt', 'parser', 'embedding'];

export function TracesPage({ credentials, route }: { credentials: Credentials; route: TracesRoute }) {
  const { projectId, filter, cursor } = route;
  const sort = sortOf(route);
  const effectiveFilter = composedFilter(filter, route);
  // Re-read on "show new traces"; a relative range is measured from the moment of each read.
  const [reads, setReads] = useState(0);
  const request = useMemo<TracesQuery>(
    () => ({
      project_id: projectId,
      ...windowOf(route, Date.now()),
      ...(effectiveFilter ? { trace_filter: effectiveFilter } : {}),
      ...(sort.by === 'start_time' && sort.order === 'desc' ? {} : { sort_by: sort.by, sort_order: sort.order }),
      ...(cursor ? { cursor } : {}),
      page_size: PAGE_SIZE,
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [projectId, route.range, route.from, route.to, effectiveFilter, sort.by, sort.order, cursor, reads],
  );
  const page = useLoad(() => queryTraces(credentials, request), [credentials, request]);
  // While the next read runs, the rows read last stay (dimmed) rather than blinking away.
  const lastRows = useRef<{ rows: TraceRow[]; next: string | null } | null>(null);
  if (page.state === 'done') lastRows.current = page.value;
  const shownPage = page.state === 'done' ? page.value : page.state === 'loading' ? lastRows.current : null;

  const live = useNewTraces({
    credentials,
    request,
    rows: page.state === 'done' ? page.value.rows : null,
    active: !cursor && windowIsOpen(route),
    prepend: sort.by === 'start_time' && sort.order === 'desc',
  });
  const rows = useMemo(() => [...live.prepended, ...(shownPage?.rows ?? [])], [live.prepended, shownPage]);

  // The cursors of the pages before this one (the API pages forward only), for "Newer".
  const previous = useRef<(string | null)[]>([]);
  const go = (changes: Partial<TracesRoute>, options: { replace?: boolean } = {}) => {
    if (!('cursor' in changes)) previous.current = [];
    navigate({ ...route, cursor: null, ...changes }, options);
  };
  const setView = (changes: TracesView) => go({ ...changes, selected: route.selected });

  const filterError = page.state === 'error' && page.error.code === 'INVALID_FILTER' ? page.error : null;
  const selected = useMemo(() => (route.selected ? route.selected.split(',').filter(Boolean) : []), [route.selected]);

  return (
    <section className="traces-page">
      <ProjectHeader credentials={credentials} projectId={projectId} tab="traces" />
      <FilterForm route={route} invalid={filterError !== null} onApply={(changes) => setView(changes)} />
      {filterError && (
        <p className="filter-error" role="alert" data-testid="filter-error">
          {filterError.message}
        </p>
      )}
      <QuickFilters route={route} onChange={setView} />
      {quickClauses(route).length > 0 && (
        <p className="effective-filter muted">
          Sent as the filter <code data-testid="effective-filter">{effectiveFilter}</code>
        </p>
      )}
      <div className="traces-toolbar">
        {/* Nothing to say about new traces while the view itself cannot be read. */}
        {page.state === 'error' ? (
          <span />
        ) : (
          <LiveTraces live={live} active={!cursor && windowIsOpen(route)} onShow={() => setReads((n) => n + 1)} />
        )}
        <div className="toolbar-end">
          <SelectionActions credentials={credentials} selected={selected} />
          <ExportBar
            credentials={credentials}
            request={request}
            selected={selected}
            projectId={projectId}
            onClearSelection={() => go({ selected: undefined, cursor }, { replace: true })}
          />
        </div>
      </div>
      <ListState
        load={page}
        what="traces"
        stale={lastRows.current}
        onRetry={() => setReads((n) => n + 1)}
        // A filter the API refused is said under the filter box.
        error={(error) => (error.code === 'INVALID_FILTER' ? null : undefined)}
        isEmpty={() => rows.length === 0}
        empty={<EmptyTraces route={route} filtered={effectiveFilter !== ''} />}
      >
        {(shown) => (
          <>
            <TracesTable
              projectId={projectId}
              rows={rows}
              fresh={live.freshIds}
              loading={page.state === 'loading'}
              sort={sort}
              onSort={(by, order) => go({ ...sortFields(by, order), selected: route.selected })}
              selected={selected}
              onSelect={(ids) =>
                go({ selected: ids.slice(0, MAX_SELECTED).join(',') || undefined, cursor }, { replace: true })
              }
            />
            <div className="pager">
              <button
                type="button"
                className="ghost"
                data-testid="page-newer"
                disabled={!cursor}
                onClick={() => go({ cursor: previous.current.pop() ?? null, selected: route.selected })}
              >
                ← Newer
              </button>
              <button
                type="button"
                className="ghost"
                data-testid="page-older"
                disabled={!shown.next}
                onClick={() => {
                  const stack = [...previous.current, cursor];
                  go({ cursor: shown.next, selected: route.selected });
                  previous.current = stack;
                }}
              >
                Older →
              </button>
            </div>
          </>
        )}
      </ListState>
    </section>
  );
}

/** The filter box, with the tag and metadata quick filters it applies together. */
function FilterForm({
  route,
  invalid,
  onApply,
}: {
  route: TracesRoute;
  invalid: boolean;
  onApply: (changes: Partial<TracesRoute>) => void;
}) {
  const [draft, setDraft] = useState({
    filter: route.filter,
    tag: route.tag ?? '',
    metaKey: route.meta_key ?? '',
    metaValue: route.meta_value ?? '',
  });
  useEffect(
    () =>
      setDraft({
        filter: route.filter,
        tag: route.tag ?? '',
        metaKey: route.meta_key ?? '',
        metaValue: route.meta_value ?? '',
      }),
    [route.filter, route.tag, route.meta_key, route.meta_value],
  );
  const apply = (d: typeof draft) =>
    onApply({
      filter: d.filter.trim(),
      tag: d.tag.trim() || undefined,
      meta_key: d.metaKey.trim() || undefined,
      meta_value: d.metaKey.trim() && d.metaValue.trim() ? d.metaValue.trim() : undefined,
    });
  const anything = route.filter || route.tag || route.meta_key;
  return (
    <form
      className="filter-bar traces-filter"
      onSubmit={(e) => {
        e.preventDefault();
        apply(draft);
      }}
    >
      <input
        data-testid="filter-input"
        className={invalid ? 'invalid' : ''}
        value={draft.filter}
        onChange={(e) => setDraft({ ...draft, filter: e.target.value })}
        placeholder={`Filter, e.g. eq(status, "error") or gt(latency, "2s") or search("weather")`}
        aria-label="Filter (LangSmith filter language)"
        spellCheck={false}
      />
      <input
        className="quick-text"
        data-testid="quick-tag"
        value={draft.tag}
        onChange={(e) => setDraft({ ...draft, tag: e.target.value })}
        placeholder="tag"
        aria-label="Tag"
      />
      <span className="meta-pair">
        <input
          data-testid="quick-meta-key"
          value={draft.metaKey}
          onChange={(e) => setDraft({ ...draft, metaKey: e.target.value })}
          placeholder="metadata key"
          aria-label="Metadata key"
        />
        =
        <input
          data-testid="quick-meta-value"
          value={draft.metaValue}
          onChange={(e) => setDraft({ ...draft, metaValue: e.target.value })}
          placeholder="value"
          aria-label="Metadata value"
        />
      </span>
      <button type="submit" className="primary" data-testid="filter-apply">
        Apply
      </button>
      {anything && (
        <button
          type="button"
          className="ghost"
          data-testid="filter-clear"
          onClick={() => apply({ filter: '', tag: '', metaKey: '', metaValue: '' })}
        >
          Clear
        </button>
      )}
    </form>
  );
}

/** The one-click quick filters (errors only, run type) and the time range. */
function QuickFilters({ route, onChange }: { route: TracesRoute; onChange: (changes: TracesView) => void }) {
  const range = rangeOf(route);
  const [custom, setCustom] = useState({ from: localInput(route.from), to: localInput(route.to) });
  useEffect(() => setCustom({ from: localInput(route.from), to: localInput(route.to) }), [route.from, route.to]);
  return (
    <div className="quick-filters">
      <label className="quick-toggle">
        <input
          type="checkbox"
          data-testid="quick-errors"
          checked={route.errors === true}
          onChange={(e) => onChange({ errors: e.target.checked || undefined })}
        />
        Errors only
      </label>
      <label>
        Run type{' '}
        <select
          data-testid="quick-run-type"
          value={route.run_type ?? ''}
          onChange={(e) => onChange({ run_type: e.target.value || undefined })}
        >
          <option value="">any</option>
          {RUN_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <span className="range">
        <label>
          Time range{' '}
          <select
            data-testid="range-select"
            value={range}
            onChange={(e) => {
              const value = e.target.value;
              if (value === 'custom')
                onChange({
                  range: 'custom',
                  from: route.from ?? new Date(Date.now() - 86_400_000).toISOString(),
                  to: route.to,
                });
              else onChange({ range: value === DEFAULT_RANGE ? undefined : value, from: undefined, to: undefined });
            }}
          >
            {RANGES.map((r) => (
              <option key={r.id} value={r.id}>
                {r.label}
              </option>
            ))}
            <option value="custom">Custom…</option>
          </select>
        </label>
        {range === 'custom' && (
          <form
            className="custom-range"
            onSubmit={(e) => {
              e.preventDefault();
              onChange({ range: 'custom', from: isoOf(custom.from), to: isoOf(custom.to) });
            }}
          >
            <input
              type="datetime-local"
              data-testid="range-from"
              aria-label="From"
              value={custom.from}
              onChange={(e) => setCustom({ ...custom, from: e.target.value })}
            />
            <span>to</span>
            <input
              type="datetime-local"
              data-testid="range-to"
              aria-label="To (empty: now)"
              value={custom.to}
              onChange={(e) => setCustom({ ...custom, to: e.target.value })}
            />
            <button type="submit" className="ghost" data-testid="range-apply">
              Set
            </button>
          </form>
        )}
      </span>
    </div>
  );
}

/** An ISO time as a datetime-local input shows it (local time, to the minute). */
function localInput(iso: string | undefined): string {
  const t = iso ? Date.parse(iso) : NaN;
  if (Number.isNaN(t)) return '';
  const d = new Date(t - new Date(t).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}
const isoOf = (local: string): string | undefined => (local ? new Date(local).toISOString() : undefined);

const SORTABLE: Record<string, SortBy> = {
  latency: 'latency',
  total_tokens: 'total_tokens',
  total_cost: 'total_cost',
  start_time: 'start_time',
};

interface TableProps {
  projectId: string;
  rows: TraceRow[];
  fresh: ReadonlySet<string>;
  loading: boolean;
  sort: { by: SortBy; order: 'asc' | 'desc' };
  onSort: (by: SortBy, order: 'asc' | 'desc') => void;
  selected: string[];
  onSelect: (ids: string[]) => void;
}

function TracesTable({ projectId, rows, fresh, loading, sort, onSort, selected, onSelect }: TableProps) {
  const columns = useMemo<ColumnDef<TraceRow>[]>(
    () => [
      {
        id: 'select',
        enableSorting: false,
        header: ({ table }) => (
          <input
            type="checkbox"
            data-testid="select-all"
            aria-label="Select all rows of this page"
            checked={table.getIsAllRowsSelected()}
            ref={(el) => {
              if (el) el.indeterminate = table.getIsSomeRowsSelected();
            }}
            onChange={table.getToggleAllRowsSelectedHandler()}
          />
        ),
        cell: ({ row }) => (
          <input
            type="checkbox"
            data-testid="select-row"
            aria-label={`Select ${row.original.name ?? row.id}`}
            checked={row.getIsSelected()}
            onChange={row.getToggleSelectedHandler()}
          />
        ),
      },
      {
        id: 'name',
        header: 'Name',
        enableSorting: false,
        cell: ({ row }) => (
          <a
            data-testid="trace-link"
            {...linkProps({ page: 'trace', projectId, traceId: row.original.id, runId: null })}
          >
            {row.original.name ?? <span className="muted">(root run not received yet)</span>}
          </a>
        ),
      },
      {
        id: 'status',
        header: 'Status',
        enableSorting: false,
        cell: ({ row }) => <Status status={row.original.status} />,
      },
      {
        id: 'latency',
        header: 'Latency',
        meta: { num: true },
        cell: ({ row }) => seconds(row.original.latency_seconds),
      },
      {
        id: 'total_tokens',
        header: 'Tokens',
        meta: { num: true },
        cell: ({ row }) => count(row.original.total_tokens),
      },
      // Cost is known only when the runs reported it (usage_metadata.total_cost); otherwise a dash.
      { id: 'total_cost', header: 'Cost', meta: { num: true }, cell: ({ row }) => cost(row.original.total_cost) },
      { id: 'start_time', header: 'Start time', cell: ({ row }) => when(row.original.start_time) },
      {
        id: 'tags',
        header: 'Tags',
        enableSorting: false,
        cell: ({ row }) =>
          row.original.tags.map((t) => (
            <span className="tag" key={t}>
              {t}
            </span>
          )),
      },
    ],
    [projectId],
  );
  // Sorting is the server's (manualSorting): the state only marks the sorted column.
  const sorting: SortingState = [{ id: sort.by, desc: sort.order === 'desc' }];
  const rowSelection: RowSelectionState = Object.fromEntries(selected.map((id) => [id, true]));
  const resolve = <T,>(u: Updater<T>, old: T): T => (typeof u === 'function' ? (u as (o: T) => T)(old) : u);
  const table = useReactTable({
    data: rows,
    columns,
    getRowId: (r) => r.id,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    enableSortingRemoval: false,
    enableRowSelection: true,
    state: { sorting, rowSelection },
    onRowSelectionChange: (u) => {
      const next = resolve(u, rowSelection);
      onSelect(Object.keys(next).filter((id) => next[id]));
    },
  });
  // The keyboard: j/k (or ↓/↑) move a row marker, Enter or o opens its trace, x checks it, / goes
  // to the filter box (not while typing in a field).
  const [active, setActive] = useState<number | null>(null);
  const activeRow = useRef<HTMLTableRowElement | null>(null);
  const rowIds = rows.map((r) => r.id).join(',');
  useEffect(() => {
    setActive(null);
  }, [rowIds]);
  // A block body: an effect must return nothing or a cleanup, and Chromium's scrollIntoView now
  // returns a promise (React then calls the promise as the cleanup).
  useEffect(() => {
    void activeRow.current?.scrollIntoView({ block: 'nearest' });
  }, [active]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      // Not while typing in a field, nor in a dialog over the table.
      if (target?.closest('input, textarea, select, [role="dialog"]') || e.metaKey || e.ctrlKey || e.altKey) return;
      const row = active === null ? undefined : rows[active];
      if (e.key === 'j' || e.key === 'ArrowDown')
        setActive(active === null ? 0 : Math.min(rows.length - 1, active + 1));
      else if (e.key === 'k' || e.key === 'ArrowUp') setActive(active === null ? 0 : Math.max(0, active - 1));
      else if ((e.key === 'Enter' || e.key === 'o') && row)
        navigate({ page: 'trace', projectId, traceId: row.id, runId: null });
      else if (e.key === 'x' && row)
        onSelect(selected.includes(row.id) ? selected.filter((id) => id !== row.id) : [...selected, row.id]);
      else if (e.key === '/') document.querySelector<HTMLInputElement>('[data-testid="filter-input"]')?.focus();
      else return;
      e.preventDefault();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  });
  return (
    <table
      className={loading ? 'table traces-table loading' : 'table traces-table'}
      data-testid="traces-table"
      aria-busy={loading}
    >
      <thead>
        {table.getHeaderGroups().map((group) => (
          <tr key={group.id}>
            {group.headers.map((header) => {
              const num = (header.column.columnDef.meta as { num?: boolean } | undefined)?.num;
              const sorted = header.column.getIsSorted();
              // The columns the server sorts by (display columns have no accessor for the table to sort with).
              const sortable = header.column.id in SORTABLE;
              return (
                <th
                  key={header.id}
                  className={[num ? 'num' : '', header.column.id === 'select' ? 'select-cell' : ''].join(' ')}
                  aria-sort={sorted ? (sorted === 'desc' ? 'descending' : 'ascending') : undefined}
                >
                  {sortable ? (
                    <button
                      type="button"
                      className={sorted ? 'sort-button sorted' : 'sort-button'}
                      data-testid={`sort-${header.column.id}`}
                      title="Sort (server-side, over every matching trace)"
                      // First click: largest / newest first; again: the other way.
                      onClick={() => onSort(SORTABLE[header.column.id]!, sorted === 'desc' ? 'asc' : 'desc')}
                    >
                      {flexRender(header.column.columnDef.header, header.getContext())}
                      <span className="sort-mark">{sorted === 'desc' ? '↓' : sorted === 'asc' ? '↑' : '↕'}</span>
                    </button>
                  ) : (
                    flexRender(header.column.columnDef.header, header.getContext())
                  )}
                </th>
              );
            })}
          </tr>
        ))}
      </thead>
      <tbody>
        {table.getRowModel().rows.map((row, i) => (
          <tr
            key={row.id}
            ref={i === active ? activeRow : undefined}
            data-testid="trace-row"
            data-run-id={row.id}
            aria-current={i === active ? 'true' : undefined}
            className={[
              row.getIsSelected() ? 'selected' : '',
              fresh.has(row.id) ? 'fresh' : '',
              i === active ? 'active' : '',
            ].join(' ')}
          >
            {row.getVisibleCells().map((cell) => {
              const num = (cell.column.columnDef.meta as { num?: boolean } | undefined)?.num;
              return (
                <td
                  key={cell.id}
                  className={[num ? 'num' : '', cell.column.id === 'select' ? 'select-cell' : ''].join(' ')}
                >
                  {flexRender(cell.column.columnDef.cell, cell.getContext())}
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function cost(value: number | null): string {
  if (!value) return dash;
  return value < 0.01 ? `$${value.toPrecision(2)}` : `$${value.toFixed(value < 1 ? 4 : 2)}`;
}

function EmptyTraces({ route, filtered }: { route: TracesRoute; filtered: boolean }) {
  const range = rangeOf(route);
  const label =
    range === 'custom' ? 'in this time range' : `in the ${RANGES.find((r) => r.id === range)!.label.toLowerCase()}`;
  return (
    <EmptyCard testId="traces-empty">
      {filtered ? (
        <p>No trace matches these filters {label}. Widen the time range, or clear the filters.</p>
      ) : range !== 'all' ? (
        <p>No traces {label}. Choose a wider time range (All time shows every trace of the project).</p>
      ) : (
        <>
          <p>
            No traces in this project yet: traces sent to it appear here, live. Point the langsmith client at this
            server:
          </p>
          <pre>{`LANGSMITH_ENDPOINT=${location.origin}\nLANGSMITH_API_KEY=<your key>\nLANGSMITH_TRACING=true`}</pre>
        </>
      )}
    </EmptyCard>
  );
}

export function Status({ status }: { status: string | undefined }) {
  const s = status ?? 'pending';
  return <span className={`status status-${s}`}>{s}</span>;
}
