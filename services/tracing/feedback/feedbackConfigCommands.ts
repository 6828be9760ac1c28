// Create, change and delete feedback configs: check against the registry, append the event, then
// wait until the registry has folded it (read-your-writes). What a key's configs allow is decided
// by the topic's order (feedbackConfigRegistry.ts): after appending a creation we read back
// whether it took effect, and answer as the configs there say when another replica's came first.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { errors } from '../../../platform/errors.ts';
import type { EventLog } from '../../../platform/kafka/eventLog.ts';
import {
  type FeedbackCategory,
  type FeedbackConfigBody,
  type FeedbackConfigEntry,
  type FeedbackConfigRegistry,
  feedbackConfigCreatedEvent,
  feedbackConfigDeletedEvent,
  feedbackConfigUpdatedEvent,
} from '../../../projections/feedback/feedbackConfigRegistry.ts';

export interface NewFeedbackConfig {
  key: string;
  config: FeedbackConfigBody;
  isEnforced: boolean;
  isLowerScoreBetter: boolean | null;
}

export interface FeedbackConfigChange {
  key: string;
  id: string | null;
  config: FeedbackConfigBody | null;
  isLowerScoreBetter: boolean | null;
  addCategories: FeedbackCategory[] | null;
  removeCategories: number[] | null;
}

/**
 * What a config's schema cannot say (routes/feedbackConfigs.ts has the rest): a range the right
 * way up, category values and labels each given once. A 400: the fields each have their form.
 */
export function checkFeedbackConfig(config: FeedbackConfigBody, field = 'feedback_config'): FeedbackConfigBody {
  if (config.type === 'continuous' && config.min != null && config.max != null && config.min >= config.max)
    throw errors.badRequest(`${field}: min (${config.min}) must be below max (${config.max})`);
  if (config.type === 'categorical') checkDistinct(config.categories ?? [], field);
  return config;
}

function checkDistinct(categories: FeedbackCategory[], field: string): void {
  const values = new Set<number>();
  const labels = new Set<string>();
  for (const c of categories) {
    if (values.has(c.value)) throw errors.badRequest(`${field}: the category value ${c.value} is given twice`);
    values.add(c.value);
    if (c.label != null) {
      if (labels.has(c.label)) throw errors.badRequest(`${field}: the category label "${c.label}" is given twice`);
      labels.add(c.label);
    }
  }
}

export class FeedbackConfigCommands {
  readonly #configs: FeedbackConfigRegistry;
  readonly #log: EventLog;

  constructor(configs: FeedbackConfigRegistry, log: EventLog) {
    this.#configs = configs;
    this.#log = log;
  }

  /** The key's live config this creation repeats, or the refusal its configs give it. */
  #decide(tenantId: string, input: NewFeedbackConfig): FeedbackConfigEntry | null {
    const live = this.#configs.live(tenantId, input.key);
    const same = live.find((e) => e.isEnforced === input.isEnforced && isDeepStrictEqual(e.config, input.config));
    if (same) return same;
    const enforced = live.find((e) => e.isEnforced);
    if (input.isEnforced && enforced)
      throw errors.conflict(`feedback key "${input.key}" already has an enforced config (id ${enforced.id})`);
    if (!input.isEnforced && live.length > 0 && !enforced)
      throw errors.badRequest(
        `Feedback config already exists for key "${input.key}" (id ${live[0]!.id}); change it with PATCH /feedback-configs, or delete it first`,
      );
    return null;
  }

  /** POST /feedback-configs: a config identical to the key's is answered with that one. */
  async create(tenantId: string, input: NewFeedbackConfig): Promise<FeedbackConfigEntry> {
    await this.#configs.catchUp();
    const existing = this.#decide(tenantId, input);
    if (existing) return this.#withDirection(existing, input.isLowerScoreBetter);
    const id = randomUUID();
    await this.#log.append([feedbackConfigCreatedEvent(tenantId, id, input)]);
    await this.#configs.catchUp();
    const created = this.#configs.get(tenantId, id);
    if (created) return created;
    // Another replica's creation came first: answer as its config decides.
    return this.#decide(tenantId, input) ?? this.create(tenantId, input);
  }

  /** An identical creation that names a direction sets it for the key. */
  async #withDirection(entry: FeedbackConfigEntry, lower: boolean | null): Promise<FeedbackConfigEntry> {
    if (lower === null || lower === this.#configs.lowerIsBetter(entry.tenantId, entry.key)) return entry;
    await this.#log.append([feedbackConfigUpdatedEvent(entry, { config: null, isLowerScoreBetter: lower })]);
    await this.#configs.catchUp();
    return this.#configs.get(entry.tenantId, entry.id) ?? entry;
  }

  /** PATCH /feedback-configs: the config by id, else the key's enforced config, else its first. */
  async update(tenantId: string, change: FeedbackConfigChange): Promise<FeedbackConfigEntry> {
    await this.#configs.catchUp();
    const target =
      change.id === null ? this.#configs.principal(tenantId, change.key) : this.#configs.get(tenantId, change.id);
    if (!target || target.deleted || target.key !== change.key)
      throw errors.notFound(
        change.id === null
          ? `feedback config for key "${change.key}"`
          : `feedback config ${change.id} of key "${change.key}"`,
      );
    let config = change.config ?? target.config;
    if (change.addCategories !== null || change.removeCategories !== null) {
      if (config.type !== 'categorical')
        throw errors.badRequest(
          `feedback key "${change.key}" is ${config.type}, not categorical: it has no categories`,
        );
      const removed = new Set(change.removeCategories ?? []);
      const kept = (config.categories ?? []).filter((c) => !removed.has(c.value));
      const categories = [...kept, ...(change.addCategories ?? [])];
      checkDistinct(categories, 'add_categories');
      if (categories.length < 2) throw errors.badRequest('remove_categories: at least two categories must remain');
      config = { ...config, categories };
    }
    checkFeedbackConfig(config);
    const sameConfig = isDeepStrictEqual(config, target.config);
    const lower =
      change.isLowerScoreBetter !== null &&
      change.isLowerScoreBetter !== this.#configs.lowerIsBetter(tenantId, target.key)
        ? change.isLowerScoreBetter
        : null;
    if (sameConfig && lower === null) return target;
    await this.#log.append([
      feedbackConfigUpdatedEvent(target, { config: sameConfig ? null : config, isLowerScoreBetter: lower }),
    ]);
    await this.#configs.catchUp();
    return this.#configs.get(tenantId, target.id) ?? target;
  }

  /** DELETE /feedback-configs: one config by id (of the key, when one is named too), or every config of a key. */
  async delete(tenantId: string, target: { key: string | null; id: string | null }): Promise<void> {
    if (target.key === null && target.id === null)
      throw errors.badRequest('give feedback_key (every config of the key) or id (one config)');
    await this.#configs.catchUp();
    const doomed =
      target.id === null
        ? this.#configs.live(tenantId, target.key!)
        : [this.#configs.get(tenantId, target.id)].filter(
            (e): e is FeedbackConfigEntry => !!e && !e.deleted && (target.key === null || e.key === target.key),
          );
    if (doomed.length === 0)
      throw errors.notFound(
        target.id === null
          ? `feedback config for key "${target.key}"`
          : `feedback config ${target.id}${target.key === null ? '' : ` of key "${target.key}"`}`,
      );
    await this.#log.append(doomed.map(feedbackConfigDeletedEvent));
    await this.#configs.catchUp();
  }
}
