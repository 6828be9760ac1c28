// Sealed secrets open only intact and only with the key that sealed them.
import { randomBytes } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { SecretBox, SecretBoxError } from '../../platform/secretBox.ts';

const credentials = { access_key_id: 'AKIAEXAMPLE', secret_access_key: 'wJalrXUtnFEMI/K7MDENG', session_token: null };

/** Flips one bit of the decoded part `index` of a sealed value (2 IV, 3 ciphertext, 4 tag). */
function flipBit(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index]!, 'base64url');
  bytes[0]! ^= 0x01;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  test('round trip: open gives back the sealed value', () => {
    expect(box.open(box.seal(credentials))).toEqual(credentials);
    expect(box.open<string>(box.seal('ünïcode ✓'))).toBe('ünïcode ✓');
  });

  test('the sealed form does not contain the secret', () => {
    const sealed = box.seal(credentials);
    expect(sealed).not.toContain(credentials.secret_access_key);
    expect(Buffer.from(sealed.split('.')[3]!, 'base64url').toString('latin1')).not.toContain('wJalr');
  });

  test('the same value seals differently every time', () => {
    const a = box.seal(credentials);
    const b = box.seal(credentials);
    expect(a).not.toBe(b);
    expect(a.split('.')[2]).not.toBe(b.split('.')[2]); // fresh IV
    expect(box.open(a)).toEqual(box.open(b));
  });

  test.each([
    ['IV', 2],
    ['ciphertext', 3],
    ['tag', 4],
  ])('a tampered %s fails authentication', (_name, index) => {
    const sealed = box.seal(credentials);
    expect(() => box.open(flipBit(sealed, index))).toThrow(SecretBoxError);
    expect(() => box.open(flipBit(sealed, index))).toThrow(/failed authentication/);
  });

  test('another key gives a clear error naming both keys', () => {
    const other = new SecretBox(randomBytes(32));
    expect(other.keyId).not.toBe(box.keyId);
    expect(() => other.open(box.seal(credentials))).toThrow(
      `sealed with key ${box.keyId}, but SECRETS_ENCRYPTION_KEY is key ${other.keyId}`,
    );
  });

  test('a ciphertext from another key with a forged key id fails authentication', () => {
    const other = new SecretBox(randomBytes(32));
    const forged = other.seal(credentials).replace(`.${other.keyId}.`, `.${box.keyId}.`);
    expect(() => box.open(forged)).toThrow(/failed authentication/);
  });

  test.each(['', 'plain text', 'sb1.a.b.c', 'sb2.x.y.z.w', '{"access_key_id":"x"}'])(
    '%j is not a sealed secret',
    (text) => {
      expect(() => box.open(text)).toThrow(SecretBoxError);
    },
  );

  test('values that are not JSON are refused', () => {
    expect(() => box.seal(undefined)).toThrow(TypeError);
  });
});

describe('SecretBox.fromConfig', () => {
  const key = randomBytes(32);

  test('hex and base64 spellings of a key are the same key', () => {
    const fromHex = SecretBox.fromConfig({ SECRETS_ENCRYPTION_KEY: key.toString('hex') })!;
    const fromBase64 = SecretBox.fromConfig({ SECRETS_ENCRYPTION_KEY: key.toString('base64') })!;
    expect(fromHex.keyId).toBe(fromBase64.keyId);
    expect(fromBase64.open(fromHex.seal(credentials))).toEqual(credentials);
  });

  test('no key configured gives no box', () => {
    expect(SecretBox.fromConfig({ SECRETS_ENCRYPTION_KEY: undefined })).toBeNull();
  });

  test('a key of the wrong size is refused', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow(/32-byte key/);
  });
});
