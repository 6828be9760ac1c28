// The long-term store as a graph sees it: LangGraph's BaseStore, scoped to the workspace of the
// run (runs/runManager.ts passes one to each run as its `store`). Nodes reach it through
// `getStore()` or `config.store` (a node's second argument); what one thread writes, the
// workspace's other threads read, and no other workspace ever does. Puts take the config file's
// default TTL and reads its refresh_on_read (BaseStore's operations have no per-call TTL).
import {
  BaseStore,
  type GetOperation,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchOperation,
} from '@langchain/langgraph-checkpoint';
import './batchedStore.ts'; // LangGraph's wrapper of a run's store, without its polling
import type { LongTermStore, StoreItem } from './store.ts';

export class WorkspaceStore extends BaseStore {
  readonly #backend: LongTermStore;
  readonly #workspaceId: string;

  constructor(backend: LongTermStore, workspaceId: string) {
    super();
    this.#backend = backend;
    this.#workspaceId = workspaceId;
  }

  /** In order: a get after a put of the same batch reads what the put wrote. */
  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const op of operations) results.push(await this.#apply(op));
    return results as OperationResults<Op>;
  }

  async #apply(op: Operation): Promise<unknown> {
    const ws = this.#workspaceId;
    if ('namespacePrefix' in op) {
      const { namespacePrefix, filter, limit = 10, offset = 0, query } = op as SearchOperation;
      const items = await this.#backend.search(ws, namespacePrefix, { filter, limit, offset, query });
      return items.map(asLangGraphItem);
    }
    if ('value' in op) {
      const { namespace, key, value, index } = op as PutOperation;
      if (value === null) return this.#backend.delete(ws, namespace, key);
      return this.#backend.put(ws, namespace, key, value, index === undefined ? {} : { index });
    }
    if ('namespace' in op && 'key' in op) {
      const { namespace, key } = op as GetOperation;
      const item = await this.#backend.get(ws, namespace, key);
      return item && asLangGraphItem(item);
    }
    const { matchConditions = [], maxDepth, limit, offset } = op as ListNamespacesOperation;
    const at = (type: 'prefix' | 'suffix') => matchConditions.find((c) => c.matchType === type)?.path;
    return this.#backend.listNamespaces(ws, {
      prefix: at('prefix'),
      suffix: at('suffix'),
      maxDepth,
      limit: limit ?? 100,
      offset: offset ?? 0,
    });
  }
}

/** LangGraph's Item (score only where a query ranked it). */
function asLangGraphItem(item: StoreItem): StoreItem {
  const { score, ...rest } = item;
  return score === undefined ? rest : { ...rest, score: score ?? undefined };
}
