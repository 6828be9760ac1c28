// Install steps are skipped when their inputs have not changed since the last successful
// run: a stamp file next to the output holds a hash of those inputs.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';

/** Hash of the given files' contents plus any extra strings (versions, flags). */
export function inputsHash(files: string[], extra: string[] = []): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(file).update('\0').update(readFileSync(file)).update('\0');
  for (const value of extra) hash.update(value).update('\0');
  return hash.digest('hex');
}

export function stampMatches(stampFile: string, hash: string): boolean {
  try {
    return readFileSync(stampFile, 'utf8').trim() === hash;
  } catch {
    return false;
  }
}

export function writeStamp(stampFile: string, hash: string): void {
  writeFileSync(stampFile, `${hash}\n`);
}
