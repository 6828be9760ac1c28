// The example agent's settings, read from the environment here and nowhere else. It stands for
// someone else's service, so it keeps its own small config rather than the platform's.
import { z } from 'zod';

const configSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  A2A_EXAMPLE_AGENT_PORT: z.coerce.number().int().min(0).max(65535).default(2025),
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

export function loadExampleAgentConfig(env: NodeJS.ProcessEnv = process.env): ExampleAgentConfig {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n');
    throw new Error(`Invalid configuration:\n${problems}`);
  }
  return parsed.data;
}
