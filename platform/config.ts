// The one place where environment variables are read and validated. Every service
// calls loadConfig() at start-up; a bad value stops the process with a clear message.
// docs/configuration.md lists every variable here (test/platform/config.test.ts checks).
import { z } from 'zod';
import { exitCannotStart } from './cannotStart.ts';
import { parseHostRules } from './outboundHostPolicy.ts';

const portRule = 'a TCP port: 0-65535 (0: any free port)';
/** Also the example agent's (examples/otel-a2a-agent/exampleAgentConfig.ts). */
export const tcpPort = z.coerce.number({ error: portRule }).int(portRule).min(0, portRule).max(65535, portRule);
const bytes = z.coerce.number().int().positive();
/** Hosts, addresses, CIDR ranges, each optionally with :port, comma or space separated (outboundHostPolicy.ts). */
const hostList = z.string().superRefine((text, ctx) => {
  try {
    parseHostRules(text);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
  }
});

const configSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  TRACING_PORT: tcpPort.default(1984),
  /**
   * Processes of the tracing API on TRACING_PORT (node:cluster workers under a supervising primary,
   * platform/processCluster.ts): more than one lets ingestion use more cores. 1: the API is one process.
   */
  TRACING_API_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
  /** The control plane (/v2/deployments: deployments of agent servers and their revisions). */
  CONTROL_PLANE_PORT: tcpPort.default(1985),
  /**
   * Whether this control-plane replica deploys `github` revisions as local agent-server processes
   * (`local`, services/deployments/deploymentWorker.ts) or only serves the API (`none`). Exactly one
   * replica may run the local deployer: two would both build and start every revision.
   */
  CONTROL_PLANE_DEPLOYER: z.enum(['local', 'none']).default('local'),
  /**
   * The control plane's base URL as clients reach it; a locally deployed deployment's URL
   * (`source_config.custom_url`) is `<this>/d/<deployment id>`, forwarded by every replica to the
   * agent server of its active revision. Unset: `http://127.0.0.1:<CONTROL_PLANE_PORT>`. The tracing API
   * reaches the control plane there too, for the explorer page's deployments (services/tracing/explorerPage.ts).
   */
  CONTROL_PLANE_PUBLIC_URL: z.url().optional(),
  /** Where the local deployer builds each revision (`<dir>/<deployment id>/<revision id>/`), relative to the working directory. */
  DEPLOYMENTS_DIR: z.string().min(1).default('.local/deployments'),
  /**
   * Where the local deployer runs a deployment's commands (its install and build commands, its
   * agent server): `bwrap`, a bubblewrap sandbox with the revision's directory, its own user, PID
   * and network namespaces, and an egress proxy as its only way out
   * (services/deployments/deployer/sandbox.ts); `none`, as the control plane's own user, with its
   * access to everything (only where every deployment is the operator's own).
   */
  DEPLOYER_SANDBOX: z.enum(['bwrap', 'none']).default('bwrap'),
  /**
   * Whether github deployments may build from `file://` URLs, paths on the control plane's machine
   * and git servers on loopback or private addresses: `auto` while the control plane serves a single
   * workspace (the quick start), `allow` always, `deny` never.
   */
  DEPLOYMENT_LOCAL_SOURCES: z.enum(['auto', 'allow', 'deny']).default('auto'),
  /**
   * Hosts on loopback or private networks that deployments may reach although the default refuses
   * them: git servers of github deployments, and what deployed code connects to through its egress
   * proxy (e.g. an internal model gateway). The BULK_EXPORT_ALLOWED_HOSTS form.
   */
  DEPLOYMENT_ALLOWED_HOSTS: hostList.default(''),
  /** Hosts deployments may never reach, in the same form; wins over the allowed list. */
  DEPLOYMENT_DENIED_HOSTS: hostList.default(''),
  /**
   * Where deployed agent servers trace (each into the project named after its deployment, with a
   * key of its own that the control plane issues in the deployment's workspace); unset: they do
   * not trace. `npm start` points them at its own tracing API.
   */
  LANGSMITH_ENDPOINT: z.url().optional(),
  /** Read by the `langsmith` client of the agent server itself (not by the control plane, which gives each deployment a key of its own). */
  LANGSMITH_API_KEY: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  KAFKA_BROKERS: z.string().default('127.0.0.1:9092'),
  /** Prefix for every topic name: lets tests and tenants of one broker keep separate logs. */
  KAFKA_TOPIC_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9._-]*$/, 'letters, digits, ".", "_" and "-" only')
    .default(''),
  KAFKA_PARTITIONS: z.coerce.number().int().min(1).max(256).default(6),
  /** How long a write waits for Kafka before the API answers 503. */
  KAFKA_APPEND_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),

  CLICKHOUSE_URL: z.url().default('http://127.0.0.1:8123'),
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, 'a plain identifier')
    .default('langsmith'),
  CLICKHOUSE_USER: z.string().default('default'),
  CLICKHOUSE_PASSWORD: z.string().default(''),
  /**
   * The other replicas of a replicated ClickHouse (their HTTP URLs, comma separated): a request
   * that cannot reach the server it was using goes to the next. Empty: CLICKHOUSE_URL only.
   */
  CLICKHOUSE_REPLICA_URLS: z
    .string()
    .default('')
    .transform((text) =>
      text
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.url({ error: 'expected http(s) URLs, comma separated' }))),
  /**
   * The cluster (in the servers' remote_servers) the read models live on. Set, tables and views
   * are made, swapped and dropped ON CLUSTER with Replicated engines (platform/clickhouse/clusterDdl.ts);
   * empty (default), on the one server, with plain MergeTree engines.
   */
  CLICKHOUSE_CLUSTER: z
    .string()
    .regex(/^([a-zA-Z_][a-zA-Z0-9_]*)?$/, 'a plain identifier')
    .default(''),
  /**
   * With CLICKHOUSE_CLUSTER: how many replicas must hold an insert before ClickHouse acknowledges
   * it (insert_quorum), so before a projector commits its offsets. Unset: a majority of the
   * servers named by CLICKHOUSE_URL and CLICKHOUSE_REPLICA_URLS (2 of 2, 2 of 3). 1: no quorum.
   */
  CLICKHOUSE_INSERT_QUORUM: z.coerce.number().int().min(1).max(16).optional(),

  S3_ENDPOINT: z.url().default('http://127.0.0.1:9000'),
  /**
   * The object store as clients reach it, for the presigned URLs the services hand out (a run's
   * attachments, an example's, a deployment's source upload): S3_ENDPOINT when unset. Set it
   * where the services reach the store by an address clients cannot (a name on a container
   * network, docker-compose.yml's http://minio:9000).
   */
  S3_PUBLIC_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().default('minioadmin'),
  S3_SECRET_ACCESS_KEY: z.string().default('minioadmin-dev-secret'),
  /** Bucket for claim-checked payloads (big inputs/outputs) and attachments, and the control plane's uploaded sources. */
  S3_PAYLOAD_BUCKET: z.string().default('langsmith-payloads'),
  /**
   * The credentials the control plane signs source-upload URLs with (their access-key id is in
   * every URL): a user that may only put objects under `<bucket>/*\/deployment-sources/`. The local
   * stack makes this user in its MinIO (infra/minioAdmin.ts); elsewhere, create one with that policy.
   */
  S3_UPLOAD_ACCESS_KEY_ID: z.string().min(3).default('langsmith-uploads'),
  S3_UPLOAD_SECRET_ACCESS_KEY: z.string().min(8).default('langsmith-uploads-dev-secret'),

  BOOTSTRAP_API_KEY: z.string().min(16, 'must be at least 16 characters').optional(),

  /** Advertised in GET /info as batch_ingest_config.size_limit_bytes and enforced (413 above it, after decompression). */
  INGEST_SIZE_LIMIT_BYTES: bytes.default(20 * 1024 * 1024),
  /** Advertised as batch_ingest_config.size_limit (operations per batch). */
  INGEST_SIZE_LIMIT_OPS: z.coerce.number().int().positive().default(100),
  /** inputs/outputs/events larger than this go to S3 and the event carries a pointer. */
  PAYLOAD_OFFLOAD_BYTES: bytes.default(128 * 1024),

  /**
   * Rate limits of ingestion, per workspace and per API process (docs/ingestion.md): a token bucket
   * of BURST requests, refilled at RATE_PER_S. Over it: 429 RATE_LIMITED with Retry-After, and
   * nothing appended. BASIC is POST /runs and PATCH /runs/{id} together (one run operation a
   * request), BATCH is POST /runs/batch and /runs/multipart together (up to INGEST_SIZE_LIMIT_OPS
   * each). A rate of 0 turns that limit off.
   */
  INGEST_BASIC_RATE_PER_S: z.coerce.number().min(0).default(50),
  INGEST_BASIC_BURST: z.coerce.number().int().min(1).default(100),
  INGEST_BATCH_RATE_PER_S: z.coerce.number().min(0).default(500),
  INGEST_BATCH_BURST: z.coerce.number().int().min(1).default(1000),

  /**
   * Events (Kafka messages) per projector batch, committed once all of it is written (the runs
   * projector inserts it in parts of ~64k runs), and the longest a projector waits to fill one.
   */
  PROJECTOR_BATCH_EVENTS: z.coerce.number().int().positive().default(20000),
  PROJECTOR_FLUSH_MS: z.coerce.number().int().positive().default(200),
  /**
   * The longest the broker holds a projector's fetch while less than 256 KiB is waiting: what a
   * trickle's events wait before the projector sees them, and, with nothing to read, one fetch
   * per consumer per interval (each costing the broker and the projector CPU: npm run bench:idle).
   */
  PROJECTOR_FETCH_WAIT_MS: z.coerce.number().int().min(10).max(5000).default(350),
  PROJECTOR_CACHE_RUNS: z.coerce.number().int().positive().default(200000),
  /**
   * The nice value the projectors run at, 0 to 19. Their work comes in bursts (a batch every
   * PROJECTOR_FLUSH_MS or so, tens of milliseconds of CPU each); above 0 a burst yields the CPU to
   * the APIs answering requests whenever both want it, which shortens the requests' tail on a
   * machine they share, but the projectors then take only what the APIs leave: under sustained
   * saturation the APIs accept more than the projectors write, and the lag grows for as long as
   * it lasts (docs/configuration.md has the figures). 0, the default, shares the CPU evenly, so
   * the projectors keep up and the APIs answer slower instead.
   */
  PROJECTOR_NICE: z.coerce.number().int().min(0).max(19).default(0),
  /**
   * The same for a replay's runs projector. A replay's batches are large and its traces mostly
   * complete within one; what a big cache keeps costs more in garbage collection than the few
   * traces it saves reloading (a 1M-run replay: 18 % less CPU with 20,000 than with 200,000).
   */
  REPLAY_CACHE_RUNS: z.coerce.number().int().positive().default(20000),
  /**
   * The nice value a replay (npm run replay) runs at, 0 to 19: above 0 it yields the CPU to the
   * running service (the API answering reads, the live projectors) whenever both want it, and
   * takes what they leave. 0 replays at the service's own priority.
   */
  REPLAY_NICE: z.coerce.number().int().min(0).max(19).default(10),

  /**
   * Key that encrypts secrets (bulk-export destination credentials, deployment secrets) before they
   * are appended to Kafka, and from which the key that signs bearer tokens is derived (HKDF,
   * services/tenancy/bearerTokens.ts): 32 bytes as 64 hex digits or base64. `npm start` generates
   * one into .local/dev-secrets-key when unset, which the admin CLI reads too. Without it,
   * destinations cannot be created and no bearer token is issued or taken.
   */
  SECRETS_ENCRYPTION_KEY: z
    .string()
    .refine(
      (v) => /^[0-9a-fA-F]{64}$/.test(v) || Buffer.from(v, 'base64').length === 32,
      '32 bytes, as 64 hex digits or base64',
    )
    .optional(),

  /** Compression of exported Parquet files when the export does not name one. */
  FF_BULK_EXPORT_DEFAULT_COMPRESSION: z.enum(['none', 'gzip', 'snappy', 'zstandard']).default('gzip'),
  /** How long after a window ends its export run is created: room for late runs and projector lag. */
  BULK_EXPORT_LAG_SECONDS: z.coerce.number().int().min(0).default(300),
  /** How often the export worker looks for due windows and runs to start. */
  BULK_EXPORT_POLL_MS: z.coerce.number().int().positive().default(2000),
  /** Export runs one worker process works on at once. */
  BULK_EXPORT_CONCURRENCY: z.coerce.number().int().min(1).max(45).default(2),
  /** A Parquet file is closed and a new one begun once it reaches this size. */
  BULK_EXPORT_FILE_MAX_BYTES: bytes.default(128 * 1024 * 1024),
  /** Retries of a failed export run, and the first retry's delay (doubling after each failure, at most 10 minutes). */
  BULK_EXPORT_MAX_RETRIES: z.coerce.number().int().min(0).default(20),
  BULK_EXPORT_RETRY_DELAY_MS: z.coerce.number().int().min(0).default(30_000),
  /** An export run still unfinished after this long is stopped as TimedOut. */
  BULK_EXPORT_RUN_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(4 * 3600_000),
  /** A running export run whose worker has not reported for this long is taken over by another worker. */
  BULK_EXPORT_LEASE_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * Destination endpoints that may be reached although they resolve to a loopback, private,
   * link-local or unspecified address (refused by default, so a destination cannot point at
   * internal services): host names, addresses or CIDR ranges, each optionally with :port, comma
   * separated, e.g. `minio.internal:9000,10.20.0.0/16`. The S3_ENDPOINT host and port are always allowed.
   */
  BULK_EXPORT_ALLOWED_HOSTS: hostList.default(''),
  /** Destination endpoints refused whatever they resolve to, in the same form; this list wins over the allowed one. */
  BULK_EXPORT_DENIED_HOSTS: hostList.default(''),

  /** The agent server (LangGraph API + A2A): its port and the langgraph.json-format file naming its graphs. */
  AGENT_SERVER_PORT: tcpPort.default(2024),
  AGENT_SERVER_CONFIG: z.string().default('examples/agent-server/langgraph.json'),
  /**
   * A Unix socket the agent server listens on instead of HOST:AGENT_SERVER_PORT: the local
   * deployer's sandboxed servers, whose network is their own (services/deployments/deployer/sandbox.ts).
   */
  AGENT_SERVER_SOCKET: z.string().min(1).optional(),
  /**
   * Where thread checkpoints live: in memory (lost on restart) or in PostgreSQL at POSTGRES_URL.
   * With postgres, threads, runs and the run queue are in the database, so any number of agent
   * servers on it share the work (services/agent-server/runs/postgresRunQueue.ts).
   */
  AGENT_SERVER_CHECKPOINTER: z.enum(['memory', 'postgres']).default('memory'),
  /**
   * Where the other agent-server replicas on the database reach this one (to relay a run's stream
   * from the replica executing it), e.g. http://agent-server-2:2024. Default: http:// with HOST
   * (this machine's host name when HOST is 0.0.0.0 or ::) and the port it listens on.
   */
  AGENT_SERVER_URL: z.url().optional(),
  /**
   * With postgres: an agent server that has not heartbeated for this long is taken for dead, and
   * its running runs are marked failed (not retried: a graph's tools may already have acted), so a
   * thread is never stuck behind a killed server. It heartbeats four times per lease.
   */
  AGENT_SERVER_RUN_LEASE_MS: z.coerce.number().int().min(400).default(10_000),
  /**
   * The longest an agent server's cron scheduler sleeps between two looks for due crons
   * (services/agent-server/crons/cronScheduler.ts). It sleeps until the next due cron it knows
   * of, so this only bounds how late a cron another replica created just before its tick starts.
   */
  AGENT_SERVER_CRON_TICK_MS: z.coerce.number().int().min(50).default(5_000),
  /**
   * How the agent server authenticates callers when its config file names no auth module (one that
   * does replaces this): `api_key` (default) needs a key of the tracing API in X-Api-Key (X-Tenant-Id
   * for a key of several workspaces) and keeps each workspace's threads and runs apart; `none` turns
   * authentication off for local development (every caller acts in the default workspace), which the
   * server logs as a warning at start-up and reports in GET /info.
   */
  AGENT_SERVER_AUTH: z.enum(['api_key', 'none']).default('api_key'),
  /**
   * Where the agent server has its callers' API keys verified (`GET <this>/workspaces/current`)
   * instead of reading the tenancy topic: the control plane sets it for the servers it deploys,
   * which get no broker address. Answers are kept for a second (services/agent-server/auth/platformKeys.ts).
   */
  LANGSMITH_AUTH_ENDPOINT: z.url().optional(),
  /**
   * The one workspace the agent server serves: a key acting in another is refused (403), and a key
   * of several acts here without X-Tenant-Id. The control plane sets it to the deployment's workspace.
   */
  LANGSMITH_TENANT_ID: z.uuid().optional(),
  /**
   * Webhook URLs of runs (`webhook`) that may be called although they resolve to a loopback,
   * private, link-local or unspecified address (refused by default, so a run cannot make the server
   * call internal services): host names, addresses or CIDR ranges, each optionally with :port, comma
   * separated (the BULK_EXPORT_ALLOWED_HOSTS form).
   */
  AGENT_SERVER_WEBHOOK_ALLOWED_HOSTS: hostList.default(''),
  /** Webhook hosts refused whatever they resolve to, in the same form; this list wins over the allowed one. */
  AGENT_SERVER_WEBHOOK_DENIED_HOSTS: hostList.default(''),
  /** The largest request body the agent server reads; larger ones are refused with 413. */
  AGENT_SERVER_BODY_LIMIT_BYTES: bytes.default(25 * 1024 * 1024),
  /** Agent streaming protocol events kept per run for replay (`since`, reconnects); beyond it the oldest go first. */
  AGENT_SERVER_PROTOCOL_BUFFER_EVENTS: z.coerce.number().int().positive().default(10_000),
  /** How long a finished protocol run's events stay replayable, unless the thread's next run starts first. */
  AGENT_SERVER_PROTOCOL_BUFFER_TTL_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 60_000),
  /** PostgreSQL for durable agent-server state, e.g. postgres://postgres:postgres@127.0.0.1:5432/postgres (`npm run infra:up` serves that one). */
  POSTGRES_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'expected a postgres:// or postgresql:// URL' }).optional(),
  /** Public base URL of the agent server, used in A2A agent cards; else taken from the request (honouring X-Forwarded-*). */
  USER_API_URL: z.url().optional(),
  /** The assistant whose A2A agent card `GET /.well-known/agent-card.json` serves when the request names none (`?assistant_id=`). */
  DEFAULT_A2A_ASSISTANT_ID: z.string().min(1).optional(),
});

