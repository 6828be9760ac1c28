// A thread's protocol events without a server: graph stand-ins that stream a few LangGraph v3
// events, to pin down what a subscription gets (replay, then live; one run at a time), what the
// translation adds (seq, event ids, input.requested, the root's terminal lifecycle), what is kept
// in memory and for how long, and how another replica's run is reached.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../platform/logger.ts';
import type { OutgoingFrame, RemoteRun } from '../../../../services/agent-server/protocol/protocolStreams.ts';
import { ProtocolStreams } from '../../../../services/agent-server/protocol/protocolStreams.ts';
import type { Announcement, ReplicaAnnouncer } from '../../../../services/agent-server/protocol/replicaAnnouncer.ts';
import type { Subscription } from '../../../../services/agent-server/protocol/runLog.ts';

type Raw = { method: string; params: { namespace: string[]; data: unknown; node?: string } };

/** A graph whose v3 stream yields `events` (then throws `fail`, when given). */
const graphOf = (events: Raw[], fail?: Error, seen?: Record<string, unknown>[]) => ({
  async streamEvents(_input: unknown, options: Record<string, unknown>) {
    seen?.push(options);
    return (async function* () {
      for (const event of events) yield event;
      if (fail) throw fail;
    })();
  },
});
const lifecycle = (event: string, namespace: string[] = []): Raw => ({
  method: 'lifecycle',
  params: { namespace, data: { event } },
});
const custom = (payload: number): Raw => ({
  method: 'custom',
  params: { namespace: [], data: { name: 'n', payload } },
});
const counting = (count: number) => [
  lifecycle('running'),
  ...[...Array(count).keys()].map(custom),
  lifecycle('completed'),
];

const key = (threadId: string, workspaceId = 'w1') => ({ workspaceId, threadId });
const everything: Subscription = { channels: ['custom', 'lifecycle', 'values', 'input', 'updates'] };
const seeAll = { visible: async () => true };

const streams = (finishedTtlMs = 60_000, maxEventsPerRun = 100, announcer?: ReplicaAnnouncer) =>
  new ProtocolStreams({ logger: createLogger('test', 'silent'), maxEventsPerRun, finishedTtlMs, announcer });

let runs = 0;
/** Streams a run of `graph` on `thread`, as the run manager does; resolves with the root's last values. */
const run = (hub: ProtocolStreams, thread: ReturnType<typeof key>, graph: unknown, replicaUrl?: string) =>
  hub.stream({ thread, runId: `run-${++runs}`, graphName: 'g', replicaUrl }, graph, null, { signal: undefined });

async function collect(frames: AsyncIterable<OutgoingFrame>): Promise<Record<string, any>[]> {
  const events = [];
  for await (const { frame } of frames) events.push(JSON.parse(/^data: (.*)$/m.exec(frame)![1]!));
  return events;
}

/**
 * What a subscription opened now replays of the thread's last run: a subscription after a run
 * has ended replays it, then follows the next run, which this one (without events) is.
 */
async function replayed(
  hub: ProtocolStreams,
  thread: ReturnType<typeof key>,
  subscription: Subscription = everything,
  reach = seeAll,
): Promise<Record<string, any>[]> {
  const events = collect(hub.follow(thread, subscription, new AbortController().signal, reach));
  await run(hub, thread, graphOf([]));
  return events;
}

