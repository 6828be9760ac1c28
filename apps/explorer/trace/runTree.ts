// The trace's runs as the tree view walks them: built once in O(n) from the API's tree order
// (dotted_order: parent before child, siblings by start), then the visible rows for the collapsed
// subtrees or a name search (matches with their ancestors, so each keeps its place), and the time
// span the waterfall draws against. Pure functions: the page renders what they return.

/** A row of the tree as the API answers it (traceApi.ts): light fields only, for every run of the trace. */
export interface TreeRun {
  id: string;
  name: string;
  run_type: string;
  status: string;
  start_time: string;
  end_time: string | null;
  first_token_time: string | null;
  /** Ancestors, root first (the last is the parent). */
  parent_run_ids: string[];
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** The run's usage with its descendants' (the API rolls it up to every ancestor). */
  total_tokens: number | null;
  total_cost: number | null;
}

export interface TreeNode {
  run: TreeRun;
  depth: number;
  parentId: string | null;
  childCount: number;
  /** Start and end in epoch milliseconds (end: null while the run is pending). */
  start: number;
  end: number | null;
}

export interface Tree {
  /** Every run, in tree order. */
  nodes: TreeNode[];
  byId: Map<string, TreeNode>;
  /** The trace's first start and last end (or start) in epoch milliseconds. */
  start: number;
  end: number;
}

export function buildTree(runs: TreeRun[]): Tree {
  const byId = new Map<string, TreeNode>();
  const nodes: TreeNode[] = [];
  let start = Infinity;
  let end = -Infinity;
  for (const run of runs) {
    const parentId = run.parent_run_ids.at(-1) ?? null;
    const s = Date.parse(run.start_time);
    const e = run.end_time ? Date.parse(run.end_time) : null;
    const node: TreeNode = { run, depth: run.parent_run_ids.length, parentId, childCount: 0, start: s, end: e };
    nodes.push(node);
    byId.set(run.id, node);
    const parent = parentId ? byId.get(parentId) : undefined;
    if (parent) parent.childCount++;
    start = Math.min(start, s);
    end = Math.max(end, e ?? s);
  }
  if (!Number.isFinite(start)) start = end = 0;
  return { nodes, byId, start, end };
}

export interface Row {
  node: TreeNode;
  /** The run's name matches the search (false when there is no search). */
  match: boolean;
  /** Its children are hidden. */
  collapsed: boolean;
}

/**
 * The rows to draw. Without a search: every run but those under a collapsed one. With one: the
 * runs whose name contains it (case-insensitive) and their ancestors, collapsing ignored.
 */
export function visibleRows(tree: Tree, collapsed: ReadonlySet<string>, search: string): Row[] {
  const needle = search.trim().toLowerCase();
  if (needle) {
    const keep = new Set<string>();
    const matched = new Set<string>();
    for (const node of tree.nodes) {
      if (!node.run.name.toLowerCase().includes(needle)) continue;
      matched.add(node.run.id);
      keep.add(node.run.id);
      for (const id of node.run.parent_run_ids) keep.add(id);
    }
    return tree.nodes
      .filter((n) => keep.has(n.run.id))
      .map((node) => ({ node, match: matched.has(node.run.id), collapsed: false }));
  }
  const rows: Row[] = [];
  // Tree order: a collapsed run's subtree is the runs after it that are deeper than it.
  let hiddenBelow = Infinity;
  for (const node of tree.nodes) {
    if (node.depth > hiddenBelow) continue;
    hiddenBelow = Infinity;
    const isCollapsed = collapsed.has(node.run.id) && node.childCount > 0;
    if (isCollapsed) hiddenBelow = node.depth;
    rows.push({ node, match: false, collapsed: isCollapsed });
  }
  return rows;
}

/** About five round steps (1, 2, 5 × 10^n ms) across the span, for the time axis. */
export function axisTicks(spanMs: number): number[] {
  if (spanMs <= 0) return [0];
  const raw = spanMs / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let t = 0; t <= spanMs + 1e-9; t += step) ticks.push(t);
  return ticks;
}

export function durationLabel(ms: number): string {
  if (ms < 1) return ms === 0 ? '0ms' : `${ms.toFixed(1)}ms`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`;
  return `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}
