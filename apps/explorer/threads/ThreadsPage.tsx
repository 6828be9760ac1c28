// A project's threads (conversations: its traces sharing a thread id), most recent first, with
// the first input and the last output of each; and one thread as its turns in order, each with
// its input and output and a link to its trace. A page of threads costs two requests (the
// threads, then the previews of all of them), never one per row.
import { useState } from 'react';
import { ApiError, type Credentials } from '../core/api.ts';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { ago, count, dash, seconds, when } from '../core/format.ts';
import { EmptyCard, ListState, ListTable, LoadState, type Column } from '../core/ListState.tsx';
import { ProjectHeader } from '../core/ProjectHeader.tsx';
import { DEFAULT_TIME_RANGE, linkProps, navigate, type Route, type TimeRange } from '../core/route.ts';
import { rangeLabel, rangeStart, TimeRangeSelect } from '../core/TimeRangeSelect.tsx';
import { useLoad } from '../core/useLoad.ts';
import { previewOf } from '../core/messages.ts';
import { ChatText } from './ChatText.tsx';
import { queryThreads, rootPayloads, threadStats, threadTurns, type ThreadItem } from './threadsApi.ts';
import './threads.css';

const THREAD_COLUMNS: Column[] = [
  'Thread',
  { label: 'Turns', num: true },
  'First input',
  'Last output',
  'Last activity',
  { label: 'p50', num: true },
  { label: 'p99', num: true },
  { label: 'Tokens', num: true },
  { label: 'Cost', num: true },
  { label: 'Errors', num: true },
];

const cost = (value: number | null | undefined): string =>
  value == null || value === 0 ? dash : `$${value < 0.01 ? value.toFixed(4) : value.toFixed(2)}`;

interface ThreadRows {
  /** The window's start the page was read with (the next page is read with it too). */
  since: string;
  threads: ThreadItem[];
  previews: Map<string, { inputs: unknown; outputs: unknown }>;
  next: string | null;
}

async function threadRows(
  credentials: Credentials,
  projectId: string,
  since: string,
  cursor: string | null,
): Promise<ThreadRows> {
  const page = await queryThreads(credentials, projectId, since, cursor);
  const previews = await rootPayloads(
    credentials,
    projectId,
    page.items.flatMap((t) => [t.first_trace_id, t.last_trace_id]),
  );
  return { since, threads: page.items, previews, next: page.next_cursor };
}