describe('ProtocolStreams', () => {
  it('numbers events along the thread (seq, event_id), names the graph on the root lifecycle, and leaves undefined options out', async () => {
    const hub = streams();
    const seen: Record<string, unknown>[] = [];
    await run(hub, key('t0'), graphOf(counting(2), undefined, seen));
    const first = await replayed(hub, key('t0'));
    expect(first.map((e) => e.method)).toEqual(['lifecycle', 'custom', 'custom', 'lifecycle']);
    expect(first[0]).toMatchObject({
      type: 'event',
      params: { namespace: [], data: { event: 'running', graph_name: 'g' } },
    });
    for (const e of first) expect(e.event_id).toBe(`${first[0]!.event_id.split('.')[0]}.${e.seq}`);
    const seqs = first.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(hub.lastSeq(key('t0'))).toBe(seqs.at(-1));
    // A subscription opened while no run runs replays the last one, then follows the next.
    const following = collect(hub.follow(key('t0'), everything, new AbortController().signal, seeAll));
    await run(hub, key('t0'), graphOf(counting(1)));
    const both = await following;
    expect(both.map((e) => e.method)).toEqual(['lifecycle', 'custom', 'lifecycle']); // (the empty run has no events)
    expect(both[0]!.seq).toBeGreaterThan(seqs.at(-1)!);
    // options given as undefined would override the graph's own (its recursion limit): they are left out
    expect(seen[0]).toEqual({ version: 'v3' });
  });

  it('turns an interrupt into input.requested and the root’s end into "interrupted", once per interrupt', async () => {
    const hub = streams();
    const interrupt = { id: 'i-1', value: { question: 'approve?' } };
    const values = await run(
      hub,
      key('t-int'),
      graphOf([
        lifecycle('running'),
        { method: 'values', params: { namespace: [], data: { messages: ['hi'] } } },
        { method: 'updates', params: { namespace: [], data: { node: '__interrupt__', values: [interrupt] } } },
        { method: 'values', params: { namespace: [], data: { __interrupt__: [interrupt] } } },
        lifecycle('completed'),
      ]),
    );
    expect(values).toEqual({ messages: ['hi'] });
    const events = await replayed(hub, key('t-int'));
    expect(events.map((e) => [e.method, e.params.data])).toEqual([
      ['lifecycle', { event: 'running', graph_name: 'g' }],
      ['values', { messages: ['hi'] }],
      ['input.requested', { interrupt_id: 'i-1', payload: { question: 'approve?' } }],
      ['lifecycle', { event: 'interrupted', graph_name: 'g' }],
    ]);
  });

  it('ends a run whose stream broke off with a root "failed" that says why', async () => {
    const hub = streams();
    await expect(
      run(hub, key('t-fail'), graphOf([lifecycle('running')], new Error('the model is down'))),
    ).rejects.toThrow('the model is down');
    const events = await replayed(hub, key('t-fail'));
    expect(events.at(-1)).toMatchObject({
      method: 'lifecycle',
      params: { namespace: [], data: { event: 'failed', error: 'the model is down' } },
    });
  });

  it('filters by channel, namespace prefix and depth, and skips what `since` says the client has', async () => {
    const hub = streams();
    const subscribe = (subscription: Subscription) =>
      collect(hub.follow(key('t-f'), subscription, new AbortController().signal, seeAll));
    // opened before the run: each follows it to its end
    const [all, customs, subagentTop] = [
      subscribe(everything),
      subscribe({ channels: ['custom'] }),
      subscribe({ channels: ['lifecycle'], namespaces: [['tools']], depth: 0 }),
    ];
    await run(
      hub,
      key('t-f'),
      graphOf([...counting(3), lifecycle('started', ['tools:a']), lifecycle('started', ['tools:a', 'x:b'])]),
    );
    expect((await customs).map((e) => e.params.data.payload)).toEqual([0, 1, 2]);
    expect((await subagentTop).map((e) => e.params.namespace)).toEqual([['tools:a']]);
    const every = await all;
    expect(every).toHaveLength(7);
    expect(await replayed(hub, key('t-f'), { ...everything, since: every[2]!.seq })).toEqual(every.slice(3));
  });

  it('forgets a thread once its finished run is released and nobody follows it', async () => {
    const hub = streams(50);
    await run(hub, key('t1'), graphOf(counting(3)));
    expect(hub.size).toBe(1);
    await expect.poll(() => hub.size, { timeout: 5000 }).toBe(0);
    // Nothing to replay then: a subscriber waits for the next run.
    expect((await replayed(hub, key('t1'))).map((e) => e.method)).toEqual([]);
  });

  it("keeps each workspace's thread of one id apart", async () => {
    const hub = streams();
    await run(hub, key('same', 'wa'), graphOf(counting(2)));
    const stop = new AbortController();
    const b = collect(hub.follow(key('same', 'wb'), everything, stop.signal, seeAll));
    await new Promise((r) => setImmediate(r));
    stop.abort();
    expect(await b).toEqual([]);
    expect(await replayed(hub, key('same', 'wa'))).toHaveLength(4);
  });

  it('sends a run only to a subscriber that may see it', async () => {
    const hub = streams();
    await run(hub, key('t-v'), graphOf(counting(2)));
    expect(await replayed(hub, key('t-v'), everything, { visible: async () => false })).toEqual([]);
  });

  it('bounds a run log: beyond maxEventsPerRun the oldest events go first', async () => {
    const hub = streams(60_000, 100);
    await run(hub, key('t3'), graphOf(counting(500)));
    const kept = await replayed(hub, key('t3'));
    expect(kept.length).toBeLessThanOrEqual(100);
    expect(kept.length).toBeGreaterThanOrEqual(90);
    expect(kept.at(-1)!.params.data.event).toBe('completed');
  });

  it("follows another replica's run where it executes, as its announcements say", async () => {
    let hear: (a: Announcement) => void = () => undefined;
    const announced: Announcement[] = [];
    const announcer: ReplicaAnnouncer = {
      announce: (a) => announced.push(a),
      listen: (listener) => (hear = listener),
      close: async () => undefined,
    };
    const hub = streams(60_000, 100, announcer);
    // A run executed here is announced (with where this replica is reached), and its end with its last seq.
    await run(hub, key('t-here'), graphOf(counting(1)), 'http://here:1');
    expect(announced.map((a) => a.kind)).toEqual(['started', 'ended']);
    expect(announced[0]).toMatchObject({ thread: key('t-here'), url: 'http://here:1' });
    expect(announced[1]).toMatchObject({ lastSeq: hub.lastSeq(key('t-here')) });

    // A subscriber waiting here is handed the run another replica announces, through the relay.
    const relayed: { run: RemoteRun; subscription: Subscription }[] = [];
    const waiting = collect(
      hub.follow(key('t-there'), { channels: ['custom'], since: 5 }, new AbortController().signal, {
        visible: async () => true,
        async *relay(remote, subscription) {
          relayed.push({ run: remote, subscription });
          yield {
            frame: `event: custom\ndata: ${JSON.stringify({ seq: 9, params: { data: 'from there' } })}\nid: r.9\n\n`,
            seq: 9,
          };
        },
      }),
    );
    await new Promise((r) => setImmediate(r));
    hear({ kind: 'started', thread: key('t-there'), runId: 'remote-run', url: 'http://there:2' });
    expect((await waiting).map((e) => e.params.data)).toEqual(['from there']);
    expect(relayed).toEqual([
      {
        run: { kind: 'remote', runId: 'remote-run', url: 'http://there:2', ended: false },
        subscription: { channels: ['custom'], since: 5 },
      },
    ]);
    // Its end tells this replica the thread's newest seq.
    hear({ kind: 'ended', thread: key('t-there'), runId: 'remote-run', url: 'http://there:2', lastSeq: 12345 });
    expect(hub.lastSeq(key('t-there'))).toBe(12345);
    // A run whose start went unheard is known from its end: a late subscriber here replays it there.
    hear({ kind: 'ended', thread: key('t-late'), runId: 'late-run', url: 'http://there:3', lastSeq: 1 });
    const late: RemoteRun[] = [];
    const stop = new AbortController();
    for await (const _ of hub.follow(key('t-late'), { channels: ['custom'] }, stop.signal, {
      visible: async () => true,
      async *relay(remote) {
        late.push(remote);
        stop.abort(); // (then it would wait for the thread's next run)
      },
    }));
    expect(late).toEqual([{ kind: 'remote', runId: 'late-run', url: 'http://there:3', ended: true }]);
    await hub.close();
  });
});
