// What both backends of the long-term store do alike, before their own reads and writes: check
// namespaces, apply the config file's TTL defaults, embed what the index says (values on put,
// the query on search) and parse the search filter. A backend only stores and finds.
import type { StoreConfig } from '../agentConfig.ts';
import {
  checkNamespace,
  filterConditions,
  itemHash,
  type FieldCondition,
  type LongTermStore,
  type NamespaceOptions,
  type PutOptions,
  type SearchOptions,
  type StoreItem,
} from './store.ts';
import { fieldTexts, type StoreIndex } from './storeIndex.ts';

export interface StoreSettings {
  ttl: StoreConfig['ttl'];
  /** Where the config file names an index: items are embedded, and `query` ranks search results. */
  index?: StoreIndex;
  /** The clock, in ms (tests move it; TTLs are minutes). */
  now?: () => number;
}

export interface ItemWrite {
  namespace: string[];
  key: string;
  hash: Buffer;
  value: Record<string, unknown>;
  ttlMinutes: number | null;
  /** The value's embeddings (replacing the item's), or undefined without an index. */
  vectors?: { field: string; vector: number[] }[];
  now: number;
}

export interface ItemSearch {
  prefix: string[];
  conditions: FieldCondition[];
  limit: number;
  offset: number;
  /** The query's embedding: results ranked by similarity, each with its score. */
  queryVector?: number[];
  refresh: boolean;
  now: number;
}

export abstract class BaseLongTermStore implements LongTermStore {
  protected readonly settings: StoreSettings;
  protected readonly now: () => number;

  constructor(settings: StoreSettings) {
    this.settings = settings;
    this.now = settings.now ?? Date.now;
  }

  protected abstract readItem(
    workspaceId: string,
    hash: Buffer,
    refresh: boolean,
    now: number,
  ): Promise<StoreItem | null>;
  protected abstract writeItem(workspaceId: string, write: ItemWrite): Promise<void>;
  protected abstract deleteItem(workspaceId: string, hash: Buffer): Promise<void>;
  protected abstract findItems(workspaceId: string, search: ItemSearch): Promise<StoreItem[]>;
  protected abstract findNamespaces(workspaceId: string, options: NamespaceOptions, now: number): Promise<string[][]>;
  protected abstract deleteExpired(now: number): Promise<number>;
  abstract close(): Promise<void>;

  get(workspaceId: string, namespace: string[], key: string, refreshTtl?: boolean): Promise<StoreItem | null> {
    checkNamespace(namespace);
    return this.readItem(
      workspaceId,
      itemHash(namespace, key),
      refreshTtl ?? this.settings.ttl.refreshOnRead,
      this.now(),
    );
  }

  async put(
    workspaceId: string,
    namespace: string[],
    key: string,
    value: Record<string, unknown>,
    options: PutOptions = {},
  ): Promise<void> {
    checkNamespace(namespace);
    const { index } = this.settings;
    let vectors: ItemWrite['vectors'];
    if (index) {
      const texts = options.index === false ? [] : fieldTexts(value, options.index ?? index.fields);
      const embedded = await index.embedTexts(texts.map((t) => t.text));
      vectors = texts.map((t, i) => ({ field: t.field, vector: embedded[i]! }));
    }
    await this.writeItem(workspaceId, {
      namespace,
      key,
      hash: itemHash(namespace, key),
      value,
      ttlMinutes: options.ttl === undefined ? this.settings.ttl.defaultTtlMinutes : options.ttl,
      vectors,
      now: this.now(),
    });
  }

  delete(workspaceId: string, namespace: string[], key: string): Promise<void> {
    checkNamespace(namespace);
    return this.deleteItem(workspaceId, itemHash(namespace, key));
  }

  async search(workspaceId: string, namespacePrefix: string[], options: SearchOptions): Promise<StoreItem[]> {
    if (namespacePrefix.length > 0) checkNamespace(namespacePrefix, 'namespace_prefix');
    const conditions = filterConditions(options.filter);
    const { index } = this.settings;
    const queryVector = index && options.query ? await index.embedQuery(options.query) : undefined;
    return this.findItems(workspaceId, {
      prefix: namespacePrefix,
      conditions,
      limit: options.limit,
      offset: options.offset,
      ...(queryVector ? { queryVector } : {}),
      refresh: options.refreshTtl ?? this.settings.ttl.refreshOnRead,
      now: this.now(),
    });
  }

  listNamespaces(workspaceId: string, options: NamespaceOptions): Promise<string[][]> {
    return this.findNamespaces(workspaceId, options, this.now());
  }

  sweep(): Promise<number> {
    return this.deleteExpired(this.now());
  }
}
