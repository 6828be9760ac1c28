// The test write a destination must pass, against the real MinIO with real users and policies,
// and the host policy: endpoints that are not reached as S3 (refused by the policy, closed, not
// S3) all get the one neutral answer.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createUserWithPolicy, removeUser } from '../../../infra/minioAdmin.ts';
import {
  checkDestinationWrite,
  destinationHostPolicy,
  destinationS3Client,
  keyUnderPrefix,
  normalisePrefix,
  UNREACHABLE_ENDPOINT,
} from '../../../services/bulk-export/destinations/destinationS3.ts';
import { HostDeniedError, type OutboundHostPolicy } from '../../../platform/outboundHostPolicy.ts';
import type { DestinationCredentials, DestinationLocation } from '../../../services/bulk-export/exportTypes.ts';
import { AppError } from '../../../platform/errors.ts';
import { provideInfra } from '../../support/infra.ts';
import type { StackEndpoints } from '../../support/infra.ts';
import { registerSecret } from '../../support/secretSweep.ts';

let endpoints: StackEndpoints;
let root: S3Client;
/** The default policy of a deployment whose object store is this MinIO. */
let policy: OutboundHostPolicy;
const policyWith = (allowed: string, denied = '') =>
  destinationHostPolicy({
    S3_ENDPOINT: endpoints.s3Endpoint,
    BULK_EXPORT_ALLOWED_HOSTS: allowed,
    BULK_EXPORT_DENIED_HOSTS: denied,
  });
const bucket = `destination-check-${randomUUID().slice(0, 8)}`;
const users: string[] = [];

function location(prefix: string, overrides: Partial<DestinationLocation> = {}): DestinationLocation {
  return { bucket, prefix, endpointUrl: endpoints.s3Endpoint, region: null, ...overrides };
}

/** A MinIO user with exactly these policy statements, removed after the file. */
async function userWith(name: string, statements: object[]): Promise<DestinationCredentials> {
  const access_key_id = `${name}-${randomUUID().slice(0, 8)}`;
  const secret_access_key = registerSecret(randomBytes(18).toString('base64url'));
  await createUserWithPolicy(
    access_key_id,
    secret_access_key,
    { Version: '2012-10-17', Statement: statements },
    endpoints,
  );
  users.push(access_key_id);
  return { access_key_id, secret_access_key };
}

function putOnlyUnder(prefix: string): object[] {
  return [
    { Effect: 'Allow', Action: ['s3:PutObject'], Resource: [`arn:aws:s3:::${bucket}/${keyUnderPrefix(prefix, '*')}`] },
  ];
}

/** The check's outcome: 'passed', or the AppError's status, code and detail. */
async function check(
  where: DestinationLocation,
  credentials: DestinationCredentials,
  withPolicy = policy,
): Promise<'passed' | { status: number; code: string; detail: string }> {
  try {
    await checkDestinationWrite(where, credentials, { policy: withPolicy });
    return 'passed';
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { status: error.statusCode, code: error.code, detail: error.message };
  }
}

function failedWith(detail: string) {
  return { status: 400, code: 'DESTINATION_CHECK_FAILED', detail };
}

async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await root.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key!);
}

beforeAll(async () => {
  endpoints = await provideInfra();
  policy = policyWith('');
  const rootCredentials = { access_key_id: endpoints.s3AccessKeyId, secret_access_key: endpoints.s3SecretAccessKey };
  root = destinationS3Client(location(''), rootCredentials, { policy });
  await root.send(new CreateBucketCommand({ Bucket: bucket }));
});

afterAll(async () => {
  for (const user of users) await removeUser(user, endpoints);
  if (!root) return;
  const keys = await keysUnder('');
  if (keys.length > 0)
    await root.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys.map((Key) => ({ Key })) } }));
  await root.send(new DeleteBucketCommand({ Bucket: bucket }));
  root.destroy();
});