export function ThreadsPage({
  credentials,
  route,
}: {
  credentials: Credentials;
  route: Extract<Route, { page: 'threads' }>;
}) {
  const first = useLoad(
    () => threadRows(credentials, route.projectId, rangeStart(route.range), null),
    [credentials, route.projectId, route.range],
  );
  // Pages read with the More button, for the view they were read in.
  const key = `${route.projectId}|${route.range}`;
  const [more, setMore] = useState<{ key: string; pages: ThreadRows[] }>({ key, pages: [] });
  const [moreError, setMoreError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const pages = first.state === 'done' ? [first.value, ...(more.key === key ? more.pages : [])] : [];
  const threads = pages.flatMap((p) => p.threads);
  const previews = new Map(pages.flatMap((p) => [...p.previews]));
  const last = pages[pages.length - 1];
  const loadMore = async () => {
    if (!last?.next) return;
    setBusy(true);
    setMoreError(null);
    try {
      const page = await threadRows(credentials, route.projectId, last.since, last.next);
      setMore({ key, pages: [...(more.key === key ? more.pages : []), page] });
    } catch (err) {
      setMoreError(err instanceof ApiError ? err : new ApiError(0, 'ERROR', String(err)));
    } finally {
      setBusy(false);
    }
  };
  const setRange = (range: TimeRange) => navigate({ ...route, range }, { replace: true });

  return (
    <section>
      <ProjectHeader credentials={credentials} projectId={route.projectId} tab="threads" />
      <div className="view-bar">
        <p className="muted">
          Conversations: traces of this project that share a thread id, with activity in the range.
        </p>
        <TimeRangeSelect value={route.range} onChange={setRange} />
      </div>
      <ListState
        load={first}
        what="threads"
        onRetry={first.refresh}
        isEmpty={() => threads.length === 0}
        empty={<EmptyThreads range={route.range} />}
      >
        {() => (
          <ListTable testId="threads-table" className="table threads-table" columns={THREAD_COLUMNS}>
            <tbody>
              {threads.map((t) => (
                <tr key={t.thread_id} data-testid="thread-row" data-thread-id={t.thread_id}>
                  <td className="thread-id">
                    <a
                      data-testid="thread-link"
                      title={t.thread_id}
                      {...linkProps({ page: 'thread', projectId: route.projectId, threadId: t.thread_id })}
                    >
                      {t.thread_id}
                    </a>
                  </td>
                  <td className="num" data-testid="thread-turns">
                    {count(t.count)}
                  </td>
                  <td className="preview" data-testid="thread-first-input">
                    {previewOf(previews.get(t.first_trace_id)?.inputs)}
                  </td>
                  <td className="preview" data-testid="thread-last-output">
                    {previewOf(previews.get(t.last_trace_id)?.outputs)}
                  </td>
                  <td title={t.last_activity}>{ago(t.last_activity)}</td>
                  <td className="num">{seconds(t.latency_p50)}</td>
                  <td className="num">{seconds(t.latency_p99)}</td>
                  <td className="num">{count(t.total_tokens)}</td>
                  <td className="num">{cost(t.total_cost)}</td>
                  <td className={`num${t.num_errored_turns ? ' bad' : ''}`}>{count(t.num_errored_turns)}</td>
                </tr>
              ))}
            </tbody>
          </ListTable>
        )}
      </ListState>
      {moreError && <ErrorBox error={moreError} />}
      {last?.next && (
        <div className="pager">
          <button type="button" className="ghost" data-testid="threads-more" disabled={busy} onClick={loadMore}>
            {busy ? 'Loading…' : 'More threads'}
          </button>
        </div>
      )}
    </section>
  );
}

function EmptyThreads({ range }: { range: TimeRange }) {
  return (
    <EmptyCard testId="threads-empty" title={`No threads in the ${rangeLabel(range).toLowerCase()}`}>
      <p>
        A thread groups the traces of one conversation. Give each trace of a conversation the same id in its metadata,
        under <code>session_id</code>, <code>thread_id</code> or <code>conversation_id</code>; each trace then shows
        here as one turn.
      </p>
      <pre>{`import { traceable } from "langsmith/traceable";

const chat = traceable(async (messages) => { /* … */ }, { name: "chat" });
await chat(messages, { metadata: { thread_id: conversationId } });  // langsmith_extra in Python`}</pre>
    </EmptyCard>
  );
}

export function ThreadPage({
  credentials,
  route,
}: {
  credentials: Credentials;
  route: Extract<Route, { page: 'thread' }>;
}) {
  const turns = useLoad(
    () => threadTurns(credentials, route.projectId, route.threadId),
    [credentials, route.projectId, route.threadId],
  );
  const stats = useLoad(
    () => threadStats(credentials, route.projectId, route.threadId),
    [credentials, route.projectId, route.threadId],
  );
  return (
    <section>
      <ProjectHeader
        credentials={credentials}
        projectId={route.projectId}
        tab="threads"
        trail={
          <>
            <a {...linkProps({ page: 'threads', projectId: route.projectId, range: DEFAULT_TIME_RANGE })}>Threads</a> /{' '}
            <span data-testid="thread-id">{route.threadId}</span>
          </>
        }
      />
      {stats.state === 'error' && <ErrorBox error={stats.error} />}
      {stats.state === 'done' && (
        <dl className="summary" data-testid="thread-summary">
          <div>
            <dt>Turns</dt>
            <dd>{count(stats.value.turns)}</dd>
          </div>
          <div>
            <dt>Started</dt>
            <dd>{when(stats.value.first_start_time)}</dd>
          </div>
          <div>
            <dt>Latency p50 / p99</dt>
            <dd>
              {seconds(stats.value.latency_p50_seconds)} / {seconds(stats.value.latency_p99_seconds)}
            </dd>
          </div>
          <div>
            <dt>Tokens</dt>
            <dd>{count(stats.value.total_tokens)}</dd>
          </div>
          <div>
            <dt>Cost</dt>
            <dd>{cost(stats.value.total_cost)}</dd>
          </div>
          <div>
            <dt>Errored turns</dt>
            <dd className={stats.value.num_errored_turns ? 'bad' : ''}>{count(stats.value.num_errored_turns)}</dd>
          </div>
        </dl>
      )}
      <LoadState
        load={turns}
        what="turns"
        onRetry={turns.refresh}
        // One box for the thread: the summary's error says it (an unknown thread fails both reads).
        error={() => (stats.state === 'error' ? null : undefined)}
      >
        {(value) => (
          <ol className="turns" data-testid="turns">
            {value.turns.map((t) => (
              <li key={t.trace_id} className="turn card" data-testid="turn" data-trace-id={t.trace_id}>
                <header className="turn-head">
                  <span className="turn-number">Turn {t.turn_number}</span>
                  <span className="turn-name">{t.name}</span>
                  <span className={`status status-${t.status}`}>{t.status}</span>
                  <span className="muted">{when(t.start_time)}</span>
                  <span className="turn-figures muted">
                    {seconds(t.latency)} · {count(t.total_tokens)} tokens
                    {t.total_cost ? ` · ${cost(t.total_cost)}` : ''}
                  </span>
                  <a
                    className="turn-trace"
                    data-testid="turn-trace-link"
                    {...linkProps({ page: 'trace', projectId: route.projectId, traceId: t.trace_id, runId: null })}
                  >
                    Open trace →
                  </a>
                </header>
                <div className="turn-body">
                  <div>
                    <h4>Input</h4>
                    <ChatText payload={t.inputs} testId="turn-input" />
                  </div>
                  <div>
                    <h4>Output</h4>
                    {t.error ? (
                      <pre className="error-text">{t.error}</pre>
                    ) : (
                      <ChatText payload={t.outputs} testId="turn-output" />
                    )}
                  </div>
                </div>
              </li>
            ))}
          </ol>
        )}
      </LoadState>
      {turns.state === 'done' && turns.value.more && (
        <p className="muted">Only the first {turns.value.turns.length} turns are shown.</p>
      )}
    </section>
  );
}
