// The dev secrets `npm start` keeps in .local/ when the environment has none, read the same way
// by the admin CLI: the environment wins, then the file, and only devSecret makes one.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { devSecret, readDevSecret } from '../../platform/devSecrets.ts';

const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'dev-secrets-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

test('the environment wins over the file; the file is read when the variable is unset or empty', () => {
  const dir = scratch();
  writeFileSync(join(dir, 'dev-secrets-key'), 'from-file\n');
  expect(readDevSecret('SECRETS_ENCRYPTION_KEY', { env: { SECRETS_ENCRYPTION_KEY: 'from-env' }, dir })).toEqual({
    value: 'from-env',
    file: undefined,
  });
  expect(readDevSecret('SECRETS_ENCRYPTION_KEY', { env: {}, dir })).toEqual({
    value: 'from-file',
    file: '.local/dev-secrets-key',
  });
  expect(readDevSecret('SECRETS_ENCRYPTION_KEY', { env: { SECRETS_ENCRYPTION_KEY: '' }, dir })!.value).toBe(
    'from-file',
  );
  expect(readDevSecret('BOOTSTRAP_API_KEY', { env: {}, dir })).toBeUndefined();
});

test('devSecret makes one only when neither has it, keeps it for its owner only, and reads it back the next time', () => {
  const dir = scratch();
  let made = 0;
  const generate = () => `generated-${++made}`;
  expect(devSecret('BOOTSTRAP_API_KEY', generate, { env: {}, dir })).toEqual({
    value: 'generated-1',
    file: '.local/dev-api-key',
  });
  expect(readFileSync(join(dir, 'dev-api-key'), 'utf8')).toBe('generated-1\n');
  expect(statSync(join(dir, 'dev-api-key')).mode & 0o777).toBe(0o600);
  expect(devSecret('BOOTSTRAP_API_KEY', generate, { env: {}, dir }).value).toBe('generated-1');
  expect(devSecret('BOOTSTRAP_API_KEY', generate, { env: { BOOTSTRAP_API_KEY: 'mine' }, dir }).value).toBe('mine');
  expect(made).toBe(1);
});
