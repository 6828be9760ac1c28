// Commands on workspaces and API keys (appended to the tenancy topic) and the
// authentication that reads them back: API keys, and the bearer tokens issued with them.
import { randomUUID } from 'node:crypto';
import type { Config, KafkaConfig } from '../../platform/config.ts';
import type { Logger } from '../../platform/logger.ts';
import { errors } from '../../platform/errors.ts';
import { EventLog, event } from '../../platform/kafka/eventLog.ts';
import { TopicState } from '../../platform/kafka/topicState.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { TenancyState, type ApiKeyRecord } from './tenancyState.ts';
import { DEFAULT_WORKSPACE_ID, generateApiKey, hashApiKey } from './apiKeys.ts';
import { BearerTokens, type IssuedToken } from './bearerTokens.ts';

/** The deployment revision a key is issued to (TenancyService.issueDeploymentKey). */
export interface DeploymentKeyOwner {
  deploymentId: string;
  revisionId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const nowMicros = () => Date.now() * 1000;

export class TenancyService {
  readonly state = new TenancyState();
  readonly #log: EventLog;
  readonly #topicState: TopicState;
  /** Unknown key hashes recently confirmed unknown after a catch-up: spares Kafka from key-guessing floods. */
  readonly #recentMisses = new Map<string, number>();
  /** Signs and checks bearer tokens; null without SECRETS_ENCRYPTION_KEY (then none is issued or taken). */
  readonly #tokens: BearerTokens | null;
  /** Key hash by token subject, for the keys of the fold (filled as tokens name keys not seen yet). */
  readonly #keyHashBySubject = new Map<string, string>();

  constructor(config: KafkaConfig & Pick<Config, 'SECRETS_ENCRYPTION_KEY'>, eventLog: EventLog, logger: Logger) {
    this.#log = eventLog;
    this.#topicState = new TopicState(config, TOPICS.tenancy, this.state.apply, logger);
    this.#tokens = BearerTokens.fromConfig(config);
  }

  start(): Promise<void> {
    return this.#topicState.start();
  }

  async createWorkspace(name: string, id: string = randomUUID()): Promise<string> {
    await this.#log.append([event('WorkspaceCreated', id, { workspace_id: id, name, created_at: nowMicros() })]);
    return id;
  }

