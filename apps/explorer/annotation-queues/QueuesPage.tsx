// Annotation queues: every queue of the workspace with its rubric's keys, how many runs it holds
// and how many still need a review, searched by name in the URL (by the API: name_contains);
// created and edited (name, description, rubric, default dataset, reviewers per run) and deleted
// after a confirmation naming it; each opens its reviewer's page. A hundred at a time.
import { useState } from 'react';
import type { Credentials } from '../core/api.ts';
import { ago, count } from '../core/format.ts';
import { EmptyCard, ListState, ListTable, type Column, ShowMore } from '../core/ListState.tsx';
import { linkProps, navigate } from '../core/route.ts';
import { usePagedLoad, useSettledSearch } from '../core/usePagedLoad.ts';
import { QueueDialog, type QueueDialogState } from './QueueDialogs.tsx';
import { listQueues, QUEUES_PAGE } from './queuesApi.ts';
import './annotationQueues.css';

const COLUMNS: Column[] = [
  'Name',
  'Rubric',
  { label: 'Runs', num: true, title: 'Runs in the queue' },
  { label: 'Pending', num: true, title: 'Runs that still need a review' },
  'Updated',
  { label: '', ariaLabel: 'Actions' },
];

export function QueuesPage({ credentials, search }: { credentials: Credentials; search: string }) {
  const [version, setVersion] = useState(0);
  const [dialog, setDialog] = useState<QueueDialogState | null>(null);
  const query = useSettledSearch(search);
  const load = usePagedLoad(async (offset) => ({ items: await listQueues(credentials, offset, query) }), QUEUES_PAGE, [
    credentials.apiKey,
    credentials.workspaceId,
    query,
    version,
  ]);
  const changed = () => {
    setDialog(null);
    setVersion((v) => v + 1);
  };

  return (
    <section>
      <div className="page-head">
        <h2>Annotation queues</h2>
        <div className="page-actions">
          <input
            className="search"
            data-testid="queue-search"
            type="search"
            placeholder="Search queues by name"
            value={search}
            onChange={(e) => navigate({ page: 'annotationQueues', search: e.target.value }, { replace: true })}
          />
          <button
            type="button"
            className="primary"
            data-testid="queue-new"
            onClick={() => setDialog({ kind: 'create' })}
          >
            New queue
          </button>
        </div>
      </div>
      <ListState
        load={load}
        what="annotation queues"
        onRetry={load.refresh}
        isEmpty={(v) => v.items.length === 0}
        empty={
          query ? (
            <p className="muted" data-testid="queues-no-match">
              No queue name contains “{query}”.
            </p>
          ) : (
            <EmptyState />
          )
        }
      >
        {({ items: queues, more }) => (
          <>
            <ListTable testId="queues-table" columns={COLUMNS} className="table queues-table">
              <tbody>
                {queues.map((q) => (
                  <tr key={q.id} data-testid="queue-row" data-queue-id={q.id}>
                    <td>
                      <a data-testid="queue-name" {...linkProps({ page: 'annotationQueueReview', queueId: q.id })}>
                        {q.name}
                      </a>
                      {q.description && <div className="muted queue-description">{q.description}</div>}
                    </td>
                    <td data-testid="queue-rubric">
                      {q.rubric_items.length === 0 ? (
                        <span className="muted">no rubric</span>
                      ) : (
                        q.rubric_items.map((item) => (
                          <span key={item.feedback_key} className="tag" title={item.description ?? undefined}>
                            {item.feedback_key}
                          </span>
                        ))
                      )}
                    </td>
                    <td className="num" data-testid="queue-total">
                      {count(q.total_runs)}
                    </td>
                    <td className="num" data-testid="queue-pending">
                      {count(q.pending_runs)}
                    </td>
                    <td title={q.updated_at}>{ago(q.updated_at)}</td>
                    <td className="row-actions">
                      <a
                        className="link-button"
                        data-testid="queue-review"
                        {...linkProps({ page: 'annotationQueueReview', queueId: q.id })}
                      >
                        Review
                      </a>
                      <button
                        type="button"
                        className="link-button"
                        data-testid="queue-edit"
                        onClick={() => setDialog({ kind: 'edit', queue: q })}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        className="link-button danger-link"
                        data-testid="queue-delete"
                        onClick={() => setDialog({ kind: 'delete', queue: q })}
                      >
                        Delete
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </ListTable>
            {more && <ShowMore testId="queues-more" what="queues" onMore={load.showMore} />}
          </>
        )}
      </ListState>
      {dialog && (
        <QueueDialog credentials={credentials} dialog={dialog} onDone={changed} onCancel={() => setDialog(null)} />
      )}
    </section>
  );
}

function EmptyState() {
  const origin = location.origin;
  return (
    <EmptyCard testId="queues-empty" title="No annotation queues yet">
      <p>
        A queue holds runs for people to review against a rubric: the feedback keys to score and what their scores mean.
        Create one here with New queue, then send runs to it from a project's traces (check them) or from a run's
        detail; or from the <code>langsmith</code> client:
      </p>
      <pre>{`import { Client } from "langsmith";
const client = new Client({ apiUrl: "${origin}", apiKey: "<your API key>" });
const queue = await client.createAnnotationQueue({ name: "answers to check" });
await client.addRunsToAnnotationQueue(queue.id, [runId]);`}</pre>
    </EmptyCard>
  );
}
