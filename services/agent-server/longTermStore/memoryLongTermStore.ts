// The long-term store in this process's memory (AGENT_SERVER_CHECKPOINTER=memory): lost on
// restart. Items by workspace, then by the hash of their namespace and key; an expired item is
// never returned and is dropped by the next sweep, or when it is written again.
import { BaseLongTermStore, type ItemSearch, type ItemWrite } from './baseLongTermStore.ts';
import {
  compareNamespaces,
  compareResults,
  expiryOf,
  matchesConditions,
  namespaceMatches,
  type NamespaceOptions,
  type StoreItem,
} from './store.ts';
import { cosine } from './storeIndex.ts';

interface Entry {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
  ttlMinutes: number | null;
  expiresAt: Date | null;
  vectors: number[][];
}

const live = (entry: Entry, now: number) => entry.expiresAt === null || entry.expiresAt.getTime() > now;

const itemOf = (entry: Entry): StoreItem => ({
  namespace: [...entry.namespace],
  key: entry.key,
  value: structuredClone(entry.value),
  createdAt: entry.createdAt,
  updatedAt: entry.updatedAt,
});

export class MemoryLongTermStore extends BaseLongTermStore {
  readonly #workspaces = new Map<string, Map<string, Entry>>();

  #items(workspaceId: string): Map<string, Entry> {
    let items = this.#workspaces.get(workspaceId);
    if (!items) this.#workspaces.set(workspaceId, (items = new Map()));
    return items;
  }

  #refresh(entry: Entry, now: number): void {
    if (entry.ttlMinutes !== null) entry.expiresAt = expiryOf(now, entry.ttlMinutes);
  }

  protected async readItem(workspaceId: string, hash: Buffer, refresh: boolean, now: number) {
    const entry = this.#workspaces.get(workspaceId)?.get(hash.toString('hex'));
    if (!entry || !live(entry, now)) return null;
    if (refresh) this.#refresh(entry, now);
    return itemOf(entry);
  }

  protected async writeItem(workspaceId: string, write: ItemWrite) {
    const items = this.#items(workspaceId);
    const id = write.hash.toString('hex');
    const previous = items.get(id);
    const at = new Date(write.now);
    items.set(id, {
      namespace: [...write.namespace],
      key: write.key,
      value: structuredClone(write.value),
      // an expired item written again is a new one
      createdAt: previous && live(previous, write.now) ? previous.createdAt : at,
      updatedAt: at,
      ttlMinutes: write.ttlMinutes,
      expiresAt: expiryOf(write.now, write.ttlMinutes),
      vectors: write.vectors?.map((v) => v.vector) ?? [],
    });
  }

  protected async deleteItem(workspaceId: string, hash: Buffer) {
    this.#workspaces.get(workspaceId)?.delete(hash.toString('hex'));
  }

  protected async findItems(workspaceId: string, search: ItemSearch) {
    const { queryVector } = search;
    const found: { entry: Entry; item: StoreItem }[] = [];
    for (const entry of this.#workspaces.get(workspaceId)?.values() ?? []) {
      if (!live(entry, search.now) || !namespaceMatches(entry.namespace, search.prefix, 'prefix')) continue;
      if (!matchesConditions(entry.value, search.conditions)) continue;
      const item = itemOf(entry);
      if (queryVector)
        item.score = entry.vectors.length ? Math.max(...entry.vectors.map((v) => cosine(queryVector, v))) : null;
      found.push({ entry, item });
    }
    found.sort((a, b) => compareResults(a.item, b.item));
    const page = found.slice(search.offset, search.offset + search.limit);
    if (search.refresh) for (const { entry } of page) this.#refresh(entry, search.now);
    return page.map((p) => p.item);
  }

  protected async findNamespaces(workspaceId: string, options: NamespaceOptions, now: number) {
    const distinct = new Map<string, string[]>();
    for (const entry of this.#workspaces.get(workspaceId)?.values() ?? []) {
      if (!live(entry, now)) continue;
      if (options.prefix && !namespaceMatches(entry.namespace, options.prefix, 'prefix')) continue;
      if (options.suffix && !namespaceMatches(entry.namespace, options.suffix, 'suffix')) continue;
      const namespace = options.maxDepth === undefined ? entry.namespace : entry.namespace.slice(0, options.maxDepth);
      distinct.set(JSON.stringify(namespace), namespace);
    }
    return [...distinct.values()]
      .sort(compareNamespaces)
      .slice(options.offset, options.offset + options.limit)
      .map((ns) => [...ns]);
  }

  protected async deleteExpired(now: number) {
    let deleted = 0;
    for (const items of this.#workspaces.values())
      for (const [id, entry] of items)
        if (!live(entry, now)) {
          items.delete(id);
          deleted++;
        }
    return deleted;
  }

  async close() {
    this.#workspaces.clear();
  }
}
