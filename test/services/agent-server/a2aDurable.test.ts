// A2A tasks read back after the server restarted (PostgreSQL persistence): tasks/get rebuilds a
// task from the run record and the thread's checkpoints, each task with its own answer and the
// history as it stood when it ended; a conversation goes on by its contextId.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { scratchPostgres, type ScratchPostgres } from '../../support/scratchPostgres.ts';
import { exampleGraph, startAgentServer, writeAgentConfig, type AgentServer } from '../../support/agentServer.ts';
import { freePort } from '../../support/serviceProcess.ts';

let db: ScratchPostgres;
let env: Record<string, string>;
let configFile: string;
let port: number;
let server: AgentServer | undefined;

beforeAll(async () => {
  db = await scratchPostgres('agent_a2a');
  env = db.agentServerEnv;
  configFile = writeAgentConfig({
    graphs: {
      agent: exampleGraph('chatAgent'),
      approval: `${join(import.meta.dirname, 'fixtures', 'approvalGraph.ts')}:graph`,
    },
  });
  port = await freePort();
});

afterAll(async () => {
  await server?.stop();
  await db?.drop();
});

async function restart(): Promise<void> {
  await server?.stop();
  server = await startAgentServer('a2a-durable', { configFile, env, port });
}

async function rpc(assistant: string, method: string, params: unknown): Promise<any> {
  const res = await fetch(`${server!.url}/a2a/${assistant}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...server!.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as any;
  expect(body.error).toBeUndefined();
  return body.result;
}

const say = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { role: 'user', messageId: crypto.randomUUID(), parts: [{ kind: 'text', text }], ...extra },
});
const textOf = (parts: { text?: string }[]) => parts.map((p) => p.text ?? '').join('');

describe('A2A tasks after a restart', () => {
  it('are read from the run and the checkpoints as they were when each ended', async () => {
    await restart();
    const first = await rpc('agent', 'message/send', say('one'));
    const second = await rpc('agent', 'message/send', say('two', { contextId: first.contextId, taskId: first.id }));
    const asked = await rpc('approval', 'message/send', say('may I?'));
    expect(asked.status.state).toBe('input-required');

    await restart();
    const firstAgain = await rpc('agent', 'tasks/get', { id: first.id });
    expect(firstAgain.status.state).toBe('completed');
    expect(textOf(firstAgain.artifacts[0].parts)).toBe('Turn 1: you said "one"');
    expect(firstAgain.history.map((m: any) => textOf(m.parts))).toEqual(['one', 'Turn 1: you said "one"']);
    const secondAgain = await rpc('agent', 'tasks/get', { id: second.id });
    expect(textOf(secondAgain.status.message.parts)).toBe('Turn 2: you said "two"');
    expect(secondAgain.history).toHaveLength(4);
    expect((await rpc('approval', 'tasks/get', { id: asked.id })).status.state).toBe('input-required');

    const third = await rpc('agent', 'message/send', say('three', { contextId: first.contextId }));
    expect(textOf(third.artifacts[0].parts)).toBe('Turn 3: you said "three"');
    const resumed = await rpc('approval', 'message/send', say('yes', { contextId: asked.contextId, taskId: asked.id }));
    expect(textOf(resumed.artifacts[0].parts)).toBe('answer was yes');
  });
});
