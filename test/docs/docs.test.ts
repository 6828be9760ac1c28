// The docs stay a tree a newcomer can walk: README.md is a landing page (at most 300 lines),
// docs/README.md indexes every page under docs/, and every relative link in README.md and docs/
// leads to a file that exists and, when it names an anchor, to a heading that exists.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect, test } from 'vitest';

const repoRoot = join(import.meta.dirname, '../..');
const docsDir = join(repoRoot, 'docs');

function docsPages(): string[] {
  return readdirSync(docsDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (outside code blocks), numbered as GitHub numbers repeats. */
function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inCode = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (/^\s*```/.test(line)) inCode = !inCode;
    const heading = inCode ? undefined : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = anchorOf(heading);
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}

/** The link targets of a Markdown file (inline links and images), outside code blocks and code spans. */
function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
    .replace(/^\s*```[\s\S]*?^\s*```/gm, '')
    .replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}

test('README.md is a landing page: at most 300 lines', () => {
  const lines = readFileSync(join(repoRoot, 'README.md'), 'utf8').split('\n').length;
  expect(lines).toBeLessThanOrEqual(300);
});

test('docs/README.md links every page under docs/', () => {
  const index = join(docsDir, 'README.md');
  const linked = new Set(linksOf(index).map((link) => resolve(dirname(index), link.split('#')[0]!)));
  const pages = docsPages().filter((page) => page !== index);
  expect(pages.filter((page) => !linked.has(page)).map((page) => relative(repoRoot, page))).toEqual([]);
});

test('every relative link in README.md and docs/ leads to a file, and its anchor to a heading', () => {
  const broken: string[] = [];
  for (const file of [join(repoRoot, 'README.md'), ...docsPages()]) {
    for (const link of linksOf(file)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // http:, https:, mailto:
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      const where = `${relative(repoRoot, file)}: ${link}`;
      if (!existsSync(target)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor)) broken.push(`${where} (no such heading)`);
    }
  }
  expect(broken).toEqual([]);
});

test('anchors are spelled as GitHub spells them', () => {
  expect(anchorOf('Replicas: several agent servers on one database')).toBe(
    'replicas-several-agent-servers-on-one-database',
  );
  expect(anchorOf('`traces` columns')).toBe('traces-columns');
  expect(anchorOf('What the API takes, and what it answers when it cannot')).toBe(
    'what-the-api-takes-and-what-it-answers-when-it-cannot',
  );
  expect(anchorOf('Reliability: what a 2xx is worth')).toBe('reliability-what-a-2xx-is-worth');
});

test('every source path the docs name exists (files move; the docs follow)', () => {
  const named =
    /(?<![\w./<>-])((?:apps|examples|infra|platform|projections|schemas|services|test)\/[\w./-]+\.(?:ts|tsx|avsc|json|sh))(?![\w<>*])/g;
  const missing = [join(repoRoot, 'README.md'), ...docsPages()].flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(named)]
      .map((match) => match[1]!)
      .filter((path) => !path.includes('*') && !existsSync(join(repoRoot, path)))
      .map((path) => `${relative(repoRoot, file)} names ${path}`),
  );
  expect(missing).toEqual([]);
});
