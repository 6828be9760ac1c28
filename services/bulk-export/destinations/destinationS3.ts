// S3 access for bulk-export destinations: the client built from a destination's settings, the
// hosts it may reach, the prefix rules, and the test write that creating a destination (or
// rotating its credentials) must pass. Error messages here reach API users: they never carry
// credentials, and they never tell one unreachable endpoint from another (a closed port, a
// service that is not S3, a host the policy refuses all read the same), so the check cannot be
// used to map the network behind the service. The real reason goes to the logs.
import { randomUUID } from 'node:crypto';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { isIP } from 'node:net';
import { DeleteObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import type { Config } from '../../../platform/config.ts';
import { errors } from '../../../platform/errors.ts';
import type { AppError } from '../../../platform/errors.ts';
import { HostDeniedError, OutboundHostPolicy } from '../../../platform/outboundHostPolicy.ts';
import type { DestinationCredentials, DestinationLocation } from '../exportTypes.ts';

/** What is logged about a failed check (a request's logger or the worker's). */
export interface CheckLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** The one answer for an endpoint not reached as S3: refused by the host policy, unresolvable, closed, silent, or not S3. */
export const UNREACHABLE_ENDPOINT = 'Invalid endpoint: the endpoint could not be reached as an S3-compatible service';
const MALFORMED_ENDPOINT =
  'Invalid endpoint: endpoint_url must be an absolute http:// or https:// URL with a host and no user name or password';

/**
 * The hosts destinations may reach: the default ranges of OutboundHostPolicy (no loopback,
 * private, link-local or unspecified addresses), except the object store of this deployment
 * (S3_ENDPOINT's host and port) and BULK_EXPORT_ALLOWED_HOSTS; BULK_EXPORT_DENIED_HOSTS always refused.
 */
export function destinationHostPolicy(
  config: Pick<Config, 'S3_ENDPOINT' | 'BULK_EXPORT_ALLOWED_HOSTS' | 'BULK_EXPORT_DENIED_HOSTS'>,
): OutboundHostPolicy {
  const store = new URL(config.S3_ENDPOINT);
  return new OutboundHostPolicy({
    allowed: `${store.hostname}:${portOf(store)},${config.BULK_EXPORT_ALLOWED_HOSTS}`,
    denied: config.BULK_EXPORT_DENIED_HOSTS,
  });
}

const portOf = (url: URL): number => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

export const DEFAULT_DESTINATION_REGION = 'us-east-1';
/** Room is left in S3's 1024-byte key limit for the export's partition path and file name. */
const PREFIX_MAX_BYTES = 512;

export interface DestinationClientOptions {
  /** The hosts it may connect to (destinationHostPolicy). */
  policy: OutboundHostPolicy;
  /** Attempts per request, the first included. */
  maxAttempts?: number;
  /** Longest one request may take in total; 0 for no limit (long part uploads). */
  requestTimeoutMs?: number;
}

/**
 * An S3 client for a destination. Custom endpoints (MinIO, R2, …) get path-style addressing and
 * checksums only where the operation requires them, which every S3-compatible store accepts.
 * Connecting is bounded, and an idle socket is dropped, so a dead endpoint fails instead of hanging.
 * Every connection is checked against the host policy as it is made (names are resolved and
 * checked then, so a name that now points somewhere refused is refused); an endpoint that is a
 * refused IP address throws HostDeniedError here.
 */
export function destinationS3Client(
  location: DestinationLocation,
  credentials: DestinationCredentials,
  options: DestinationClientOptions,
): S3Client {
  const endpoint = location.endpointUrl;
  const url = endpoint !== null ? new URL(endpoint) : null;
  const port = url ? portOf(url) : 443;
  const literal = url?.hostname.replace(/^\[|\]$/g, '');
  if (literal && isIP(literal)) {
    const why = options.policy.refusal(literal, port, literal);
    if (why) throw new HostDeniedError(literal, why);
  }
  const lookup = options.policy.lookupFor(port);
  return new S3Client({
    ...(endpoint !== null
      ? {
          endpoint,
          forcePathStyle: true,
          requestChecksumCalculation: 'WHEN_REQUIRED',
          responseChecksumValidation: 'WHEN_REQUIRED',
        }
      : {}),
    region: location.region || DEFAULT_DESTINATION_REGION,
    credentials: {
      accessKeyId: credentials.access_key_id,
      secretAccessKey: credentials.secret_access_key,
      ...(credentials.session_token ? { sessionToken: credentials.session_token } : {}),
    },
    maxAttempts: options.maxAttempts ?? 3,
    requestHandler: {
      httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 50, lookup }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 50, lookup }),
      connectionTimeout: 5_000,
      socketTimeout: 60_000,
      requestTimeout: options.requestTimeoutMs ?? 0,
      throwOnRequestTimeout: true,
    },
  });
}

/**
 * A destination's key prefix in its stored form: no leading or trailing slashes ('' for the
 * bucket root). Throws a 400 for prefixes that would make odd or unsafe keys.
 */
