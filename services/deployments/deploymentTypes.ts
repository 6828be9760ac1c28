// The control plane's enumerations, as the contract lists them (reference/control-plane-contract.md §2, §4).

/** Where a deployment's code comes from; fixed at creation. */
export const DEPLOYMENT_SOURCES = [
  'github',
  'external_docker',
  'internal_docker',
  'internal_source',
  'internal_template',
] as const;
export type DeploymentSource = (typeof DEPLOYMENT_SOURCES)[number];

export const DEPLOYMENT_STATUSES = ['AWAITING_DATABASE', 'READY', 'UNUSED', 'AWAITING_DELETE', 'UNKNOWN'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

/** The 13 revision statuses, in the contract's order. */
export const REVISION_STATUSES = [
  'CREATING',
  'QUEUED',
  'AWAITING_BUILD',
  'BUILDING',
  'AWAITING_DEPLOY',
  'DEPLOYING',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'DEPLOYED',
  'SKIPPED',
  'INTERRUPTED',
  'UNKNOWN',
] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];

/**
 * The contract's three, and `dev_zero`: what the PyPI `langgraph` CLI sends for its default
 * `--deployment-type serverless` (scale to zero; langgraph-cli deploy.py). Here every type runs
 * the same way (one agent-server process per revision); the type is recorded and filtered on.
 */
export const DEPLOYMENT_TYPES = ['dev_free', 'dev_zero', 'dev', 'prod'] as const;

/**
 * Sources the local deployer builds and runs as agent-server processes (the others are images,
 * which it cannot run); a deployment of one of these is served at the gateway's URL.
 */
export const LOCALLY_DEPLOYED_SOURCES: ReadonlySet<string> = new Set(['github', 'internal_source']);

/** What responses show in place of a secret's value; a PATCH that sends it back keeps the stored value. */
export const SECRET_VALUE_MASK = '********';

export interface DeploymentSecret {
  name: string;
  value: string;
}

/**
 * How a deployed revision's agent server authenticates callers: `api_key`, the platform's keys of
 * the deployment's workspace (which the gateway checks too), or `custom`, the auth module its
 * langgraph.json names (the gateway then passes requests on as they are).
 */
export type ServerAuth = 'api_key' | 'custom';
