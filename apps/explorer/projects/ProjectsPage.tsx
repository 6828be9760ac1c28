// Projects: every project of the workspace with its statistics (one GET /sessions?include_stats
// call), searched by name in the URL; when there is none, how to send traces here.
import { listProjects, type Credentials } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { ago, count, percent, seconds } from '../core/format.ts';
import { linkProps, navigate } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';

export function ProjectsPage({ credentials, search }: { credentials: Credentials; search: string }) {
  const load = useLoad(() => listProjects(credentials), [credentials.apiKey, credentials.workspaceId]);
  const needle = search.trim().toLowerCase();
  return (
    <section>
      <div className="page-head">
        <h2>Projects</h2>
        <input
          className="search"
          data-testid="project-search"
          type="search"
          placeholder="Search projects by name"
          value={search}
          onChange={(e) => navigate({ page: 'projects', search: e.target.value }, { replace: true })}
        />
      </div>
      {load.state === 'loading' && <p className="muted">Loading projects…</p>}
      {load.state === 'error' && <ErrorBox error={load.error} />}
      {load.state === 'done' && load.value.length === 0 && <EmptyState />}
      {load.state === 'done' && load.value.length > 0 && (
        <table className="table" data-testid="projects-table">
          <thead>
            <tr>
              <th>Name</th>
              <th className="num">Runs</th>
              <th className="num">Error rate</th>
              <th className="num">p50</th>
              <th className="num">p99</th>
              <th className="num">Tokens</th>
              <th>Last activity</th>
            </tr>
          </thead>
          <tbody>
            {load.value
              .filter((p) => !needle || p.name.toLowerCase().includes(needle))
              .map((p) => (
                <tr key={p.id} data-testid="project-row" data-project-id={p.id}>
                  <td>
                    <a data-testid="project-link" {...linkProps({ page: 'traces', projectId: p.id, filter: '', cursor: null })}>
                      {p.name}
                    </a>
                  </td>
                  <td className="num" data-testid="project-run-count">
                    {count(p.run_count)}
                  </td>
                  <td className={`num${p.error_rate ? ' bad' : ''}`}>{percent(p.error_rate)}</td>
                  <td className="num">{seconds(p.latency_p50)}</td>
                  <td className="num">{seconds(p.latency_p99)}</td>
                  <td className="num" data-testid="project-tokens">
                    {count(p.total_tokens)}
                  </td>
                  <td title={p.last_run_start_time ?? ''}>{ago(p.last_run_start_time)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function EmptyState() {
  const origin = location.origin;
  return (
    <div className="empty card" data-testid="projects-empty">
      <h3>No projects yet</h3>
      <p>Point the <code>langsmith</code> client at this server and run your application; its traces appear here.</p>
      <pre>{`export LANGSMITH_TRACING=true
export LANGSMITH_ENDPOINT=${origin}
export LANGSMITH_API_KEY=<your API key>
export LANGSMITH_PROJECT=my-project`}</pre>
    </div>
  );
}
