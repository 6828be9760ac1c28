// One trace: its runs as a tree beside their waterfall (one virtualised list, see Waterfall.tsx),
// read in one request with only the fields a row shows, and the selected run's detail, whose
// payloads are read for that run alone (RunDetail.tsx). The trace and the selected run are in
// the URL. Keyboard: j/k or ↓/↑ move, Enter or → expands (→ again goes to the first child), ←
// collapses (or goes to the parent), / searches run names, Esc clears the search.
// RunRedirect resolves a run link (/projects/:p/runs/:r, where the API sends the clients'
// getRunUrl links) to its trace, polling while the run is not projected.
import { useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, getRun, type Credentials } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { ProjectHeader } from '../core/ProjectHeader.tsx';
import { count } from '../core/format.ts';
import { navigate, type Route } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import { RunDetail } from './RunDetail.tsx';
import { buildTree, visibleRows, type Tree } from './runTree.ts';
import { traceTree } from './traceApi.ts';
import { Waterfall } from './Waterfall.tsx';
import './trace.css';

export function TracePage({
  credentials,
  route,
}: {
  credentials: Credentials;
  route: Extract<Route, { page: 'trace' }>;
}) {
  const { projectId, traceId } = route;
  // Reload reads the tree again (a trace still running grows).
  const [reads, setReads] = useState(0);
  const reload = () => setReads((n) => n + 1);
  const load = useLoad(
    () => traceTree(credentials, projectId, traceId).then(buildTree),
    [credentials, projectId, traceId, reads],
  );
  return (
    <section>
      <ProjectHeader
        credentials={credentials}
        projectId={projectId}
        tab="traces"
        trail={
          <span data-testid="trace-name">
            {load.state === 'done' && load.value.nodes[0] ? load.value.nodes[0].run.name : traceId}
          </span>
        }
      />
      {load.state === 'loading' && <p className="muted">Loading trace…</p>}
      {load.state === 'error' && <ErrorBox error={load.error} />}
      {load.state === 'done' &&
        (load.value.nodes.length === 0 ? (
          <p className="empty card" data-testid="trace-empty">
            This trace has no runs yet: its runs may still be on their way.{' '}
            <button type="button" className="ghost small" onClick={reload}>
              Reload
            </button>
          </p>
        ) : (
          <TraceView credentials={credentials} route={route} tree={load.value} onReload={reload} />
        ))}
    </section>
  );
}