export type Config = z.infer<typeof configSchema>;

// The slices components are built from: each takes the settings it reads, not the whole Config.
/** Reaching the brokers and naming topics. */
export type KafkaConfig = Pick<Config, 'KAFKA_BROKERS' | 'KAFKA_TOPIC_PREFIX'>;
/** Appending events: the brokers, topic names and how long an append may wait. */
export type EventLogConfig = KafkaConfig & Pick<Config, 'KAFKA_APPEND_TIMEOUT_MS'>;
/** The ClickHouse of the read models (ClickHouseClient.fromConfig). */
export type ClickHouseConfig = Pick<
  Config,
  | 'CLICKHOUSE_URL'
  | 'CLICKHOUSE_DATABASE'
  | 'CLICKHOUSE_USER'
  | 'CLICKHOUSE_PASSWORD'
  | 'CLICKHOUSE_REPLICA_URLS'
  | 'CLICKHOUSE_CLUSTER'
  | 'CLICKHOUSE_INSERT_QUORUM'
>;
/** The object store of payloads and attachments. */
export type S3Config = Pick<
  Config,
  'S3_ENDPOINT' | 'S3_REGION' | 'S3_ACCESS_KEY_ID' | 'S3_SECRET_ACCESS_KEY' | 'S3_PAYLOAD_BUCKET'
