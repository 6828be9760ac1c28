// The chat app's settings, read from the environment here and nowhere else. It is an example
// (a customer's app on the platform), so it keeps its own small config, as the A2A example does.
import { z } from 'zod';
import { parseEnv, tcpPort } from '../../platform/config.ts';
import type { PortNeed } from '../../platform/ports.ts';

const positiveInt = z.coerce.number().int().positive();

const configSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  CHAT_APP_PORT: tcpPort.default(3000),
  /**
   * Where threads (checkpoints) live: `memory` (the default: process-local, lost when the app
   * stops) or `postgres` (POSTGRES_URL, schema `chat_app`: threads survive a restart).
   */
  CHAT_CHECKPOINTER: z.enum(['memory', 'postgres']).default('memory'),
  POSTGRES_URL: z.string().default('postgres://postgres:postgres@127.0.0.1:5432/postgres'),
  /** Events kept per run for replay (`since`, reconnects); the oldest go first beyond it. */
  CHAT_RUN_BUFFER_EVENTS: positiveInt.default(10_000),
  /** How long a finished run's events stay replayable (unless the thread's next run starts first). */
  CHAT_RUN_BUFFER_TTL_MS: positiveInt.default(10 * 60_000),
  /** The scripted (offline) models' pause between streamed tokens, to make streaming visible. */
  CHAT_SCRIPTED_TOKEN_DELAY_MS: z.coerce.number().int().min(0).default(15),
  /** With a key, the agent's models are OpenAI's (CHAT_OPENAI_MODEL); without, scripted ones. */
  OPENAI_API_KEY: z.string().min(1).optional(),
  CHAT_OPENAI_MODEL: z.string().min(1).default('gpt-5-mini'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** The usual LangSmith variables: each turn is traced into that project, one thread per chat thread. */
  LANGSMITH_TRACING: z.enum(['true', 'false']).default('false'),
  LANGSMITH_ENDPOINT: z.url().default('http://127.0.0.1:1984'),
  LANGSMITH_API_KEY: z.string().min(1).optional(),
  LANGSMITH_PROJECT: z.string().min(1).default('chat-app'),
});

export type ChatAppConfig = z.infer<typeof configSchema>;

/** The variables loadChatAppConfig reads (README.md's Configuration table lists them too). */
export const chatAppVariables = Object.keys(configSchema.shape) as (keyof ChatAppConfig)[];

/** Throws ConfigError naming every bad variable. */
export function loadChatAppConfig(env: NodeJS.ProcessEnv = process.env): ChatAppConfig {
  return parseEnv(configSchema, env);
}

/** Where the app listens; services/main.ts checks it is free before it starts anything. */
export function chatAppPort(config: Pick<ChatAppConfig, 'HOST' | 'CHAT_APP_PORT'>): PortNeed {
  return { host: config.HOST, port: config.CHAT_APP_PORT, variable: 'CHAT_APP_PORT', purpose: 'the example chat app' };
}
