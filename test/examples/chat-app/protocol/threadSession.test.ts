// The per-thread session without the agent: a graph stand-in that streams a few protocol events,
// to pin down what the registry keeps in memory and for how long.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../platform/logger.ts';
import { SessionRegistry, type ProtocolGraph } from '../../../../examples/chat-app/protocol/threadSession.ts';

/** Streams `count` root `custom` events, then the root's `completed`. */
const graphOf = (count: number): ProtocolGraph => ({
  async streamEvents() {
    return (async function* () {
      yield { method: 'lifecycle', params: { namespace: [], data: { event: 'running' } } };
      for (let i = 0; i < count; i += 1)
        yield { method: 'custom', params: { namespace: [], data: { name: 'n', payload: i } } };
      yield { method: 'lifecycle', params: { namespace: [], data: { event: 'completed' } } };
    })();
  },
});

const key = (threadId: string, workspaceId = 'w1') => ({ workspaceId, threadId });

const registry = (count: number, finishedTtlMs: number) =>
  new SessionRegistry({
    graph: graphOf(count),
    logger: createLogger('test', 'silent'),
    maxEventsPerRun: 100,
    finishedTtlMs,
    graphName: 'g',
  });

async function drain(it: AsyncIterable<unknown>): Promise<number> {
  let n = 0;
  for await (const _ of it) n += 1;
  return n;
}

describe('SessionRegistry', () => {
  it('forgets a thread once its finished run log is released and nobody follows it', async () => {
    const sessions = registry(3, 50);
    const session = sessions.get(key('t1'));
    session.startRun({ input: null });
    expect(await drain(session.subscribe({ channels: ['custom', 'lifecycle'] }, new AbortController().signal))).toBe(5);
    expect(sessions.peek(key('t1'))).toBe(session);
    await new Promise((r) => setTimeout(r, 120));
    expect(sessions.peek(key('t1'))).toBeUndefined();
    // A new session for the thread numbers its events after the old one's.
    const again = sessions.get(key('t1'));
    expect(again).not.toBe(session);
  });

  it('keeps a thread that a subscriber still waits on, and hands it the next run', async () => {
    const sessions = registry(2, 20);
    const session = sessions.get(key('t2'));
    session.startRun({ input: null });
    await drain(session.subscribe({ channels: ['lifecycle'] }, new AbortController().signal)); // the first run is over
    const events: { seq: number }[] = [];
    const follower = (async () => {
      for await (const { event } of session.subscribe({ channels: ['custom'] }, new AbortController().signal))
        events.push(event);
    })();
    await new Promise((r) => setTimeout(r, 80)); // the first run's log has been released meanwhile
    expect(sessions.peek(key('t2'))).toBe(session);
    sessions.get(key('t2')).startRun({ input: null });
    await follower;
    // The replay of the first run (2 events), then the second run (2): seq keeps growing.
    expect(events).toHaveLength(4);
    expect(events.map((e) => e.seq)).toEqual([...events.map((e) => e.seq)].sort((a, b) => a - b));
  });

  it("keeps each workspace's thread apart under the same id: its own session, runs and checkpoints", async () => {
    const seen: { configurable: Record<string, unknown>; metadata: Record<string, unknown> }[] = [];
    const graph: ProtocolGraph = {
      async streamEvents(_input, options) {
        const run = options as (typeof seen)[number];
        seen.push(run);
        return (async function* () {
          // LangGraph names the thread in checkpoint configs and metadata by the id it was given.
          yield {
            method: 'checkpoints',
            params: {
              namespace: [],
              data: {
                config: { configurable: { thread_id: run.configurable.thread_id } },
                metadata: { thread_id: run.configurable.thread_id },
              },
            },
          };
          yield { method: 'lifecycle', params: { namespace: [], data: { event: 'completed' } } };
        })();
      },
    };
    const sessions = new SessionRegistry({
      graph,
      logger: createLogger('test', 'silent'),
      maxEventsPerRun: 100,
      finishedTtlMs: 60_000,
      graphName: 'g',
    });
    const a = sessions.get(key('same', 'wa'));
    const b = sessions.get(key('same', 'wb'));
    expect(a).not.toBe(b);
    expect(sessions.peek(key('same', 'wc'))).toBeUndefined();
    a.startRun({ input: null });
    const events: unknown[] = [];
    for await (const { event } of a.subscribe({ channels: ['checkpoints', 'lifecycle'] }, new AbortController().signal))
      events.push(event);
    expect(b.currentRun).toBeUndefined();
    // The checkpointer sees the workspace's thread; the trace and the client see the id the client chose.
    expect(seen.map((o) => [o.configurable.thread_id, o.metadata.thread_id])).toEqual([['wa/same', 'same']]);
    expect(events[0]).toMatchObject({
      params: { data: { config: { configurable: { thread_id: 'same' } }, metadata: { thread_id: 'same' } } },
    });
    expect(JSON.stringify(events)).not.toContain('wa/');
    await sessions.delete(key('same', 'wa'));
    expect(sessions.peek(key('same', 'wb'))).toBe(b);
  });

  it('bounds a run log: beyond maxEventsPerRun the oldest events go first', async () => {
    const sessions = registry(500, 60_000);
    const session = sessions.get(key('t3'));
    session.startRun({ input: null });
    const live = await drain(session.subscribe({ channels: ['custom', 'lifecycle'] }, new AbortController().signal));
    expect(live).toBeLessThanOrEqual(502);
    expect(session.currentRun!.size).toBeLessThanOrEqual(100);
    expect(session.currentRun!.dropped).toBe(502 - session.currentRun!.size);
  });
});
