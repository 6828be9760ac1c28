// The chat app's settings, read from the environment here and nowhere else. It is an example
// (a customer's app on the platform), so it keeps its own small config, as the A2A example does;
// the platform's own settings it needs (Kafka, where the API keys are) are the platform's.
import { isIP } from 'node:net';
import { z } from 'zod';
import { ConfigError, configReads, loadConfig, parseEnv, tcpPort } from '../../platform/config.ts';
import type { PortNeed } from '../../platform/ports.ts';
import type { TenancyReaderConfig } from '../../services/tenancy/index.ts';

const positiveInt = z.coerce.number().int().positive();

const configSchema = z
  .object({
    HOST: z.string().default('127.0.0.1'),
    CHAT_APP_PORT: tcpPort.default(3000),
    /**
     * Who may use the app: `api_key` (the default) needs an API key of the platform in X-Api-Key
     * (X-Tenant-Id for a key of several workspaces) on every /api route, and keeps each workspace's
     * threads apart; `none` lets anyone in, as the default workspace, and only on a loopback HOST.
     */
    CHAT_APP_AUTH: z.enum(['api_key', 'none']).default('api_key'),
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
    /**
     * The usual LangSmith variables: each turn is traced into that project, one thread per chat
     * thread, with the caller's own API key into the caller's workspace (LANGSMITH_API_KEY only
     * with CHAT_APP_AUTH=none, where callers have none).
     */
    LANGSMITH_TRACING: z.enum(['true', 'false']).default('false'),
    LANGSMITH_ENDPOINT: z.url().default('http://127.0.0.1:1984'),
    LANGSMITH_API_KEY: z.string().min(1).optional(),
    LANGSMITH_PROJECT: z.string().min(1).default('chat-app'),
  })
  .superRefine((config, ctx) => {
    if (config.CHAT_APP_AUTH === 'none' && !isLoopback(config.HOST))
      ctx.addIssue({
        code: 'custom',
        path: ['CHAT_APP_AUTH'],
        message: `"none" lets anyone who reaches the app read and delete every thread, so it listens only on a loopback HOST (127.0.0.1, ::1, localhost), not on ${config.HOST}: set HOST to one, or leave CHAT_APP_AUTH unset (API keys)`,
      });
  });

/** The platform's settings the app reads: where the API keys are (the tenancy topic on Kafka). */
type PlatformSlice = TenancyReaderConfig;

export type ChatAppConfig = z.infer<typeof configSchema> & { platform: PlatformSlice };

/** The variables loadChatAppConfig reads itself (docs/configuration.md lists them too; the platform's are the platform's). */
export const chatAppVariables = Object.keys(configSchema.shape) as (keyof z.infer<typeof configSchema>)[];

/** Whether a server listening on `host` is reachable from this machine only. */
export function isLoopback(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1' || h === '::ffff:127.0.0.1';
}

/** Throws ConfigError naming every bad variable, the app's and the platform's it reads. */
export function loadChatAppConfig(env: NodeJS.ProcessEnv = process.env): ChatAppConfig {
  const { problems, attempt } = configReads();
  const own = attempt(() => parseEnv(configSchema, env));
  const platform = attempt(() => loadConfig(env));
  if (!own || !platform) throw new ConfigError([...new Set(problems)]);
  const { KAFKA_BROKERS, KAFKA_TOPIC_PREFIX, KAFKA_PARTITIONS, KAFKA_APPEND_TIMEOUT_MS, SECRETS_ENCRYPTION_KEY } =
    platform;
  return {
    ...own,
    platform: { KAFKA_BROKERS, KAFKA_TOPIC_PREFIX, KAFKA_PARTITIONS, KAFKA_APPEND_TIMEOUT_MS, SECRETS_ENCRYPTION_KEY },
  };
}

/** Where the app listens; services/main.ts checks it is free before it starts anything. */
export function chatAppPort(config: Pick<ChatAppConfig, 'HOST' | 'CHAT_APP_PORT'>): PortNeed {
  return { host: config.HOST, port: config.CHAT_APP_PORT, variable: 'CHAT_APP_PORT', purpose: 'the example chat app' };
}