> &
  Partial<Pick<Config, 'S3_PUBLIC_ENDPOINT' | 'S3_UPLOAD_ACCESS_KEY_ID' | 'S3_UPLOAD_SECRET_ACCESS_KEY'>>;

/** The variables loadConfig reads. */
/** The control plane's base URL as clients reach it: CONTROL_PLANE_PUBLIC_URL, else its port on loopback. */
export const controlPlaneUrl = (config: Pick<Config, 'CONTROL_PLANE_PUBLIC_URL' | 'CONTROL_PLANE_PORT'>): string =>
  (config.CONTROL_PLANE_PUBLIC_URL ?? `http://127.0.0.1:${config.CONTROL_PLANE_PORT}`).replace(/\/+$/, '');

export const configVariables = Object.keys(configSchema.shape) as (keyof Config)[];

/** A configuration that does not pass its schema; `problems` holds every one, each naming its variable. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** `env` read through `schema` (this one, or a process's own); throws ConfigError listing every problem. */
export function parseEnv<Schema extends z.ZodType>(schema: Schema, env: NodeJS.ProcessEnv): z.output<Schema> {
  const parsed = schema.safeParse(env);
  if (!parsed.success)
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  return parsed.data;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return parseEnv(configSchema, env);
}

/**
 * Several configurations read together, every problem of each kept: `attempt(read)` is `read()`'s
 * value, or undefined when it threw a ConfigError, whose problems join `problems`.
 */
export function configReads(): { problems: string[]; attempt<T>(read: () => T): T | undefined } {
  const problems: string[] = [];
  return {
    problems,
    attempt<T>(read: () => T): T | undefined {
      try {
        return read();
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        problems.push(...err.problems);
        return undefined;
      }
    },
  };
}

/** For an entry point: `load()`, or, when the configuration is bad, every problem on stderr and the cannot-start exit code. */
export function configOrExit<T>(who: string, load: () => T): T {
  try {
    return load();
  } catch (err) {
    if (err instanceof ConfigError) exitCannotStart(`${who} cannot start, its configuration is invalid:`, err.problems);
    throw err;
  }
}
