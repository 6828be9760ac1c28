// A list read a page at a time behind "Show more": its first `pages` pages read again whenever the
// inputs change (a search, an edit), back to one page when `resetOn` does (inputs by default).
// A page shorter than the page size is the last; so is the one that reaches `total` where the API
// gives one.
import { useCallback, useEffect, useState } from 'react';
import { type Load, useLoad } from './useLoad.ts';

export interface Pages<T> {
  items: T[];
  more: boolean;
  /** The API's count of the whole list, where it gives one. */
  total: number | null;
}

export function usePagedLoad<T>(
  readPage: (offset: number) => Promise<{ items: T[]; total?: number }>,
  pageSize: number,
  inputs: readonly unknown[],
  resetOn: readonly unknown[] = inputs,
): Load<Pages<T>> & { refresh: () => void; showMore: () => void } {
  const [pages, setPages] = useState(1);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  useEffect(() => setPages(1), resetOn);
  const load = useLoad(async (): Promise<Pages<T>> => {
    const items: T[] = [];
    let total: number | null = null;
    for (let page = 0; page < pages; page++) {
      const chunk = await readPage(page * pageSize);
      items.push(...chunk.items);
      total = chunk.total ?? null;
      if (chunk.items.length < pageSize) return { items, more: false, total };
    }
    return { items, more: total === null || items.length < total, total };
  }, [...inputs, pages]);
  const showMore = useCallback(() => setPages((n) => n + 1), []);
  return { ...load, showMore };
}

/** What is typed in a search box, trimmed, once it has settled (250 ms without a key): one read per search. */
export function useSettledSearch(search: string): string {
  const [query, setQuery] = useState(search.trim());
  useEffect(() => {
    const timer = setTimeout(() => setQuery(search.trim()), 250);
    return () => clearTimeout(timer);
  }, [search]);
  return query;
}
