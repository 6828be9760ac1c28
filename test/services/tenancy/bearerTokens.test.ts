// Bearer tokens on their own (no Kafka): what a token carries, and the 401 each way of being
// wrong gets — malformed, altered, signed with another key or another algorithm, expired.
import { createHash, hkdfSync, randomBytes } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader, SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, test } from 'vitest';
import { AppError } from '../../../platform/errors.ts';
import { BearerTokens, MAX_TOKEN_TTL_SECONDS, parseTokenTtl } from '../../../services/tenancy/bearerTokens.ts';
import { hashApiKey } from '../../../services/tenancy/apiKeys.ts';

const secretsKey = randomBytes(32);
const tokens = new BearerTokens(secretsKey);
const keyHash = hashApiKey('lsk_weak-but-16-chars');
const workspaceId = '6f1e8d1c-4f5b-4e8a-9a43-2a3f3c9f7d10';
const issued = (ttlSeconds = 3600, now?: Date) => tokens.issue({ keyHash, workspaceId, ttlSeconds, now });

/** The refusal `verify` answers with, as { code, status, message }. */
async function refusalOf(token: string, now?: Date): Promise<{ code: string; status: number; message: string }> {
  const err = await tokens.verify(token, now).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, 'verify refuses the token').toBeInstanceOf(AppError);
  const { code, statusCode, message } = err as AppError;
  return { code, status: statusCode, message };
}

/** The token with one base64url segment replaced. */
const withSegment = (token: string, index: number, value: string) =>
  token
    .split('.')
    .map((s, i) => (i === index ? value : s))
    .join('.');
