// Bearer tokens: the alternative to an API key on the control plane and the tracing API
// (`Authorization: Bearer <token>`). A token is a JWT (HS256, signed and checked by `jose`) that
// acts in one workspace for the API key it was issued with, until it expires:
//   { sub: <the key's subject>, workspace_id, iat, exp }
// Checking one needs no Kafka: the signature and expiry here, the key's current workspaces in
// the tenancy fold (TenancyService.authenticateBearer).
//
// Keys. Both come from SECRETS_ENCRYPTION_KEY through HKDF-SHA256, each under a label of its own,
// so the platform keeps one secret (provisioned, generated for development and checked at
// start-up as it already is), and a token reveals nothing about the key that seals secrets.
// - The signing key signs and checks tokens.
// - The subject key names the API key in `sub`: an HMAC of the key's hash, never the hash itself,
//   which anyone holding the token could read and use to guess a weak key (BOOTSTRAP_API_KEY is
//   chosen by a person) offline.
import { createHmac, hkdfSync } from 'node:crypto';
import { errors as jose, jwtVerify, SignJWT } from 'jose';
import type { Config } from '../../platform/config.ts';
import { errors } from '../../platform/errors.ts';
import { secretsKeyFromConfig } from '../../platform/secretBox.ts';

const ALGORITHM = 'HS256';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The lifetime a token gets when the issuer names none, and the longest it may get. */
export const DEFAULT_TOKEN_TTL = '1h';
export const MAX_TOKEN_TTL_SECONDS = 7 * 24 * 3600;

/** What a verified token says. */
export interface TokenClaims {
  /** Names the API key the token was issued with (BearerTokens.subjectOf its hash). */
  subject: string;
  workspaceId: string;
  expiresAt: Date;
}

export interface IssuedToken {
  token: string;
  workspaceId: string;
  expiresAt: Date;
}

export class BearerTokens {
  readonly #signingKey: Uint8Array;
  readonly #subjectKey: Buffer;

  constructor(secretsKey: Uint8Array) {
    const derive = (label: string) => new Uint8Array(hkdfSync('sha256', secretsKey, new Uint8Array(0), label, 32));
    this.#signingKey = derive('langsmith bearer token signing key v1');
    this.#subjectKey = Buffer.from(derive('langsmith bearer token subject key v1'));
  }

  /** Tokens under SECRETS_ENCRYPTION_KEY, or null when it is unset (then no token is issued or taken). */
  static fromConfig(config: Pick<Config, 'SECRETS_ENCRYPTION_KEY'>): BearerTokens | null {
    const key = secretsKeyFromConfig(config);
    return key && new BearerTokens(key);
  }

  /** The `sub` of tokens issued with the API key of this hash. */
  subjectOf(keyHash: string): string {
    return createHmac('sha256', this.#subjectKey).update(keyHash, 'utf8').digest('base64url');
  }

  /**
   * A token acting in `workspaceId` for the key of `keyHash` for `ttlSeconds` from `now`. Whether
   * the key may act there is the caller's check (TenancyService.issueToken).
   */
  async issue(options: { keyHash: string; workspaceId: string; ttlSeconds: number; now?: Date }): Promise<IssuedToken> {
    const issuedAt = Math.floor((options.now ?? new Date()).getTime() / 1000);
    const expiresAt = issuedAt + options.ttlSeconds;
    const token = await new SignJWT({ workspace_id: options.workspaceId })
      .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
      .setSubject(this.subjectOf(options.keyHash))
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.#signingKey);
    return { token, workspaceId: options.workspaceId, expiresAt: new Date(expiresAt * 1000) };
  }

  /** The claims of a token this server issued and that has not expired; else the 401 that says why. */
  async verify(token: string, now: Date = new Date()): Promise<TokenClaims> {
    let payload;
    try {
      const options = { algorithms: [ALGORITHM], requiredClaims: ['sub', 'exp'], currentDate: now };
      ({ payload } = await jwtVerify(token, this.#signingKey, options));
    } catch (err) {
      throw refusal(err);
    }
    const workspaceId = payload.workspace_id;
    if (typeof workspaceId !== 'string' || !UUID.test(workspaceId)) {
      throw errors.malformedToken('its workspace_id claim is not a workspace id');
    }
    return { subject: payload.sub!, workspaceId, expiresAt: new Date(payload.exp! * 1000) };
  }
}

/**
 * jose's verdict in the catalogue's words. jose checks the signature before any claim, so an
 * altered token never reads as expired.
 */
function refusal(err: unknown): Error {
  if (err instanceof jose.JWTExpired) return errors.tokenExpired(new Date(Number(err.payload.exp) * 1000));
  if (err instanceof jose.JWSSignatureVerificationFailed) return errors.badTokenSignature();
  if (err instanceof jose.JOSEAlgNotAllowed) return errors.malformedToken(`it is not signed with ${ALGORITHM}`);
  if (err instanceof jose.JWTClaimValidationFailed) {
    return errors.malformedToken(`its "${err.claim}" claim is ${err.reason === 'missing' ? 'missing' : 'invalid'}`);
  }
  if (err instanceof jose.JOSEError) return errors.malformedToken('it is not a signed JWT (header.payload.signature)');
  return err as Error;
}

/**
 * A token lifetime as the admin CLI takes it: a whole number of seconds, minutes, hours or days
 * (`90s`, `30m`, `1h`, `7d`), at most MAX_TOKEN_TTL_SECONDS. Throws a message naming the problem.
 */
export function parseTokenTtl(text: string): number {
  const match = /^(\d+)([smhd])$/.exec(text.trim());
  if (!match) throw new Error(`--ttl "${text}" is not a duration such as 90s, 30m, 1h or 7d`);
  const seconds = Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[match[2] as 's' | 'm' | 'h' | 'd'];
  if (seconds <= 0) throw new Error(`--ttl "${text}" must be longer than zero`);
  if (seconds > MAX_TOKEN_TTL_SECONDS) {
    throw new Error(`--ttl "${text}" is longer than the longest a token may live, 7d`);
  }
  return seconds;
}
