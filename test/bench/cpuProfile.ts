// Reads a V8 CPU profile (`node --cpu-prof`) into the few figures a benchmark reports: where a
// process spent its time, by function (self time), by package, and, for the project's own
// functions, inclusive time (the function and everything it called), within a time window.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { repoRoot } from '../support/serviceProcess.ts';
import { round } from './measure.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Hotspot {
  /** `function (file:line)`; files of the project relative to it, packages by name. */
  frame: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  /** False when no sample fell in the window asked for, so the whole profile is summarised. */
  windowed: boolean;
  sampled_ms: number;
  /** Share of the sampled time the process was idle (waiting for I/O). */
  idle_share: number;
  top_self: Hotspot[];
  by_package: Hotspot[];
  /** The project's own functions by inclusive time, outermost frames (the HTTP server's entry) left out. */
  ours_inclusive: Hotspot[];
}

/** The package a script belongs to (`@scope/name`), `ours` for the project's files, or the URL's kind. */
function packageOf(url: string): string {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return 'node';
  const inModules = url.lastIndexOf('/node_modules/');
  if (inModules >= 0) {
    const [first, second] = url.slice(inModules + '/node_modules/'.length).split('/');
    return first!.startsWith('@') ? `${first}/${second}` : first!;
  }
  return url.includes(repoRoot) ? 'ours' : url;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName || '(anonymous)';
  if (!url) return name;
  const pkg = packageOf(url);
  const file =
    pkg === 'ours'
      ? relative(repoRoot, url.replace(/^file:\/\//, ''))
      : pkg === 'node'
        ? url
        : `${pkg}/${url.slice(url.lastIndexOf('/') + 1)}`;
  return `${name} (${file}:${lineNumber + 1})`;
}

/** Frames of the project that only pass a request through (counting them would put everything under them). */
const PASS_THROUGH = /^(\(anonymous\)|runMicrotasks|processTicksAndRejections) /;

/**
 * Summarises a profile over the samples taken between `fromUs` and `toUs` (the monotonic clock
 * in microseconds, as process.hrtime gives it: V8 stamps samples with the same clock), or all of
 * them when the window holds none.
 */
export function summariseCpuProfile(file: string, window?: { fromUs: number; toUs: number }, top = 12): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const picked: { id: number; us: number }[] = [];
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    // A sample's weight is the time until the next one.
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (!window || (t >= window.fromUs && t <= window.toUs)) picked.push({ id: profile.samples[i]!, us });
  }
  const samples =
    picked.length > 0 ? picked : profile.samples.map((id, i) => ({ id, us: profile.timeDeltas[i + 1] ?? 0 }));

  const self = new Map<string, number>();
  const packages = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const { id, us } of samples) {
    const leaf = byId.get(id)!;
    total += us;
    if (leaf.callFrame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    const name = frameName(leaf);
    self.set(name, (self.get(name) ?? 0) + us);
    const pkg = leaf.callFrame.url ? packageOf(leaf.callFrame.url) : leaf.callFrame.functionName || '(native)';
    packages.set(pkg, (packages.get(pkg) ?? 0) + us);
    const seen = new Set<string>();
    for (let n: ProfileNode | undefined = leaf; n; n = byId.get(parent.get(n.id) ?? -1)) {
      if (packageOf(n.callFrame.url) !== 'ours') continue;
      const frame = frameName(n);
      if (PASS_THROUGH.test(frame) || seen.has(frame)) continue;
      seen.add(frame);
      inclusive.set(frame, (inclusive.get(frame) ?? 0) + us);
    }
  }
  const busy = total - idle;
  const rank = (m: Map<string, number>): Hotspot[] =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([frame, us]) => ({ frame, ms: round(us / 1000, 0)!, share: round(busy > 0 ? us / busy : 0, 3)! }));
  return {
    windowed: picked.length > 0,
    sampled_ms: round(total / 1000, 0)!,
    idle_share: round(total > 0 ? idle / total : 0, 3)!,
    top_self: rank(self),
    by_package: rank(packages),
    ours_inclusive: rank(inclusive),
  };
}
