// How a projector waits for writes it sends at once: for every one of them, then it throws the
// first failure, so that no write of a failed step is left running when the batch is retried.

/** Waits for every promise to settle, then throws the first failure: no write of a failed step is left running. */
export async function allOrFirstFailure(promises: Array<Promise<unknown>>): Promise<void> {
  const settled = await Promise.allSettled(promises);
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
}
