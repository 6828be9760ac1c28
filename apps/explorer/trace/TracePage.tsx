// One trace: its runs as a tree (indented, in tree order: dotted_order sorts a trace's runs
// parent before child, siblings by start), and the selected run's detail (j/k or the arrow keys
// move through the tree). The trace and the selected run are in the URL. RunRedirect resolves a run link (/projects/:p/runs/:r, where the
// API sends the clients' getRunUrl links) to its trace, polling while the run is not projected.
import { useEffect, useState, type ReactNode } from 'react';
import { ApiError, getRun, queryRuns, type Credentials, type Run } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { ProjectHeader } from '../core/ProjectHeader.tsx';
import { count, latencyOf, seconds, when } from '../core/format.ts';
import { linkProps, navigate, type Route } from '../core/route.ts';
import { Status } from '../traces/TracesPage.tsx';
import { useLoad } from '../core/useLoad.ts';

/** Pages of 100 runs (the API's page size): a trace of up to 10,000 runs is read whole. */
const MAX_PAGES = 100;
const SELECT = [
  'id', 'trace_id', 'name', 'run_type', 'status', 'start_time', 'end_time', 'dotted_order', 'parent_run_id', 'inputs', 'outputs',
  'error', 'tags', 'extra', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'total_cost',
];

async function traceRuns(credentials: Credentials, projectId: string, traceId: string): Promise<Run[]> {
  const runs: Run[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await queryRuns(credentials, { session: [projectId], trace: traceId, order: 'asc', limit: 100, cursor, select: SELECT });
    runs.push(...answer.runs);
    cursor = answer.cursors.next;
    if (!cursor) break;
  }
  return runs.sort((a, b) => (a.dotted_order ?? '').localeCompare(b.dotted_order ?? ''));
}

const depthOf = (run: Run) => (run.dotted_order ? run.dotted_order.split('.').length - 1 : 0);

export function TracePage({ credentials, route }: { credentials: Credentials; route: Extract<Route, { page: 'trace' }> }) {
  const { projectId, traceId, runId } = route;
  const load = useLoad(() => traceRuns(credentials, projectId, traceId), [credentials, projectId, traceId]);
  const select = (id: string) => navigate({ page: 'trace', projectId, traceId, runId: id }, { replace: true });
  // j/k or the arrow keys move through the tree (not while typing in a field).
  useEffect(() => {
    if (load.state !== 'done') return;
    const onKey = (e: KeyboardEvent) => {
      if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement || e.metaKey || e.ctrlKey || e.altKey) return;
      const step = e.key === 'j' || e.key === 'ArrowDown' ? 1 : e.key === 'k' || e.key === 'ArrowUp' ? -1 : 0;
      if (!step) return;
      e.preventDefault();
      const runs = load.value;
      const at = Math.max(0, runs.findIndex((r) => r.id === runId));
      const next = runs[Math.min(runs.length - 1, Math.max(0, at + step))];
      if (next) select(next.id);
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  });

  if (load.state === 'loading') return <p className="muted">Loading trace…</p>;
  if (load.state === 'error') return <ErrorBox error={load.error} />;
  const runs = load.value;
  if (runs.length === 0) return <p className="empty card">This trace has no runs (yet): its runs may still be on their way.</p>;
  const selected = runs.find((r) => r.id === runId) ?? runs[0]!;
  const root = runs[0]!;
  return (
    <section>
      <ProjectHeader credentials={credentials} projectId={projectId} tab="traces" trail={<span data-testid="trace-name">{root.name}</span>} />
      <div className="trace-layout">
        <ol className="run-tree card" data-testid="run-tree">
          {runs.map((run) => (
            <li key={run.id}>
              <button
                type="button"
                data-testid="tree-run"
                data-run-id={run.id}
                className={`tree-row${run.id === selected.id ? ' selected' : ''}`}
                style={{ paddingLeft: 10 + depthOf(run) * 18 }}
                onClick={() => select(run.id)}
              >
                <span className={`dot status-${run.status ?? 'pending'}`} />
                <span className="run-name">{run.name}</span>
                <span className="run-type">{run.run_type}</span>
                <span className="run-latency">{seconds(latencyOf(run.start_time, run.end_time))}</span>
              </button>
            </li>
          ))}
        </ol>
        <RunDetail run={selected} />
      </div>
    </section>
  );
}

function RunDetail({ run }: { run: Run }) {
  const metadata = run.extra?.metadata;
  return (
    <article className="run-detail card" data-testid="run-detail" data-run-id={run.id}>
      <header>
        <h2 data-testid="run-detail-name">{run.name}</h2>
        <Status status={run.status} />
        <span className="run-type">{run.run_type}</span>
      </header>
      <dl className="facts">
        <dt>Start</dt>
        <dd>{when(run.start_time)}</dd>
        <dt>Latency</dt>
        <dd>{seconds(latencyOf(run.start_time, run.end_time))}</dd>
        <dt>Tokens</dt>
        <dd data-testid="run-tokens">
          {count(run.total_tokens)}
          {run.total_tokens != null && ` (${count(run.prompt_tokens)} prompt, ${count(run.completion_tokens)} completion)`}
        </dd>
        <dt>Run id</dt>
        <dd>
          <code>{run.id}</code>
        </dd>
      </dl>
      {run.tags && run.tags.length > 0 && (
        <div className="tags">
          {run.tags.map((t) => (
            <span className="tag" key={t}>
              {t}
            </span>
          ))}
        </div>
      )}
      {run.error && (
        <Block title="Error">
          <pre className="error-text" data-testid="run-error">
            {run.error}
          </pre>
        </Block>
      )}
      <Block title="Inputs">
        <Json value={run.inputs} testId="run-inputs" />
      </Block>
      <Block title="Outputs">
        <Json value={run.outputs} testId="run-outputs" />
      </Block>
      {metadata && Object.keys(metadata).length > 0 && (
        <Block title="Metadata">
          <Json value={metadata} testId="run-metadata" />
        </Block>
      )}
    </article>
  );
}

const Block = ({ title, children }: { title: string; children: ReactNode }) => (
  <section className="block">
    <h3>{title}</h3>
    {children}
  </section>
);

const Json = ({ value, testId }: { value: unknown; testId: string }) => (
  <pre className="json" data-testid={testId}>
    {value === undefined || value === null ? '—' : JSON.stringify(value, null, 2)}
  </pre>
);

/** How long a run link waits for its run to be projected (the clients print the link as they send the run). */
const POLL_ATTEMPTS = 30;
const POLL_INTERVAL_MS = 1000;

export function RunRedirect({ credentials, route }: { credentials: Credentials; route: Extract<Route, { page: 'run' }> }) {
  const { projectId, runId } = route;
  const [error, setError] = useState<ApiError | null>(null);
  useEffect(() => {
    let live = true;
    (async () => {
      for (let attempt = 1; live; attempt++) {
        try {
          const run = await getRun(credentials, runId);
          if (live) navigate({ page: 'trace', projectId: run.session_id ?? projectId, traceId: run.trace_id, runId }, { replace: true });
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
