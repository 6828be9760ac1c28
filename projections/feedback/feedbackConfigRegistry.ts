// Feedback configs (what feedback under a key holds: a score in a range, one or more of named
// categories, free text), folded from their topic in every API process. The topic has one
// partition, so every replica folds the same events in the same order and reaches the same
// state; a workspace has tens of keys, not millions.
//
// A key has one config, or several when one of them is enforced (the workspace's rules for the
// key; the others are kept beside it). Fold rules (deterministic, so replicas agree):
// - a creation identical to a live config of its key (same config, same enforcement) is ignored:
//   the command answers with the one there;
// - an enforced creation for a key with a live enforced config is ignored (409);
// - an unenforced creation for a key whose live configs include no enforced one is ignored (400);
// - updates and deletions of a config that is not live are ignored; a deleted config stays, as
//   deleted (the lists show it with include_all_configs).
// The direction (is_lower_score_better) belongs to the key: a creation or update that names one
// sets it for every config of the key.
import { isDeepStrictEqual } from 'node:util';
import type { EventLogConfig } from '../../platform/config.ts';
import { parseStoredJson } from '../../platform/json/jsonNesting.ts';
import type { Logger } from '../../platform/logger.ts';
import { event, type EventToAppend } from '../../platform/kafka/eventLog.ts';
import { FoldedTopic } from '../../platform/kafka/topicState.ts';
import { nowMicros } from '../../platform/time.ts';
import type { DecodedEvent } from '../../schemas/registry.ts';
import type {
  FeedbackConfigCreated,
  FeedbackConfigDeleted,
  FeedbackConfigUpdated,
} from '../../schemas/events.generated.ts';
import { TOPICS } from '../../schemas/topics.ts';

export interface FeedbackCategory {
  value: number;
  label?: string | null;
}

/** What feedback under a key holds (the clients' FeedbackConfig). */
export interface FeedbackConfigBody {
  type: 'continuous' | 'categorical' | 'freeform';
  min?: number | null;
  max?: number | null;
  categories?: FeedbackCategory[] | null;
  allows_multiple_categories?: boolean | null;
}

export interface FeedbackConfigEntry {
  readonly id: string;
  readonly tenantId: string;
  readonly key: string;
  readonly config: FeedbackConfigBody;
  readonly isEnforced: boolean;
  readonly deleted: boolean;
  /** Microseconds since the epoch. */
  readonly createdAt: number;
  readonly modifiedAt: number;
}

/** The Kafka key of a feedback key's config events. */
const eventKey = (tenantId: string, feedbackKey: string) => `${tenantId}/${feedbackKey}`;

export function feedbackConfigCreatedEvent(
  tenantId: string,
  configId: string,
  c: { key: string; config: FeedbackConfigBody; isEnforced: boolean; isLowerScoreBetter: boolean | null },
): EventToAppend<'FeedbackConfigCreated'> {
  return event('FeedbackConfigCreated', eventKey(tenantId, c.key), {
    tenant_id: tenantId,
    config_id: configId,
    feedback_key: c.key,
    feedback_config: JSON.stringify(c.config),
    is_enforced: c.isEnforced,
    is_lower_score_better: c.isLowerScoreBetter,
    created_at: nowMicros(),
  });
}

export function feedbackConfigUpdatedEvent(
  entry: FeedbackConfigEntry,
  c: { config: FeedbackConfigBody | null; isLowerScoreBetter: boolean | null },
): EventToAppend<'FeedbackConfigUpdated'> {
  return event('FeedbackConfigUpdated', eventKey(entry.tenantId, entry.key), {
    tenant_id: entry.tenantId,
    config_id: entry.id,
    feedback_key: entry.key,
    feedback_config: c.config === null ? null : JSON.stringify(c.config),
    is_lower_score_better: c.isLowerScoreBetter,
    updated_at: nowMicros(),
  });
}

export const feedbackConfigDeletedEvent = (entry: FeedbackConfigEntry): EventToAppend<'FeedbackConfigDeleted'> =>
  event('FeedbackConfigDeleted', eventKey(entry.tenantId, entry.key), {
    tenant_id: entry.tenantId,
    config_id: entry.id,
    feedback_key: entry.key,
    deleted_at: nowMicros(),
  });