function TraceView({
  credentials,
  route,
  tree,
  onReload,
}: {
  credentials: Credentials;
  route: Extract<Route, { page: 'trace' }>;
  tree: Tree;
  onReload: () => void;
}) {
  const { projectId, traceId } = route;
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [search, setSearch] = useState('');
  const searchBox = useRef<HTMLInputElement>(null);
  const rows = useMemo(() => visibleRows(tree, collapsed, search), [tree, collapsed, search]);
  const selected = (route.runId ? tree.byId.get(route.runId) : undefined) ?? tree.nodes[0]!;
  const select = (id: string) => navigate({ page: 'trace', projectId, traceId, runId: id }, { replace: true });
  const toggle = (id: string, open?: boolean) =>
    setCollapsed((now) => {
      const next = new Set(now);
      if (open ?? next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const matches = search.trim() ? rows.filter((r) => r.match).length : null;

  // A run selected inside a collapsed subtree (a deep link, a search cleared) has its ancestors opened.
  useEffect(() => {
    if (search.trim() || !selected.run.parent_run_ids.some((id) => collapsed.has(id))) return;
    setCollapsed((now) => new Set([...now].filter((id) => !selected.run.parent_run_ids.includes(id))));
  }, [selected, collapsed, search]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // Keys in a dialog over the trace (the run's Add to dataset, Send to annotation queue) are the dialog's.
      if (e.metaKey || e.ctrlKey || e.altKey || (e.target as Element | null)?.closest?.('[role="dialog"]')) return;
      const typing =
        e.target instanceof HTMLInputElement ||
        e.target instanceof HTMLTextAreaElement ||
        e.target instanceof HTMLSelectElement;
      if (typing) {
        if (e.target === searchBox.current && e.key === 'Escape') {
          setSearch('');
          searchBox.current.blur();
        } else if (e.target === searchBox.current && e.key === 'Enter') {
          const first = rows.find((r) => r.match);
          if (first) select(first.node.run.id);
          searchBox.current.blur();
        }
        return;
      }
      // Enter on a focused button or link is that control's.
      if (e.key === 'Enter' && (e.target instanceof HTMLButtonElement || e.target instanceof HTMLAnchorElement)) return;
      const at = rows.findIndex((r) => r.node.run.id === selected.run.id);
      const row = rows[at];
      const move = (to: number) => {
        const target = rows[Math.min(rows.length - 1, Math.max(0, to))];
        if (target) select(target.node.run.id);
      };
      switch (e.key) {
        case 'j':
        case 'ArrowDown':
          move(at + 1);
          break;
        case 'k':
        case 'ArrowUp':
          move(at - 1);
          break;
        case 'Enter':
        case 'ArrowRight':
          if (row?.collapsed) toggle(row.node.run.id, true);
          else if (e.key === 'ArrowRight' && row && row.node.childCount > 0) move(at + 1);
          break;
        case 'ArrowLeft':
          if (row && row.node.childCount > 0 && !row.collapsed && !search.trim()) toggle(row.node.run.id, false);
          else if (selected.parentId) select(selected.parentId);
          break;
        case '/':
          searchBox.current?.focus();
          break;
        case 'Escape':
          if (!search) return;
          setSearch('');
          break;
        default:
          return;
      }
      e.preventDefault();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  });

  const collapsible = tree.nodes.filter((n) => n.childCount > 0).map((n) => n.run.id);
  return (
    <>
      <div className="trace-toolbar">
        <input
          ref={searchBox}
          className="search trace-search"
          type="search"
          placeholder="Search runs by name  ( / )"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          data-testid="trace-search"
          aria-label="Search runs by name"
        />
        {matches !== null && (
          <span className="muted" data-testid="trace-search-count">
            {matches === 0 ? 'no run matches' : `${count(matches)} ${matches === 1 ? 'run matches' : 'runs match'}`}
          </span>
        )}
        <span className="toolbar-gap" />
        <button
          type="button"
          className="ghost small"
          data-testid="trace-reload"
          onClick={onReload}
          title="Read the trace's runs again"
        >
          Reload
        </button>
        <button type="button" className="ghost small" data-testid="expand-all" onClick={() => setCollapsed(new Set())}>
          Expand all
        </button>
        <button
          type="button"
          className="ghost small"
          data-testid="collapse-all"
          onClick={() => setCollapsed(new Set(collapsible))}
        >
          Collapse all
        </button>
        <span className="muted keys" title="Keyboard">
          <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>→</kbd>/<kbd>←</kbd> open/close · <kbd>/</kbd> search
        </span>
      </div>
      <div className="trace-layout">
        <Waterfall
          tree={tree}
          rows={rows}
          selectedId={selected.run.id}
          search={search}
          onSelect={select}
          onToggle={(id) => toggle(id)}
        />
        <RunDetail key={selected.run.id} credentials={credentials} node={selected} traceId={traceId} />
      </div>
    </>
  );
}

/** How long a run link waits for its run to be projected (the clients print the link as they send the run). */
const POLL_ATTEMPTS = 30;
const POLL_INTERVAL_MS = 1000;

export function RunRedirect({
  credentials,
  route,
}: {
  credentials: Credentials;
  route: Extract<Route, { page: 'run' }>;
}) {
  const { projectId, runId } = route;
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    let live = true;
    void (async () => {
      for (let attempt = 1; live; attempt++) {
        try {
          const run = await getRun(credentials, runId);
          if (live)
            navigate(
              { page: 'trace', projectId: run.session_id ?? projectId, traceId: run.trace_id, runId },
              { replace: true },
            );
          return;
        } catch (err) {
          const apiErr = err instanceof ApiError ? err : new ApiError(0, 'ERROR', String(err));
          if (apiErr.status !== 404 || attempt >= POLL_ATTEMPTS) {
            if (live) setError(apiErr);
            return;
          }
          await new Promise((r) => setTimeout(r, POLL_INTERVAL_MS));
        }
      }
    })();
    return () => {
      live = false;
    };
  }, [credentials, projectId, runId]);
  if (error) return <ErrorBox error={error} />;
  return <p className="muted">Opening run {runId}…</p>;
}
