// The feedback projector on a stack of its own, fed events appended straight to its topic:
// submissions, updates and deletions fold into one row per feedback id (a deletion as a
// tombstone row), and events it cannot read are kept in tracing.feedback.dead-letter
// (test/support/deadLetters.ts) while the good event after them is projected.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTracingStack, stackClickHouse, type TracingStack } from '../../support/tracingStack.ts';
import { waitFor } from '../../support/serviceProcess.ts';
import { appendPoison, expectDeadLettered, poisonMessages } from '../../support/deadLetters.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse/client.ts';
import { sql } from '../../../platform/clickhouse/sql.ts';
import { EventLog, type EventToAppend } from '../../../platform/kafka/eventLog.ts';
import { TOPICS } from '../../../schemas/topics.ts';
import { encodeEvent } from '../../../schemas/registry.ts';
import { feedbackProjectorGroupId } from '../../../projections/feedback/feedbackProjector.ts';
import {
  feedbackDeleted,
  feedbackKey,
  feedbackSubmitted,
  feedbackUpdated,
} from '../../../services/tracing/feedback/feedbackEvents.ts';
import type { FeedbackDraft } from '../../../services/tracing/ingest/feedbackDraft.ts';

let stack: TracingStack;
let ch: ClickHouseClient;
let log: EventLog;
beforeAll(async () => {
  stack = await startTracingStack('feedback', { PROJECTOR_FLUSH_MS: '20' });
  ch = stackClickHouse(stack);
  log = new EventLog(stack.config, 'test-feedback');
});
afterAll(async () => {
  await log?.close();
  await ch?.close();
  await stack?.stop();
});

const draft = (over: Partial<FeedbackDraft> = {}): FeedbackDraft => ({
  id: randomUUID(),
  runId: randomUUID(),
  traceId: null,
  key: 'correctness',
  score: 0.5,
  value: '"ok"',
  comment: 'first',
  correction: null,
  feedbackSource: '{"type":"api","metadata":{}}',
  sessionId: randomUUID(),
  createdAt: Date.now() * 1000,
  comparativeExperimentId: null,
  feedbackGroupId: null,
  feedbackConfig: null,
  extra: null,
  ...over,
});

interface Row {
  score: number | null;
  value: string;
  comment: string | null;
  deleted: number;
}

/** The item's row as reads see it (FINAL). */
async function rowOf(tenantId: string, id: string): Promise<Row | null> {
  const [row] = await ch.query<Row>(
    sql`SELECT score, value, comment, deleted FROM feedback FINAL WHERE tenant_id = toUUID(${tenantId}) AND id = toUUID(${id})`,
  );
  return row ?? null;
}

const append = (...events: EventToAppend[]) => log.append(events);

test('a submission, updates and a deletion fold into one row; an update after the deletion changes nothing', async () => {
  const tenantId = randomUUID();
  const f = draft();
  const now = () => Date.now() * 1000;
  await append(feedbackSubmitted(tenantId, f, now()));
  await waitFor('the submission', async () => (await rowOf(tenantId, f.id))?.comment === 'first', 30_000, 50);

  await append(
    feedbackUpdated(
      tenantId,
      f.id,
      f.runId!,
      {
        fields: ['score', 'comment'],
        score: 1,
        value: null,
        comment: 'second',
        correction: null,
        feedback_config: null,
      },
      now(),
    ),
    feedbackUpdated(
      tenantId,
      f.id,
      f.runId!,
      { fields: ['value'], score: null, value: '"better"', comment: null, correction: null, feedback_config: null },
      now(),
    ),
  );
  // each update changed the fields it named and only those
  await waitFor('both updates', async () => (await rowOf(tenantId, f.id))?.value === '"better"', 30_000, 50);
  expect(await rowOf(tenantId, f.id)).toMatchObject({ score: 1, value: '"better"', comment: 'second', deleted: 0 });

  await append(
    feedbackDeleted(tenantId, f.id, f.runId!, now()),
    feedbackUpdated(
      tenantId,
      f.id,
      f.runId!,
      { fields: ['comment'], score: null, value: null, comment: 'too late', correction: null, feedback_config: null },
      now(),
    ),
  );
  await waitFor('the deletion', async () => (await rowOf(tenantId, f.id))?.deleted === 1, 30_000, 50);
  // Another item under the same key (so the same partition) after the late update: once it is there, the update was projected.
  const marker = draft();
  await append({ ...feedbackSubmitted(tenantId, marker, now()), key: feedbackKey(tenantId, f.id) });
  await waitFor('the marker', async () => (await rowOf(tenantId, marker.id)) !== null, 30_000, 50);
  expect(await rowOf(tenantId, f.id)).toMatchObject({ comment: 'second', deleted: 1 });
});

test('events the projector cannot read go to the dead-letter topic byte for byte, and the good event after them is projected', async () => {
  const tenantId = randomUUID();
  const f = draft();
  const good = feedbackSubmitted(tenantId, f, Date.now() * 1000);
  const poisons = poisonMessages(feedbackKey(tenantId, f.id), encodeEvent('FeedbackSubmitted', good.payload));
  await appendPoison(stack.config, TOPICS.feedback, poisons);
  await append(good);
  await waitFor(
    'the feedback after the unreadable events',
    async () => (await rowOf(tenantId, f.id)) !== null,
    30_000,
    100,
  );
  await expectDeadLettered(stack.config, TOPICS.feedback, feedbackProjectorGroupId(stack.config), poisons);
});