const json = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('issue and verify', () => {
  test('a token carries its workspace, its expiry and a subject naming the key, and verifies back to them', async () => {
    const now = new Date('2030-01-01T00:00:00Z');
    const token = await issued(1800, now);
    expect(token.expiresAt.toISOString()).toBe('2030-01-01T00:30:00.000Z');
    expect(decodeProtectedHeader(token.token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(decodeJwt(token.token)).toEqual({
      sub: tokens.subjectOf(keyHash),
      workspace_id: workspaceId,
      iat: now.getTime() / 1000,
      exp: now.getTime() / 1000 + 1800,
    });
    expect(await tokens.verify(token.token, new Date('2030-01-01T00:29:59Z'))).toEqual({
      subject: tokens.subjectOf(keyHash),
      workspaceId,
      expiresAt: token.expiresAt,
    });
  });

  test('the subject is keyed: it is neither the key hash nor a digest anyone could compute from the key alone', async () => {
    const { sub } = decodeJwt((await issued()).token);
    expect(sub).not.toContain(keyHash);
    expect(sub).not.toBe(createHash('sha256').update(keyHash).digest('base64url'));
    expect(new BearerTokens(randomBytes(32)).subjectOf(keyHash)).not.toBe(sub);
    expect(tokens.subjectOf(keyHash)).toBe(sub); // and stable, so the fold can find the key again
  });

  test('the signing key is derived from the secrets key, not the secrets key itself', async () => {
    const raw = await new SignJWT({ workspace_id: workspaceId })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('s')
      .setExpirationTime('1h')
      .sign(secretsKey);
    expect(await refusalOf(raw)).toMatchObject({
      code: 'INVALID_TOKEN',
      message: expect.stringContaining('signature does not verify'),
    });
  });

  test('fromConfig reads SECRETS_ENCRYPTION_KEY in hex or base64 alike, and gives none without it', async () => {
    const fromHex = BearerTokens.fromConfig({ SECRETS_ENCRYPTION_KEY: secretsKey.toString('hex') })!;
    const fromBase64 = BearerTokens.fromConfig({ SECRETS_ENCRYPTION_KEY: secretsKey.toString('base64') })!;
    const { token } = await issued();
    expect((await fromHex.verify(token)).workspaceId).toBe(workspaceId);
    expect((await fromBase64.verify(token)).workspaceId).toBe(workspaceId);
    expect(BearerTokens.fromConfig({ SECRETS_ENCRYPTION_KEY: undefined })).toBeNull();
  });
});

describe('refusals, each a 401 that says why', () => {
  test('expired: TOKEN_EXPIRED, saying when', async () => {
    const { token, expiresAt } = await issued(60, new Date('2020-05-01T10:00:00Z'));
    expect(await refusalOf(token)).toEqual({
      code: 'TOKEN_EXPIRED',
      status: 401,
      message: expect.stringContaining(`expired at ${expiresAt.toISOString()}`),
    });
    expect((await refusalOf(token, new Date('2020-05-01T10:01:00Z'))).code).toBe('TOKEN_EXPIRED'); // exp itself is past
  });

  test('a payload changed after signing (another workspace): the signature does not verify', async () => {
    const { token } = await issued();
    const other = { ...decodeJwt(token), workspace_id: '00000000-0000-4000-8000-000000000000' };
    expect(await refusalOf(withSegment(token, 1, json(other)))).toEqual({
      code: 'INVALID_TOKEN',
      status: 401,
      message: expect.stringContaining('signature does not verify'),
    });
  });

  test('an expired token given a later exp: the signature fails first, not the expiry', async () => {
    const { token } = await issued(60, new Date('2020-05-01T10:00:00Z'));
    const extended = { ...decodeJwt(token), exp: 4_000_000_000 };
    expect((await refusalOf(withSegment(token, 1, json(extended)))).message).toContain('signature does not verify');
  });

  test('a changed signature, and a token of another server (another secrets key)', async () => {
    const { token } = await issued();
    const signature = token.split('.')[2]!;
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    expect((await refusalOf(withSegment(token, 2, flipped))).code).toBe('INVALID_TOKEN');
    const foreign = await new BearerTokens(randomBytes(32)).issue({ keyHash, workspaceId, ttlSeconds: 60 });
    expect(await refusalOf(foreign.token)).toMatchObject({
      code: 'INVALID_TOKEN',
      message: expect.stringContaining('signature does not verify'),
    });
  });

  test('unsigned (alg none) or another algorithm: malformed, never trusted', async () => {
    const unsigned = new UnsecuredJWT({ workspace_id: workspaceId })
      .setSubject(tokens.subjectOf(keyHash))
      .setExpirationTime('1h')
      .encode();
    expect(await refusalOf(unsigned)).toMatchObject({
      code: 'INVALID_TOKEN',
      message: expect.stringContaining('malformed'),
    });
    const hs512 = await new SignJWT({ workspace_id: workspaceId })
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject('s')
      .setExpirationTime('1h')
      .sign(randomBytes(64));
    expect(await refusalOf(hs512)).toMatchObject({
      code: 'INVALID_TOKEN',
      message: 'the bearer token is malformed: it is not signed with HS256',
    });
  });

  test('not a JWT at all: malformed', async () => {
    for (const token of ['', 'abc', 'a.b.c', 'lsk_an-api-key-sent-as-a-token', `${json('HS256')}.${json({})}.sig`])
      expect(await refusalOf(token), token).toMatchObject({
        code: 'INVALID_TOKEN',
        status: 401,
        message: expect.stringContaining('malformed'),
      });
  });

  test('signed with our key but without the claims a token has: malformed, naming the claim', async () => {
    // The derivation bearerTokens.ts uses (pinned here: changing it would end every token issued).
    const signingKey = new Uint8Array(
      hkdfSync('sha256', secretsKey, new Uint8Array(0), 'langsmith bearer token signing key v1', 32),
    );
    const signed = (claims: Record<string, unknown>) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(signingKey);
    expect(
      (await tokens.verify(await signed({ sub: 's', workspace_id: workspaceId, exp: 4_000_000_000 }))).workspaceId,
    ).toBe(workspaceId);
    expect((await refusalOf(await signed({ sub: 's', workspace_id: workspaceId }))).message).toBe(
      'the bearer token is malformed: its "exp" claim is missing',
    );
    expect((await refusalOf(await signed({ workspace_id: workspaceId, exp: 4_000_000_000 }))).message).toBe(
      'the bearer token is malformed: its "sub" claim is missing',
    );
    expect((await refusalOf(await signed({ sub: 's', workspace_id: workspaceId, exp: 'later' }))).message).toBe(
      'the bearer token is malformed: its "exp" claim is invalid',
    );
    for (const workspace_id of [undefined, 'not-a-workspace', 42])
      expect(await refusalOf(await signed({ sub: 's', workspace_id, exp: 4_000_000_000 }))).toEqual({
        code: 'INVALID_TOKEN',
        status: 401,
        message: 'the bearer token is malformed: its workspace_id claim is not a workspace id',
      });
  });
});

describe('parseTokenTtl', () => {
  test('seconds, minutes, hours and days, up to seven days', () => {
    expect(['90s', '30m', '1h', '7d', ' 2h '].map(parseTokenTtl)).toEqual([
      90,
      1800,
      3600,
      MAX_TOKEN_TTL_SECONDS,
      7200,
    ]);
  });

  test('anything else is refused with a message naming it', () => {
    expect(() => parseTokenTtl('1 hour')).toThrow('--ttl "1 hour" is not a duration such as 90s, 30m, 1h or 7d');
    expect(() => parseTokenTtl('-1h')).toThrow('is not a duration');
    expect(() => parseTokenTtl('0m')).toThrow('must be longer than zero');
    expect(() => parseTokenTtl('8d')).toThrow('longer than the longest a token may live, 7d');
  });
});
