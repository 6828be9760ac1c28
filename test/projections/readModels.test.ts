// Runs ingested through the API end up in every read model: derived run columns, the trace
// row, feedback, and run locations (big payloads included, read back from object storage).
import { expect, test } from 'vitest';
import { v7 as uuidv7 } from 'uuid';
import { ownStack } from '../support/ownStack.ts';
import { makeTrace, postParts, type Part } from '../support/runFactory.ts';
import { waitFor } from '../support/serviceProcess.ts';
import { sql } from '../../platform/clickhouse/sql.ts';

const own = ownStack('readmodels', { PROJECTOR_FLUSH_MS: '20' });
const send = (parts: Part[]) => own.send(parts);

test('a trace with an agent, two LLM calls, a thread and feedback', async () => {
  const [root, llm1, llm2] = makeTrace(2, {});
  root!.extra = { metadata: { conversation_id: 'conv-1', user: 'ada', attempt: 2 } };
  llm1!.outputs = { usage_metadata: { input_tokens: 10, output_tokens: 5, total_tokens: 15, total_cost: 0.002 } };
  llm1!.events = [{ name: 'new_token', time: '2026-03-01T10:00:00.123456Z', kwargs: { token: 'Hi' } }];
  // a big output (claim-checked into object storage) still yields its usage
  llm2!.outputs = {
    usage_metadata: { input_tokens: 100, output_tokens: 20, total_tokens: 120 },
    text: 'x'.repeat(200 * 1024),
  };
  const feedbackId = uuidv7();
  await send([
    ...postParts([root!, llm1!, llm2!]),
    {
      name: `feedback.${feedbackId}`,
      body: JSON.stringify({ run_id: llm1!.id, trace_id: root!.id, key: 'correctness', score: 0.5 }),
    },
  ]);
  // end the root in a later request: status and latency come from the patch
  await send(
    postParts(
      [
        {
          ...root!,
          inputs: undefined,
          extra: undefined,
          end_time: new Date(Date.parse(root!.start_time) + 1500).toISOString(),
        },
      ],
      'patch',
    ),
  );

  const trace = await waitFor(
    'the trace row',
    async () => {
      const rows = await own.ch.query<Record<string, unknown>>(
        sql`SELECT * FROM traces FINAL WHERE trace_id = toUUID(${root!.id})`,
      );
      return rows[0]?.status === 'success' && Number(rows[0].total_tokens) === 135 ? rows[0] : null;
    },
    30_000,
    100,
  );
  expect(trace).toMatchObject({
    thread_id: 'conv-1',
    name: 'root',
    run_count: 3,
    error_count: 0,
    has_root: 1,
    prompt_tokens: '110',
    completion_tokens: '25',
  });
  expect(Number(trace.end_time) - Number(trace.start_time)).toBe(1_500_000);
  expect(trace.total_cost).toBeCloseTo(0.002);

  const runs = await own.ch.query<Record<string, unknown>>(
    sql`SELECT toString(id) AS id, thread_id, metadata_keys, metadata_values, total_tokens, first_token_time FROM runs FINAL WHERE trace_id = toUUID(${root!.id})`,
  );
  const byId = new Map(runs.map((r) => [r.id, r]));
  expect(byId.get(root!.id)).toMatchObject({
    thread_id: 'conv-1',
    metadata_keys: ['conversation_id', 'user', 'attempt'],
    metadata_values: ['conv-1', 'ada', '2'],
    total_tokens: '135',
  });
  expect(byId.get(llm1!.id)).toMatchObject({
    total_tokens: '15',
    first_token_time: String(Date.parse('2026-03-01T10:00:00.123Z') * 1000 + 456),
  });
  expect(byId.get(llm2!.id)).toMatchObject({ total_tokens: '120' });

  const feedback = await waitFor(
    'the feedback row',
    async () => {
      const rows = await own.ch.query<Record<string, unknown>>(
        sql`SELECT toString(session_id) AS session_id, key, score FROM feedback FINAL WHERE id = toUUID(${feedbackId})`,
      );
      return rows[0];
    },
    30_000,
    100,
  );
  const [location] = await own.ch.query<{ session_id: string }>(
    sql`SELECT toString(session_id) AS session_id FROM run_locations FINAL WHERE id = toUUID(${llm1!.id})`,
  );
  expect(feedback).toEqual({ session_id: location!.session_id, key: 'correctness', score: 0.5 });
});
