// A project's traces: its root runs, newest first, a page at a time (POST /runs/query with
// is_root and keyset cursors), narrowed by the LangSmith filter language; a filter the API
// refuses shows the API's message under the box. Filter and page live in the URL.
import { useEffect, useRef, useState } from 'react';
import { queryRuns, type Credentials } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { ProjectHeader } from '../core/ProjectHeader.tsx';
import { count, latencyOf, seconds, when } from '../core/format.ts';
import { linkProps, navigate, type Route } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';

const PAGE_SIZE = 25;
const SELECT = ['id', 'trace_id', 'name', 'run_type', 'status', 'start_time', 'end_time', 'total_tokens', 'tags', 'error'];

export function TracesPage({ credentials, route }: { credentials: Credentials; route: Extract<Route, { page: 'traces' }> }) {
  const { projectId, filter, cursor } = route;
  const runs = useLoad(
    () => queryRuns(credentials, { session: [projectId], is_root: true, filter: filter || null, cursor, limit: PAGE_SIZE, select: SELECT }),
    [credentials, projectId, filter, cursor],
  );
  // The cursors of the pages before this one (the API pages forward only), for "Newer".
  const previous = useRef<(string | null)[]>([]);
  const [draft, setDraft] = useState(filter);
  useEffect(() => setDraft(filter), [filter]);

  const go = (next: { filter?: string; cursor: string | null }) => navigate({ page: 'traces', projectId, filter: next.filter ?? filter, cursor: next.cursor });
  const filterError = runs.state === 'error' && runs.error.code === 'INVALID_FILTER' ? runs.error : null;

  return (
    <section>
      <ProjectHeader credentials={credentials} projectId={projectId} tab="traces" />
      <form
        className="filter-bar"
        onSubmit={(e) => {
          e.preventDefault();
          previous.current = [];
          go({ filter: draft.trim(), cursor: null });
        }}
      >
        <input
          data-testid="filter-input"
          className={filterError ? 'invalid' : ''}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          placeholder={`Filter, e.g. eq(status, "error") or has(tags, "prod") or search("weather")`}
          spellCheck={false}
        />
        <button type="submit" className="primary" data-testid="filter-apply">
          Apply
        </button>
        {filter && (
          <button
            type="button"
            className="ghost"
            onClick={() => {
              previous.current = [];
              go({ filter: '', cursor: null });
            }}
          >
            Clear
          </button>
        )}
      </form>
      {filterError && (
        <p className="filter-error" role="alert" data-testid="filter-error">
          {filterError.message}
        </p>
      )}
      {runs.state === 'loading' && <p className="muted">Loading traces…</p>}
      {runs.state === 'error' && !filterError && <ErrorBox error={runs.error} />}
      {runs.state === 'done' && runs.value.runs.length === 0 && (
        <p className="empty card" data-testid="traces-empty">
          {filter ? 'No trace matches this filter.' : 'No traces in this project yet: traces sent to it appear here.'}
        </p>
      )}
      {runs.state === 'done' && runs.value.runs.length > 0 && (
        <>
          <table className="table" data-testid="traces-table">
            <thead>
              <tr>
                <th>Name</th>
                <th>Status</th>
                <th className="num">Latency</th>
                <th className="num">Tokens</th>
                <th>Start time</th>
                <th>Tags</th>
              </tr>
            </thead>
            <tbody>
              {runs.value.runs.map((run) => (
                <tr key={run.id} data-testid="trace-row" data-run-id={run.id}>
                  <td>
                    <a data-testid="trace-link" {...linkProps({ page: 'trace', projectId, traceId: run.trace_id, runId: null })}>
                      {run.name}
                    </a>
                  </td>
                  <td>
                    <Status status={run.status} />
                  </td>
                  <td className="num">{seconds(latencyOf(run.start_time, run.end_time))}</td>
                  <td className="num">{count(run.total_tokens)}</td>
                  <td>{when(run.start_time)}</td>
                  <td>
                    {(run.tags ?? []).map((t) => (
                      <span className="tag" key={t}>
                        {t}
                      </span>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="pager">
            <button
              type="button"
              className="ghost"
              data-testid="page-newer"
              disabled={!cursor}
              onClick={() => go({ cursor: previous.current.pop() ?? null })}
            >
              ← Newer
            </button>
            <button
              type="button"
              className="ghost"
              data-testid="page-older"
              disabled={!runs.value.cursors.next}
              onClick={() => {
                previous.current.push(cursor);
                go({ cursor: runs.value.cursors.next });
              }}
            >
              Older →
            </button>
          </div>
        </>
      )}
    </section>
  );
}

export function Status({ status }: { status: string | undefined }) {
  const s = status ?? 'pending';
  return <span className={`status status-${s}`}>{s}</span>;
}
