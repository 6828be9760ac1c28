// A read's states on a page, spelled once for every list of the explorer: reading ("Loading
// traces…"), failed (the API's error in words, and "Try again" when the read can be repeated),
// empty (the page's own words on what would fill the list), and the list itself; plus the list's
// table head and the card an empty list shows. A page says what it lists; these say how it looks.
import type { ReactNode } from 'react';
import type { ApiError } from './api.ts';
import { ErrorBox } from './ErrorBox.tsx';
import type { Load } from './useLoad.ts';

/** "Loading traces…": what a list shows while its first answer is read. */
export function Loading({ what }: { what: string }) {
  return (
    <p className="muted loading" data-testid="loading">
      Loading {what}…
    </p>
  );
}

/** A failed read: the error, and "Try again" when the page can read again. */
export function LoadError({ error, onRetry }: { error: ApiError; onRetry?: (() => void) | undefined }) {
  if (!onRetry) return <ErrorBox error={error} />;
  return (
    <div className="retry">
      <ErrorBox error={error} />
      <button type="button" className="ghost" data-testid="retry" onClick={onRetry}>
        Try again
      </button>
    </div>
  );
}

export interface LoadStateProps<T> {
  load: Load<T>;
  /** What is read, for "Loading {what}…" (e.g. "traces", "the export"). */
  what: string;
  /** Read again (offered with an error). */
  onRetry?: (() => void) | undefined;
  /** The page's own words for an error, or undefined for the usual box (null: the page shows it elsewhere). */
  error?: (error: ApiError) => ReactNode | undefined;
  /** The last answer, shown while the next one is read instead of "Loading…" (no blank flash). */
  stale?: T | null | undefined;
  children: (value: T) => ReactNode;
}

/** One read: "Loading…", the error, or the value as the page draws it. */
export function LoadState<T>({ load, what, onRetry, error, stale, children }: LoadStateProps<T>) {
  if (load.state === 'error') {
    const own = error?.(load.error);
    return <>{own !== undefined ? own : <LoadError error={load.error} onRetry={onRetry} />}</>;
  }
  if (load.state === 'loading') return stale != null ? <>{children(stale)}</> : <Loading what={what} />;
  return <>{children(load.value)}</>;
}

export interface ListStateProps<T> extends LoadStateProps<T> {
  /** What an empty list shows (usually an EmptyCard saying how to fill it). */
  empty: ReactNode;
  /** Whether the answer is an empty list (by default: an empty array). */
  isEmpty?: (value: T) => boolean;
}

const emptyArray = (value: unknown) => Array.isArray(value) && value.length === 0;

/**
 * A list read: "Loading…", the error, the empty state, or the list. While a stale answer is shown
 * the empty state waits for the new answer (it may name the new filter or range).
 */
export function ListState<T>({ empty, isEmpty = emptyArray, ...props }: ListStateProps<T>) {
  const { load, children } = props;
  return (
    <LoadState {...props}>
      {(value) => (isEmpty(value) ? (load.state === 'done' ? empty : null) : children(value))}
    </LoadState>
  );
}

/** The card of an empty list: a title, then what would fill the list and how. */
export function EmptyCard({ testId, title, children }: { testId: string; title?: ReactNode; children: ReactNode }) {
  return (
    <div className="empty card" data-testid={testId}>
      {title && <h3>{title}</h3>}
      {children}
    </div>
  );
}

/** A column of a list's table: its heading, or the heading with its alignment, hint and class. */
export type Column = string | { label: string; num?: boolean; title?: string; ariaLabel?: string; className?: string };

/** A list's table with its head; the children are its <tbody> (one, or one per page read). */
export function ListTable({
  testId,
  columns,
  className = 'table',
  hidden,
  children,
}: {
  testId: string;
  columns: Column[];
  className?: string;
  /** Kept in the page but not shown (its bodies still read). */
  hidden?: boolean;
  children: ReactNode;
}) {
  return (
    <table className={className} data-testid={testId} style={hidden ? { display: 'none' } : undefined}>
      <thead>
        <tr>
          {columns.map((c, i) => {
            const column = typeof c === 'string' ? { label: c } : c;
            return (
              <th
                key={i}
                className={[column.num && 'num', column.className].filter(Boolean).join(' ') || undefined}
                title={column.title}
                aria-label={column.ariaLabel}
              >
                {column.label}
              </th>
            );
          })}
        </tr>
      </thead>
      {children}
    </table>
  );
}

/** The pager under a list read a page at a time: "Show more <what>", with a note before it (n of N). */
export function ShowMore({
  testId,
  what,
  onMore,
  note,
  small,
}: {
  testId: string;
  what: string;
  onMore: () => void;
  note?: ReactNode;
  small?: boolean;
}) {
  return (
    <div className="pager">
      {note != null && <span className="muted pager-note">{note}</span>}
      <button type="button" className={small ? 'ghost small' : 'ghost'} data-testid={testId} onClick={onMore}>
        Show more {what}
      </button>
    </div>
  );
}
