// The names refused as secrets: those the official CLIs refuse, and every name the local deployer
// sets in a server's environment (else a secret of that name would be overridden without a word).
import { expect, test } from 'vitest';
import { RESERVED_ENV_NAMES, reservedEnvProblem } from '../../../services/deployments/reservedEnvNames.ts';
import { platformEnv } from '../../../services/deployments/deployer/localDeployer.ts';
import { SANDBOX_PROXY_ENV } from '../../../services/deployments/deployer/sandbox.ts';

test("every variable the deployer sets over the secrets is reserved (its sandbox's proxy and home too)", () => {
  const spec = {
    deploymentId: 'd',
    revisionId: 'r',
    deploymentName: 'n',
    tenantId: 't',
    apiKey: 'k',
    source: { kind: 'directory', path: '/x' } as const,
    env: {},
    secrets: {},
  };
  const names = Object.keys(platformEnv(spec, '/run/server.sock', '/x/langgraph.json', '/bin'));
  expect(names.length).toBeGreaterThan(10);
  names.push('HOME', ...Object.keys(SANDBOX_PROXY_ENV));
  expect(names.filter((name) => !RESERVED_ENV_NAMES.has(name))).toEqual([]);
});

test('the CLIs’ reserved names and the platform’s own are refused, with what to do; other names pass', () => {
  for (const name of [
    'LANGSMITH_API_KEY',
    'LANGCHAIN_PROJECT',
    'PORT',
    'PATH',
    'DATABASE_URI',
    'LSD_ENV',
    'KAFKA_BROKERS',
    'AGENT_SERVER_AUTH',
    'HTTPS_PROXY',
    'NODE_USE_ENV_PROXY',
    'HOME',
  ])
    expect(reservedEnvProblem(name), name).toBe(
      `${name} is set by the platform in every deployed server and cannot be a secret; give your variable another name`,
    );
  for (const name of ['OPENAI_API_KEY', 'GREETING_SECRET', 'LOG_LEVEL', 'port', 'LANGSMITH_TRACING'])
    expect(reservedEnvProblem(name), name).toBeNull();
});
