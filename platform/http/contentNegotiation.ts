// The Accept header (RFC 9110 §12.5.1): which of the media types a route can answer with the
// client asked for. A route with one form uses `accepts`; a route with several (JSON or an SSE
// stream) picks with `preferredMediaType` and answers 406 when the client admits none.

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const ranges: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range = '', ...params] = part.split(';').map((s) => s.trim());
    const [type, subtype] = range.toLowerCase().split('/');
    if (!type || !subtype) continue; // not a media range: ignored, as RFC 9110 lets a server do
    let q = 1;
    for (const p of params) {
      const [name, value] = p.split('=').map((s) => s.trim());
      if (name?.toLowerCase() === 'q') q = Number(value);
    }
    ranges.push({ type, subtype, q: Number.isFinite(q) ? Math.min(Math.max(q, 0), 1) : 0 });
  }
  return ranges;
}

/** The quality the client gives `mediaType` (from its most specific matching range) and whether a range names it exactly. */
function qualityOf(ranges: readonly MediaRange[], mediaType: string): { q: number; exact: boolean } {
  const [type, subtype] = mediaType.toLowerCase().split('/');
  let best: { specificity: number; q: number } | null = null;
  for (const r of ranges) {
    const specificity =
      r.type === type && r.subtype === subtype
        ? 2
        : r.type === type && r.subtype === '*'
          ? 1
          : r.type === '*' && r.subtype === '*'
            ? 0
            : -1;
    if (specificity >= 0 && (best === null || specificity > best.specificity)) best = { specificity, q: r.q };
  }
  return { q: best?.q ?? 0, exact: best?.specificity === 2 };
}

/**
 * Which of `offered` (in the server's order of preference) the client wants: the highest quality,
 * and among equals one the client named exactly over one it admits by a wildcard, then the
 * server's order. No header (or an empty one) admits everything: the first offered. Null when
 * the client admits none of them (answer 406).
 */
export function preferredMediaType<T extends string>(header: string | undefined, offered: readonly T[]): T | null {
  if (!header?.trim()) return offered[0] ?? null;
  const ranges = parseAccept(header);
  let chosen: { type: T; q: number; exact: boolean } | null = null;
  for (const type of offered) {
    const { q, exact } = qualityOf(ranges, type);
    if (q <= 0) continue;
    if (chosen === null || q > chosen.q || (q === chosen.q && exact && !chosen.exact)) chosen = { type, q, exact };
  }
  return chosen?.type ?? null;
}

/** Whether an Accept header admits one of `types` (no header admits everything). */
export function accepts(header: string | undefined, ...types: string[]): boolean {
  return preferredMediaType(header, types) !== null;
}
