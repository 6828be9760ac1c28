// S3 access for bulk-export destinations: the client built from a destination's settings, the
// prefix rules, and the test write that creating a destination (or rotating its credentials)
// must pass. Error messages here reach API users: they never carry credentials.
import { randomUUID } from 'node:crypto';
import { DeleteObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { errors } from '../../common/errors.ts';
import type { AppError } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import type { DestinationCredentials, DestinationLocation } from '../exportTypes.ts';

export const DEFAULT_DESTINATION_REGION = 'us-east-1';
/** Room is left in S3's 1024-byte key limit for the export's partition path and file name. */
const PREFIX_MAX_BYTES = 512;

export interface DestinationClientOptions {
  /** Attempts per request, the first included. */
  maxAttempts?: number;
  /** Longest one request may take in total; 0 for no limit (long part uploads). */
  requestTimeoutMs?: number;
}

/**
 * An S3 client for a destination. Custom endpoints (MinIO, R2, …) get path-style addressing and
 * checksums only where the operation requires them, which every S3-compatible store accepts.
 * Connecting is bounded, and an idle socket is dropped, so a dead endpoint fails instead of hanging.
 */
export function destinationS3Client(
  location: DestinationLocation,
  credentials: DestinationCredentials,
  options: DestinationClientOptions = {},
): S3Client {
  const endpoint = location.endpointUrl;
  return new S3Client({
    ...(endpoint !== null
      ? { endpoint, forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
      : {}),
    region: location.region || DEFAULT_DESTINATION_REGION,
    credentials: {
      accessKeyId: credentials.access_key_id,
      secretAccessKey: credentials.secret_access_key,
      ...(credentials.session_token ? { sessionToken: credentials.session_token } : {}),
    },
    maxAttempts: options.maxAttempts ?? 3,
    requestHandler: {
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
    if (segment === '.' || segment === '..') throw errors.badRequest('prefix must not contain "." or ".." path segments');
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
 * `Invalid endpoint`, `Access denied`, `Key ID you provided does not exist`, a network failure
 * in words, or the store's own message.
 */
export async function checkDestinationWrite(
  location: DestinationLocation,
  credentials: DestinationCredentials,
  options: { logger?: Logger } = {},
): Promise<void> {
  if (location.endpointUrl !== null && !isValidEndpointUrl(location.endpointUrl)) {
    throw errors.destinationCheckFailed('Invalid endpoint');
  }
  // A user waits on this answer: one retry, and a bound on each request.
  const s3 = destinationS3Client(location, credentials, { maxAttempts: 2, requestTimeoutMs: 15_000 });
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
      throw checkFailure(error, credentials);
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

/** An absolute http(s) URL with a host and no user info (which would be a credential in plain sight). */
function isValidEndpointUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && url.username === '' && url.password === '';
}

const MESSAGE_MAX_CHARS = 500;

/** The 400 for a failed test write, worded for the user who configured the destination. */
function checkFailure(error: unknown, credentials: DestinationCredentials): AppError {
  const failure = error as Error & { code?: string; $metadata?: { httpStatusCode?: number } };
  if (failure.name === 'AccessDenied') return errors.destinationCheckFailed('Access denied');
  if (failure.name === 'InvalidAccessKeyId') return errors.destinationCheckFailed('Key ID you provided does not exist');
  const status = failure.$metadata?.httpStatusCode;
  let message: string;
  if (error instanceof S3ServiceException && error.message && error.message !== 'UnknownError') {
    message = error.message; // the store's own words: NoSuchBucket, SignatureDoesNotMatch, …
  } else if (status !== undefined) {
    // An answer that is not an S3 error document: something else listens at the endpoint.
    message = `The endpoint did not answer as an S3-compatible store (HTTP ${status})`;
  } else if (failure.name === 'TimeoutError') {
    message = 'The endpoint did not answer in time';
  } else if (failure.code === 'ENOTFOUND' || failure.code === 'EAI_AGAIN') {
    message = `Could not resolve the endpoint's host name (${failure.code})`;
  } else if (failure.code) {
    // Only the code: the system message can carry resolved internal addresses or TLS internals.
    message = `Could not connect to the endpoint (${failure.code})`;
  } else {
    message = failure.message || String(error);
  }
  return errors.destinationCheckFailed(withoutSecrets(message, credentials).slice(0, MESSAGE_MAX_CHARS));
}

function withoutSecrets(message: string, credentials: DestinationCredentials): string {
  let result = message;
  for (const secret of [credentials.secret_access_key, credentials.session_token]) {
    if (secret && secret.length >= 4) result = result.split(secret).join('[redacted]');
  }
  return result;
}
