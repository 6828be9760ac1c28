// Promises of what becomes of a run, by run id: its claim by a replica, its end, its being taken
// in here. Many callers may wait on one run; one event settles them all.
export class KeyedWaiters<T> {
  readonly #waiting = new Map<string, Set<(value: T) => void>>();

  /** The value next settled for `key`. A waiter whose signal aborts is dropped: its promise never settles. */
  wait(key: string, signal?: AbortSignal): Promise<T> {
    return new Promise((resolve) => {
      if (signal?.aborted) return;
      const waiting = this.#waiting.get(key) ?? new Set();
      waiting.add(resolve);
      this.#waiting.set(key, waiting);
      signal?.addEventListener(
        'abort',
        () => {
          waiting.delete(resolve);
          if (waiting.size === 0 && this.#waiting.get(key) === waiting) this.#waiting.delete(key);
        },
        { once: true },
      );
    });
  }

  /** Settles every waiter of `key` with `value`. */
  settle(key: string, value: T): void {
    const waiting = this.#waiting.get(key);
    if (!waiting) return;
    this.#waiting.delete(key);
    for (const resolve of waiting) resolve(value);
  }

  has(key: string): boolean {
    return this.#waiting.has(key);
  }

  /** The keys waited on now (a copy: settling while iterating is safe). */
  keys(): string[] {
    return [...this.#waiting.keys()];
  }
}
