// API keys are random 32-byte secrets; only their SHA-256 is stored. A fast hash is right
// here (unlike passwords) because the keys carry full entropy.
import { createHash, randomBytes } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import { ID_NAMESPACE } from '../../platform/ids.ts';

export const KEY_PREFIX = 'lsk_';

export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The workspace BOOTSTRAP_API_KEY seeds: the same id on every start and every replica. */
export const DEFAULT_WORKSPACE_ID = uuidv5('workspace:default', ID_NAMESPACE);
