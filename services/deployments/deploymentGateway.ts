// The deployment gateway: a deployment's URL (`source_config.custom_url`,
// `<CONTROL_PLANE_PUBLIC_URL>/d/<deployment id>`) stays the same through every rollout, while each
// revision runs as its own agent-server process on a port of its own. Every control-plane replica
// forwards `/d/<id>/<path>` to the agent server of the deployment's active revision, read from its
// fold of the deployments topic at each request, so a rollout switches the URL in one step: the
// DEPLOYED event. The old server keeps running for a drain period after it (deploymentWorker.ts),
// so requests routed just before the switch, or by a replica whose fold is a moment behind, finish.
//
// A deployment belongs to a workspace, and so do the keys its callers send: the gateway answers a
// request whose X-Api-Key acts in another workspace (or is not valid) exactly as it answers an
// unknown deployment, 404, before anything reaches the deployed code. The agent server behind it
// checks again (it takes keys of its deployment's workspace only, verified by this control plane),
// and answers a request without a key as it does when called directly (public routes, or 401). A
// deployment whose langgraph.json names an auth module (server_auth `custom`) authenticates its
// callers itself: its requests pass on as they are. Bodies and responses (SSE streams included)
// are streamed through @fastify/reply-from (undici), not buffered.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import replyFrom from '@fastify/reply-from';
import { AppError, errors } from '../../platform/errors.ts';
import type { Deployment, DeploymentState } from './deploymentState.ts';

/** Where a deployment's URL points: the gateway's path prefix, followed by the deployment id. */
export const GATEWAY_PREFIX = '/d';

export const deploymentUrl = (publicBaseUrl: string, deploymentId: string): string =>
  `${publicBaseUrl.replace(/\/+$/, '')}${GATEWAY_PREFIX}/${deploymentId}`;

export interface DeploymentGatewayOptions {
  deployments: DeploymentState;
  /** Which workspace a key acts in (tenancy's fold); X-Tenant-Id chooses among several. */
  keys: { authenticate(apiKey: string | undefined, tenantId: string | undefined): Promise<string> };
}

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * The deployment a request is for, once its key (when it sends one, and the deployment takes the
 * platform's keys) acts in the deployment's workspace; anything else is the unknown deployment's 404.
 */
async function deploymentFor(
  request: FastifyRequest,
  options: DeploymentGatewayOptions,
  deploymentId: string,
): Promise<Deployment> {
  const unknown = () => errors.notFound(`Deployment ID ${deploymentId}`);
  const d = options.deployments.deploymentById(deploymentId);
  const apiKey = header(request, 'x-api-key');
  if (!d || apiKey === undefined) {
    if (!d) throw unknown();
    return d;
  }
  const active = d.revisions.find((r) => r.id === d.activeRevisionId);
  if (active?.serverAuth === 'custom') return d;
  // A key of several workspaces acts in the deployment's without naming it.
  const workspaceId = await options.keys
    .authenticate(apiKey, header(request, 'x-tenant-id') || d.tenantId)
    .catch((err: unknown) => {
      if (err instanceof AppError && err.statusCode < 500) throw unknown();
      throw err;
    });
  if (workspaceId !== d.tenantId) throw unknown();
  return d;
}

/** The agent server a deployment's requests go to now, or the error that says why there is none. */
export function servingUrl(d: Deployment): string {
  const deploymentId = d.id;
  if (d.status === 'AWAITING_DELETE') throw errors.notFound(`Deployment ID ${deploymentId} (it is being deleted)`);
  const active = d.revisions.find((r) => r.id === d.activeRevisionId);
  if (!active?.serverUrl || d.status !== 'READY') {
    const latest = d.revisions[0];
    throw errors.deploymentUnavailable(
      deploymentId,
      active
        ? `its agent server is down (deployment status ${d.status}); see its revisions`
        : `no revision serves it yet (latest revision ${latest?.id ?? 'none'}: ${latest?.status ?? 'none'}); poll the revision until DEPLOYED`,
    );
  }
  return active.serverUrl;
}

const errorCode = (error: unknown): string => {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code ?? (error as { code?: string }).code ?? String(error);
};

/** A fastify plugin: `/d/:deployment_id` and everything under it, any method, forwarded. */
export async function deploymentGatewayRoutes(app: FastifyInstance, options: DeploymentGatewayOptions): Promise<void> {
  await app.register(replyFrom, {
    // Runs (`/runs/wait`, streams) take as long as the graph does: the client's own timeout applies.
    undici: { headersTimeout: 0, bodyTimeout: 0 },
    disableRequestLogging: true,
  });
  // Bodies pass through as streams, whatever their type: the agent server parses and checks them.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  const forward = async (
    request: FastifyRequest<{ Params: { deployment_id: string; '*'?: string } }>,
    reply: FastifyReply,
  ) => {
    const target = servingUrl(await deploymentFor(request, options, request.params.deployment_id));
    const rest = request.params['*'] ?? '';
    const query = request.url.indexOf('?');
    return reply.from(`${target}/${rest}${query === -1 ? '' : request.url.slice(query)}`, {
      onError: (r, { error }) =>
        r.send(
          errors.deploymentUnavailable(
            request.params.deployment_id,
            `its agent server did not answer (${errorCode(error)})`,
            error,
          ),
        ),
      rewriteRequestHeaders: (original, headers) => ({
        ...headers,
        'x-forwarded-host': original.headers.host ?? '',
        'x-forwarded-proto': original.protocol,
        'x-forwarded-prefix': `${GATEWAY_PREFIX}/${request.params.deployment_id}`,
      }),
    });
  };
  const schema = {
    hide: true,
    params: {
      type: 'object',
      properties: { deployment_id: { type: 'string', format: 'uuid' }, '*': { type: 'string' } },
    },
  };
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
  app.route({ method: [...methods], url: `${GATEWAY_PREFIX}/:deployment_id`, schema, handler: forward });
  app.route({ method: [...methods], url: `${GATEWAY_PREFIX}/:deployment_id/*`, schema, handler: forward });
}
