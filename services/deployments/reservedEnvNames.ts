// Environment variable names a deployment may not set as secrets: the platform sets them in every
// deployed server (contract §5), so a secret of that name would be overridden without a word, or
// would change how the platform runs, authenticates or traces the server. The control plane
// refuses them (422 naming the secret) instead of ignoring them.

/**
 * The names the official `langgraph deploy` CLIs refuse to forward as secrets (RESERVED_ENV_VARS
 * of langgraph-cli's deploy.py and @langchain/langgraph-cli's deploy-helpers.mts: the hosted
 * control plane's reserved names plus those allowed only when self-hosted).
 */
const CLI_RESERVED = [
  'LANGCHAIN_TRACING_V2',
  'LANGSMITH_TRACING_V2',
  'LANGCHAIN_ENDPOINT',
  'LANGCHAIN_PROJECT',
  'LANGSMITH_PROJECT',
  'LANGSMITH_LANGGRAPH_GIT_REPO',
  'LANGGRAPH_GIT_REPO_PATH',
  'LANGCHAIN_API_KEY',
  'LANGSMITH_CONTROL_PLANE_API_KEY',
  'POSTGRES_URI',
  'POSTGRES_PASSWORD',
  'DATABASE_URI',
  'LANGSMITH_LANGGRAPH_GIT_REF',
  'LANGSMITH_LANGGRAPH_GIT_REF_SHA',
  'LANGGRAPH_AUTH_TYPE',
  'LANGSMITH_AUTH_ENDPOINT',
  'LANGSMITH_TENANT_ID',
  'LANGSMITH_AUTH_VERIFY_TENANT_ID',
  'LANGSMITH_HOST_PROJECT_ID',
  'LANGSMITH_HOST_PROJECT_NAME',
  'LANGSMITH_HOST_REVISION_ID',
  'LOG_JSON',
  'LOG_DICT_TRACEBACKS',
  'REDIS_URI',
  'LANGCHAIN_CALLBACKS_BACKGROUND',
  'DD_TRACE_PSYCOPG_ENABLED',
  'DD_TRACE_REDIS_ENABLED',
  'LANGSMITH_DEPLOYMENT_NAME',
  'LANGGRAPH_CLOUD_LICENSE_KEY',
  'LANGSMITH_API_KEY',
  'LANGSMITH_ENDPOINT',
  'POSTGRES_URI_CUSTOM',
  'REDIS_URI_CUSTOM',
  'PATH',
  'PORT',
  'MOUNT_PREFIX',
  'LSD_ENV',
  'LSD_DD_API_KEY',
  'LSD_DD_ENDPOINT',
  'LSD_DEPLOYMENT_TYPE',
] as const;

/**
 * What this platform's local deployer sets besides (deployer/localDeployer.ts platformEnv, its
 * sandbox's proxy and home, and the control plane's baseEnv): where the server listens and what it
 * serves, how it checks API keys, its way out of the sandbox. KAFKA_* stay refused: a deployed
 * server never reads the platform's topics. Not LANGSMITH_TRACING: the hosted service lets a
 * deployment turn its tracing off (`LANGSMITH_TRACING=false`, often in the `.env` the CLIs send as
 * secrets), and a secret wins over the control plane's default (LocalDeployer's #serverCommand).
 */
const PLATFORM_RESERVED = [
  'HOST',
  'HOME',
  'AGENT_SERVER_PORT',
  'AGENT_SERVER_SOCKET',
  'AGENT_SERVER_CONFIG',
  'AGENT_SERVER_CHECKPOINTER',
  'AGENT_SERVER_AUTH',
  'KAFKA_BROKERS',
  'KAFKA_TOPIC_PREFIX',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'http_proxy',
  'https_proxy',
  'NO_PROXY',
  'no_proxy',
  'NODE_USE_ENV_PROXY',
] as const;

export const RESERVED_ENV_NAMES: ReadonlySet<string> = new Set<string>([...CLI_RESERVED, ...PLATFORM_RESERVED]);

/** Why a secret name is refused, or null when it may be set. */
export function reservedEnvProblem(name: string): string | null {
  return RESERVED_ENV_NAMES.has(name)
    ? `${name} is set by the platform in every deployed server and cannot be a secret; give your variable another name`
    : null;
}
