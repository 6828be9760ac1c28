// A read kept fresh: read again every `everyMs` while `keepPolling(value)` holds (a job under way),
// the last answer shown meanwhile (no flash back to "loading"), and refresh() to read at once after
// a write. A failure stops the polling until refresh() (the view offers it with the error).
import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError } from './api.ts';
import type { Load } from './useLoad.ts';

export function usePolledLoad<T>(
  read: () => Promise<T>,
  inputs: readonly unknown[],
  { everyMs, keepPolling = () => true }: { everyMs: number; keepPolling?: (value: T) => boolean },
): Load<T> & { refresh: () => void } {
  const [load, setLoad] = useState<Load<T>>({ state: 'loading' });
  const [version, setVersion] = useState(0);
  // The condition of the latest render: it may read other state (the export a list of its runs
  // belongs to), which the polling loop, started once per inputs, would otherwise see as it was.
  const keepPollingNow = useRef(keepPolling);
  keepPollingNow.current = keepPolling;
  // New inputs (another workspace): what was shown belongs to the old ones.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(() => setLoad({ state: 'loading' }), inputs);
  useEffect(() => {
    let current = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = () =>
      read().then(
        (value) => {
          if (!current) return;
          setLoad({ state: 'done', value });
          if (keepPollingNow.current(value)) timer = setTimeout(tick, everyMs);
        },
        (err: unknown) =>
          current &&
          setLoad({ state: 'error', error: err instanceof ApiError ? err : new ApiError(0, 'ERROR', String(err)) }),
      );
    void tick();
    return () => {
      current = false;
      clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...inputs, version]);
  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  return { ...load, refresh };
}
