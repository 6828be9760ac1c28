// The sidebar: every conversation of the workspace, newest first, with its time; a button for a
// new one, a delete button per conversation that asks once more before it deletes, and, at the
// bottom, who is signed in (the workspace, the sign-out).
import { useEffect, useState, type ReactNode } from 'react';
import { relativeTime, type ThreadSummary } from './threadsApi.ts';

interface ThreadListProps {
  threads: ThreadSummary[] | null;
  activeId: string | null;
  onOpen(id: string): void;
  onNew(): void;
  onDelete(id: string): Promise<void>;
  /** Shown below the list. */
  account: ReactNode;
}

export function ThreadList({ threads, activeId, onOpen, onNew, onDelete, account }: ThreadListProps) {
  const [confirming, setConfirming] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => setNow(Date.now()), [threads]);

  return (
    <aside className="sidebar">
      <div className="sidebar-head">
        <span className="brand">Deep agent chat</span>
        <button type="button" className="new-thread" data-testid="new-thread" onClick={onNew}>
          + New thread
        </button>
      </div>
      <nav className="thread-list" data-testid="thread-list" aria-label="Conversations">
        {threads === null ? <p className="muted">Loading…</p> : null}
        {threads?.length === 0 ? <p className="muted">No conversations yet.</p> : null}
        {threads?.map((thread) => (
          <div
            key={thread.id}
            className={`thread-item ${thread.id === activeId ? 'active' : ''}`}
            data-testid="thread-item"
            data-thread-id={thread.id}
          >
            {confirming === thread.id ? (
              <div className="thread-confirm">
                <span>Delete this conversation?</span>
                <div className="thread-confirm-actions">
                  <button
                    type="button"
                    className="danger"
                    data-testid="thread-delete-confirm"
                    onClick={() => {
                      setConfirming(null);
                      void onDelete(thread.id);
                    }}
                  >
                    Delete
                  </button>
                  <button type="button" data-testid="thread-delete-cancel" onClick={() => setConfirming(null)}>
                    Cancel
                  </button>
                </div>
              </div>
            ) : (
              <>
                <button
                  type="button"
                  className="thread-open"
                  onClick={() => onOpen(thread.id)}
                  aria-current={thread.id === activeId ? 'page' : undefined}
                >
                  <span className="thread-title" data-testid="thread-title">
                    {thread.title}
                  </span>
                  <time
                    className="thread-time"
                    dateTime={thread.updatedAt ?? undefined}
                    title={thread.updatedAt ? new Date(thread.updatedAt).toLocaleString() : undefined}
                  >
                    {relativeTime(thread.updatedAt, now)}
                  </time>
                </button>
                <button
                  type="button"
                  className="thread-delete"
                  data-testid="thread-delete"
                  aria-label={`Delete "${thread.title}"`}
                  title="Delete"
                  onClick={() => setConfirming(thread.id)}
                >
                  <TrashIcon />
                </button>
              </>
            )}
          </div>
        ))}
      </nav>
      <div className="sidebar-foot">{account}</div>
    </aside>
  );
}

function TrashIcon() {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      width="15"
      height="15"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d="M3 6h18M8 6V4h8v2M19 6l-1 14H6L5 6M10 11v6M14 11v6" />
    </svg>
  );
}
