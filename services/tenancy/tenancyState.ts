// Workspaces and API keys, folded from the tenancy topic.
import type { DecodedEvent } from '../../schemas/registry.ts';

export interface ApiKeyRecord {
  keyHash: string;
  keyPrefix: string;
  description: string;
  workspaceIds: Set<string>;
}

export class TenancyState {
  readonly workspaces = new Map<string, { id: string; name: string }>();
  readonly keys = new Map<string, ApiKeyRecord>();

  apply = (event: DecodedEvent): void => {
    switch (event.name) {
      case 'WorkspaceCreated':
        this.workspaces.set(event.payload.workspace_id, { id: event.payload.workspace_id, name: event.payload.name });
        break;
      case 'ApiKeyIssued':
        if (!this.keys.has(event.payload.key_hash))
          this.keys.set(event.payload.key_hash, {
            keyHash: event.payload.key_hash,
            keyPrefix: event.payload.key_prefix,
            description: event.payload.description,
            workspaceIds: new Set(),
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
