// Annotation queues, folded from their topic in every API process: each queue with its rubric
// and its items (runs to review), and who has reviewed each item. One partition, so every replica
// folds the same events in the same order. A queue holds run keys and marks (tens of bytes an
// item); the runs themselves are read from the runs read model when a reviewer opens them.
//
// Fold rules (deterministic, so replicas agree without talking to each other):
// - a creation of an id already used in the workspace (live or deleted) is ignored;
// - changes, items and marks of a queue that is not live are ignored;
// - a run already in a queue is not added again (its item keeps its place and its marks);
// - a mark on an item no longer in the queue is ignored; a reviewer's later mark replaces theirs.
import type { EventLogConfig } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { event, type EventToAppend } from '../../platform/kafka/eventLog.ts';
import { FoldedTopic } from '../../platform/kafka/topicState.ts';
import { nowMicros } from '../../platform/time.ts';
import type { DecodedEvent } from '../../schemas/registry.ts';
import type {
  AnnotationQueueCreated,
  AnnotationQueueRun,
  AnnotationQueueRunReviewed,
  AnnotationQueueRunsAdded,
  AnnotationQueueRunsRemoved,
  AnnotationQueueUpdated,
} from '../../schemas/events.generated.ts';
import { TOPICS } from '../../schemas/topics.ts';

export type ReviewStatus = 'completed' | 'viewed';

export interface QueueItem {
  readonly id: string;
  readonly runId: string;
  readonly sessionId: string | null;
  /** Microseconds; null when the client did not say. */
  readonly startTime: number | null;
  /** Microseconds since the epoch. */
  readonly addedAt: number;
  /** Reviewer (API key hash) -> their mark and when. */
  readonly marks: ReadonlyMap<string, { status: ReviewStatus; at: number }>;
}

