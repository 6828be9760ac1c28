// Rebuilds read models from the beginning of the topics into fresh tables, then swaps them in,
// while queries keep answering from the live tables and live projection goes on:
//   1. create a full set of fresh tables (`<name>_replay_<stamp>`);
//   2. project the topics of the chosen views (REPLAY_FEEDS) from offset 0 into them, each with
//      a consumer group of its own, up to the end offsets read at the start, then up to the ends
//      read again;
//   3. swap: RENAME the live tables away and the fresh ones in, for the chosen views only;
//   4. catch up: the same group goes on into the (now live) tables up to the topic ends read
//      just after the swap, so events the live projectors wrote into the old tables around the
//      swap are in the new ones too (projecting twice is idempotent);
//   5. drop the swapped-out and the unneeded fresh tables.
import type { Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import type { ClickHouseClient } from '../../platform/clickhouse/client.ts';
import { ident, raw, sql } from '../../platform/clickhouse/sql.ts';
import { createReadModelTables, ensureReadModels } from '../readModels.ts';
import { Admin } from '@platformatic/kafka';
import { brokerList, ensureTopics, topicName } from '../../platform/kafka/topicAdmin.ts';
import { TOPICS, TOPIC_DECLARATIONS, type ProjectedTopic } from '../../schemas/topics.ts';
import type { BlobStore } from '../../platform/blobStore.ts';
import { RunsProjector } from '../runsProjector.ts';
import { FeedbackProjector } from '../feedback/feedbackProjector.ts';
import { ExamplesProjector } from '../examples/examplesProjector.ts';
import { LIVE_TABLES, tablesWithSuffix, type ReadModelTables } from '../readModelTables.ts';
import { ProjectRegistry } from '../projects/projectRegistry.ts';
import { markCopiesComplete } from '../copiesUpgrade.ts';
import { reached, sumOffsets, TopicOffsets, type Offsets } from './topicOffsets.ts';

export const REPLAY_VIEWS = ['runs', 'traces', 'threads', 'examples'] as const;
export type ReplayView = (typeof REPLAY_VIEWS)[number];

/** The tables each view is made of (threads is a view over traces). */
const VIEW_TABLES: Record<ReplayView, Array<keyof ReadModelTables>> = {
  runs: ['runs', 'runKeys', 'runLocations', 'runThreads', 'feedback', 'feedbackTokens'],
  // In the order they are swapped in: the hour counts and rows before the hour stats, so stats
  // computed against the old counts land in the old stats table (hourStats.ts).
  traces: ['traceHourWrites', 'tracesByHour', 'traceHourStats', 'traceHourReach', 'tracesByThread', 'traces'],
  threads: ['traceHourWrites', 'tracesByHour', 'traceHourStats', 'traceHourReach', 'tracesByThread', 'traces'],
  // Ids before versions: a read by id that finds an id in the new table finds its versions there too.
  examples: ['exampleIds', 'examples'],
};

/** What a feed's projector is given: where to write, and what it needs to know while replaying. */
export interface ReplayProjectorOptions {
  /** The feed's own consumer group (`<replay group>-<feed name>`). */
  groupId: string;
  /** The fresh tables while rebuilding, the live ones while catching up. */
  tables: ReadModelTables;
  blobs?: BlobStore;
  /** Projects deleted by a tombstone (the replay's ProjectRegistry): their events are skipped. */
  isProjectDeleted: (tenantId: string, projectId: string) => boolean;
}

/** A projector as the replay drives it. */
export interface ReplayProjector {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** A project tombstone arrived during the replay: delete the project's rows (as live). */
  requestProjectDeletion?(tenantId: string, projectId: string): void;
}

/** One topic a replay projects, and the views whose tables it fills. */
export interface ReplayFeed {
  /** Names its consumer group (`<replay group>-<name>`) and labels its logs. */
  readonly name: string;
  /** The logical topic it reads (TOPICS). */
  readonly topic: ProjectedTopic;
  /** The views a replay projects it for: every view one of whose tables it writes. */
  readonly views: readonly ReplayView[];
  readonly projector: (
    config: Config,
    ch: ClickHouseClient,
    logger: Logger,
    options: ReplayProjectorOptions,
  ) => ReplayProjector;
}

/** Every topic a replay can project; a replay starts those its views need (feedsOf). */
export const REPLAY_FEEDS: readonly ReplayFeed[] = [
  {
    name: 'runs',
    topic: TOPICS.runs,
    views: ['runs', 'traces', 'threads'],
    projector: (config, ch, logger, options) =>
      new RunsProjector({ ...config, PROJECTOR_CACHE_RUNS: config.REPLAY_CACHE_RUNS }, ch, logger, options),
  },
  {
    // feedback and feedbackTokens are tables of the view `runs`; the other views replay it too,
    // as they always have
    name: 'feedback',
    topic: TOPICS.feedback,
    views: ['runs', 'traces', 'threads'],
    projector: (config, ch, logger, options) => new FeedbackProjector(config, ch, logger, options),
  },
  {
    name: 'examples',
    topic: TOPICS.examples,
    views: ['examples'],
    projector: (config, ch, logger, options) => new ExamplesProjector(config, ch, logger, options),
  },
];

/** The feeds a replay of `views` projects, in REPLAY_FEEDS order. */
const feedsOf = (views: readonly ReplayView[]): ReplayFeed[] =>
  REPLAY_FEEDS.filter((f) => f.views.some((v) => views.includes(v)));

export interface ReplayProgress {
  phase: 'rebuilding' | 'catching up';
  done: number;
  total: number;
}

export interface ReplayOptions {
  views: ReplayView[];
  /** Build the fresh tables but leave them beside the live ones (for comparison); no swap. */
  swap?: boolean;
  blobs?: BlobStore;
  onProgress?: (p: ReplayProgress) => void;
  pollMs?: number;
}

export interface ReplaySummary {
  views: ReplayView[];
  /** The feeds projected for them (REPLAY_FEEDS names). */
  feeds: string[];
  events: number;
  seconds: number;
  eventsPerSecond: number;
  /** Row counts of the rebuilt tables at the swap (FINAL). */
  rows: Partial<Record<keyof ReadModelTables, number>>;
  /** The fresh tables' names; the live names after a swap. */
  tables: ReadModelTables;
  swapped: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sumAll = (offsets: Offsets[]): number => offsets.reduce((n, o) => n + sumOffsets(o), 0);

/** A feed being replayed: its consumer group, and how far that group has got. */
interface TrackedFeed {
  feed: ReplayFeed;
  groupId: string;
  offsets: TopicOffsets;
  partitions: number;
}

export async function replay(
  config: Config,
  ch: ClickHouseClient,
  logger: Logger,
  options: ReplayOptions,
): Promise<ReplaySummary> {
  const started = performance.now();
  const views = [...new Set(options.views)];
  const swap = options.swap ?? true;
  const stamp = `${Date.now()}`;
  const fresh = tablesWithSuffix(`_replay_${stamp}`);
  // one consumer group per topic (a group's members must subscribe to the same topics)
  const groupId = `${config.KAFKA_TOPIC_PREFIX}replay-${stamp}`;
  const pollMs = options.pollMs ?? 250;
  await ensureTopics(config, TOPIC_DECLARATIONS);
  await ensureReadModels(ch);
  await createReadModelTables(ch, fresh);

  const feeds: TrackedFeed[] = [];
  for (const feed of feedsOf(views)) feeds.push(await trackFeed(config, feed, `${groupId}-${feed.name}`));
  // Deleted projects: skipped from the start; a tombstone arriving meanwhile deletes rows as live.
  let current: ReplayProjector[] = [];
  const projects = new ProjectRegistry(config, logger.child({ fold: 'projects' }), {
    onDeleted: (tenantId, projectId) => current.forEach((p) => p.requestProjectDeletion?.(tenantId, projectId)),
  });
  await projects.start();
  const isProjectDeleted = (tenantId: string, projectId: string) => projects.isDeleted(tenantId, projectId);
  const startProjectors = async (tables: ReadModelTables) => {
    const running = feeds.map(({ feed, groupId }) =>
      feed.projector(config, ch, logger.child({ replay: feed.name }), {
        groupId,
        tables,
        blobs: options.blobs,
        isProjectDeleted,
      }),
    );
    current = running;
    await Promise.all(running.map((p) => p.start()));
    return { stop: () => Promise.all(running.map((p) => p.stop())) };
  };
  /** Waits until every feed's group has reached its target (`targets[i]` is feeds[i]'s). */
  const progressUntil = async (phase: ReplayProgress['phase'], targets: Offsets[]) => {
    const total = sumAll(targets);
    for (;;) {
      const committed = await Promise.all(feeds.map((f) => f.offsets.committed(f.partitions)));
      const done = Math.min(total, sumAll(committed));
      options.onProgress?.({ phase, done, total });
      if (committed.every((c, i) => reached(c, targets[i]!))) return done;
      await sleep(pollMs);
    }
  };
  const ends = () => Promise.all(feeds.map((f) => f.offsets.end()));

  let events = 0;
  try {
    let projectors = await startProjectors(fresh);
    await progressUntil('rebuilding', await ends());
    events = await progressUntil('rebuilding', await ends()); // what arrived meanwhile
    await projectors.stop();
    const rows = await countRows(ch, fresh);
    if (!swap) return summary(fresh, false);

    // `runs` last: the runs projector takes an op it finds in `runs` as applied and writes only
    // the rows beside it again (trace row, location, place, thread), from the runs as they are.
    // Were `runs` swapped in first, a live write in between would put the run in the new `runs`
    // and its trace row in an old table, and the catch-up below would merge nothing of it.
    // With `runs` last, what the live projectors write in between lands in the old `runs` and is
    // projected again into every new table. One batch can still straddle the last swap (its
    // run_threads row written into the old table, its runs row into the new one a moment later):
    // the catch-up writes a reapplied run's place and thread rows again for that.
    const swapped = [...new Set(views.flatMap((v) => VIEW_TABLES[v]))].sort(
      (a, b) => Number(a === 'runs') - Number(b === 'runs'),
    );
    const old = tablesWithSuffix(`_replaced_${stamp}`);
    // One live table per RENAME, each at a moment no query uses it (swapTableIn): ClickHouse
    // 18.16's table locks are fair, and a RENAME queued between two locks one query takes on its
    // tables never ends. The tables of a view are swapped a few milliseconds apart (or up to
    // QUIET_WAIT_MS each while queries keep naming them).
    for (const t of swapped) await swapTableIn(ch, LIVE_TABLES[t], fresh[t], old[t], logger);
    logger.info({ tables: swapped.map((t) => LIVE_TABLES[t]) }, 'swapped the rebuilt tables in');
    // A rebuilt traces_by_hour holds every trace: an upgraded database's stats may read it now.
    await markCopiesComplete(ch, swapped);

    // Catch up into the live names up to the topic ends read after the swap: whatever the
    // live projectors wrote into the old tables just before it was read from below those ends.
    const afterSwap = await ends();
    projectors = await startProjectors(LIVE_TABLES);
    events = await progressUntil('catching up', afterSwap);
    await projectors.stop();

    for (const t of swapped) {
      await untilNoQueryUses(ch, old[t]);
      await ch.exec(sql`DROP TABLE IF EXISTS ${ident(old[t])}`);
    }
    for (const t of Object.keys(fresh) as Array<keyof ReadModelTables>)
      if (!swapped.includes(t)) await ch.exec(sql`DROP TABLE IF EXISTS ${ident(fresh[t])}`);
    return summary(LIVE_TABLES, true);

    function summary(tables: ReadModelTables, didSwap: boolean): ReplaySummary {
      const seconds = (performance.now() - started) / 1000;
      const fed = feeds.map((f) => f.feed.name);
      return { views, feeds: fed, events, seconds, eventsPerSecond: events / seconds, rows, tables, swapped: didSwap };
    }
  } finally {
    await Promise.all([...feeds.map((f) => f.offsets.close()), projects.close()]).catch(() => {});
    const groups = feeds.map((f) => f.groupId);
    await deleteGroups(config, groups, logger);
  }
}

/** The replay's consumer groups are of no use afterwards; leave none behind in Kafka. */
async function deleteGroups(config: Config, groups: string[], logger: Logger): Promise<void> {
  if (groups.length === 0) return;
  const admin = new Admin({ clientId: 'replay-cleanup', bootstrapBrokers: brokerList(config), retries: 3 });
  try {
    await admin.deleteGroups({ groups });
  } catch (err) {
    logger.warn({ err: (err as Error).message, groups }, 'could not delete the replay consumer groups');
  } finally {
    await admin.close().catch(() => {});
  }
}

async function trackFeed(config: Config, feed: ReplayFeed, groupId: string): Promise<TrackedFeed> {
  const offsets = new TopicOffsets(config, topicName(config, feed.topic), groupId);
  return { feed, groupId, offsets, partitions: (await offsets.end()).length };
}

async function countRows(ch: ClickHouseClient, tables: ReadModelTables): Promise<ReplaySummary['rows']> {
  const rows: ReplaySummary['rows'] = {};
  for (const [key, table] of Object.entries(tables) as Array<[keyof ReadModelTables, string]>) {
    if (key === 'traceHourWrites' || key === 'traceHourStats') continue; // counts and a readers' cache, not rows of a model
    const [r] = await ch.query<{ n: string }>(sql`SELECT count() AS n FROM ${ident(table)} FINAL`);
    rows[key] = Number(r?.n ?? 0);
  }
  return rows;
}

const QUIET_POLL_MS = 5;
const QUIET_WAIT_MS = 30_000;

/**
 * Resolves at a moment no other query names `table` (system.processes), or after `QUIET_WAIT_MS`.
 * On ClickHouse 18.16 a RENAME or DROP waits for every query holding the table and holds back
 * every lock asked after it (the locks are fair): a query that takes a second lock on its tables
 * (a subquery, a JOIN) after the DDL queued waits on it while the DDL waits on the query, for
 * ever, and the table's background task then takes every thread of the merge pool, so no
 * mutation or merge runs on the whole server. A DDL sent when no query names the table meets none.
 */
async function untilNoQueryUses(ch: ClickHouseClient, table: string): Promise<void> {
  const pattern = `\\b${table.replace(/[^A-Za-z0-9_]/g, '')}\\b`;
  const deadline = Date.now() + QUIET_WAIT_MS;
  while (Date.now() < deadline) {
    const [busy] = await ch.query<{ n: string }>(
      sql`SELECT count() AS n FROM system.processes WHERE query NOT LIKE '%system.processes%' AND match(query, ${pattern})`,
    );
    if (Number(busy?.n ?? 0) === 0) return;
    await sleep(QUIET_POLL_MS);
  }
}

/** Swaps `fresh` in as `live`, `live` out as `old`: one RENAME, sent when no query uses the live table. */
async function swapTableIn(
  ch: ClickHouseClient,
  live: string,
  fresh: string,
  old: string,
  logger: Logger,
): Promise<void> {
  const started = performance.now();
  await untilNoQueryUses(ch, live);
  await ch.exec(sql`RENAME TABLE ${ident(live)} TO ${ident(old)}, ${ident(fresh)} TO ${ident(live)}`);
  logger.debug({ table: live, ms: Math.round(performance.now() - started) }, 'swapped in');
}

/** Drops fresh tables a replay left behind (an interrupted run). */
export async function dropLeftoverReplayTables(ch: ClickHouseClient): Promise<string[]> {
  const left = await ch.query<{ name: string }>(
    sql`SELECT name FROM system.tables WHERE database = ${ch.database} AND match(name, '_(replay|replaced)_[0-9]+$')`,
  );
  for (const { name } of left) await ch.exec(raw(`DROP TABLE IF EXISTS ${ident(name).text}`));
  return left.map((t) => t.name);
}
