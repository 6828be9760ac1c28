// What changed from one text to another (two commits' manifests as text, manifest.ts), line by
// line with jsdiff (`diff`): runs of lines the same on both sides, and changes (lines removed,
// lines added). A removed line and the added line in its place are compared word by word, so the
// page marks the words that changed, not only the lines. Pure: the diff tab draws it unified or
// side by side.
import { diffLines, diffWordsWithSpace } from 'diff';

/**
 * A piece of a line: `changed` marks the words that differ between a removed line and the added
 * line in its place (a line removed or added alone is one piece, not marked: the line is the change).
 */
export interface Segment {
  text: string;
  changed: boolean;
}

export interface DiffLine {
  /** Its line number on its side (1-based). */
  no: number;
  segments: Segment[];
}

export type DiffBlock =
  | { kind: 'same'; lines: Array<{ oldNo: number; newNo: number; text: string }> }
  | { kind: 'change'; removed: DiffLine[]; added: DiffLine[] };

const linesOf = (value: string): string[] => {
  const lines = value.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
};

/** Two lines compared word by word: the old one's pieces (removed words changed) and the new one's. */
function wordPieces(before: string, after: string): [Segment[], Segment[]] {
  const left: Segment[] = [];
  const right: Segment[] = [];
  for (const c of diffWordsWithSpace(before, after)) {
    if (!c.added) left.push({ text: c.value, changed: c.removed });
    if (!c.removed) right.push({ text: c.value, changed: c.added });
  }
  return [joined(left), joined(right)];
}

/** Changed words with only spaces kept between them read as one change: the spaces join them. */
function joined(segments: Segment[]): Segment[] {
  const out: Segment[] = [];
  segments.forEach((s, i) => {
    const between = !s.changed && /^\s+$/.test(s.text) && segments[i - 1]?.changed && segments[i + 1]?.changed;
    const changed = s.changed || between === true;
    const last = out.at(-1);
    if (last && last.changed === changed) last.text += s.text;
    else out.push({ text: s.text, changed });
  });
  return out;
}

export function diffText(before: string, after: string): DiffBlock[] {
  const blocks: DiffBlock[] = [];
  let oldNo = 1;
  let newNo = 1;
  let change: Extract<DiffBlock, { kind: 'change' }> | null = null;
  const flush = () => {
    if (!change) return;
    // A removed line and the added line in its place: their words compared.
    const pairs = Math.min(change.removed.length, change.added.length);
    for (let i = 0; i < pairs; i++) {
      const [left, right] = wordPieces(change.removed[i]!.segments[0]!.text, change.added[i]!.segments[0]!.text);
      change.removed[i]!.segments = left;
      change.added[i]!.segments = right;
    }
    blocks.push(change);
    change = null;
  };
  // Every text ends in a newline here, so a last line changed is compared as a line.
  for (const c of diffLines(`${before}\n`, `${after}\n`)) {
    const lines = linesOf(c.value);
    if (!c.added && !c.removed) {
      flush();
      blocks.push({ kind: 'same', lines: lines.map((text) => ({ oldNo: oldNo++, newNo: newNo++, text })) });
      continue;
    }
    change ??= { kind: 'change', removed: [], added: [] };
    for (const text of lines)
      if (c.removed) change.removed.push({ no: oldNo++, segments: [{ text, changed: false }] });
      else change.added.push({ no: newNo++, segments: [{ text, changed: false }] });
  }
  flush();
  return blocks;
}

/** How many lines the diff adds and removes. */
export function diffCounts(blocks: readonly DiffBlock[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const b of blocks)
    if (b.kind === 'change') {
      added += b.added.length;
      removed += b.removed.length;
    }
  return { added, removed };
}
