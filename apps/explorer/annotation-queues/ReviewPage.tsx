// A reviewer's page of an annotation queue: the run at a place in my to-do (GET
// /annotation-queues/{id}/run/{index}; 0 is the next needing my review), how many are left of the
// queue's runs, Previous/Next through the to-do, and the run's review (ReviewItem.tsx). A submit
// takes the run out of my to-do, so the same place then holds the next one. Past the last run:
// back to the first I skipped; with none left, the end of the queue for me. A place whose run
// cannot be read (the API answers 404) is passed over.
import { useRef, useState } from 'react';
import { ApiError, type Credentials } from '../core/api.ts';
import { count } from '../core/format.ts';
import { EmptyCard, LoadError, LoadState } from '../core/ListState.tsx';
import { linkProps } from '../core/route.ts';
import { useLoad } from '../core/useLoad.ts';
import {
  type AnnotationQueue,
  type FeedbackConfig,
  getQueue,
  listFeedbackConfigs,
  type QueueRun,
  todoRun,
  todoSize,
} from './queuesApi.ts';
import { type Reviewed, ReviewItem } from './ReviewItem.tsx';
import './annotationQueues.css';

interface Position {
  /** Runs that still need my review. */
  left: number;
  /** Where in my to-do the run shown is. */
  at: number;
  /** The run there; null past the end of my to-do, or when none near could be read. */
  run: QueueRun | null;
  /** Places passed over because their run could not be read (not projected yet, or deleted). */
  unreadable: number;
}

/** Places tried, one way, past runs that cannot be read. */
const MAX_TRIES = 20;

/**
 * The run at `index` of my to-do, or the nearest readable one from there in the direction of
 * `step` (the API counts an item whose run it cannot read in the to-do's size, and answers its
 * place with a 404).
 */
async function readPosition(c: Credentials, queueId: string, index: number, step: 1 | -1): Promise<Position> {
  const left = await todoSize(c, queueId);
  const from = async (start: number): Promise<Position> => {
    let unreadable = 0;
    for (let at = start; at >= 0 && at < left && unreadable < MAX_TRIES; at += step) {
      try {
        return { left, at, run: await todoRun(c, queueId, at), unreadable };
      } catch (err) {
        if (!(err instanceof ApiError && err.status === 404)) throw err;
        unreadable++;
      }
    }
    return { left, at: start, run: null, unreadable };
  };
  if (index < left) return from(index);
  // Past the end: are the runs before it ones I skipped, or ones that cannot be read?
  const first = left > 0 && step === 1 ? await from(0) : null;
  return { left, at: index, run: null, unreadable: first && !first.run ? first.unreadable : 0 };
}

export function ReviewPage({ credentials, queueId }: { credentials: Credentials; queueId: string }) {
  const [place, setPlace] = useState<{ index: number; step: 1 | -1 }>({ index: 0, step: 1 });
  const [reads, setReads] = useState(0);
  const [note, setNote] = useState<string | null>(null);
  const who = [credentials.apiKey, credentials.workspaceId, queueId];
  const queue = useLoad(() => getQueue(credentials, queueId), [...who, reads]);
  // The queue read last stays while it is read again (after each submit: its pending count).
  const lastQueue = useRef<AnnotationQueue | null>(null);
  if (queue.state === 'done') lastQueue.current = queue.value;
  const q = lastQueue.current;
  const keys = q ? q.rubric_items.map((i) => i.feedback_key).join('\n') : null;
  const configs = useLoad(
    async () => ({
      keys,
      map: new Map<string, FeedbackConfig>(
        keys
          ? (await listFeedbackConfigs(credentials, keys.split('\n'))).map((c) => [c.feedback_key, c.feedback_config])
          : [],
      ),
    }),
    [...who, keys],
  );
  // The rubric is scored once its keys' configs are read (a categorical key is no number box).
  const configMap = configs.state === 'done' && configs.value.keys === keys ? configs.value.map : null;
  const position = useLoad(
    () => readPosition(credentials, queueId, place.index, place.step),
    [...who, place.index, place.step, reads],
  );
  // While the next place is read, the last run stays (dimmed) rather than blinking away.
  const last = useRef<Position | null>(null);
  if (position.state === 'done') last.current = position.value;
  const go = (to: number, step: 1 | -1 = 1) => {
    setNote(null);
    setPlace({ index: Math.max(0, to), step });
  };
  const reread = () => setReads((n) => n + 1);

  return (
    <section className="review-page">
      <header className="project-head">
        <nav className="crumbs">
          <a {...linkProps({ page: 'annotationQueues', search: '' })}>Annotation queues</a> /{' '}
          <span data-testid="queue-title">{q?.name ?? '…'}</span>
        </nav>
        {q?.description && <p className="muted queue-facts">{q.description}</p>}
      </header>
      <LoadState load={queue} what="the queue" onRetry={queue.refresh} stale={q}>
        {(loaded) => (
          <>
            {configs.state === 'error' && <LoadError error={configs.error} onRetry={configs.refresh} />}
            <LoadState load={position} what="the next run" onRetry={position.refresh} stale={last.current}>
              {(p) => (
                <>
                  <ReviewBar
                    queue={loaded}
                    position={p}
                    note={note}
                    busy={position.state === 'loading'}
                    onPrevious={() => go(p.at - 1, -1)}
                    onNext={() => go(p.at + 1)}
                  />
                  {p.run ? (
                    configMap === null ? null : (
                      <div className={position.state === 'loading' ? 'review-reading' : undefined}>
                        <ReviewItem
                          key={p.run.queue_run_id}
                          credentials={credentials}
                          queue={loaded}
                          configs={configMap}
                          run={p.run}
                          canPrevious={p.at > 0}
                          canNext={p.at + 1 < p.left}
                          onPrevious={() => go(p.at - 1, -1)}
                          onNext={() => go(p.at + 1)}
                          onSkipped={() => go(p.at + 1)}
                          onSubmitted={(r: Reviewed) => {
                            // The run left my to-do: its place now holds the next one.
                            go(p.at);
                            setNote(`Submitted ${r.scores.length ? r.scores.join(', ') : 'as done'} for ${r.runName}.`);
                            reread();
                          }}
                        />
                      </div>
                    )
                  ) : (
                    <End queue={loaded} position={p} onFirst={() => go(0)} onRetry={reread} />
                  )}
                </>
              )}
            </LoadState>
          </>
        )}
      </LoadState>
    </section>
  );
}

