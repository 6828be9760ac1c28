// Authenticated encryption of small JSON secrets (bulk-export destination credentials, deployment
// secrets) before they are appended to Kafka or stored anywhere. AES-256-GCM with a random 12-byte IV per message.
//
// Sealed form: `sb1.<keyId>.<iv>.<ciphertext>.<tag>` (base64url parts). The key id is a short
// digest of the key, so opening with another key fails with a clear message instead of a bare
// authentication error; it is also authenticated data, so it cannot be swapped unnoticed.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Config } from './config.ts';

const VERSION = 'sb1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed secret that cannot be opened: malformed, sealed with another key, or tampered with. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

export class SecretBox {
  /** Short, non-secret name of the key (8 hex digits), written into every sealed value. */
  readonly keyId: string;
  readonly #key: Buffer;

  constructor(key: Uint8Array) {
    if (key.byteLength !== 32) throw new Error(`SecretBox needs a 32-byte key, got ${key.byteLength} bytes`);
    this.#key = Buffer.from(key);
    // Domain-separated so the id is never a digest of the bare key used elsewhere.
    this.keyId = createHash('sha256')
      .update('langsmith-secret-box-key-id\0')
      .update(this.#key)
      .digest('hex')
      .slice(0, 8);
  }

  /** The box for SECRETS_ENCRYPTION_KEY, or null when no key is configured. */
  static fromConfig(config: Pick<Config, 'SECRETS_ENCRYPTION_KEY'>): SecretBox | null {
    const key = secretsKeyFromConfig(config);
    return key && new SecretBox(key);
  }

  /** Encrypts `value` as JSON; the same value gives a different string every time. */
  seal(value: unknown): string {
    const plaintext = JSON.stringify(value);
    if (plaintext === undefined) throw new TypeError('SecretBox.seal: the value is not JSON-serialisable');
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(this.keyId));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, this.keyId, iv, ciphertext, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** Decrypts a value made by seal(); throws SecretBoxError unless it is intact and sealed with this key. */
  open<T>(sealed: string): T {
    const parts = sealed.split('.');
    if (parts.length !== 5 || parts[0] !== VERSION) throw new SecretBoxError('not a sealed secret (unknown format)');
    const [, keyId, ivText, ciphertextText, tagText] = parts as [string, string, string, string, string];
    if (keyId !== this.keyId) {
      throw new SecretBoxError(
        `the secret was sealed with key ${keyId}, but SECRETS_ENCRYPTION_KEY is key ${this.keyId}`,
      );
    }
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES)
      throw new SecretBoxError('not a sealed secret (bad IV or tag length)');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData(keyId));
    decipher.setAuthTag(tag);
    let plaintext: string;
    try {
      plaintext = Buffer.concat([decipher.update(Buffer.from(ciphertextText, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new SecretBoxError('the sealed secret failed authentication (tampered with or corrupted)');
    }
    return JSON.parse(plaintext) as T;
  }
}

/**
 * The 32 bytes of SECRETS_ENCRYPTION_KEY (64 hex digits or base64, as config.ts checks), or null
 * when it is unset. Other keys are derived from it (bearer-token signing: services/tenancy/bearerTokens.ts),
 * so that the platform has one secret to provision and keep.
 */
export function secretsKeyFromConfig(config: Pick<Config, 'SECRETS_ENCRYPTION_KEY'>): Buffer | null {
  const text = config.SECRETS_ENCRYPTION_KEY;
  if (!text) return null;
  return /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
}

function associatedData(keyId: string): Buffer {
  return Buffer.from(`${VERSION}.${keyId}`, 'utf8');
}
