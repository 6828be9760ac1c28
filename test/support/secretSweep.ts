// Issue 19, item 8: the secrets the suite uses must never show in a response, in a Kafka
// message's raw bytes, or in a log line. The secrets are the infrastructure's S3 secret, the
// deployment secret every deployment test uses (DEPLOYMENT_SECRET), and the ones tests make up
// (a MinIO user's secret for a bulk-export destination), which they hand to registerSecret().
// Registered secrets are kept in a folder of the run (SECRETS_DIR) so that every test process
// knows every one. Where they are looked for:
//   responses  every fetch answer in every test process (secretSweep.setup.ts)
//   Kafka      every message (key, value, headers) of a stack's topics, before the stack's
//              teardown deletes them (deleteTopicsAfterSweep)
//   logs       every log file written during the run, at its end (test/audit/secrets.test.ts)
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
// @platformatic/kafka is imported by the sweeps that use it: every test process imports this
// module (secretSweep.setup.ts), most of them never sweep a topic.
import { endpointsFromEnv } from '../../infra/config.ts';
import { repoRoot } from './serviceProcess.ts';

/** The value of every deployment secret in the tests (a name that says what it is, should it ever show). */
export const DEPLOYMENT_SECRET = 'deployment-secret-canary-5e0f3b1c9a7d';

export const SECRETS_DIR = join(repoRoot, '.local', 'tmp', 'secret-sweep');
const REGISTERED = join(SECRETS_DIR, 'registered');
const RUN_STARTED = join(SECRETS_DIR, 'run-started');

/** Called once per run, before any test (globalSetup, in vitest's own process): forgets the secrets of earlier runs. */
export function startSweep(): void {
  if (process.env.SECRET_SWEEP_STARTED) return; // a project's globalSetup after the first
  process.env.SECRET_SWEEP_STARTED = '1';
  rmSync(SECRETS_DIR, { recursive: true, force: true });
  mkdirSync(REGISTERED, { recursive: true });
  writeFileSync(RUN_STARTED, `${Date.now()}\n`);
}

/** When the run began (ms): logs written since are swept. */
export function runStartedAt(): number {
  try {
    return Number(readFileSync(RUN_STARTED, 'utf8').trim());
  } catch {
    return 0;
  }
}

const registeredHere = new Set<string>();

/** Declares a secret a test made up, so that the sweep looks for it everywhere; returns it. */
export function registerSecret(value: string): string {
  if (value.length < 8) throw new Error('registerSecret: a secret shorter than 8 characters would match by chance');
  if (!registeredHere.has(value)) {
    registeredHere.add(value);
    cached = undefined;
    mkdirSync(REGISTERED, { recursive: true });
    appendFileSync(join(REGISTERED, `${process.pid}.txt`), `${value}\n`);
  }
  return value;
}

let cached: { at: number; secrets: string[] } | undefined;

/** Every secret known now: the fixed ones and those any process of the run registered (read again after 200 ms). */
export function knownSecrets(): string[] {
  if (cached && Date.now() - cached.at < 200) return cached.secrets;
  const secrets = new Set([endpointsFromEnv().s3SecretAccessKey, DEPLOYMENT_SECRET, ...registeredHere]);
  try {
    for (const file of readdirSync(REGISTERED))
      for (const line of readFileSync(join(REGISTERED, file), 'utf8').split('\n')) if (line) secrets.add(line);
  } catch {
    /* none registered yet */
  }
  cached = { at: Date.now(), secrets: [...secrets] };
  return cached.secrets;
}

/** The secrets that occur in `data` (as bytes: UTF-8 text, JSON, Avro strings alike). */
export function secretsIn(data: Buffer | string, secrets = knownSecrets()): string[] {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  return secrets.filter((secret) => bytes.includes(secret));
}

/** Shows which secret without printing it. */
export const nameOf = (secret: string): string =>
  secret === DEPLOYMENT_SECRET
    ? 'DEPLOYMENT_SECRET'
    : secret === endpointsFromEnv().s3SecretAccessKey
      ? 'the S3 secret'
      : `a registered secret (${secret.length} characters)`;

export interface Finding {
  where: string;
  secret: string;
}

/** Every message of the topics, read raw, for the known secrets. */
export async function sweepTopics(brokers: string[], topics: string[]): Promise<Finding[]> {
  if (topics.length === 0) return [];
  const secrets = knownSecrets();
  const { Consumer, MessagesStreamModes } = await import('@platformatic/kafka');
  const consumer = new Consumer({
    clientId: 'secret-sweep',
    groupId: `secret-sweep-${process.pid}-${Date.now()}`,
    bootstrapBrokers: brokers,
    maxWaitTime: 100,
  });
  const findings: Finding[] = [];
  try {
    const ends = await consumer.listOffsets({ topics });
    const remaining = new Map<string, bigint>();
    for (const [topic, offsets] of ends)
      offsets.forEach((end, partition) => end > 0n && remaining.set(`${topic}/${partition}`, end));
    if (remaining.size === 0) return [];
    const stream = await consumer.consume({ topics, mode: MessagesStreamModes.EARLIEST, autocommit: false });
    // Offsets that carry no message (a transaction's markers) would keep the loop waiting: it
    // ends once nothing has come for 5 s.
    let lastMessage = Date.now();
    const idle = setInterval(() => Date.now() - lastMessage > 5_000 && void stream.close().catch(() => undefined), 500);
    try {
      for await (const message of stream) {
        lastMessage = Date.now();
        const where = `${message.topic}/${message.partition}/${message.offset}`;
        const parts = [
          message.key as Buffer | undefined,
          message.value as Buffer | undefined,
          ...[...(message.headers ?? new Map())].flat(),
        ].filter(Buffer.isBuffer);
        for (const part of parts) for (const secret of secretsIn(part, secrets)) findings.push({ where, secret });
        const key = `${message.topic}/${message.partition}`;
        if (message.offset + 1n >= (remaining.get(key) ?? 0n)) remaining.delete(key);
        if (remaining.size === 0) break;
      }
    } finally {
      clearInterval(idle);
      await stream.close().catch(() => undefined);
    }
  } finally {
    await consumer.close(true).catch(() => undefined);
  }
  return findings;
}

/**
 * A stack's teardown: its topics (those named `${prefix}…`) are swept for secrets, then deleted.
 * Throws, naming where, when a secret is in one: the stack's test file fails.
 */
export async function deleteTopicsAfterSweep(brokers: string[], prefix: string): Promise<void> {
  const { Admin } = await import('@platformatic/kafka');
  const admin = new Admin({ clientId: 'test-cleanup', bootstrapBrokers: brokers });
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    const findings = await sweepTopics(brokers, topics);
    if (topics.length) await admin.deleteTopics({ topics }).catch(() => {});
    if (findings.length > 0)
      throw new Error(
        `secrets in Kafka, in the raw bytes of ${findings.length} message(s): ${findings
          .slice(0, 5)
          .map((f) => `${nameOf(f.secret)} at ${f.where}`)
          .join('; ')}`,
      );
  } finally {
    await admin.close();
  }
}
