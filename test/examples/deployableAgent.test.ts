// The deployable example's graph (examples/deployable-agent) on its own: it answers with
// GREETING_PREFIX and the secret GREETING_SECRET, read at each run, and says when the secret is
// missing. test/services/deployments/deployer/localDeployer.test.ts deploys it for real.
import { HumanMessage } from '@langchain/core/messages';
import { afterEach, expect, test } from 'vitest';
import { graph } from '../../examples/deployable-agent/greeterGraph.ts';

const saved = { secret: process.env.GREETING_SECRET, prefix: process.env.GREETING_PREFIX };
afterEach(() => {
  for (const [name, value] of [
    ['GREETING_SECRET', saved.secret],
    ['GREETING_PREFIX', saved.prefix],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const answer = async (text: string) => {
  const state = await graph.invoke({ messages: [new HumanMessage(text)] });
  return state.messages.at(-1)!.content;
};

test('answers with the prefix and the secret of its environment', async () => {
  process.env.GREETING_SECRET = 'opensesame';
  process.env.GREETING_PREFIX = 'Howdy';
  expect(await answer('ping')).toBe('Howdy [opensesame]: you said "ping"');
});

test('says so when the secret is missing', async () => {
  delete process.env.GREETING_SECRET;
  delete process.env.GREETING_PREFIX;
  expect(await answer('ping')).toBe('Hi [(GREETING_SECRET is not set)]: you said "ping"');
});
