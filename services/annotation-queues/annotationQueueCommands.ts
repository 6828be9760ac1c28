// Create, change and delete annotation queues, add and remove their runs, and mark items
// reviewed: check against the queues' fold, append the event, wait until the fold has it
// (read-your-writes across replicas). A queue's id is the client's (both clients send one); an
// id used before in the workspace is a 409.
import { randomUUID } from 'node:crypto';
import { errors } from '../../platform/errors.ts';
import type { EventLog } from '../../platform/kafka/eventLog.ts';
import {
  queueCreatedEvent,
  queueDeletedEvent,
  queueUpdatedEvent,
  runReviewedEvent,
  runsAddedEvent,
  runsRemovedEvent,
  type AnnotationQueue,
  type AnnotationQueueRegistry,
  type QueueFields,
  type QueueItem,
  type ReviewStatus,
} from '../../projections/annotation-queues/annotationQueueRegistry.ts';

/** A run to add: its id, and where it lives when the client says (both clients' "run keys"). */
export interface RunToAdd {
  runId: string;
  sessionId: string | null;
  /** Microseconds. */
  startTime: number | null;
}

export class AnnotationQueueCommands {
  readonly #queues: AnnotationQueueRegistry;
  readonly #log: EventLog;

  constructor(queues: AnnotationQueueRegistry, log: EventLog) {
    this.#queues = queues;
    this.#log = log;
  }

  /** The live queue, or a 404 ("annotation queue … not found"). */
  async queue(tenantId: string, queueId: string): Promise<AnnotationQueue> {
    await this.#queues.catchUp();
    const queue = this.#queues.get(tenantId, queueId);
    if (!queue) throw errors.notFound(`annotation queue ${queueId}`);
    return queue;
  }

  async create(tenantId: string, id: string | null, fields: QueueFields & { name: string }): Promise<AnnotationQueue> {
    await this.#queues.catchUp();
    const queueId = id ?? randomUUID();
    if (this.#queues.isTaken(tenantId, queueId)) throw errors.conflict(`annotation queue ${queueId} already exists`);
    await this.#log.append([queueCreatedEvent(tenantId, queueId, fields)]);
    await this.#queues.catchUp();
    const made = this.#queues.get(tenantId, queueId);
    if (!made) throw errors.conflict(`annotation queue ${queueId} was taken while it was being created`);
    return made;
  }

  async update(tenantId: string, queueId: string, fields: QueueFields): Promise<AnnotationQueue> {
    await this.queue(tenantId, queueId);
    if (Object.values(fields).some((v) => v !== undefined)) {
      await this.#log.append([queueUpdatedEvent(tenantId, queueId, fields)]);
      await this.#queues.catchUp();
    }
    return this.queue(tenantId, queueId);
  }

  async delete(tenantId: string, queueId: string): Promise<void> {
    await this.queue(tenantId, queueId);
    await this.#log.append([queueDeletedEvent(tenantId, queueId)]);
    await this.#queues.catchUp();
  }

  /** Adds runs not yet in the queue, in order; returns the items of every run given (old and new). */
  async addRuns(tenantId: string, queueId: string, runs: RunToAdd[]): Promise<QueueItem[]> {
    await this.queue(tenantId, queueId);
    const fresh = new Map<string, RunToAdd>();
    for (const r of runs) if (!this.#queues.item(tenantId, queueId, r.runId)) fresh.set(r.runId, r);
    if (fresh.size > 0) {
      await this.#log.append([
        runsAddedEvent(
          tenantId,
          queueId,
          [...fresh.values()].map((r) => ({
            queue_run_id: randomUUID(),
            run_id: r.runId,
            session_id: r.sessionId,
            start_time: r.startTime,
          })),
        ),
      ]);
      await this.#queues.catchUp();
    }
    return runs.flatMap((r) => this.#queues.item(tenantId, queueId, r.runId) ?? []);
  }

  /** Removes an item, named by its id or its run's id (clients name either); a 404 when it is not in the queue. */
  async removeRun(tenantId: string, queueId: string, id: string): Promise<void> {
    await this.queue(tenantId, queueId);
    const item = this.#queues.item(tenantId, queueId, id);
    if (!item) throw errors.notFound(`run ${id} in annotation queue ${queueId}`);
    await this.#log.append([runsRemovedEvent(tenantId, queueId, [item.id])]);
    await this.#queues.catchUp();
  }

  /** A reviewer's mark on an item, found by its id in any of the workspace's queues. */
  async mark(tenantId: string, itemId: string, reviewer: string, status: ReviewStatus): Promise<QueueItem> {
    await this.#queues.catchUp();
    const queue = this.#queues.list(tenantId).find((q) => this.#queues.item(tenantId, q.id, itemId));
    if (!queue) throw errors.notFound(`annotation queue item ${itemId}`);
    const item = this.#queues.item(tenantId, queue.id, itemId)!;
    await this.#log.append([runReviewedEvent(tenantId, queue.id, item.id, reviewer, status)]);
    await this.#queues.catchUp();
    return this.#queues.item(tenantId, queue.id, item.id) ?? item;
  }
}