describe('checkDestinationWrite', () => {
  test('a write-only user passes, and the test object stays under <prefix>/tmp/', async () => {
    const writer = await userWith('write-only', putOnlyUnder('exports/write-only'));
    expect(await check(location('exports/write-only'), writer)).toBe('passed');
    const left = await keysUnder('exports/write-only/');
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^exports\/write-only\/tmp\/[^/]+\.txt$/);
    // The policy is real: the same user may not write under another prefix.
    expect(await check(location('exports/elsewhere'), writer)).toEqual(failedWith('Access denied'));
  });

  test('with the bucket root as prefix the test object goes to tmp/', async () => {
    const writer = await userWith('root-writer', [
      { Effect: 'Allow', Action: ['s3:PutObject'], Resource: [`arn:aws:s3:::${bucket}/tmp/*`] },
    ]);
    expect(await check(location(''), writer)).toBe('passed');
    expect((await keysUnder('tmp/')).some((key) => /^tmp\/[^/]+\.txt$/.test(key))).toBe(true);
  });

  test('a user that may also delete passes and leaves nothing behind', async () => {
    const full = await userWith('full', [
      { Effect: 'Allow', Action: ['s3:*'], Resource: [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`] },
    ]);
    expect(await check(location('exports/full'), full)).toBe('passed');
    expect(await keysUnder('exports/full/')).toEqual([]);
  });

  test('a user that cannot write gets "Access denied"', async () => {
    const reader = await userWith('read-only', [
      {
        Effect: 'Allow',
        Action: ['s3:GetObject', 's3:ListBucket'],
        Resource: [`arn:aws:s3:::${bucket}`, `arn:aws:s3:::${bucket}/*`],
      },
    ]);
    expect(await check(location('exports/read-only'), reader)).toEqual(failedWith('Access denied'));
    expect(await keysUnder('exports/read-only/')).toEqual([]);
  });

  test('an unknown access key gets "Key ID you provided does not exist"', async () => {
    const unknown = { access_key_id: `nobody-${randomUUID().slice(0, 8)}`, secret_access_key: 'some-secret-value' };
    expect(await check(location('exports/unknown'), unknown)).toEqual(failedWith('Key ID you provided does not exist'));
  });

  test("a wrong secret for a real key gets the store's message, without the secret", async () => {
    const writer = await userWith('wrong-secret', putOnlyUnder('exports/wrong-secret'));
    const wrong = { ...writer, secret_access_key: 'not-the-right-secret-value' };
    const outcome = await check(location('exports/wrong-secret'), wrong);
    expect(outcome).toEqual(
      failedWith(
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      ),
    );
  });

  test("a missing bucket gets the store's message", async () => {
    const rootCredentials = { access_key_id: endpoints.s3AccessKeyId, secret_access_key: endpoints.s3SecretAccessKey };
    const outcome = await check(location('x', { bucket: `missing-${randomUUID().slice(0, 8)}` }), rootCredentials);
    expect(outcome).toEqual(failedWith('The specified bucket does not exist'));
  });

  test.each(['not a url', 'ftp://x', 'http://', 'https://', '/relative/path', 'http://user:secret@127.0.0.1:9000'])(
    'endpoint %j is an "Invalid endpoint" that says what a valid one is',
    async (endpointUrl) => {
      const credentials = { access_key_id: 'any', secret_access_key: 'any-secret' };
      expect(await check(location('x', { endpointUrl }), credentials)).toEqual(
        failedWith(
          'Invalid endpoint: endpoint_url must be an absolute http:// or https:// URL with a host and no user name or password',
        ),
      );
    },
  );
});

describe('endpoints not reached as S3 all get one answer', () => {
  const credentials = { access_key_id: 'any', secret_access_key: 'any-secret' };
  const neutral = failedWith(UNREACHABLE_ENDPOINT);

  async function closedPort(): Promise<number> {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    return port;
  }

  async function withNotS3<T>(fn: (port: number) => Promise<T>): Promise<T> {
    const notS3 = createServer((_request, response) =>
      response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>nothing here</h1>'),
    );
    await new Promise<void>((resolve) => notS3.listen(0, '127.0.0.1', resolve));
    try {
      return await fn((notS3.address() as AddressInfo).port);
    } finally {
      await new Promise<void>((resolve) => notS3.close(() => resolve()));
    }
  }

  test("refused by default: ClickHouse's port, a closed port, metadata, private, loopback by name and IPv4-mapped", async () => {
    const clickhouse = new URL(endpoints.clickhouseUrl);
    const refused = [
      `http://127.0.0.1:${clickhouse.port}`,
      `http://127.0.0.1:${await closedPort()}`,
      'http://169.254.169.254',
      'http://10.0.0.1:9000',
      'http://192.168.1.1',
      'http://172.20.0.5:9000',
      'http://[fd00::1]:9000',
      `http://[::ffff:127.0.0.1]:${clickhouse.port}`,
      'http://[::ffff:a9fe:a9fe]', // 169.254.169.254, IPv4-mapped in hex
      'http://[64:ff9b::a00:1]:9000', // 10.0.0.1 through NAT64
      'http://0.0.0.0:9000',
      `http://localhost:${clickhouse.port}`,
    ];
    for (const endpointUrl of refused)
      expect(await check(location('x', { endpointUrl }), credentials), endpointUrl).toEqual(neutral);
  });

  test('allowed but not S3 reads the same: nothing listening, another service, an unknown name', async () => {
    const loopback = policyWith('127.0.0.1');
    const clickhouse = new URL(endpoints.clickhouseUrl);
    expect(
      await check(location('x', { endpointUrl: `http://127.0.0.1:${await closedPort()}` }), credentials, loopback),
    ).toEqual(neutral);
    expect(
      await check(location('x', { endpointUrl: `http://127.0.0.1:${clickhouse.port}` }), credentials, loopback),
    ).toEqual(neutral);
    await withNotS3(async (port) =>
      expect(await check(location('x', { endpointUrl: `http://127.0.0.1:${port}` }), credentials, loopback)).toEqual(
        neutral,
      ),
    );
    expect(await check(location('x', { endpointUrl: 'http://no-such-host.invalid:9000' }), credentials)).toEqual(
      neutral,
    );
  });

  test('the allow list lets a loopback host through; the deny list wins over everything', async () => {
    const rootCredentials = { access_key_id: endpoints.s3AccessKeyId, secret_access_key: endpoints.s3SecretAccessKey };
    const store = new URL(endpoints.s3Endpoint);
    // A deployment whose own store is elsewhere: this MinIO is then just a service on loopback.
    const elsewhere = (allowed: string) =>
      destinationHostPolicy({
        S3_ENDPOINT: 'https://s3.example.com',
        BULK_EXPORT_ALLOWED_HOSTS: allowed,
        BULK_EXPORT_DENIED_HOSTS: '',
      });
    const byName = location('exports/by-name', { endpointUrl: `http://localhost:${store.port}` });
    expect(await check(byName, rootCredentials, elsewhere(''))).toEqual(neutral);
    expect(await check(location('exports/by-address'), rootCredentials, elsewhere(''))).toEqual(neutral);
    expect(await check(byName, rootCredentials, elsewhere('localhost'))).toBe('passed');
    expect(
      await check(location('exports/by-address'), rootCredentials, elsewhere(`${store.hostname}:${store.port}`)),
    ).toBe('passed');
    expect(await check(location('exports/by-range'), rootCredentials, elsewhere('127.0.0.0/8, ::1'))).toBe('passed');
    expect(await check(location('exports/other-port'), rootCredentials, elsewhere(`${store.hostname}:1`))).toEqual(
      neutral,
    );
    expect(
      await check(
        location('exports/denied'),
        rootCredentials,
        policyWith('127.0.0.1', `${store.hostname}:${store.port}`),
      ),
    ).toEqual(neutral);
  });

  test('the check is made again as each connection is made, not only before it', async () => {
    const rootCredentials = { access_key_id: endpoints.s3AccessKeyId, secret_access_key: endpoints.s3SecretAccessKey };
    const store = new URL(endpoints.s3Endpoint);
    // A client built for a name the policy refuses (as a worker would for a name that resolves elsewhere now) never connects.
    const refusing = destinationHostPolicy({
      S3_ENDPOINT: 'https://s3.example.com',
      BULK_EXPORT_ALLOWED_HOSTS: '',
      BULK_EXPORT_DENIED_HOSTS: '',
    });
    const s3 = destinationS3Client(location('x', { endpointUrl: `http://localhost:${store.port}` }), rootCredentials, {
      policy: refusing,
      maxAttempts: 1,
    });
    try {
      const error = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'x' })).then(
        () => null,
        (e: Error) => e,
      );
      expect(error).toBeInstanceOf(HostDeniedError);
    } finally {
      s3.destroy();
    }
    // An address the policy refuses cannot even make a client.
    expect(() =>
      destinationS3Client(location('x', { endpointUrl: 'http://169.254.169.254' }), rootCredentials, { policy }),
    ).toThrow(HostDeniedError);
  });
});

test('a write-only user can complete a multipart upload under its prefix (what exports do)', async () => {
  const writer = await userWith('multipart', putOnlyUnder('exports/multipart'));
  const s3 = destinationS3Client(location('exports/multipart'), writer, { policy });
  const body = randomBytes(6 * 1024 * 1024 + 123);
  const key = keyUnderPrefix('exports/multipart', 'export_id=1/part-0.parquet');
  try {
    const upload = new Upload({
      client: s3,
      params: { Bucket: bucket, Key: key, Body: body },
      partSize: 5 * 1024 * 1024,
      queueSize: 2,
    });
    await upload.done();
  } finally {
    s3.destroy();
  }
  const stored = await root.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  expect(stored.ContentLength).toBe(body.length);
  expect(stored.ETag).toMatch(/-2"$/); // a multipart ETag: two parts
});

describe('normalisePrefix', () => {
  test.each([
    ['', ''],
    [null, ''],
    ['/', ''],
    ['exports', 'exports'],
    ['/exports/langsmith/', 'exports/langsmith'],
    ['//a/b//', 'a/b'],
    ['dir.with.dots/..hidden', 'dir.with.dots/..hidden'],
  ])('%j → %j', (input, expected) => {
    expect(normalisePrefix(input)).toBe(expected);
  });

  test.each([
    ['a/../b', /"\." or "\.\."/],
    ['..', /"\." or "\.\."/],
    ['./a', /"\." or "\.\."/],
    ['a//b', /empty path segments/],
    ['a\nb', /control characters/],
    ['x'.repeat(513), /at most 512 bytes/],
  ])('%j is refused with a 400', (input, message) => {
    let caught: unknown;
    try {
      normalisePrefix(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).statusCode).toBe(400);
    expect((caught as AppError).message).toMatch(message);
  });
});