export interface AnnotationQueue {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly description: string | null;
  readonly rubricInstructions: string | null;
  readonly rubricItems: readonly Record<string, unknown>[];
  readonly defaultDataset: string | null;
  readonly numReviewersPerItem: number;
  readonly metadata: Readonly<Record<string, unknown>> | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What a creation or a change sets (null clears a nullable field; undefined leaves it). */
export interface QueueFields {
  name?: string;
  description?: string | null;
  rubricInstructions?: string | null;
  rubricItems?: Record<string, unknown>[] | null;
  defaultDataset?: string | null;
  numReviewersPerItem?: number | null;
  metadata?: Record<string, unknown> | null;
}

const key = (tenantId: string, queueId: string) => `${tenantId}/${queueId}`;
const json = (value: unknown): string | null => (value == null ? null : JSON.stringify(value));
const parse = <T>(text: string | null, fallback: T): T => {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
};

export const queueCreatedEvent = (
  tenantId: string,
  queueId: string,
  f: QueueFields & { name: string },
): EventToAppend<'AnnotationQueueCreated'> =>
  event('AnnotationQueueCreated', key(tenantId, queueId), {
    tenant_id: tenantId,
    queue_id: queueId,
    name: f.name,
    description: f.description ?? null,
    rubric_instructions: f.rubricInstructions ?? null,
    rubric_items: json(f.rubricItems),
    default_dataset: f.defaultDataset ?? null,
    num_reviewers_per_item: f.numReviewersPerItem ?? 1,
    metadata: json(f.metadata),
    created_at: nowMicros(),
  });

export function queueUpdatedEvent(
  tenantId: string,
  queueId: string,
  f: QueueFields,
): EventToAppend<'AnnotationQueueUpdated'> {
  const fields = (
    [
      ['name', f.name],
      ['description', f.description],
      ['rubric_instructions', f.rubricInstructions],
      ['rubric_items', f.rubricItems],
      ['default_dataset', f.defaultDataset],
      ['num_reviewers_per_item', f.numReviewersPerItem],
      ['metadata', f.metadata],
    ] as const
  )
    .filter(([, v]) => v !== undefined)
    .map(([name]) => name);
  return event('AnnotationQueueUpdated', key(tenantId, queueId), {
    tenant_id: tenantId,
    queue_id: queueId,
    fields,
    name: f.name ?? null,
    description: f.description ?? null,
    rubric_instructions: f.rubricInstructions ?? null,
    rubric_items: json(f.rubricItems),
    default_dataset: f.defaultDataset ?? null,
    num_reviewers_per_item: f.numReviewersPerItem ?? null,
    metadata: json(f.metadata),
    updated_at: nowMicros(),
  });
}

export const queueDeletedEvent = (tenantId: string, queueId: string): EventToAppend<'AnnotationQueueDeleted'> =>
  event('AnnotationQueueDeleted', key(tenantId, queueId), {
    tenant_id: tenantId,
    queue_id: queueId,
    deleted_at: nowMicros(),
  });

export const runsAddedEvent = (
  tenantId: string,
  queueId: string,
  runs: AnnotationQueueRun[],
): EventToAppend<'AnnotationQueueRunsAdded'> =>
  event('AnnotationQueueRunsAdded', key(tenantId, queueId), {
    tenant_id: tenantId,
    queue_id: queueId,
    runs,
    added_at: nowMicros(),
  });

export const runsRemovedEvent = (
  tenantId: string,
  queueId: string,
  queueRunIds: string[],
): EventToAppend<'AnnotationQueueRunsRemoved'> =>
  event('AnnotationQueueRunsRemoved', key(tenantId, queueId), {
    tenant_id: tenantId,
    queue_id: queueId,
    queue_run_ids: queueRunIds,
    removed_at: nowMicros(),
  });

export const runReviewedEvent = (
  tenantId: string,
  queueId: string,
  queueRunId: string,
  reviewer: string,
  status: ReviewStatus,
): EventToAppend<'AnnotationQueueRunReviewed'> =>
  event('AnnotationQueueRunReviewed', key(tenantId, queueId), {
    tenant_id: tenantId,
    queue_id: queueId,
    queue_run_id: queueRunId,
    reviewer,
    status,
    reviewed_at: nowMicros(),
  });

interface MutableItem {
  id: string;
  runId: string;
  sessionId: string | null;
  startTime: number | null;
  addedAt: number;
  marks: Map<string, { status: ReviewStatus; at: number }>;
}

interface QueueState {
  queue: AnnotationQueue;
  /** Items in the order they were added. */
  items: Map<string, MutableItem>;
  byRun: Map<string, string>;
}

export class AnnotationQueueRegistry extends FoldedTopic {
  readonly #queues = new Map<string, QueueState>();
  /** Ids ever used per workspace: a deleted queue's id is not taken again. */
  readonly #used = new Set<string>();

  constructor(config: EventLogConfig, logger: Logger) {
    super(config, TOPICS.annotationQueues, 'annotation-queues', logger);
  }

  override readonly apply = (e: DecodedEvent): void => {
    switch (e.name) {
      case 'AnnotationQueueCreated':
        return this.#created(e.payload);
      case 'AnnotationQueueUpdated':
        return this.#updated(e.payload);
      case 'AnnotationQueueDeleted':
        this.#queues.delete(key(e.payload.tenant_id, e.payload.queue_id));
        return;
      case 'AnnotationQueueRunsAdded':
        return this.#added(e.payload);
      case 'AnnotationQueueRunsRemoved':
        return this.#removed(e.payload);
      case 'AnnotationQueueRunReviewed':
        return this.#reviewed(e.payload);
    }
  };