/** "3 of 10 left", a bar of the share done, where I am in my to-do, and Previous / Next. */
function ReviewBar({
  queue,
  position,
  note,
  busy,
  onPrevious,
  onNext,
}: {
  queue: AnnotationQueue;
  position: Position;
  note: string | null;
  busy: boolean;
  onPrevious: () => void;
  onNext: () => void;
}) {
  const total = Math.max(queue.total_runs, position.left);
  const done = total === 0 ? 0 : (total - position.left) / total;
  return (
    <div className="review-bar">
      <div className="review-progress">
        <strong data-testid="review-left">
          {count(position.left)} of {count(total)} left
        </strong>
        <span className="review-progress-bar" aria-hidden="true">
          <span style={{ width: `${Math.round(done * 100)}%` }} />
        </span>
        {position.run && position.left > 1 && (
          <span className="muted" data-testid="review-place">
            run {count(position.at + 1)} of the {count(position.left)} needing your review
          </span>
        )}
      </div>
      {note && (
        <span className="review-note" role="status" data-testid="review-note">
          {note}
        </span>
      )}
      <div className="review-nav">
        <button
          type="button"
          className="ghost"
          data-testid="review-previous"
          disabled={busy || position.at === 0}
          onClick={onPrevious}
        >
          ← Previous
        </button>
        <button
          type="button"
          className="ghost"
          data-testid="review-next"
          disabled={busy || position.at + 1 >= position.left}
          onClick={onNext}
        >
          Next →
        </button>
      </div>
    </div>
  );
}

/** Past my last run: the runs I skipped, runs that cannot be read, or the end of the queue for me. */
function End({
  queue,
  position: { left, unreadable },
  onFirst,
  onRetry,
}: {
  queue: AnnotationQueue;
  position: Position;
  onFirst: () => void;
  onRetry: () => void;
}) {
  if (unreadable > 0)
    return (
      <EmptyCard testId="review-unreadable" title="Runs that cannot be read">
        <p>
          {count(left)} {left === 1 ? 'run needs' : 'runs need'} your review, but the{' '}
          {unreadable === 1 ? 'run here cannot' : `${count(unreadable)} runs here cannot`} be read: sent moments ago and
          not stored yet, or deleted since.
        </p>
        <div className="empty-actions">
          <button type="button" className="primary" data-testid="review-retry" onClick={onRetry}>
            Read again
          </button>
        </div>
      </EmptyCard>
    );
  if (left > 0)
    return (
      <EmptyCard testId="review-end-of-list" title="The end of your to-do">
        <p>
          {count(left)} {left === 1 ? 'run you skipped still needs' : 'runs you skipped still need'} your review.
        </p>
        <button type="button" className="primary" data-testid="review-first" onClick={onFirst} autoFocus>
          Back to the first
        </button>
      </EmptyCard>
    );
  if (queue.total_runs === 0)
    return (
      <EmptyCard testId="review-empty-queue" title="No runs in this queue yet">
        <p>
          Send runs here from a project's traces (check them, then “Send to annotation queue”), from a run's detail, or
          with the client's <code>addRunsToAnnotationQueue</code>.
        </p>
      </EmptyCard>
    );
  const others = queue.pending_runs;
  return (
    <EmptyCard testId="review-done" title="Nothing left for you to review">
      <p>
        You have reviewed every run of <strong>{queue.name}</strong>
        {others > 0
          ? `; ${count(others)} ${others === 1 ? 'waits' : 'wait'} for other reviewers (${queue.num_reviewers_per_item} a run).`
          : '.'}
      </p>
      <p>
        <a {...linkProps({ page: 'annotationQueues', search: '' })}>Back to the queues</a>
      </p>
    </EmptyCard>
  );
}
