// Wires the control-plane process (port 1985, CONTROL_PLANE_PORT): the deployments context's
// routes under /v2 behind the API key, tenancy's fold for authentication, the deployment worker
// that runs revisions with the local deployer (deploymentWorker.ts), and shutdown.
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
import { requireApiKey, TenancyService } from '../tenancy/index.ts';
import { ProjectCommands, ProjectRegistry } from '../tracing/index.ts';
import { DeploymentCommands } from './deploymentCommands.ts';
import { deploymentRoutes } from './deploymentRoutes.ts';
import { DeploymentState } from './deploymentState.ts';
import { DeploymentWorker } from './deploymentWorker.ts';
import { deploymentGateway } from './deploymentGateway.ts';

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
  await app.register(async (authed) => {
    requireApiKey(authed, tenancy, { bearer: true });
    await authed.register(deploymentRoutes, { eventLog, deployments, secrets, objects, publicUrl });
  });
  // Deployments' URLs: the agent server behind each checks its callers itself.
  await app.register(deploymentGateway, { deployments });
  const commands = new DeploymentCommands(deployments, eventLog, secrets);
  const worker = projects
    ? deploymentWorker(config, logger, deployments, commands, secrets, objects, publicUrl, new ProjectCommands(projects, eventLog))
    : null;
  worker?.start();

  return {
    app,
    worker,
    async close() {
      await app.close();
      await worker?.close();
      await Promise.allSettled([readiness.close(), tenancy.close(), deployments.close(), projects?.close()]);
      await eventLog.close();
      objects.close();
    },
  };
}

/**
 * The worker and its local deployer. A deployed server gets only what it needs of this process's
 * settings: the brokers and prefix where the platform's API keys live (it checks X-Api-Key against
 * tenancy, as the main agent server does) and where it traces; the rest (secrets key, bootstrap
 * key) stays here.
 */
function deploymentWorker(
  config: Config,
  logger: Logger,
  state: DeploymentState,
  commands: DeploymentCommands,
  secrets: SecretBox | null,
  uploads: BlobStore,
  publicUrl: string,
  tracingProjects: ProjectCommands,
): DeploymentWorker {
  const tracing: Record<string, string> =
    config.LANGSMITH_ENDPOINT && config.LANGSMITH_API_KEY
      ? { LANGSMITH_TRACING: 'true', LANGSMITH_ENDPOINT: config.LANGSMITH_ENDPOINT, LANGSMITH_API_KEY: config.LANGSMITH_API_KEY }
      : { LANGSMITH_TRACING: 'false' };
  return new DeploymentWorker({
    state,
    commands,
    secrets,
    logger,
    publicUrl,
    tracingProjects,
    deployer: {
      rootDir: resolve(config.DEPLOYMENTS_DIR),
      uploads,
      baseEnv: {
        KAFKA_BROKERS: config.KAFKA_BROKERS,
        KAFKA_TOPIC_PREFIX: config.KAFKA_TOPIC_PREFIX,
        LOG_LEVEL: config.LOG_LEVEL,
        ...tracing,
      },
    },
  });
}
