// Projects: every project of the workspace with its statistics and a chart of its activity,
// searched by name in the URL; created, renamed and deleted (after a confirmation naming it).
// The list comes first (GET /sessions, from the project registry) and the figures fill in when
// their reads answer (GET /sessions?include_stats, and one POST /sessions/activity for all
// listed projects): slow statistics never hold the list back (Phoenix #6868).
import { useRef, useState } from 'react';
import type { Credentials, Project } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { ago, count, percent, seconds } from '../core/format.ts';
import { linkProps, navigate } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import { ProjectDialog, type DialogState } from './ProjectDialogs.tsx';
import { listProjectsPlain, listProjectsWithStats, projectsActivity, type ProjectsActivity } from './projectsApi.ts';
import { Sparkline } from './Sparkline.tsx';
import './projects.css';

/** The last answer of a read, kept while it is read again (a change reloads without blanking the table). */
function useLast<T>(load: { state: string; value?: T }): T | undefined {
  const last = useRef<T | undefined>(undefined);
  if (load.state === 'done') last.current = load.value;
  return last.current;
}

export function ProjectsPage({ credentials, search }: { credentials: Credentials; search: string }) {
  const [version, setVersion] = useState(0);
  const [dialog, setDialog] = useState<DialogState | null>(null);
  const inputs = [credentials.apiKey, credentials.workspaceId, version];
  const plainLoad = useLoad(() => listProjectsPlain(credentials), inputs);
  const statsLoad = useLoad(() => listProjectsWithStats(credentials), inputs);
  const projects = useLast<Project[]>(plainLoad);
  const stats = useLast<Project[]>(statsLoad);
  const ids = (projects ?? []).map((p) => p.id).join(',');
  const activityLoad = useLoad<ProjectsActivity | null>(() => (ids ? projectsActivity(credentials, ids.split(',')) : Promise.resolve(null)), [ids, credentials.apiKey, credentials.workspaceId]);
  const activity = useLast<ProjectsActivity | null>(activityLoad);

  const statsById = new Map((stats ?? []).map((p) => [p.id, p]));
  const activityById = new Map((activity?.projects ?? []).map((a) => [a.session_id, a]));
  const needle = search.trim().toLowerCase();
  const shown = (projects ?? []).filter((p) => !needle || p.name.toLowerCase().includes(needle));
  const changed = () => {
    setDialog(null);
    setVersion((v) => v + 1);
  };

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
          <button type="button" className="primary" data-testid="project-new" onClick={() => setDialog({ kind: 'create' })}>
            New project
          </button>
        </div>
      </div>
      {!projects && plainLoad.state === 'loading' && <p className="muted">Loading projects…</p>}
      {plainLoad.state === 'error' && <ErrorBox error={plainLoad.error} />}
      {statsLoad.state === 'error' && plainLoad.state !== 'error' && <ErrorBox error={statsLoad.error} />}
      {activityLoad.state === 'error' && <ErrorBox error={activityLoad.error} />}
      {projects && projects.length === 0 && <EmptyState />}
      {projects && projects.length > 0 && shown.length === 0 && (
        <p className="muted" data-testid="projects-no-match">
          No project name contains “{search.trim()}”.
        </p>
      )}
      {shown.length > 0 && (
        <table className="table" data-testid="projects-table">
          <thead>
            <tr>
              <th>Name</th>
              <th title={activity ? `Traces per ${activity.interval}, last 7 days` : 'Traces over the last 7 days'}>Activity (7 days)</th>
              <th className="num">Runs</th>
              <th className="num">Error rate</th>
              <th className="num">p50</th>
              <th className="num">p99</th>
              <th className="num">Tokens</th>
              <th>Last activity</th>
              <th aria-label="Actions" />
            </tr>
          </thead>
          <tbody>
            {shown.map((p) => {
              const s = statsById.get(p.id);
              const a = activityById.get(p.id);
              const pending = <span className="muted pending">…</span>;
              return (
                <tr key={p.id} data-testid="project-row" data-project-id={p.id} data-stats={s ? 'loaded' : 'pending'}>
                  <td>
                    <a data-testid="project-link" {...linkProps({ page: 'traces', projectId: p.id, filter: '', cursor: null })}>
                      {p.name}
                    </a>
                  </td>
                  <td className="activity-cell">
                    {a && activity ? <Sparkline traces={a.trace_count} errors={a.trace_error_count} bucketStarts={activity.bucket_starts} interval={activity.interval} /> : pending}
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
                    <button type="button" className="link-button" data-testid="project-rename" onClick={() => setDialog({ kind: 'rename', project: s ?? p })}>
                      Rename
                    </button>
                    <button type="button" className="link-button danger-link" data-testid="project-delete" onClick={() => setDialog({ kind: 'delete', project: s ?? p })}>
                      Delete
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {dialog && <ProjectDialog credentials={credentials} dialog={dialog} onDone={changed} onCancel={() => setDialog(null)} />}
    </section>
  );
}

function EmptyState() {
  const origin = location.origin;
  return (
    <div className="empty card" data-testid="projects-empty">
      <h3>No projects yet</h3>
      <p>Point the <code>langsmith</code> client at this server and run your application; its traces appear here. Or create an empty project with New project.</p>
      <pre>{`export LANGSMITH_TRACING=true
export LANGSMITH_ENDPOINT=${origin}
export LANGSMITH_API_KEY=<your API key>
export LANGSMITH_PROJECT=my-project`}</pre>
    </div>
  );
}
