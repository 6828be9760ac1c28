// Projects: every project of the workspace with its statistics and a chart of its activity,
// searched by name in the URL (by the API: name_contains); created, renamed and deleted (after a
// confirmation naming it). A hundred at a time, "Show more" reading the next hundred. In each
// hundred the list comes first (GET /sessions, from the project registry) and the figures fill in
// when their reads answer (GET /sessions?include_stats, and one POST /sessions/activity for the
// hundred): slow statistics never hold the list back (Phoenix #6868).
import { useEffect, useRef, useState } from 'react';
import type { Credentials, Project } from '../core/api.ts';
import type { ApiError } from '../core/api.ts';
import { ago, count, percent, seconds } from '../core/format.ts';
import { EmptyCard, ListTable, Loading, LoadError, type Column, ShowMore } from '../core/ListState.tsx';
import { linkProps, navigate } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import { ProjectDialog, type DialogState } from './ProjectDialogs.tsx';
import {
  listProjectsPlain,
  listProjectsWithStats,
  projectsActivity,
  PROJECTS_PAGE,
  type ProjectsActivity,
} from './projectsApi.ts';
import { Sparkline } from './Sparkline.tsx';
import './projects.css';

/** The last answer of a read, kept while it is read again (a change reloads without blanking the table). */
function useLast<T>(load: { state: string; value?: T }): T | undefined {
  const last = useRef<T | undefined>(undefined);
  if (load.state === 'done') last.current = load.value;
  return last.current;
}

/** The value once it has stopped changing for `ms` (a search typed key by key reads once). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

const COLUMNS: Column[] = [
  'Name',
  { label: 'Activity (7 days)', title: 'Traces per 6 hours over the last 7 days' },
  { label: 'Runs', num: true },
  { label: 'Error rate', num: true },
  { label: 'p50', num: true },
  { label: 'p99', num: true },
  { label: 'Tokens', num: true },
  'Last activity',
  { label: '', ariaLabel: 'Actions' },
];

export function ProjectsPage({ credentials, search }: { credentials: Credentials; search: string }) {
  const [version, setVersion] = useState(0);
  const [dialog, setDialog] = useState<DialogState | null>(null);
  const query = useSettled(search.trim(), 250);
  const view = `${credentials.apiKey}|${credentials.workspaceId}|${query}|${version}`;
  /** How many projects each page read of this view holds (undefined while it is read), by page: a new view starts again at one page. */
  const [paged, setPaged] = useState<{ view: string; sizes: (number | undefined)[] }>({ view, sizes: [undefined] });
  const sizes = paged.view === view ? paged.sizes : [undefined];
  const setSizes = (update: (all: (number | undefined)[]) => (number | undefined)[]) =>
    setPaged((current) => ({ view, sizes: update(current.view === view ? current.sizes : [undefined]) }));
  const changed = () => {
    setDialog(null);
    setVersion((v) => v + 1);
  };
  const first = sizes[0];
  const last = sizes[sizes.length - 1];

  return (
    <section>
      <div className="page-head">
        <h2>Projects</h2>
        <div className="page-actions">
          <input
            className="search"
            data-testid="project-search"
            type="search"
            placeholder="Search projects by name"
            value={search}
            onChange={(e) => navigate({ page: 'projects', search: e.target.value }, { replace: true })}
          />
          <button
            type="button"
            className="primary"
            data-testid="project-new"
            onClick={() => setDialog({ kind: 'create' })}
          >
            New project
          </button>
        </div>
      </div>
      {first === 0 && !query && <EmptyState />}
      {first === 0 && query && (
        <p className="muted" data-testid="projects-no-match">
          No project name contains “{query}”.
        </p>
      )}
      {/* Read a hundred at a time (ProjectsChunk): each chunk says its own loading and errors. */}
      <ListTable testId="projects-table" columns={COLUMNS} hidden={first === 0}>
        {sizes.map((_, i) => (
          <ProjectsChunk
            key={`${view}|${i}`}
            credentials={credentials}
            offset={i * PROJECTS_PAGE}
            search={query}
            onSize={(n) => setSizes((all) => all.map((size, j) => (j === i ? n : size)))}
            onAction={setDialog}
          />
        ))}
      </ListTable>
      {last === PROJECTS_PAGE && (
        <ShowMore testId="projects-more" what="projects" onMore={() => setSizes((all) => [...all, undefined])} />
      )}
      {dialog && (
        <ProjectDialog credentials={credentials} dialog={dialog} onDone={changed} onCancel={() => setDialog(null)} />
      )}
    </section>
  );
}

