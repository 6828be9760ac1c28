// The run tree and its waterfall as one virtualised list (TanStack Virtual): each row is the tree
// cell (indent, expand/collapse, type, name, tokens, latency) beside a bar placed from the trace's
// start, so the two can never drift apart; a time axis heads the bars. Only the rows in view (and
// a few more) are in the DOM, so a trace of 10,000 runs scrolls like one of ten.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { count } from '../core/format.ts';
import { axisTicks, durationLabel, type Row, type Tree } from './runTree.ts';

const ROW_HEIGHT = 30;
const INDENT = 14;

/** Short labels of the run types, for the badge of each row. */
const TYPE_LABEL: Record<string, string> = {
  llm: 'LLM',
  chain: 'chain',
  tool: 'tool',
  retriever: 'retr',
  embedding: 'embed',
  prompt: 'prompt',
  parser: 'parse',
};

interface Props {
  tree: Tree;
  rows: Row[];
  selectedId: string;
  search: string;
  onSelect: (id: string) => void;
  onToggle: (id: string) => void;
}

export function Waterfall({ tree, rows, selectedId, search, onSelect, onToggle }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const span = Math.max(tree.end - tree.start, 1);
  const ticks = axisTicks(tree.end - tree.start);
  const selectedIndex = rows.findIndex((r) => r.node.run.id === selectedId);

  // The selected run stays in view (keyboard moves, deep links into a long trace).
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: 'auto' });
  }, [selectedIndex, virtualizer]);

  return (
    <div className="waterfall card" data-testid="run-tree" role="tree" aria-label="Runs of the trace">
      <div className="wf-head">
        <div className="wf-tree-cell wf-head-label">
          Run{' '}
          <span className="muted">
            · {count(rows.length)}
            {rows.length !== tree.nodes.length ? ` of ${count(tree.nodes.length)}` : ''}
          </span>
        </div>
        <div className="wf-time-cell wf-axis" data-testid="time-axis">
          {ticks.map((t) => (
            <span key={t} className="wf-tick" style={{ left: `${(t / span) * 100}%` }}>
              {durationLabel(t)}
            </span>
          ))}
        </div>
      </div>
      <div className="wf-scroll" ref={scroller}>
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {virtualizer.getVirtualItems().map((item) => {
            const { node, match, collapsed } = rows[item.index]!;
            const { run } = node;
            const left = ((node.start - tree.start) / span) * 100;
            const width = (((node.end ?? tree.end) - node.start) / span) * 100;
            const selected = run.id === selectedId;
            return (
              <div
                key={run.id}
                role="treeitem"
                aria-level={node.depth + 1}
                aria-selected={selected}
                aria-expanded={node.childCount > 0 ? !collapsed : undefined}
                data-testid="tree-run"
                data-run-id={run.id}
                data-index={item.index}
                className={`wf-row${selected ? ' selected' : ''}${run.status === 'error' ? ' errored' : ''}${match ? ' match' : ''}`}
                style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
                onClick={() => onSelect(run.id)}
              >
                <div className="wf-tree-cell" style={{ paddingLeft: 6 + node.depth * INDENT }}>
                  {node.childCount > 0 ? (
                    <button
                      type="button"
                      className="wf-toggle"
                      data-testid="tree-toggle"
                      aria-label={collapsed ? `Expand ${run.name}` : `Collapse ${run.name}`}
                      onClick={(e) => {
                        e.stopPropagation();
                        onToggle(run.id);
                      }}
                    >
                      {collapsed ? '▸' : '▾'}
                    </button>
                  ) : (
                    <span className="wf-toggle" />
                  )}
                  <span className={`type-badge type-${run.run_type}`} title={run.run_type}>
                    {TYPE_LABEL[run.run_type] ?? run.run_type}
                  </span>
                  <span className="run-name" title={run.name}>
                    <Highlighted text={run.name} search={match ? search : ''} />
                  </span>
                  {run.status === 'error' && (
                    <span className="error-mark" data-testid="error-mark" title="This run failed">
                      !
                    </span>
                  )}
                  {run.total_tokens ? <span className="run-tokens">{count(run.total_tokens)} tok</span> : null}
                  <span className="run-latency">{node.end === null ? '…' : durationLabel(node.end - node.start)}</span>
                </div>
                <div className="wf-time-cell">
                  <span
                    className={`wf-bar type-${run.run_type}${run.status === 'error' ? ' failed' : ''}${node.end === null ? ' pending' : ''}`}
                    data-testid="waterfall-bar"
                    data-offset={node.start - tree.start}
                    style={{ left: `${left}%`, width: `max(${width}%, 2px)` }}
                  />
                </div>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

function Highlighted({ text, search }: { text: string; search: string }) {
  const at = search ? text.toLowerCase().indexOf(search.trim().toLowerCase()) : -1;
  if (at < 0) return <>{text}</>;
  const end = at + search.trim().length;
  return (
    <>
      {text.slice(0, at)}
      <mark>{text.slice(at, end)}</mark>
      {text.slice(end)}
    </>
  );
}
