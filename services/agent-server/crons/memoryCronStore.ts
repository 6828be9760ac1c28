// Crons in this process's memory (AGENT_SERVER_CHECKPOINTER=memory): gone when it stops, like
// the threads they run on. One process claims from it, so claiming is taking them off the clock.
import { isAuthMatching } from '../auth/authFilters.ts';
import { jsonContains, type RecordScope } from '../store/agentRecords.ts';
import {
  claimAt,
  type CronChange,
  type CronFilter,
  type CronRecord,
  type CronSearch,
  type CronStore,
  type StoredCron,
} from './cronRecords.ts';

export class MemoryCronStore implements CronStore {
  readonly #crons = new Map<string, StoredCron>();
  readonly #now: () => Date;

  /** `now`: the clock the store reads (the scheduler's tests move it instead of waiting for a minute). */
  constructor(now: () => Date = () => new Date()) {
    this.#now = now;
  }

  #visible(scope: RecordScope, cronId: string): StoredCron | undefined {
    const stored = this.#crons.get(cronId);
    if (!stored || stored.workspaceId !== scope.workspaceId || !isAuthMatching(stored.cron.metadata, scope.filters))
      return undefined;
    return stored;
  }

  #matching(scope: RecordScope, filter: CronFilter): CronRecord[] {
    return [...this.#crons.values()]
      .filter((s) => s.workspaceId === scope.workspaceId && isAuthMatching(s.cron.metadata, scope.filters))
      .map((s) => s.cron)
      .filter(
        (c) =>
          (filter.assistantId === undefined || c.assistant_id === filter.assistantId) &&
          (filter.threadId === undefined || c.thread_id === filter.threadId) &&
          (filter.enabled === undefined || c.enabled === filter.enabled) &&
          (filter.metadata === undefined || jsonContains(c.metadata, filter.metadata)),
      );
  }

  async create(stored: StoredCron): Promise<void> {
    this.#crons.set(stored.cron.cron_id, structuredClone(stored));
  }

  async get(scope: RecordScope, cronId: string): Promise<CronRecord | undefined> {
    const stored = this.#visible(scope, cronId);
    return stored && structuredClone(stored.cron);
  }

  async update(scope: RecordScope, cronId: string, change: CronChange): Promise<CronRecord | undefined> {
    const stored = this.#visible(scope, cronId);
    if (!stored) return undefined;
    stored.cron = change(structuredClone(stored.cron), this.#now());
    return structuredClone(stored.cron);
  }

  async delete(scope: RecordScope, cronId: string): Promise<boolean> {
    return this.#visible(scope, cronId) !== undefined && this.#crons.delete(cronId);
  }

  async search(scope: RecordScope, search: CronSearch): Promise<{ crons: CronRecord[]; total: number }> {
    const matching = this.#matching(scope, search);
    const sign = search.sortOrder === 'asc' ? 1 : -1;
    // As PostgreSQL orders: nulls after every value ascending, before them descending.
    const key = (c: CronRecord) => c[search.sortBy];
    matching.sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      if (x === y) return 0;
      if (x === null) return sign;
      if (y === null) return -sign;
      return x < y ? -sign : sign;
    });
    return {
      crons: structuredClone(matching.slice(search.offset, search.offset + search.limit)),
      total: matching.length,
    };
  }

  async count(scope: RecordScope, filter: CronFilter): Promise<number> {
    return this.#matching(scope, filter).length;
  }

  async claimDue(limit: number): Promise<StoredCron[]> {
    const now = this.#now();
    const due = [...this.#crons.values()]
      .filter(
        (s) => s.cron.enabled && s.cron.next_run_date !== null && Date.parse(s.cron.next_run_date) <= now.getTime(),
      )
      .sort((a, b) => Date.parse(a.cron.next_run_date!) - Date.parse(b.cron.next_run_date!))
      .slice(0, limit);
    const firing: StoredCron[] = [];
    for (const stored of due) {
      const { fires, next } = claimAt(stored.cron, now);
      stored.cron = { ...stored.cron, next_run_date: next };
      if (fires) firing.push(structuredClone(stored));
    }
    return firing;
  }

  async msUntilNextDue(): Promise<number | undefined> {
    let earliest: number | undefined;
    for (const { cron } of this.#crons.values())
      if (cron.enabled && cron.next_run_date !== null)
        earliest = Math.min(earliest ?? Number.POSITIVE_INFINITY, Date.parse(cron.next_run_date));
    return earliest === undefined ? undefined : earliest - this.#now().getTime();
  }
}
