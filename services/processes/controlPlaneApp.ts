// Wires the control-plane process (port 1985, CONTROL_PLANE_PORT): the deployments context's
// routes under /v2 behind the API key, tenancy's fold for authentication, the deployment worker
// that runs revisions with the local deployer (deployments' deploymentWorker.ts), and shutdown.
// A process root: it composes the contexts' plugins, which the contexts never do themselves.
//
// The worker deletes the tracing project of a deployment deleted with delete_tracing_project
// through the tracing context's own project commands: a ProjectDeleted on its projects topic,
// as DELETE /sessions/{id} appends. An event on the topic rather than a call to the tracing API:
// no API key of the deployment's workspace is needed, it works while the tracing API is down,
// and the projectors remove the project's rows as for any deleted project.
//
// Authentication: X-Api-Key (and X-Tenant-Id for a key of several workspaces), as on the tracing
// API, or `Authorization: Bearer <token>`, the contract's third scheme, with a token the admin CLI
// issues (tenancy's bearerTokens.ts); both checked by tenancy's hook.
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { controlPlaneUrl, type Config } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { createHttpServer } from '../../platform/http/server.ts';
import { KafkaReadiness } from '../../platform/http/kafkaReadiness.ts';
import { EventLog } from '../../platform/kafka/eventLog.ts';
import { ensureTopics } from '../../platform/kafka/topicAdmin.ts';
import { BlobStore } from '../../platform/blobStore.ts';
import { SecretBox } from '../../platform/secretBox.ts';
import { TOPIC_DECLARATIONS } from '../../schemas/topics.ts';
import { generateApiKey, requireApiKey, TenancyService } from '../tenancy/index.ts';
import { currentWorkspaceRoutes } from '../tenancy/plugins.ts';
import { ProjectCommands, ProjectRegistry } from '../tracing/index.ts';
import { DeploymentState } from '../deployments/index.ts';
import {
  DeploymentCommands,
  deploymentGatewayRoutes,
  deploymentRoutes,
  DeploymentWorker,
  RevisionLogs,
  SourceLocationPolicy,
} from '../deployments/plugins.ts';

/** The control plane API description's version (the contract's document is 0.1.0). */
export const CONTROL_PLANE_API_VERSION = '0.1.0';

export interface ControlPlaneApp {
  app: FastifyInstance;
  /** The deployment worker, when this replica runs the local deployer (CONTROL_PLANE_DEPLOYER=local). */
  worker: DeploymentWorker | null;
  close(): Promise<void>;
}

export async function buildControlPlaneApp(config: Config, logger: Logger): Promise<ControlPlaneApp> {
  await ensureTopics(config, TOPIC_DECLARATIONS);
  const eventLog = new EventLog(config, 'control-plane');
  const tenancy = new TenancyService(config, eventLog, logger);
  const deployments = new DeploymentState(config, logger);
  // The projects fold only where the worker runs: it is what deletes tracing projects.
  const projects = config.CONTROL_PLANE_DEPLOYER === 'local' ? new ProjectRegistry(config, logger) : null;
  await Promise.all([tenancy.start(), deployments.start(), projects?.start()]);
  if (config.BOOTSTRAP_API_KEY) await tenancy.ensureBootstrapKey(config.BOOTSTRAP_API_KEY);

  const readiness = new KafkaReadiness(config);
  readiness.start();
  const app = await createHttpServer({
    logger,
    title: 'Control plane API',
    version: CONTROL_PLANE_API_VERSION,
    description: 'Deployments of agent servers and their revisions (/v2/deployments), LangSmith Deployment compatible.',
    ready: readiness.ready,
    bearerAuth: true,
  });
  const secrets = SecretBox.fromConfig(config);
  // Deployments' URLs start with it.
  const publicUrl = controlPlaneUrl(config);
  // Where internal_source tarballs are uploaded to and built from.
  const objects = new BlobStore(config);
  // Where github deployments may build from: paths and private hosts only while there is one workspace (by default).
  const sources = new SourceLocationPolicy(config, () => tenancy.state.workspaces.size);
  const logs = new RevisionLogs(objects, logger);
  await app.register(async (authed) => {
    requireApiKey(authed, tenancy, { bearer: true });
    await authed.register(deploymentRoutes, { eventLog, deployments, secrets, objects, publicUrl, sources, logs });
    // Where deployed agent servers verify their callers' keys (LANGSMITH_AUTH_ENDPOINT).
    await authed.register(currentWorkspaceRoutes, { tenancy });
  });
  // Deployments' URLs: a key of another workspace is refused here; the agent server behind checks its callers too.
  await app.register(deploymentGatewayRoutes, { deployments, keys: tenancy });
  const commands = new DeploymentCommands(deployments, eventLog, secrets, sources);
  // Started once the server listens: its deployed servers verify their callers' keys here.
  let worker: DeploymentWorker | null = null;
  if (projects)
    app.addHook('onListen', async () => {
      const address = app.server.address();
      if (address === null || typeof address === 'string') return;
      const authEndpoint = loopbackUrl(config.HOST, address.port);
      const tracingProjects = new ProjectCommands(projects, eventLog);
      worker = deploymentWorker({
        config,
        logger,
        state: deployments,
        commands,
        secrets,
        objects,
        publicUrl,
        tenancy,
        sources,
        logs,
        authEndpoint,
        tracingProjects,
      });
      worker.start();
    });

  return {
    app,
    get worker() {
      return worker;
    },
    async close() {
      await app.close();
      await worker?.close();
      await logs.close();
      await Promise.allSettled([readiness.close(), tenancy.close(), deployments.close(), projects?.close()]);
      await eventLog.close();
      objects.close();
    },
  };
}

