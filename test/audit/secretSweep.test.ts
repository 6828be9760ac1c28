// The sweep of test/support/secretSweep.ts finds what it looks for: a registered secret in a
// message's value or header makes a stack's teardown throw (naming where, not the secret), and
// the topics are deleted all the same.
import { randomBytes } from 'node:crypto';
import { expect, test } from 'vitest';
import { Admin, Producer, ProduceAcks, stringSerializers } from '@platformatic/kafka';
import { provideInfra } from '../support/infra.ts';
import {
  deleteTopicsAfterSweep,
  DEPLOYMENT_SECRET,
  registerSecret,
  secretsIn,
  sweepTopics,
} from '../support/secretSweep.ts';

test('secretsIn finds a secret in text and bytes, and nothing else', () => {
  const secret = registerSecret(`made-up-${randomBytes(8).toString('hex')}`);
  expect(secretsIn(`{"token":"${secret}"}`)).toEqual([secret]);
  expect(secretsIn(Buffer.from(`x${DEPLOYMENT_SECRET}x`))).toEqual([DEPLOYMENT_SECRET]);
  expect(secretsIn('nothing to see')).toEqual([]);
  expect(() => registerSecret('short')).toThrow(/8 characters/);
});

test("a secret in a message's value or header fails the teardown sweep; the topics are deleted anyway", async () => {
  const infra = await provideInfra();
  const brokers = infra.kafkaBrokers.split(',');
  const prefix = `sweep_${randomBytes(3).toString('hex')}.`;
  const secret = registerSecret(`made-up-${randomBytes(8).toString('hex')}`);
  const admin = new Admin({ clientId: 'sweep-test', bootstrapBrokers: brokers });
  // Idempotent: a send retried after a slow answer must not store the message twice (the counts below are exact).
  const producer = new Producer({
    clientId: 'sweep-test',
    bootstrapBrokers: brokers,
    acks: ProduceAcks.ALL,
    idempotent: true,
    serializers: stringSerializers,
  });
  try {
    await admin.createTopics({ topics: [`${prefix}clean`, `${prefix}leaky`], partitions: 2, replicas: -1 });
    await producer.send({
      messages: [
        { topic: `${prefix}clean`, key: 'a', value: 'nothing here' },
        { topic: `${prefix}leaky`, key: 'b', value: 'fine' },
        { topic: `${prefix}leaky`, key: 'c', value: 'fine too', headers: { note: `sealed? no: ${secret}` } },
      ],
    });
    expect(await sweepTopics(brokers, [`${prefix}clean`])).toEqual([]);
    const findings = await sweepTopics(brokers, [`${prefix}leaky`]);
    expect(findings).toEqual([
      { where: expect.stringMatching(new RegExp(`^${prefix.replace('.', '\\.')}leaky/\\d/\\d+$`)), secret },
    ]);
    const failure = await deleteTopicsAfterSweep(brokers, prefix).then(
      () => null,
      (err: Error) => err,
    );
    expect(failure?.message).toMatch(
      /secrets in Kafka, in the raw bytes of 1 message\(s\): a registered secret \(\d+ characters\) at /,
    );
    expect(failure?.message).not.toContain(secret);
    expect((await admin.listTopics()).filter((t) => t.startsWith(prefix))).toEqual([]);
  } finally {
    await producer.close();
    await admin.close();
  }
});
