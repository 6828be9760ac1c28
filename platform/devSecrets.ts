// The secrets `npm start` keeps for local development when the environment gives none: each in
// .local/<file>, made once and read on every later start. One mechanism for every process that
// needs one: services/main.ts makes them and hands them to the services; the admin CLI reads the
// secrets key the same way, so the tokens it signs are the ones the services it started check.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const localDir = join(import.meta.dirname, '..', '.local');

/** The file under .local/ of each such secret. */
export const DEV_SECRET_FILES = {
  BOOTSTRAP_API_KEY: 'dev-api-key',
  SECRETS_ENCRYPTION_KEY: 'dev-secrets-key',
} as const;

export type DevSecretName = keyof typeof DEV_SECRET_FILES;

export interface DevSecret {
  value: string;
  /** `.local/<file>` when the value came from there (for messages about it); undefined: the environment's. */
  file: string | undefined;
}

/** Where they are read from: the environment, and the directory of their files (.local/ of the checkout). */
export interface DevSecretSource {
  env?: NodeJS.ProcessEnv;
  dir?: string;
}

/** The variable's value from the environment, else from its .local file; undefined when neither has one. */
export function readDevSecret(name: DevSecretName, source: DevSecretSource = {}): DevSecret | undefined {
  const { env = process.env, dir = localDir } = source;
  const fromEnv = env[name];
  if (fromEnv) return { value: fromEnv, file: undefined };
  const path = join(dir, DEV_SECRET_FILES[name]);
  return existsSync(path)
    ? { value: readFileSync(path, 'utf8').trim(), file: `.local/${DEV_SECRET_FILES[name]}` }
    : undefined;
}

/** As readDevSecret; when neither has one, made by `generate` and kept in its .local file (readable by its owner only). */
export function devSecret(name: DevSecretName, generate: () => string, source: DevSecretSource = {}): DevSecret {
  const found = readDevSecret(name, source);
  if (found) return found;
  const { dir = localDir } = source;
  const value = generate();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, DEV_SECRET_FILES[name]), value + '\n', { mode: 0o600 });
  return { value, file: `.local/${DEV_SECRET_FILES[name]}` };
}
