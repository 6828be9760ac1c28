// The dotted_order of the runs this API process accepted lately through /runs/batch and
// /runs/multipart, per workspace: what a child posted in a later request is checked against
// (runIngestor.ts) without a read of the read model. Kept in memory only, the last `capacity`
// posts; the oldest are forgotten first. Runs posted through POST /runs and OTLP are in the
// lineage index instead (services/tracing/lineage/lineageIndex.ts).

export class RecentDottedOrders {
  readonly #capacity: number;
  /** Per workspace: run id → its slot in the ring below. */
  readonly #byTenant = new Map<string, Map<string, number>>();
  // The ring, oldest first from #next: three arrays, no object per run.
  readonly #tenantIds: (string | undefined)[];
  readonly #runIds: (string | undefined)[];
  readonly #orders: (string | undefined)[];
  #next = 0;
  // The workspace of the last remember(): a request's posts are all of one.
  #lastTenantId: string | undefined;
  #lastRuns: Map<string, number> | undefined;

  constructor(capacity: number) {
    this.#capacity = capacity;
    this.#tenantIds = new Array(capacity);
    this.#runIds = new Array(capacity);
    this.#orders = new Array(capacity);
  }

  get(tenantId: string, runId: string): string | undefined {
    const slot = this.#byTenant.get(tenantId)?.get(runId);
    return slot === undefined ? undefined : this.#orders[slot];
  }

  remember(tenantId: string, runId: string, dottedOrder: string): void {
    const slot = this.#next;
    this.#next = slot + 1 === this.#capacity ? 0 : slot + 1;
    const oldTenant = this.#tenantIds[slot];
    if (oldTenant !== undefined) {
      const old = this.#byTenant.get(oldTenant)!;
      const oldRun = this.#runIds[slot]!;
      // Unless posted again since (a client's retry): then its newer slot keeps it.
      if (old.get(oldRun) === slot) {
        old.delete(oldRun);
        if (old.size === 0) {
          this.#byTenant.delete(oldTenant);
          if (old === this.#lastRuns) this.#lastTenantId = this.#lastRuns = undefined;
        }
      }
    }
    let runs = tenantId === this.#lastTenantId ? this.#lastRuns : this.#byTenant.get(tenantId);
    if (!runs) this.#byTenant.set(tenantId, (runs = new Map()));
    this.#lastTenantId = tenantId;
    this.#lastRuns = runs;
    this.#tenantIds[slot] = tenantId;
    this.#runIds[slot] = runId;
    this.#orders[slot] = dottedOrder;
    runs.set(runId, slot);
  }

  /** Workspaces with remembered runs (for tests). */
  get workspaces(): number {
    return this.#byTenant.size;
  }
}