  /** Issues a key linked to the given workspaces; returns the key (shown once, never stored). */
  async issueKey(
    workspaceIds: string[],
    description: string,
    key: string = generateApiKey(),
    owner?: DeploymentKeyOwner,
  ): Promise<string> {
    const keyHash = hashApiKey(key);
    const issued = { key_hash: keyHash, key_prefix: key.slice(0, 8), description, created_at: nowMicros() };
    const ownedBy = { deployment_id: owner?.deploymentId ?? null, revision_id: owner?.revisionId ?? null };
    await this.#log.append([
      event('ApiKeyIssued', keyHash, { ...issued, ...ownedBy }),
      ...workspaceIds.map((w) =>
        event('ApiKeyLinked', keyHash, { key_hash: keyHash, workspace_id: w, created_at: nowMicros() }),
      ),
    ]);
    return key;
  }

  async linkKey(key: string, workspaceId: string): Promise<void> {
    const keyHash = hashApiKey(key);
    await this.#log.append([
      event('ApiKeyLinked', keyHash, { key_hash: keyHash, workspace_id: workspaceId, created_at: nowMicros() }),
    ]);
  }

  /**
   * Issues `key` as the one a deployment's revision runs with (its agent server traces with it and
   * verifies its callers' keys with it): a key of the deployment's workspace only, recorded as the
   * revision's, so that revokeDeploymentKeys finds it again after a restart of the control plane.
   */
  async issueDeploymentKey(workspaceId: string, owner: DeploymentKeyOwner, key: string): Promise<void> {
    await this.issueKey([workspaceId], `deployment ${owner.deploymentId} revision ${owner.revisionId}`, key, owner);
  }

  /**
   * Revokes the keys issued to a deployment's revisions but those in `keep` (the keys themselves):
   * unlinked from every workspace, they act nowhere. Returns how many were revoked.
   */
  async revokeDeploymentKeys(deploymentId: string, keep: string[] = []): Promise<number> {
    await this.#topicState.catchUp();
    const kept = new Set(keep.map(hashApiKey));
    const revoked = this.state.deploymentKeys(deploymentId).filter((k) => !kept.has(k.keyHash));
    const events = revoked.flatMap((k) =>
      [...k.workspaceIds].map((w) =>
        event('ApiKeyUnlinked', k.keyHash, { key_hash: k.keyHash, workspace_id: w, created_at: nowMicros() }),
      ),
    );
    if (events.length > 0) await this.#log.append(events);
    return revoked.length;
  }

  /** The deployments that hold keys still acting in a workspace. */
  deploymentsHoldingKeys(): Set<string> {
    return new Set(
      [...this.state.keys.values()].flatMap((k) =>
        k.deployment && k.workspaceIds.size > 0 ? [k.deployment.deploymentId] : [],
      ),
    );
  }

  /** Takes the workspace away from the key: the key (and its bearer tokens for that workspace) no longer act there. */
  async unlinkKey(key: string, workspaceId: string): Promise<void> {
    const keyHash = hashApiKey(key);
    await this.#log.append([
      event('ApiKeyUnlinked', keyHash, { key_hash: keyHash, workspace_id: workspaceId, created_at: nowMicros() }),
    ]);
  }

  /** Seeds the default workspace and links the bootstrap key to it. Idempotent across restarts and replicas. */
  async ensureBootstrapKey(key: string): Promise<void> {
    await this.#topicState.catchUp();
    if (!this.state.workspaces.has(DEFAULT_WORKSPACE_ID)) await this.createWorkspace('default', DEFAULT_WORKSPACE_ID);
    const known = this.state.keys.get(hashApiKey(key));
    if (!known) await this.issueKey([DEFAULT_WORKSPACE_ID], 'bootstrap key (BOOTSTRAP_API_KEY)', key);
    else if (!known.workspaceIds.has(DEFAULT_WORKSPACE_ID)) await this.linkKey(key, DEFAULT_WORKSPACE_ID);
    await this.#topicState.catchUp();
  }

  async #findKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const found = this.state.keys.get(keyHash);
    if (found) return found;
    const missedAt = this.#recentMisses.get(keyHash);
    if (missedAt && Date.now() - missedAt < 2000) return undefined;
    // The key may have been issued a moment ago through another process.
    // Kafka away: a 503 the client retries, not a 500 (nor a 401 for a key that may well exist).
    await this.#topicState.catchUpOrUnavailable('the API keys', 5_000);
    const after = this.state.keys.get(keyHash);
    if (!after) {
      if (this.#recentMisses.size > 10_000) this.#recentMisses.clear();
      this.#recentMisses.set(keyHash, Date.now());
    }
    return after;
  }

  /**
   * The workspaces an API key may act in (what a person picks from, for X-Tenant-Id), by name;
   * refused as authenticate refuses the key.
   */
  async workspacesOf(apiKey: string | undefined): Promise<{ id: string; name: string }[]> {
    if (!apiKey) throw errors.missingApiKey();
    const record = await this.#findKey(hashApiKey(apiKey));
    if (!record || record.workspaceIds.size === 0) throw errors.unknownApiKey();
    return [...record.workspaceIds]
      .map((id) => this.state.workspaces.get(id) ?? { id, name: id })
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  }

  /** Resolves the workspace a request acts in, from its X-Api-Key and X-Tenant-Id headers. */
  async authenticate(apiKey: string | undefined, tenantId: string | undefined): Promise<string> {
    if (!apiKey) throw errors.missingApiKey();
    const record = await this.#findKey(hashApiKey(apiKey));
    if (!record || record.workspaceIds.size === 0) throw errors.unknownApiKey();
    const wanted = requestedWorkspace(tenantId);
    if (wanted !== undefined) {
      if (!record.workspaceIds.has(wanted)) throw errors.workspaceForbidden(wanted);
      return wanted;
    }
    if (record.workspaceIds.size > 1) throw errors.tenantRequired();
    return record.workspaceIds.values().next().value!;
  }

  /**
   * A bearer token for `apiKey` acting in `workspaceId` (the key's only workspace when not given:
   * the same choice, and the same refusals, as authenticate with X-Tenant-Id), for `ttlSeconds`.
   */
  async issueToken(apiKey: string, workspaceId: string | undefined, ttlSeconds: number): Promise<IssuedToken> {
    const tokens = this.#requireTokens();
    const workspace = await this.authenticate(apiKey, workspaceId);
    return tokens.issue({ keyHash: hashApiKey(apiKey), workspaceId: workspace, ttlSeconds });
  }

  /**
   * The workspace a bearer token acts in. Its signature and expiry are checked, then, in the fold,
   * that the key it was issued with still has that workspace: unlinking the key from it
   * (unlinkKey) ends the token there at once, as it ends the key. Never waits for Kafka: a key
   * this process has not folded yet is refused as unknown. X-Tenant-Id, when sent, must be the
   * token's workspace.
   */
  async authenticateBearer(token: string, tenantId: string | undefined): Promise<string> {
    return (await this.authenticateBearerKey(token, tenantId)).workspaceId;
  }

  /** authenticateBearer, with the hash of the API key the token was issued for (who acts). */
  async authenticateBearerKey(
    token: string,
    tenantId: string | undefined,
  ): Promise<{ workspaceId: string; keyHash: string }> {
    const claims = await this.#requireTokens().verify(token);
    const keyHash = this.#keyHashOf(claims.subject);
    const record = keyHash === undefined ? undefined : this.state.keys.get(keyHash);
    if (!record) throw errors.unknownTokenKey();
    if (!record.workspaceIds.has(claims.workspaceId)) throw errors.tokenRevoked(claims.workspaceId);
    const wanted = requestedWorkspace(tenantId);
    if (wanted !== undefined && wanted !== claims.workspaceId)
      throw errors.tokenForOtherWorkspace(claims.workspaceId, wanted);
    return { workspaceId: claims.workspaceId, keyHash: keyHash! };
  }

  /** The prefix and description of a key of the workspace (by its hash), to show who reviewed what. */
  keyLabel(keyHash: string): { prefix: string; description: string | null } | undefined {
    const record = this.state.keys.get(keyHash);
    return record ? { prefix: record.keyPrefix, description: record.description } : undefined;
  }

  #requireTokens(): BearerTokens {
    if (!this.#tokens) {
      throw errors.notConfigured(
        'bearer tokens need SECRETS_ENCRYPTION_KEY (32 bytes, hex or base64), which signs them',
      );
    }
    return this.#tokens;
  }

  /** Keys are never removed from the fold: a subject missing from the map means keys were added since it was filled. */
  #keyHashOf(subject: string): string | undefined {
    const known = this.#keyHashBySubject.get(subject);
    if (known !== undefined || this.#keyHashBySubject.size === this.state.keys.size) return known;
    for (const keyHash of this.state.keys.keys()) this.#keyHashBySubject.set(this.#tokens!.subjectOf(keyHash), keyHash);
    return this.#keyHashBySubject.get(subject);
  }

  async close(): Promise<void> {
    await this.#topicState.close();
  }
}

/** The workspace X-Tenant-Id names, lower-cased; undefined when it is not sent (or empty). */
function requestedWorkspace(tenantId: string | undefined): string | undefined {
  if (tenantId === undefined || tenantId === '') return undefined;
  if (!UUID.test(tenantId)) throw errors.invalidTenantId(tenantId);
  return tenantId.toLowerCase();
}
