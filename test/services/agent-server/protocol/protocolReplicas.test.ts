// The agent streaming protocol across agent-server replicas on one PostgreSQL database: a run's
// events live in the replica that executes it, and a subscription on another replica follows it
// there (protocol/replicaAnnouncer.ts, protocol/remoteRunEvents.ts): live, replayed after the run
// has ended, filtered and resumed with `since`, and from one run to the next whichever replica
// executes each. Two server processes.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exampleGraph, startAgentServer, writeAgentConfig, type AgentServer } from '../../../support/agentServer.ts';
import {
  command,
  human,
  isRootTerminal,
  openStream,
  replay,
  startRun,
  type ProtocolCaller,
} from '../../../support/protocolClient.ts';
import { scratchPostgres, type ScratchPostgres } from '../../../support/scratchPostgres.ts';

let db: ScratchPostgres;
const replicas: AgentServer[] = [];
let a: ProtocolCaller;
let b: ProtocolCaller;

beforeAll(async () => {
  db = await scratchPostgres('agent_protocol_replicas');
  const fixtures = join(import.meta.dirname, '..', 'fixtures');
  const configFile = writeAgentConfig({
    graphs: {
      agent: exampleGraph('chatAgent'),
      approval: `${join(fixtures, 'approvalGraph.ts')}:graph`,
      probe: `${join(fixtures, 'protocolProbeGraph.ts')}:graph`,
    },
  });
  const started = await Promise.all(
    [0, 1].map((i) => startAgentServer(`protocol-replica-${i}`, { configFile, env: db.agentServerEnv })),
  );
  replicas.push(...started);
  a = { url: started[0]!.url, headers: started[0]!.headers };
  b = { url: started[1]!.url, headers: started[1]!.headers };
}, 180_000);

afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop()));
  await db?.drop();
});

const ALL = ['values', 'updates', 'messages', 'tools', 'lifecycle', 'input', 'checkpoints', 'tasks', 'custom'];

async function newThread(caller: ProtocolCaller): Promise<string> {
  const res = await fetch(`${caller.url}/threads`, {
    method: 'POST',
    headers: { ...caller.headers, 'content-type': 'application/json' },
    body: '{}',
  });
  return ((await res.json()) as { thread_id: string }).thread_id;
}

describe('agent streaming protocol across replicas', () => {
  it("a subscription on one replica follows a run another executes: live, the same events as the owner's own", async () => {
    const threadId = await newThread(a);
    const onA = openStream(a, threadId, { channels: ALL });
    const onB = openStream(b, threadId, { channels: ALL });
    const filteredOnB = openStream(b, threadId, { channels: ['custom:progress'], namespaces: [['inner']] });
    await Promise.all([onA.response, onB.response, filteredOnB.response]);
    const runId = await startRun(a, threadId, 'probe', human('across'));
    const [own, relayed, filtered] = await Promise.all([onA.events, onB.events, filteredOnB.events]);
    expect(own.length).toBeGreaterThan(5);
    expect(own.every((e) => e.event_id.startsWith(runId))).toBe(true);
    expect(relayed).toEqual(own);
    expect(filtered.map((e) => e.params.data)).toEqual([{ name: 'progress', payload: { step: 'inner' } }]);
  });

  it('a run that has ended on one replica is replayed on the other, and `since` resumes there', async () => {
    const threadId = await newThread(a);
    const onA = openStream(a, threadId, { channels: ALL });
    await onA.response;
    await startRun(a, threadId, 'agent', human('replay me'));
    const own = await onA.events;
    expect(await replay(b, threadId, { channels: ALL })).toEqual(own);
    const cut = Math.floor(own.length / 2);
    expect(await replay(b, threadId, { channels: ALL, since: own[cut]!.seq })).toEqual(own.slice(cut + 1));
  });

  it('an interrupt raised on one replica is answered through the other; each replica follows the runs of both', async () => {
    const threadId = await newThread(a);
    const first = openStream(b, threadId, { channels: ['lifecycle', 'input'] });
    await first.response;
    await startRun(a, threadId, 'approval', human('may I?'));
    const asked = await first.events;
    const requested = asked.find((e) => e.method === 'input.requested')!;
    expect(requested.params.data).toEqual({ interrupt_id: expect.any(String), payload: { question: 'approve?' } });
    expect(asked.filter(isRootTerminal).map((e) => e.params.data.event)).toEqual(['interrupted']);

    // The answer goes to B, which executes the resumed run; A's subscription follows it there.
    const second = openStream(a, threadId, { channels: ['lifecycle', 'values'], since: asked.at(-1)!.seq });
    await second.response;
    const answered = await command(b, threadId, {
      id: 2,
      method: 'input.respond',
      params: { interrupt_id: requested.params.data.interrupt_id, response: 'yes' },
    });
    expect(answered.status).toBe(200);
    // B learnt the thread's newest seq from A's announcement of the run's end.
    expect(answered.body.meta.applied_through_seq).toBe(asked.at(-1)!.seq);
    const resumed = await second.events;
    expect(resumed.filter(isRootTerminal).map((e) => e.params.data.event)).toEqual(['completed']);
    expect(resumed.every((e) => e.event_id.startsWith(answered.body.result.run_id))).toBe(true);
    // seq keeps growing along the thread, across the replicas.
    expect(resumed[0]!.seq).toBeGreaterThan(asked.at(-1)!.seq);
    const last = resumed.filter((e) => e.method === 'values').at(-1)!;
    expect(last.params.data.messages.at(-1)).toMatchObject({ type: 'ai', content: 'answer was yes' });
  });
});