/** A hundred projects: their rows at once, then their statistics and activity (one read each). */
function ProjectsChunk({
  credentials,
  offset,
  search,
  onSize,
  onAction,
}: {
  credentials: Credentials;
  offset: number;
  search: string;
  onSize: (n: number) => void;
  onAction: (dialog: DialogState) => void;
}) {
  const plainLoad = useLoad(() => listProjectsPlain(credentials, offset, search), []);
  const statsLoad = useLoad(() => listProjectsWithStats(credentials, offset, search), []);
  const projects = plainLoad.state === 'done' ? plainLoad.value : undefined;
  const ids = (projects ?? []).map((p) => p.id).join(',');
  const activityLoad = useLoad<ProjectsActivity | null>(
    () => (ids ? projectsActivity(credentials, ids.split(',')) : Promise.resolve(null)),
    [ids],
  );
  useEffect(() => {
    if (projects) onSize(projects.length);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [projects]);
  const stats = useLast<Project[]>(statsLoad);
  const activity = useLast<ProjectsActivity | null>(activityLoad);
  const statsById = new Map((stats ?? []).map((p) => [p.id, p]));
  const activityById = new Map((activity?.projects ?? []).map((a) => [a.session_id, a]));
  const failure: ApiError | null =
    plainLoad.state === 'error'
      ? plainLoad.error
      : statsLoad.state === 'error'
        ? statsLoad.error
        : activityLoad.state === 'error'
          ? activityLoad.error
          : null;
  /** Reads again what failed (this hundred only: the pages shown stay). */
  const retry = () => [plainLoad, statsLoad, activityLoad].forEach((load) => load.state === 'error' && load.refresh());
  const pending = <span className="muted pending">…</span>;

  return (
    <tbody>
      {!projects && plainLoad.state === 'loading' && (
        <tr>
          <td colSpan={COLUMNS.length}>
            <Loading what="projects" />
          </td>
        </tr>
      )}
      {failure && (
        <tr>
          <td colSpan={COLUMNS.length}>
            <LoadError error={failure} onRetry={retry} />
          </td>
        </tr>
      )}
      {(projects ?? []).map((p) => {
        const s = statsById.get(p.id);
        const a = activityById.get(p.id);
        return (
          <tr key={p.id} data-testid="project-row" data-project-id={p.id} data-stats={s ? 'loaded' : 'pending'}>
            <td>
              <a
                data-testid="project-link"
                {...linkProps({ page: 'traces', projectId: p.id, filter: '', cursor: null })}
              >
                {p.name}
              </a>
            </td>
            <td className="activity-cell">
              {a && activity ? (
                <Sparkline
                  traces={a.trace_count}
                  errors={a.trace_error_count}
                  bucketStarts={activity.bucket_starts}
                  interval={activity.interval}
                />
              ) : (
                pending
              )}
            </td>
            <td className="num" data-testid="project-run-count">
              {s ? count(s.run_count) : pending}
            </td>
            <td className={`num${s?.error_rate ? ' bad' : ''}`} data-testid="project-error-rate">
              {s ? percent(s.error_rate) : pending}
            </td>
            <td className="num" data-testid="project-p50">
              {s ? seconds(s.latency_p50) : pending}
            </td>
            <td className="num" data-testid="project-p99">
              {s ? seconds(s.latency_p99) : pending}
            </td>
            <td className="num" data-testid="project-tokens">
              {s ? count(s.total_tokens) : pending}
            </td>
            <td title={s?.last_run_start_time ?? ''}>{s ? ago(s.last_run_start_time) : pending}</td>
            <td className="row-actions">
              <button
                type="button"
                className="link-button"
                data-testid="project-rename"
                onClick={() => onAction({ kind: 'rename', project: s ?? p })}
              >
                Rename
              </button>
              <button
                type="button"
                className="link-button danger-link"
                data-testid="project-delete"
                onClick={() => onAction({ kind: 'delete', project: s ?? p })}
              >
                Delete
              </button>
            </td>
          </tr>
        );
      })}
    </tbody>
  );
}

function EmptyState() {
  const origin = location.origin;
  return (
    <EmptyCard testId="projects-empty" title="No projects yet">
      <p>
        Point the <code>langsmith</code> client at this server and run your application; its traces appear here. Or
        create an empty project with New project.
      </p>
      <pre>{`export LANGSMITH_TRACING=true
export LANGSMITH_ENDPOINT=${origin}
export LANGSMITH_API_KEY=<your API key>
export LANGSMITH_PROJECT=my-project`}</pre>
    </EmptyCard>
  );
}