  #created(c: AnnotationQueueCreated): void {
    const k = key(c.tenant_id, c.queue_id);
    if (this.#used.has(k)) return;
    this.#used.add(k);
    this.#queues.set(k, {
      queue: {
        id: c.queue_id,
        tenantId: c.tenant_id,
        name: c.name,
        description: c.description,
        rubricInstructions: c.rubric_instructions,
        rubricItems: parse(c.rubric_items, []),
        defaultDataset: c.default_dataset,
        numReviewersPerItem: c.num_reviewers_per_item,
        metadata: parse(c.metadata, null),
        createdAt: c.created_at,
        updatedAt: c.created_at,
      },
      items: new Map(),
      byRun: new Map(),
    });
  }

  #updated(u: AnnotationQueueUpdated): void {
    const state = this.#queues.get(key(u.tenant_id, u.queue_id));
    if (!state) return;
    const named = new Set(u.fields);
    const q = state.queue;
    state.queue = {
      ...q,
      name: named.has('name') && u.name !== null ? u.name : q.name,
      description: named.has('description') ? u.description : q.description,
      rubricInstructions: named.has('rubric_instructions') ? u.rubric_instructions : q.rubricInstructions,
      rubricItems: named.has('rubric_items') ? parse(u.rubric_items, []) : q.rubricItems,
      defaultDataset: named.has('default_dataset') ? u.default_dataset : q.defaultDataset,
      numReviewersPerItem:
        named.has('num_reviewers_per_item') && u.num_reviewers_per_item !== null
          ? u.num_reviewers_per_item
          : q.numReviewersPerItem,
      metadata: named.has('metadata') ? parse(u.metadata, null) : q.metadata,
      updatedAt: Math.max(q.updatedAt, u.updated_at),
    };
  }

  #added(a: AnnotationQueueRunsAdded): void {
    const state = this.#queues.get(key(a.tenant_id, a.queue_id));
    if (!state) return;
    for (const r of a.runs) {
      if (state.byRun.has(r.run_id) || state.items.has(r.queue_run_id)) continue;
      state.items.set(r.queue_run_id, {
        id: r.queue_run_id,
        runId: r.run_id,
        sessionId: r.session_id,
        startTime: r.start_time,
        addedAt: a.added_at,
        marks: new Map(),
      });
      state.byRun.set(r.run_id, r.queue_run_id);
    }
  }

  #removed(r: AnnotationQueueRunsRemoved): void {
    const state = this.#queues.get(key(r.tenant_id, r.queue_id));
    if (!state) return;
    for (const id of r.queue_run_ids) {
      const item = state.items.get(id);
      if (!item) continue;
      state.items.delete(id);
      state.byRun.delete(item.runId);
    }
  }

  #reviewed(r: AnnotationQueueRunReviewed): void {
    const item = this.#queues.get(key(r.tenant_id, r.queue_id))?.items.get(r.queue_run_id);
    if (!item) return;
    item.marks.set(r.reviewer, { status: r.status === 'completed' ? 'completed' : 'viewed', at: r.reviewed_at });
  }

  /** A live queue of the workspace. */
  get(tenantId: string, queueId: string): AnnotationQueue | undefined {
    return this.#queues.get(key(tenantId, queueId))?.queue;
  }

  /** Whether the id was ever a queue of the workspace (a new queue may not take it). */
  isTaken(tenantId: string, queueId: string): boolean {
    return this.#used.has(key(tenantId, queueId));
  }

  /** The workspace's live queues, newest first. */
  list(tenantId: string): AnnotationQueue[] {
    return [...this.#queues.values()]
      .filter((s) => s.queue.tenantId === tenantId)
      .map((s) => s.queue)
      .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  }

  /** A queue's items in the order they were added. */
  items(tenantId: string, queueId: string): QueueItem[] {
    return [...(this.#queues.get(key(tenantId, queueId))?.items.values() ?? [])];
  }

  /** The item of a queue by its id, or else by its run's id (clients name either). */
  item(tenantId: string, queueId: string, id: string): QueueItem | undefined {
    const state = this.#queues.get(key(tenantId, queueId));
    if (!state) return undefined;
    return state.items.get(id) ?? state.items.get(state.byRun.get(id) ?? '');
  }

  /** The live queues of the workspace that hold a run. */
  queuesOfRun(tenantId: string, runId: string): AnnotationQueue[] {
    return this.list(tenantId).filter((q) => this.#queues.get(key(tenantId, q.id))!.byRun.has(runId));
  }
}