const parseConfig = (text: string): FeedbackConfigBody | null => {
  try {
    const value = parseStoredJson(text) as FeedbackConfigBody;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
};

class TenantConfigs {
  readonly byId = new Map<string, FeedbackConfigEntry>();
  /** Every config id of a key (deleted ones too), in creation order. */
  readonly byKey = new Map<string, string[]>();
  readonly lowerIsBetter = new Map<string, boolean>();

  ofKey(key: string): FeedbackConfigEntry[] {
    return (this.byKey.get(key) ?? []).map((id) => this.byId.get(id)!);
  }
}

export class FeedbackConfigRegistry extends FoldedTopic {
  readonly #tenants = new Map<string, TenantConfigs>();

  constructor(config: EventLogConfig, logger: Logger) {
    super(config, TOPICS.feedbackConfigs, 'feedback configs', logger);
  }

  override readonly apply = (e: DecodedEvent): void => {
    if (e.name === 'FeedbackConfigCreated') this.#created(e.payload);
    else if (e.name === 'FeedbackConfigUpdated') this.#updated(e.payload);
    else if (e.name === 'FeedbackConfigDeleted') this.#deleted(e.payload);
  };

  #tenant(tenantId: string): TenantConfigs {
    let t = this.#tenants.get(tenantId);
    if (!t) this.#tenants.set(tenantId, (t = new TenantConfigs()));
    return t;
  }

  #created(c: FeedbackConfigCreated): void {
    const t = this.#tenant(c.tenant_id);
    const config = parseConfig(c.feedback_config);
    if (!config || t.byId.has(c.config_id)) return;
    const live = t.ofKey(c.feedback_key).filter((e) => !e.deleted);
    if (live.some((e) => e.isEnforced === c.is_enforced && isDeepStrictEqual(e.config, config))) return;
    const enforced = live.some((e) => e.isEnforced);
    if (c.is_enforced ? enforced : live.length > 0 && !enforced) return;
    t.byId.set(c.config_id, {
      id: c.config_id,
      tenantId: c.tenant_id,
      key: c.feedback_key,
      config,
      isEnforced: c.is_enforced,
      deleted: false,
      createdAt: c.created_at,
      modifiedAt: c.created_at,
    });
    t.byKey.set(c.feedback_key, [...(t.byKey.get(c.feedback_key) ?? []), c.config_id]);
    if (c.is_lower_score_better !== null) t.lowerIsBetter.set(c.feedback_key, c.is_lower_score_better);
  }

  #updated(c: FeedbackConfigUpdated): void {
    const t = this.#tenant(c.tenant_id);
    const entry = t.byId.get(c.config_id);
    if (!entry || entry.deleted) return;
    const config = c.feedback_config === null ? entry.config : (parseConfig(c.feedback_config) ?? entry.config);
    t.byId.set(entry.id, { ...entry, config, modifiedAt: Math.max(entry.modifiedAt, c.updated_at) });
    if (c.is_lower_score_better !== null) t.lowerIsBetter.set(entry.key, c.is_lower_score_better);
  }

  #deleted(c: FeedbackConfigDeleted): void {
    const t = this.#tenant(c.tenant_id);
    const entry = t.byId.get(c.config_id);
    if (!entry || entry.deleted) return;
    t.byId.set(entry.id, { ...entry, deleted: true, modifiedAt: Math.max(entry.modifiedAt, c.deleted_at) });
  }

  /** A config of the workspace by id (deleted ones too); undefined when unknown or another workspace's. */
  get(tenantId: string, configId: string): FeedbackConfigEntry | undefined {
    return this.#tenants.get(tenantId)?.byId.get(configId);
  }

  /** The live configs of a key, in creation order. */
  live(tenantId: string, key: string): FeedbackConfigEntry[] {
    return (
      this.#tenants
        .get(tenantId)
        ?.ofKey(key)
        .filter((e) => !e.deleted) ?? []
    );
  }

  /** The config a change of the key means without an id: its enforced one, else its first live one. */
  principal(tenantId: string, key: string): FeedbackConfigEntry | undefined {
    const live = this.live(tenantId, key);
    return live.find((e) => e.isEnforced) ?? live[0];
  }

  /** Whether the entry is the first live config of its key. */
  isFirst(entry: FeedbackConfigEntry): boolean {
    return !entry.deleted && this.live(entry.tenantId, entry.key)[0]?.id === entry.id;
  }

  /** The key's direction: lower scores are better (false unless a config of the key said so). */
  lowerIsBetter(tenantId: string, key: string): boolean {
    return this.#tenants.get(tenantId)?.lowerIsBetter.get(key) ?? false;
  }

  /**
   * The workspace's configs, by key then creation: one a key (its principal) by default; with
   * `all`, every config of every key, deleted ones included.
   */
  list(tenantId: string, all: boolean): FeedbackConfigEntry[] {
    const t = this.#tenants.get(tenantId);
    if (!t) return [];
    const keys = [...t.byKey.keys()].sort();
    return keys.flatMap((key) => {
      if (all) return t.ofKey(key);
      const principal = this.principal(tenantId, key);
      return principal ? [principal] : [];
    });
  }
}
