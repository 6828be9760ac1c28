// Workspaces and API keys, folded from the tenancy topic.
import type { DecodedEvent } from '../../schemas/registry.ts';

export interface ApiKeyRecord {
  keyHash: string;
  keyPrefix: string;
  description: string;
  workspaceIds: Set<string>;
  /** The deployment revision the key was issued to (its agent server's own key), when it was. */
  deployment: { deploymentId: string; revisionId: string | null } | null;
}

export class TenancyState {
  /** Each workspace's id, name and creation (microseconds since the epoch). */
  readonly workspaces = new Map<string, { id: string; name: string; createdAt: number }>();
  readonly keys = new Map<string, ApiKeyRecord>();

  /** The keys issued to a deployment's revisions that still act in a workspace (revoking them is unlinking them). */
  deploymentKeys(deploymentId: string): ApiKeyRecord[] {
    return [...this.keys.values()].filter(
      (k) => k.deployment?.deploymentId === deploymentId && k.workspaceIds.size > 0,
    );
  }

  apply = (event: DecodedEvent): void => {
    switch (event.name) {
      case 'WorkspaceCreated':
        this.workspaces.set(event.payload.workspace_id, {
          id: event.payload.workspace_id,
          name: event.payload.name,
          createdAt: event.payload.created_at,
        });
        break;
      case 'ApiKeyIssued':
        if (!this.keys.has(event.payload.key_hash))
          this.keys.set(event.payload.key_hash, {
            keyHash: event.payload.key_hash,
            keyPrefix: event.payload.key_prefix,
            description: event.payload.description,
            workspaceIds: new Set(),
            deployment: event.payload.deployment_id
              ? { deploymentId: event.payload.deployment_id, revisionId: event.payload.revision_id }
              : null,
          });
        break;
      case 'ApiKeyLinked':
        this.keys.get(event.payload.key_hash)?.workspaceIds.add(event.payload.workspace_id);
        break;
      case 'ApiKeyUnlinked':
        this.keys.get(event.payload.key_hash)?.workspaceIds.delete(event.payload.workspace_id);
        break;
      default:
        break;
    }
  };
}
