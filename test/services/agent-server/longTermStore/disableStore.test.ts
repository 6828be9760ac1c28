// `http.disable_store: true` in the config file removes the /store routes, and /info says so;
// the graphs keep their store (as on LangGraph's servers): the memory assistant still recalls.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { join } from 'node:path';
import { loadConfig } from '../../../../platform/config.ts';
import { createLogger } from '../../../../platform/logger.ts';
import { loadAgentConfig } from '../../../../services/agent-server/agentConfig.ts';
import { buildAgentServerApp, type AgentServerApp } from '../../../../services/processes/agentServerApp.ts';
import { writeAgentConfig } from '../../../support/agentServer.ts';
import { repoRoot } from '../../../support/serviceProcess.ts';

let server: AgentServerApp;
beforeAll(async () => {
  const config = loadConfig({ ...inject('tracingEnv'), AGENT_SERVER_AUTH: 'none', LOG_LEVEL: 'warn' });
  const agentConfig = loadAgentConfig(
    writeAgentConfig({
      graphs: { memory: join(repoRoot, 'examples/agent-server/memoryGraph.ts:graph') },
      http: { disable_store: true },
    }),
  );
  server = await buildAgentServerApp(config, createLogger('disable-store', 'warn'), agentConfig);
  await server.app.ready();
});
afterAll(() => server?.close());

const human = (content: string) => ({ messages: [{ type: 'human', content }] });

describe('http.disable_store', () => {
  it('removes the store routes, and /info says so', async () => {
    expect((await server.app.inject('/info')).json().flags.store).toBe(false);
    const put = await server.app.inject({
      method: 'PUT',
      url: '/store/items',
      payload: { namespace: ['a'], key: 'k', value: {} },
    });
    expect(put.statusCode).toBe(404);
    expect((await server.app.inject({ method: 'POST', url: '/store/items/search', payload: {} })).statusCode).toBe(404);
  });

  it('leaves the graphs their store', async () => {
    const run = async (text: string) =>
      (
        await server.app.inject({
          method: 'POST',
          url: '/runs/wait',
          payload: { assistant_id: 'memory', input: human(text), config: { configurable: { user_id: 'u' } } },
        })
      )
        .json()
        .messages.at(-1).content;
    expect(await run('remember that the store is on')).toBe('Noted: the store is on.');
    expect(await run('and now?')).toBe('I remember that the store is on.');
  });
});
