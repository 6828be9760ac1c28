// Keeps the examples read model from the examples topic: each event adds a version of its
// example (exampleTables.ts). A creation writes the example whole; an update starts from the
// example's newest version (in the batch, else in ClickHouse) and replaces what it names; a
// deletion writes a tombstone version (a hard one then takes every version of the example away). Versions follow the topic: an event whose offset is not
// above the newest version's has been applied already (a redelivery, a replay's catch-up) and
// changes nothing, and a version's modified_at is kept above the one before it (a replica's
// clock a little behind another's cannot put a later version before an earlier one). A creation
// of a live example, and an update or deletion of one that is not, change nothing: the command
// refused them before appending, unless two replicas raced, and then the first in the topic wins.
// The loop, commits and dead-lettering are the runtime's.
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, join, sql } from '../../platform/clickhouse/sql.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { projectorRowsWritten } from '../../platform/metrics.ts';
import {
  ProjectorRuntime,
  type Projection,
  type ProjectedEvent,
  type ProjectorRuntimeConfig,
  type Retry,
} from '../shared/projectorRuntime.ts';
import type { ReadModelTables } from '../shared/readModelTables.ts';
import { opVersion } from '../shared/runRow.ts';
import { createdRow, deletedRow, exampleRowFromClickHouse, updatedRow, type ExampleRow } from './exampleRow.ts';
import { EXAMPLE_COLUMNS, EXAMPLE_ID_COLUMNS } from './exampleTables.ts';

export const examplesProjectorGroupId = (config: Pick<Config, 'KAFKA_TOPIC_PREFIX'>): string =>
  `${config.KAFKA_TOPIC_PREFIX}examples-projector`;

export interface ExamplesProjectorOptions {
  groupId?: string;
  /** Where to write: the live tables, or a replay's fresh ones. */
  tables: Pick<ReadModelTables, 'examples' | 'exampleIds'>;
}

/** How long a hard deletion waits for ClickHouse to apply its purge before the batch goes on. */
const PURGE_WAIT_MS = 30_000;

const exampleKey = (tenantId: string, datasetId: string, id: string) => `${tenantId}/${datasetId}/${id}`;

export class ExamplesProjector implements Projection {
  readonly name = 'examples';
  readonly topic = TOPICS.examples;
  readonly #ch: ClickHouseClient;
  readonly #tables: Pick<ReadModelTables, 'examples' | 'exampleIds'>;
  readonly #runtime: ProjectorRuntime;
  readonly #logger: Logger;

