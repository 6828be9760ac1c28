// The example agent's settings, read from the environment here and nowhere else. It stands for
// someone else's service, so it keeps its own small config rather than the platform's.
import { z } from 'zod';
import { parseEnv, tcpPort } from '../../platform/config.ts';
import type { PortNeed } from '../../platform/ports.ts';

const configSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  A2A_EXAMPLE_AGENT_PORT: tcpPort.default(2025),
  /** Public base URL written into the agent card; else http://HOST:port. */
  A2A_EXAMPLE_AGENT_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** The usual LangSmith variables: spans go to {LANGSMITH_ENDPOINT}/otel/v1/traces when tracing is on and a key is set. */
  LANGSMITH_TRACING: z.enum(['true', 'false']).default('false'),
  LANGSMITH_ENDPOINT: z.url().default('http://127.0.0.1:1984'),
  LANGSMITH_API_KEY: z.string().min(1).optional(),
  LANGSMITH_PROJECT: z.string().min(1).default('default'),
});

export type ExampleAgentConfig = z.infer<typeof configSchema>;

/** The variables loadExampleAgentConfig reads (docs/configuration.md lists them too). */
export const exampleAgentVariables = Object.keys(configSchema.shape) as (keyof ExampleAgentConfig)[];

/** Throws ConfigError naming every bad variable. */
export function loadExampleAgentConfig(env: NodeJS.ProcessEnv = process.env): ExampleAgentConfig {
  return parseEnv(configSchema, env);
}

/** Where the agent listens; services/main.ts checks it is free before it starts anything. */
export function exampleAgentPort(config: ExampleAgentConfig): PortNeed {
  return {
    host: config.HOST,
    port: config.A2A_EXAMPLE_AGENT_PORT,
    variable: 'A2A_EXAMPLE_AGENT_PORT',
    purpose: 'the example A2A agent',
  };
}
