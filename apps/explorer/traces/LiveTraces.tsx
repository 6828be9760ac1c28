// New traces without a reload: while the table shows the first page of a range that reaches
// now, it asks every few seconds for traces that started at or after the newest one shown (the
// same filter; one small request, not one per row), and skips the ask while the tab is hidden.
// Sorted newest first, new traces are put at the top of the table; in any other order they are
// counted, and "show" reads the page again so they take their place in that order.
import { useEffect, useRef, useState } from 'react';
import type { Credentials } from '../core/api.ts';
import { queryTraces, type TraceRow, type TracesQuery } from './tracesApi.ts';

export const POLL_MS = 3000;

export interface NewTraces {
  /** New traces put at the top (newest-first order only), newest first. */
  prepended: TraceRow[];
  /** Ids of the prepended rows (marked in the table). */
  freshIds: ReadonlySet<string>;
  /** New traces counted but not shown (any other order). */
  waiting: number;
  prepend: boolean;
}

export function useNewTraces(options: {
  credentials: Credentials;
  request: TracesQuery;
  /** The rows of the page read (null while reading). */
  rows: TraceRow[] | null;
  active: boolean;
  prepend: boolean;
}): NewTraces {
  const { credentials, request, rows, active, prepend } = options;
  const [prepended, setPrepended] = useState<TraceRow[]>([]);
  const [waiting, setWaiting] = useState<string[]>([]);
  const seen = useRef(new Set<string>());
  useEffect(() => {
    setPrepended([]);
    setWaiting([]);
    seen.current = new Set(rows?.map((r) => r.id) ?? []);
  }, [rows]);

  useEffect(() => {
    if (!active || rows === null) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // The newest start shown (ISO strings of one format compare as times); the range's start when none.
    let since = rows.reduce((m, r) => (r.start_time && r.start_time > m ? r.start_time : m), request.min_start_time);
    const tick = async () => {
      if (!document.hidden) {
        try {
          const { rows: found } = await queryTraces(credentials, {
            project_id: request.project_id,
            min_start_time: since,
            ...(request.trace_filter ? { trace_filter: request.trace_filter } : {}),
            page_size: 100,
          });
          if (stopped) return;
          const fresh = found.filter((r) => !seen.current.has(r.id));
          for (const r of fresh) seen.current.add(r.id);
          if (fresh.length > 0) {
            if (prepend) setPrepended((old) => [...fresh, ...old]);
            else setWaiting((old) => [...old, ...fresh.map((r) => r.id)]);
            since = fresh.reduce((m, r) => (r.start_time && r.start_time > m ? r.start_time : m), since);
          }
        } catch {
          // A failed poll is tried again at the next tick; the page's own read shows errors.
        }
      }
      if (!stopped) timer = setTimeout(tick, POLL_MS);
    };
    timer = setTimeout(tick, POLL_MS);
    const onVisible = () => {
      if (document.hidden || stopped) return;
      clearTimeout(timer);
      void tick();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      stopped = true;
      clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [credentials, request, rows, active, prepend]);

  return { prepended, freshIds: new Set(prepended.map((r) => r.id)), waiting: waiting.length, prepend };
}

/** What the live updates do in this view, and the "show" of counted new traces. */
export function LiveTraces({ live, active, onShow }: { live: NewTraces; active: boolean; onShow: () => void }) {
  if (!active)
    return (
      <p className="live muted" data-testid="live-status" data-live="off">
        Live updates are off here: they run on the first page of a range that reaches now.
      </p>
    );
  return (
    <p className="live" data-testid="live-status" data-live="on">
      <span className="live-dot" aria-hidden="true" />
      {live.prepend
        ? 'Live: new traces appear at the top as they arrive.'
        : 'Live: new traces are counted here; show them to place them in this order.'}
      {live.waiting > 0 && (
        <button type="button" className="new-traces" data-testid="new-traces" onClick={onShow}>
          {live.waiting === 1 ? '1 new trace' : `${live.waiting} new traces`} — show
        </button>
      )}
    </p>
  );
}
