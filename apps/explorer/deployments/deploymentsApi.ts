// The control plane's deployments API (/v2/deployments, reference/control-plane-contract.md) as
// the deployments page reads it: through the tracing API's forward on this origin
// (/ui/control-plane/…, services/tracing/explorerPage.ts), with the same key; a control plane
// that is not running answers 503 CONTROL_PLANE_UNAVAILABLE there.
import { apiCall, type Credentials } from '../core/api.ts';

const BASE = '/ui/control-plane/v2/deployments';

export interface Deployment {
  id: string;
  name: string;
  source: string;
  source_config: { custom_url?: string | null } & Record<string, unknown>;
  status: string;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  /** Ours, beside the contract: the latest revision's status. */
  latest_revision_status?: string | null;
  created_at: string;
  updated_at: string;
}

export interface Revision {
  id: string;
  status: string;
  source: string;
  /** Ours, beside the contract: what the status means (why it failed, why it waits). */
  status_message?: string | null;
  created_at: string;
  updated_at: string;
}

interface Page<T> {
  resources: T[];
  offset: number;
}

export const listDeployments = (c: Credentials) =>
  apiCall<Page<Deployment>>(c, 'GET', `${BASE}?limit=100`).then((p) => p.resources);
export const listRevisions = (c: Credentials, id: string) =>
  apiCall<Page<Revision>>(c, 'GET', `${BASE}/${id}/revisions?limit=100`).then((p) => p.resources);
/** A soft delete (AWAITING_DELETE until torn down); with force, the record of a soft-deleted one. */
export const deleteDeployment = (c: Credentials, id: string, force: boolean) =>
  apiCall<null>(c, 'DELETE', `${BASE}/${id}${force ? '?force=true' : ''}`);

/** Revision statuses after which a rollout goes no further (the CLIs' terminal set, and INTERRUPTED). */
export const FINAL_REVISION_STATUSES: ReadonlySet<string> = new Set([
  'DEPLOYED',
  'CREATE_FAILED',
  'BUILD_FAILED',
  'DEPLOY_FAILED',
  'SKIPPED',
  'INTERRUPTED',
]);