/** How this process reaches a server of its own listening on `host`:`port`. */
function loopbackUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' || host === '' ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`;
}

/** `host:port` of a URL, as host rules take it. */
const hostRule = (url: string): string => {
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol === 'https:' ? 443 : 80)}`;
};

interface WorkerParts {
  config: Config;
  logger: Logger;
  state: DeploymentState;
  commands: DeploymentCommands;
  secrets: SecretBox | null;
  objects: BlobStore;
  publicUrl: string;
  tenancy: TenancyService;
  sources: SourceLocationPolicy;
  logs: RevisionLogs;
  /** Where deployed servers verify their callers' keys: this control plane. */
  authEndpoint: string;
  tracingProjects: ProjectCommands;
}

/**
 * The worker and its local deployer. A deployed server gets only what it needs: a key of its own
 * (issued for its revision, in its deployment's workspace: it traces with it and verifies its
 * callers' keys with it at authEndpoint), where it traces (LANGSMITH_ENDPOINT), and nothing of
 * this process's settings (no broker, database or object-store address or credential, no
 * secrets key, no bootstrap key). Its sandbox reaches those two platform endpoints, and the
 * public internet, through its egress proxy.
 */
function deploymentWorker(parts: WorkerParts): DeploymentWorker {
  const { config, tenancy, sources } = parts;
  const tracing: Record<string, string> = config.LANGSMITH_ENDPOINT
    ? { LANGSMITH_TRACING: 'true', LANGSMITH_ENDPOINT: config.LANGSMITH_ENDPOINT }
    : { LANGSMITH_TRACING: 'false' };
  const platformEndpoints = [parts.authEndpoint, ...(config.LANGSMITH_ENDPOINT ? [config.LANGSMITH_ENDPOINT] : [])].map(
    hostRule,
  );
  return new DeploymentWorker({
    state: parts.state,
    commands: parts.commands,
    secrets: parts.secrets,
    logger: parts.logger,
    publicUrl: parts.publicUrl,
    tracingProjects: parts.tracingProjects,
    logs: parts.logs,
    keys: {
      generate: generateApiKey,
      issue: (tenantId, deploymentId, revisionId, key) =>
        tenancy.issueDeploymentKey(tenantId, { deploymentId, revisionId }, key),
      revoke: (deploymentId, keep) => tenancy.revokeDeploymentKeys(deploymentId, keep),
      holders: () => tenancy.deploymentsHoldingKeys(),
    },
    deployer: {
      rootDir: resolve(config.DEPLOYMENTS_DIR),
      uploads: parts.objects,
      sandbox: config.DEPLOYER_SANDBOX,
      egress: {
        allowed: [...platformEndpoints, config.DEPLOYMENT_ALLOWED_HOSTS].join(' '),
        denied: config.DEPLOYMENT_DENIED_HOSTS,
      },
      gitRules: () => ({ localAllowed: sources.localAllowed(), hosts: sources.hosts }),
      logger: parts.logger,
      baseEnv: {
        LOG_LEVEL: config.LOG_LEVEL,
        AGENT_SERVER_AUTH: 'api_key',
        LANGSMITH_AUTH_ENDPOINT: parts.authEndpoint,
        ...tracing,
      },
    },
  });
}
