// One read for a view: re-run when its inputs change or on refresh(), the stale answer of an
// earlier input dropped, the failure kept as an ApiError for the view to show in words.
import { useCallback, useEffect, useState } from 'react';
import { ApiError } from './api.ts';

export type Load<T> = { state: 'loading' } | { state: 'error'; error: ApiError } | { state: 'done'; value: T };

export function useLoad<T>(read: () => Promise<T>, inputs: readonly unknown[]): Load<T> & { refresh: () => void } {
  const [load, setLoad] = useState<Load<T>>({ state: 'loading' });
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let current = true;
    setLoad({ state: 'loading' });
    read().then(
      (value) => current && setLoad({ state: 'done', value }),
      (err: unknown) =>
        current &&
        setLoad({ state: 'error', error: err instanceof ApiError ? err : new ApiError(0, 'ERROR', String(err)) }),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...inputs, version]);
  const refresh = useCallback(() => setVersion((v) => v + 1), []);
  return { ...load, refresh };
}
