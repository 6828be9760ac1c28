// "Send to annotation queue" for runs (a run's detail, the traces table's checked traces): pick a
// queue (searched by name) and add the runs to it (POST /annotation-queues/{id}/runs; a run
// already there keeps its place). Once sent, the dialog says so and links to the queue's review.
import { useState, type FormEvent } from 'react';
import type { Credentials } from '../core/api.ts';
import { Buttons, Dialog, useSubmit } from '../core/Dialog.tsx';
import { ErrorBox } from '../core/ErrorBox.tsx';
import { count } from '../core/format.ts';
import { linkProps } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import { useSettledSearch } from '../core/usePagedLoad.ts';
import { type AnnotationQueue, listQueues, sendRuns } from './queuesApi.ts';

export function SendToQueueDialog({
  credentials,
  runIds,
  onCancel,
}: {
  credentials: Credentials;
  runIds: readonly string[];
  onCancel: () => void;
}) {
  const [search, setSearch] = useState('');
  const [chosen, setChosen] = useState('');
  const { busy, error, run } = useSubmit();
  const [sent, setSent] = useState<AnnotationQueue | null>(null);
  const query = useSettledSearch(search);
  const queues = useLoad(() => listQueues(credentials, 0, query), [credentials.apiKey, credentials.workspaceId, query]);
  const options = queues.state === 'done' ? queues.value : [];
  const value = options.some((q) => q.id === chosen) ? chosen : (options[0]?.id ?? '');
  const target = options.find((q) => q.id === value) ?? null;
  const what = runIds.length === 1 ? 'the run' : `${count(runIds.length)} runs`;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!target) return;
    await run(async () => {
      await sendRuns(credentials, target.id, [...runIds]);
      setSent(target);
    });
  };

  if (sent)
    return (
      <Dialog title="Sent to annotation queue" onCancel={onCancel}>
        <p data-testid="sent-to-queue">
          Sent {what} to{' '}
          <a data-testid="sent-queue-link" {...linkProps({ page: 'annotationQueueReview', queueId: sent.id })}>
            {sent.name}
          </a>
          {runIds.length === 1 ? '' : ' (a run already there keeps its place)'}.
        </p>
        <div className="dialog-buttons">
          <button type="button" className="primary" data-testid="dialog-close" onClick={onCancel} autoFocus>
            Close
          </button>
        </div>
      </Dialog>
    );
  return (
    <Dialog title="Send to annotation queue" onCancel={onCancel}>
      <form onSubmit={submit}>
        <p className="muted">Add {what} to a queue for people to review against its rubric.</p>
        <label>
          Queue
          <input
            type="search"
            data-testid="queue-picker-search"
            placeholder="Search queues by name"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
        </label>
        <select
          data-testid="queue-picker"
          aria-label="Annotation queue"
          size={Math.min(6, Math.max(2, options.length))}
          value={value}
          onChange={(e) => setChosen(e.target.value)}
        >
          {options.map((q) => (
            <option key={q.id} value={q.id}>
              {q.name} — {count(q.pending_runs)} pending
            </option>
          ))}
        </select>
        {queues.state === 'done' && options.length === 0 && (
          <p className="muted" data-testid="queue-picker-empty">
            {query ? (
              `No queue name contains “${query}”.`
            ) : (
              <>
                No annotation queues yet: <a {...linkProps({ page: 'annotationQueues', search: '' })}>create one</a>.
              </>
            )}
          </p>
        )}
        {queues.state === 'error' && <ErrorBox error={queues.error} />}
        {error && <ErrorBox error={error} />}
        <Buttons onCancel={onCancel}>
          <button type="submit" className="primary" data-testid="dialog-confirm" disabled={busy || !target}>
            {busy ? 'Sending…' : target ? `Send to ${target.name}` : 'Send'}
          </button>
        </Buttons>
      </form>
    </Dialog>
  );
}