  constructor(config: ProjectorRuntimeConfig, ch: ClickHouseClient, logger: Logger, options: ExamplesProjectorOptions) {
    this.#ch = ch;
    this.#logger = logger;
    this.#tables = options.tables;
    this.#runtime = new ProjectorRuntime(config, logger, this, {
      groupId: options.groupId ?? examplesProjectorGroupId(config),
    });
  }

  start(): Promise<void> {
    return this.#runtime.start();
  }

  stop(): Promise<void> {
    return this.#runtime.stop();
  }

  /** Examples belong to datasets, not projects: a deleted project has none. */
  deleteProject(): Promise<void> {
    return Promise.resolve();
  }

  async project(events: ProjectedEvent[], retry: Retry): Promise<void> {
    let newest = new Map<string, ExampleRow>();
    await retry('load the newest example versions', async () => {
      newest = await this.#newestRows(events);
    });
    let rows: ExampleRow[] = [];
    let ids: Array<{ tenant_id: string; id: string; dataset_id: string; version: number }> = [];
    /** Examples hard-deleted since the last flush: every version of them goes, once the rows before are in. */
    let purge = new Map<string, { tenant_id: string; dataset_id: string; id: string }>();
    let written = 0;
    const flush = async () => {
      const [r, i, p] = [rows, ids, [...purge.values()]];
      [rows, ids, purge] = [[], [], new Map()];
      await retry('insert example versions', () => this.#ch.insertRowBinary(this.#tables.examples, EXAMPLE_COLUMNS, r));
      if (i.length > 0)
        await retry('insert example ids', () =>
          this.#ch.insertRowBinary(this.#tables.exampleIds, EXAMPLE_ID_COLUMNS, i),
        );
      if (p.length > 0) await retry('purge hard-deleted examples', () => this.#purge(p));
      written += r.length + i.length;
    };
    for (const { event, offset } of events) {
      const version = opVersion(offset, 0);
      const p = event.payload as { tenant_id: string; dataset_id: string; example_id: string; modified_at: number };
      const key = exampleKey(p.tenant_id, p.dataset_id, p.example_id);
      // A later event of an example purged in this batch comes after the purge.
      if (purge.has(key)) await flush();
      const row = newest.get(key);
      if (row && row.version >= version) continue; // applied already
      let next: ExampleRow;
      if (event.name === 'ExampleCreated') {
        if (row && !row.deleted) continue;
        next = createdRow(event.payload, version);
        ids.push({ tenant_id: next.tenant_id, id: next.id, dataset_id: next.dataset_id, version });
      } else if (event.name === 'ExampleUpdated') {
        if (!row || row.deleted) continue;
        next = updatedRow(row, event.payload, version);
      } else if (event.name === 'ExampleDeleted') {
        if (!row || (row.deleted && !event.payload.hard)) continue;
        // The tombstone hides the example at once; a hard deletion's purge (a mutation, which
        // ClickHouse applies in the background) then takes every version of it away, tombstone too.
        next = deletedRow(row, event.payload, version);
        if (event.payload.hard) purge.set(key, { tenant_id: p.tenant_id, dataset_id: p.dataset_id, id: p.example_id });
      } else continue;
      if (row && next.modified_at <= row.modified_at) next.modified_at = row.modified_at + 1;
      newest.set(key, next);
      rows.push(next);
    }
    await flush();
    projectorRowsWritten.inc({ projector: 'examples' }, written);
  }

  /**
   * Deletes every version of these examples, and their ids (a mutation per table), and waits
   * (up to PURGE_WAIT_MS) until ClickHouse has applied them: the batch is committed after, so a
   * read that waits for the projector (read-your-writes) finds no version of them left.
   */
  async #purge(examples: Array<{ tenant_id: string; dataset_id: string; id: string }>): Promise<void> {
    const tuples = join(examples.map((e) => sql`(${e.tenant_id}, ${e.dataset_id}, ${e.id})`));
    const ids = join(examples.map((e) => sql`(${e.tenant_id}, ${e.id})`));
    await this.#ch.exec(
      sql`ALTER TABLE ${ident(this.#tables.examples)} DELETE WHERE (tenant_id, dataset_id, id) IN (${tuples})`,
    );
    await this.#ch.exec(sql`ALTER TABLE ${ident(this.#tables.exampleIds)} DELETE WHERE (tenant_id, id) IN (${ids})`);
    const tables = [this.#tables.examples, this.#tables.exampleIds];
    const deadline = Date.now() + PURGE_WAIT_MS;
    for (;;) {
      const [pending] = await this.#ch.query<{ n: string }>(
        sql`SELECT count() AS n FROM system.mutations WHERE database = ${this.#ch.database} AND table IN (${join(tables.map((t) => sql`${t}`))}) AND NOT is_done`,
      );
      if (Number(pending?.n ?? 0) === 0) return;
      if (Date.now() > deadline) {
        this.#logger.warn({ tables, waitedMs: PURGE_WAIT_MS }, 'hard-deleted examples not purged yet; going on');
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The newest version (by topic order) of every example the batch names, found by key. */
  async #newestRows(events: ProjectedEvent[]): Promise<Map<string, ExampleRow>> {
    const keys = new Map<string, { tenant_id: string; dataset_id: string; example_id: string }>();
    for (const { event } of events) {
      const p = event.payload as { tenant_id: string; dataset_id: string; example_id: string };
      keys.set(exampleKey(p.tenant_id, p.dataset_id, p.example_id), p);
    }
    const rows = new Map<string, ExampleRow>();
    const all = [...keys.values()];
    for (let i = 0; i < all.length; i += 2000) {
      const chunk = all.slice(i, i + 2000);
      const tuples = join(chunk.map((k) => sql`(${k.tenant_id}, ${k.dataset_id}, ${k.example_id})`));
      const found = await this.#ch.query(
        sql`SELECT * FROM ${ident(this.#tables.examples)} FINAL
            WHERE (tenant_id, dataset_id, id) IN (${tuples})
            ORDER BY version DESC LIMIT 1 BY tenant_id, dataset_id, id`,
      );
      for (const raw of found) {
        const row = exampleRowFromClickHouse(raw);
        rows.set(exampleKey(row.tenant_id, row.dataset_id, row.id), row);
      }
    }
    return rows;
  }
}
