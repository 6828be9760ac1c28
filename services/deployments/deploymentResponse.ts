// Deployments and revisions as the control plane returns them (the contract's Deployment and
// Revision, reference/control-plane-contract.md §2), with the JSON schemas the routes declare.
// Secret values never appear: each secret's name, with a mask in place of its value.
import { formatIsoMicros } from '../../platform/time.ts';
import type { Deployment, Revision } from './deploymentState.ts';
import { deploymentUrl } from './deploymentGateway.ts';
import {
  DEPLOYMENT_SOURCES,
  DEPLOYMENT_STATUSES,
  LOCALLY_DEPLOYED_SOURCES,
  REVISION_STATUSES,
  SECRET_VALUE_MASK,
} from './deploymentTypes.ts';

const uuid = { type: 'string', format: 'uuid' } as const;
const nullableUuid = { type: ['string', 'null'], format: 'uuid' } as const;
const isoTime = { type: 'string', format: 'date-time', description: 'ISO 8601, UTC' } as const;
const openObject = { type: 'object', additionalProperties: true } as const;

export const revisionSchema = {
  type: 'object',
  description: 'One rollout of a deployment: its source_revision_config, and how far it got (status).',
  required: ['id', 'created_at', 'updated_at', 'status', 'source', 'source_revision_config'],
  additionalProperties: false,
  properties: {
    id: uuid,
    created_at: isoTime,
    updated_at: isoTime,
    status: { type: 'string', enum: [...REVISION_STATUSES] },
    source: { type: 'string', enum: [...DEPLOYMENT_SOURCES] },
    source_revision_config: openObject,
    status_message: {
      type: ['string', 'null'],
      description:
        'Not in the contract (clients ignore it): what the status means for this revision and what to do about it, ' +
        'e.g. why it failed (BUILD_FAILED: the ref, the config field, the install’s last lines), why it waits, ' +
        'which revision it redeploys; null when there is nothing to add',
    },
  },
} as const;

export const deploymentSchema = {
  type: 'object',
  description: 'A deployment of an agent server. Secret values are write-only: responses show a mask in their place.',
  required: [
    'id',
    'tenant_id',
    'name',
    'source',
    'source_config',
    'source_revision_config',
    'secrets',
    'created_at',
    'updated_at',
    'status',
    'latest_revision_id',
    'active_revision_id',
  ],
  additionalProperties: false,
  properties: {
    id: uuid,
    tenant_id: uuid,
    name: { type: 'string' },
    source: { type: 'string', enum: [...DEPLOYMENT_SOURCES] },
    source_config: openObject,
    source_revision_config: { ...openObject, description: 'the values of the latest revision' },
    secrets: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'value'],
        additionalProperties: false,
        properties: { name: { type: 'string' }, value: { type: 'string', description: `always ${SECRET_VALUE_MASK}` } },
      },
    },
    secret_references: { type: 'null' },
    created_at: isoTime,
    updated_at: isoTime,
    status: { type: 'string', enum: [...DEPLOYMENT_STATUSES] },
    latest_revision_id: nullableUuid,
    active_revision_id: { ...nullableUuid, description: 'the revision serving traffic (the newest DEPLOYED one)' },
    image_version: { type: 'null' },
    latest_revision_status: {
      type: ['string', 'null'],
      enum: [...REVISION_STATUSES, null],
      description:
        'Not in the contract (clients ignore it): the latest revision’s status, so a list shows each rollout without a request per deployment',
    },
  },
} as const;

export const pageSchema = (items: object) =>
  ({
    type: 'object',
    required: ['resources', 'offset'],
    additionalProperties: false,
    properties: {
      resources: { type: 'array', items },
      offset: { type: 'integer', description: 'the offset of the next page: send it back to read on' },
    },
  }) as const;

export function revisionResponse(r: Revision): Record<string, unknown> {
  return {
    id: r.id,
    created_at: formatIsoMicros(r.createdAt),
    updated_at: formatIsoMicros(r.updatedAt),
    status: r.status,
    source: r.source,
    source_revision_config: revisionConfigResponse(r),
    status_message: r.detail,
  };
}

/** A revision's source_revision_config, with the commit a github revision was built from (read-only). */
function revisionConfigResponse(r: Revision | undefined): Readonly<Record<string, unknown>> {
  if (!r) return {};
  if (r.source !== 'github') return r.sourceRevisionConfig;
  return { ...r.sourceRevisionConfig, repo_commit_sha: r.commitSha ?? r.sourceRevisionConfig.repo_commit_sha ?? null };
}

/** `publicUrl`: the control plane's base URL, where the deployment gateway serves locally run deployments. */
export function deploymentResponse(d: Deployment, publicUrl: string): Record<string, unknown> {
  const latest = d.revisions[0];
  return {
    id: d.id,
    tenant_id: d.tenantId,
    name: d.name,
    source: d.source,
    // The same URL through every rollout: the gateway forwards it to the active revision's server.
    source_config: LOCALLY_DEPLOYED_SOURCES.has(d.source)
      ? { ...d.sourceConfig, custom_url: deploymentUrl(publicUrl, d.id) }
      : d.sourceConfig,
    source_revision_config: revisionConfigResponse(latest),
    secrets: (latest?.secretNames ?? []).map((name) => ({ name, value: SECRET_VALUE_MASK })),
    secret_references: null,
    created_at: formatIsoMicros(d.createdAt),
    updated_at: formatIsoMicros(d.updatedAt),
    status: d.status,
    latest_revision_id: latest?.id ?? null,
    active_revision_id: d.activeRevisionId,
    image_version: null,
    latest_revision_status: latest?.status ?? null,
  };
}
