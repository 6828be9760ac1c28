// Issue 19, item 8, at the end of the run: no log line written during it (the services the tests
// started, .local/logs/test/; the local stack's servers, .local/logs/) holds a secret of the suite
// (test/support/secretSweep.ts: the S3 secret, the deployment secret, every secret a test
// registered). Answers and Kafka messages were swept as the run went (secretSweep.setup.ts, and
// each stack's teardown).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { knownSecrets, nameOf, runStartedAt, secretsIn } from '../support/secretSweep.ts';
import { repoRoot } from '../support/serviceProcess.ts';

function logFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return logFiles(path);
    return entry.name.endsWith('.log') ? [path] : [];
  });
}

test('no log written during the run holds a secret of the suite', () => {
  const started = runStartedAt();
  expect(started, 'the run recorded its start (globalSetup)').toBeGreaterThan(0);
  const secrets = knownSecrets();
  expect(secrets.length).toBeGreaterThanOrEqual(2);
  const files = logFiles(join(repoRoot, '.local', 'logs')).filter((file) => statSync(file).mtimeMs >= started);
  expect(files.length).toBeGreaterThan(0);
  const findings: string[] = [];
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const secret of secretsIn(line, secrets))
        findings.push(`${nameOf(secret)} in ${file.slice(repoRoot.length + 1)}:${i + 1}`);
    });
  }
  console.log(`swept ${files.length} log files for ${secrets.length} secrets: ${findings.length} found`);
  expect(findings).toEqual([]);
});
