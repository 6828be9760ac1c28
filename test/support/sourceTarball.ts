// A source tarball shaped as the official `langgraph deploy` CLIs make it for an internal_source
// upload (langgraph-cli archive.py, @langchain/langgraph-cli utils/archive.mts): a .tar.gz of the
// directory holding langgraph.json, its files at the archive's root, regular files only (no
// directory entries, no symlinks), without node_modules and .git; and the PUT they send it with.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const SKIPPED = new Set(['node_modules', '.git', '__pycache__', '.venv']);

function filesUnder(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : filesUnder(root, path);
    return entry.isFile() ? [relative(root, path)] : [];
  });
}

/** Writes `dir`'s source to `archive` (a .tar.gz) the way the CLIs do. */
export function makeSourceTarball(dir: string, archive: string): void {
  execFileSync('tar', ['-czf', archive, '-C', dir, '--no-recursion', '--', ...filesUnder(dir)]);
}

/** PUTs `archive` to a presigned upload URL with the CLIs' headers; the response status. */
export async function uploadLikeTheCli(uploadUrl: string, archive: string): Promise<number> {
  const body = readFileSync(archive);
  const res = await fetch(uploadUrl, {
    method: 'PUT',
    headers: {
      'Content-Type': 'application/gzip',
      'Content-Length': String(body.byteLength),
      'X-Goog-Content-Length-Range': '0,209715200',
    },
    body,
  });
  await res.arrayBuffer();
  return res.status;
}
