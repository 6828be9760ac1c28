// The deployment gateway: a deployment's URL (`source_config.custom_url`,
// `<CONTROL_PLANE_PUBLIC_URL>/d/<deployment id>`) stays the same through every rollout, while each
// revision runs as its own agent-server process on a port of its own. Every control-plane replica
// forwards `/d/<id>/<path>` to the agent server of the deployment's active revision, read from its
// fold of the deployments topic at each request, so a rollout switches the URL in one step: the
// DEPLOYED event. The old server keeps running for a drain period after it (deploymentWorker.ts),
// so requests routed just before the switch, or by a replica whose fold is a moment behind, finish.
//
// The gateway does not authenticate: the agent server behind it checks X-Api-Key (or its auth
// handler) as it does when called directly. Bodies and responses (SSE streams included) are
// streamed through @fastify/reply-from (undici), not buffered.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import replyFrom from '@fastify/reply-from';
import { errors } from '../../platform/errors.ts';
import type { DeploymentState } from './deploymentState.ts';

/** Where a deployment's URL points: the gateway's path prefix, followed by the deployment id. */
export const GATEWAY_PREFIX = '/d';

export const deploymentUrl = (publicBaseUrl: string, deploymentId: string): string =>
  `${publicBaseUrl.replace(/\/+$/, '')}${GATEWAY_PREFIX}/${deploymentId}`;

export interface DeploymentGatewayOptions {
  deployments: DeploymentState;
}

/** The agent server a deployment's requests go to now, or the error that says why there is none. */
export function servingUrl(state: DeploymentState, deploymentId: string): string {
  const d = state.deploymentById(deploymentId);
  if (!d) throw errors.notFound(`Deployment ID ${deploymentId}`);
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
export async function deploymentGateway(app: FastifyInstance, options: DeploymentGatewayOptions): Promise<void> {
  await app.register(replyFrom, {
    // Runs (`/runs/wait`, streams) take as long as the graph does: the client's own timeout applies.
    undici: { headersTimeout: 0, bodyTimeout: 0 },
    disableRequestLogging: true,
  });
  // Bodies pass through as streams, whatever their type: the agent server parses and checks them.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  const forward = (request: FastifyRequest<{ Params: { deployment_id: string; '*'?: string } }>, reply: FastifyReply) => {
    const target = servingUrl(options.deployments, request.params.deployment_id);
    const rest = request.params['*'] ?? '';
    const query = request.url.indexOf('?');
    return reply.from(`${target}/${rest}${query === -1 ? '' : request.url.slice(query)}`, {
      onError: (r, { error }) =>
        r.send(errors.deploymentUnavailable(request.params.deployment_id, `its agent server did not answer (${errorCode(error)})`, error)),
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
    params: { type: 'object', properties: { deployment_id: { type: 'string', format: 'uuid' }, '*': { type: 'string' } } },
  };
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
  app.route({ method: [...methods], url: `${GATEWAY_PREFIX}/:deployment_id`, schema, handler: forward });
  app.route({ method: [...methods], url: `${GATEWAY_PREFIX}/:deployment_id/*`, schema, handler: forward });
}