export function normalisePrefix(prefix: string | null | undefined): string {
  const normalised = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  if (normalised === '') return '';
  if (/[\u0000-\u001f\u007f]/.test(normalised)) throw errors.badRequest('prefix must not contain control characters');
  if (Buffer.byteLength(normalised, 'utf8') > PREFIX_MAX_BYTES) {
    throw errors.badRequest(`prefix must be at most ${PREFIX_MAX_BYTES} bytes`);
  }
  for (const segment of normalised.split('/')) {
    if (segment === '') throw errors.badRequest('prefix must not contain empty path segments ("//")');
    if (segment === '.' || segment === '..')
      throw errors.badRequest('prefix must not contain "." or ".." path segments');
  }
  return normalised;
}

/** The object key of `relativeKey` under a normalised prefix. */
export function keyUnderPrefix(prefix: string, relativeKey: string): string {
  return prefix === '' ? relativeKey : `${prefix}/${relativeKey}`;
}

/**
 * Proves the credentials can write under the prefix: puts `<prefix>/tmp/<unique>.txt`, then tries
 * to delete it. Write-only credentials are enough (exports only write), so the delete is best
 * effort and the object may remain. Throws errors.destinationCheckFailed (400) with the reason:
 * a malformed endpoint, `Access denied`, `Key ID you provided does not exist`, the store's own
 * message, or UNREACHABLE_ENDPOINT for every endpoint not reached as S3 (the host policy's
 * refusal included: checked before connecting, and again as the connection is made).
 */
export async function checkDestinationWrite(
  location: DestinationLocation,
  credentials: DestinationCredentials,
  options: { policy: OutboundHostPolicy; logger?: CheckLogger },
): Promise<void> {
  const fail = (error: unknown): AppError => {
    const message = destinationFailureMessage(error, credentials);
    const details = { endpoint: location.endpointUrl, bucket: location.bucket, reason: failureReason(error) };
    options.logger?.warn(details, `destination check failed: ${message}`);
    return errors.destinationCheckFailed(message);
  };
  const url = location.endpointUrl !== null ? endpointUrl(location.endpointUrl) : null;
  if (location.endpointUrl !== null && url === null) throw errors.destinationCheckFailed(MALFORMED_ENDPOINT);
  let s3: S3Client;
  try {
    if (url) await options.policy.check(url.hostname, portOf(url));
    // A user waits on this answer: one retry, and a bound on each request.
    s3 = destinationS3Client(location, credentials, {
      policy: options.policy,
      maxAttempts: 2,
      requestTimeoutMs: 15_000,
    });
  } catch (error) {
    throw fail(error);
  }
  const key = keyUnderPrefix(location.prefix, `tmp/destination-check-${randomUUID()}.txt`);
  try {
    try {
      await s3.send(
        new PutObjectCommand({
          Bucket: location.bucket,
          Key: key,
          Body: 'LangSmith bulk export: test write made when this destination was configured. Safe to delete.\n',
          ContentType: 'text/plain; charset=utf-8',
        }),
      );
    } catch (error) {
      throw fail(error);
    }
    try {
      await s3.send(new DeleteObjectCommand({ Bucket: location.bucket, Key: key }));
    } catch (error) {
      options.logger?.info(
        { bucket: location.bucket, key, error: (error as Error).name },
        'destination check: test object left in place (delete not permitted or failed)',
      );
    }
  } finally {
    s3.destroy();
  }
}

/** An absolute http(s) URL with a host and no user info (which would be a credential in plain sight); null otherwise. */
function endpointUrl(text: string): URL | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const valid =
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.hostname !== '' &&
    url.username === '' &&
    url.password === '';
  return valid ? url : null;
}

const MESSAGE_MAX_CHARS = 500;

/**
 * Whether a failure came from talking to a destination (its S3 client or the host policy), as
 * opposed to the rest of an export (ClickHouse, Kafka): the SDK marks what it threw with $metadata.
 */
export function isDestinationFailure(error: unknown): boolean {
  return error instanceof HostDeniedError || (typeof error === 'object' && error !== null && '$metadata' in error);
}

/**
 * What the user is told about a failed destination request: the two credential answers the API
 * has always given, the message of an S3 error document (NoSuchBucket, SignatureDoesNotMatch, …:
 * a real store answered), and UNREACHABLE_ENDPOINT for anything else.
 */
export function destinationFailureMessage(error: unknown, credentials: DestinationCredentials): string {
  const failure = error as Error;
  if (failure.name === 'AccessDenied') return 'Access denied';
  if (failure.name === 'InvalidAccessKeyId') return 'Key ID you provided does not exist';
  if (error instanceof S3ServiceException && error.message && error.message !== 'UnknownError') {
    return withoutSecrets(error.message, credentials).slice(0, MESSAGE_MAX_CHARS);
  }
  return UNREACHABLE_ENDPOINT;
}

/** The real reason, for the logs only: the policy's, the network error code, the HTTP status. */
export function failureReason(error: unknown): Record<string, unknown> {
  const failure = error as Error & { code?: string; reason?: string; $metadata?: { httpStatusCode?: number } };
  return {
    name: failure.name,
    ...(failure.code ? { code: failure.code } : {}),
    ...(failure.reason ? { policy: failure.reason } : {}),
    ...(failure.$metadata?.httpStatusCode !== undefined ? { status: failure.$metadata.httpStatusCode } : {}),
  };
}

function withoutSecrets(message: string, credentials: DestinationCredentials): string {
  let result = message;
  for (const secret of [credentials.secret_access_key, credentials.session_token]) {
    if (secret && secret.length >= 4) result = result.split(secret).join('[redacted]');
  }
  return result;
}
