// feedback_keys of a run: once its graph is done, a `feedback` event with a token URL per key
// (runs/runFeedback.ts makes them on the tracing API; feedbackTokens.test.ts and the SDK e2e use
// them). A server that does not trace its runs, or tokens that cannot be made, send no event and
// fail no run.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createLogger } from '../../../../platform/logger.ts';
import { DEFAULT_WORKSPACE_ID } from '../../../../services/tenancy/index.ts';
import { Caller } from '../../../../services/agent-server/auth/callers.ts';
import { ANONYMOUS } from '../../../../services/agent-server/auth/customAuth.ts';
import { GraphRegistry } from '../../../../services/agent-server/graphRegistry.ts';
import { RunManager } from '../../../../services/agent-server/runs/runManager.ts';
import type { FeedbackTokens } from '../../../../services/agent-server/runs/runFeedback.ts';
import { tracingFeedbackTokens } from '../../../../services/agent-server/runs/runFeedback.ts';
import { MemoryCheckpointer } from '../../../../services/agent-server/store/memoryCheckpointer.ts';
import { MemoryRecordStore } from '../../../../services/agent-server/store/memoryRecordStore.ts';
import { WorkspaceCheckpointer } from '../../../../platform/workspaceThreads.ts';
import { repoRoot } from '../../../support/serviceProcess.ts';

async function runManager(feedbackTokens?: FeedbackTokens) {
  const checkpointer = new WorkspaceCheckpointer(new MemoryCheckpointer());
  const graphs = await GraphRegistry.load(
    [{ graphId: 'noop', file: join(repoRoot, 'examples/agent-server/noopGraph.ts'), exportName: 'graph' }],
    checkpointer,
  );
  const logger = createLogger('test', 'silent');
  return new RunManager({ graphs, store: new MemoryRecordStore(), checkpointer, logger, feedbackTokens });
}

const caller = new Caller(DEFAULT_WORKSPACE_ID, ANONYMOUS);
const body = { assistant_id: 'noop', input: {}, feedback_keys: ['thumbs', 'correct'] };

async function eventsOf(runs: RunManager) {
  const run = await runs.create(undefined, body, caller);
  const events: { event: string; data: any }[] = [];
  for await (const e of run.subscribe()) events.push({ event: e.event, data: JSON.parse(e.data) });
  return { run, events, outcome: await run.outcome };
}

describe('feedback_keys', () => {
  it('sends the feedback event last, a token URL per key on the run', async () => {
    const asked: [string, string[]][] = [];
    const tokens: FeedbackTokens = {
      urls: async (runId, keys) => {
        asked.push([runId, keys]);
        return Object.fromEntries(keys.map((k) => [k, `http://tracing/feedback/tokens/${k}`]));
      },
    };
    const { run, events, outcome } = await eventsOf(await runManager(tokens));
    expect(outcome.status).toBe('success');
    expect(asked).toEqual([[run.record.run_id, ['thumbs', 'correct']]]);
    expect(events.at(-1)).toEqual({
      event: 'feedback',
      data: { thumbs: 'http://tracing/feedback/tokens/thumbs', correct: 'http://tracing/feedback/tokens/correct' },
    });
  });

  it('sends none, and fails no run, without tracing or when the tokens cannot be made', async () => {
    const failing: FeedbackTokens = { urls: async () => Promise.reject(new Error('tracing API away')) };
    for (const runs of [await runManager(), await runManager(failing)]) {
      const { events, outcome } = await eventsOf(runs);
      expect(outcome.status).toBe('success');
      expect(events.map((e) => e.event)).not.toContain('feedback');
    }
  });

  it('makes tokens only when the server traces its runs (LANGSMITH_TRACING and a key)', () => {
    expect(tracingFeedbackTokens({})).toBeUndefined();
    expect(tracingFeedbackTokens({ LANGSMITH_TRACING: 'true' })).toBeUndefined();
    expect(tracingFeedbackTokens({ LANGSMITH_TRACING: 'true', LANGSMITH_API_KEY: 'k' })).toBeDefined();
  });
});
