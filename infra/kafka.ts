// Apache Kafka 3.9, one KRaft node acting as broker and controller, run from the jars that
// infra/kafka/pom.xml resolves from Maven Central, on the machine's Java 17.
// Kafka is the system of record, so retention is unlimited and topics are created on purpose
// (auto-create is off).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Base } from '@platformatic/kafka';
import type { Component } from './component.ts';
import { extraPortsFromEnv, firstBroker, localDir, logsDir, repoRoot } from './config.ts';
import type { ExtraPorts, StackEndpoints } from './config.ts';
import { progress, runLogged, seconds } from './commands.ts';
import { logFilePath, startDetached } from './processes.ts';
import { inputsHash, stampMatches, writeStamp } from './stamps.ts';
import { ensureCommands } from './toolchain.ts';

const kafkaDir = join(localDir, 'kafka');
const libsDir = join(kafkaDir, 'libs');
const dataDir = join(kafkaDir, 'data');
const brokerLogsDir = join(kafkaDir, 'logs');
const serverProperties = join(kafkaDir, 'server.properties');
const log4jProperties = join(kafkaDir, 'log4j.properties');
const clusterIdFile = join(kafkaDir, 'cluster-id');
const pomFile = join(repoRoot, 'infra', 'kafka', 'pom.xml');

/** The Kafka version the pom pins, for messages. */
export function kafkaVersion(): string {
  return /<kafka\.version>([^<]+)</.exec(readFileSync(pomFile, 'utf8'))?.[1] ?? 'unknown';
}

export function kafkaComponent(endpoints: StackEndpoints, ports: ExtraPorts = extraPortsFromEnv()): Component {
  const broker = firstBroker(endpoints.kafkaBrokers);
  const { kafkaControllerPort } = ports;
  return {
    name: 'kafka',
    endpoint: endpoints.kafkaBrokers,
    host: broker.host,
    port: broker.port,
    ports: [
      { host: broker.host, port: broker.port, variable: 'KAFKA_BROKERS', purpose: 'the Kafka broker' },
      { host: broker.host, port: kafkaControllerPort, variable: 'KAFKA_CONTROLLER_PORT', purpose: "Kafka's KRaft controller" },
    ],
    processMarker: serverProperties,
    isHealthy: () => kafkaAnswersMetadata(`${broker.host}:${broker.port}`),
    install: installKafkaJars,
    start: async () => {
      writeBrokerConfig(broker.host, broker.port, kafkaControllerPort);
      await formatStorageOnce();
      return startDetached({
        name: 'kafka',
        endpoint: endpoints.kafkaBrokers,
        command: 'java',
        args: [...jvmOptions(), '-cp', `${libsDir}/*`, 'kafka.Kafka', serverProperties],
        cwd: kafkaDir,
      });
    },
    // A cold JVM plus KRaft's first election takes 10-20 s on 2 busy cores.
    healthTimeoutMs: 180_000,
    // Controlled shutdown of a single node flushes and closes every log segment.
    stopGraceMs: 60_000,
    logFiles: [logFilePath('kafka'), join(brokerLogsDir, 'server.log')],
  };
}

/** A real Metadata request: the broker is up and has joined its own KRaft quorum. */
async function kafkaAnswersMetadata(broker: string): Promise<boolean> {
  const client = new Base({ clientId: 'infra-health', bootstrapBrokers: [broker], retries: 0, connectTimeout: 1_000, requestTimeout: 3_000, timeout: 3_000 });
  try {
    const metadata = await client.metadata({ topics: [] });
    return metadata.brokers.size > 0;
  } catch {
    return false;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** mvn copies the broker's jars once; the stamp (a hash of the pom) skips it afterwards. */
async function installKafkaJars(): Promise<void> {
  const stamp = join(libsDir, '.pom.sha256');
  const hash = inputsHash([pomFile]);
  if (stampMatches(stamp, hash)) return;
  await ensureCommands([
    { command: 'java', aptPackage: 'openjdk-17-jre-headless' },
    { command: 'mvn', aptPackage: 'maven' },
  ]);
  // Into a fresh folder, so jars of an older pom never linger on the class path.
  const started = Date.now();
  progress(`kafka: fetching the Kafka ${kafkaVersion()} jars with Maven (infra/kafka/pom.xml)`);
  const staging = `${libsDir}.staging`;
  rmSync(staging, { recursive: true, force: true });
  await runLogged(join(logsDir, 'install-kafka.log'), 'mvn', [
    '-B',
    '--no-transfer-progress',
    '-f',
    pomFile,
    'dependency:copy-dependencies',
    // Absolute: Maven resolves a relative path against the pom's folder.
    `-DoutputDirectory=${staging}`,
    '-DincludeScope=runtime',
  ]);
  rmSync(libsDir, { recursive: true, force: true });
  renameSync(staging, libsDir);
  writeStamp(stamp, hash);
  progress(`kafka: jars in place in ${seconds(started)}`);
}

function jvmOptions(): string[] {
  return [
    '-Xmx1g',
    '-Xms512m',
    // The flags Kafka's own kafka-server-start.sh uses.
    '-server',
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-XX:InitiatingHeapOccupancyPercent=35',
    '-XX:+ExplicitGCInvokesConcurrent',
    '-Djava.awt.headless=true',
    `-Dlog4j.configuration=file:${log4jProperties}`,
    `-Dkafka.logs.dir=${brokerLogsDir}`,
  ];
}

function writeBrokerConfig(host: string, port: number, controllerPort: number): void {
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(brokerLogsDir, { recursive: true });
  const properties: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': 1,
    'controller.quorum.voters': `1@${host}:${controllerPort}`,
    listeners: `PLAINTEXT://${host}:${port},CONTROLLER://${host}:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${host}:${port}`,
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'log.dirs': dataDir,
    'num.partitions': 6,
    // One node: every replication factor and ISR minimum is 1.
    'default.replication.factor': 1,
    'offsets.topic.replication.factor': 1,
    'transaction.state.log.replication.factor': 1,
    'transaction.state.log.min.isr': 1,
    'min.insync.replicas': 1,
    // Fewer internal partitions than the default 50: quicker first consumer group on 2 cores.
    'offsets.topic.num.partitions': 12,
    'group.initial.rebalance.delay.ms': 0,
    'auto.create.topics.enable': false,
    // The system of record: nothing is ever deleted by age or size.
    'log.retention.ms': -1,
    'log.retention.bytes': -1,
    'message.max.bytes': 10 * 1024 * 1024,
    'replica.fetch.max.bytes': 10 * 1024 * 1024,
    'num.network.threads': 2,
    'num.io.threads': 4,
  };
  const text = Object.entries(properties)
    .map(([key, value]) => `${key}=${value}`)
    .join('\n');
  writeFileSync(serverProperties, `# Generated by infra/kafka.ts; edits are overwritten on the next start.\n${text}\n`);
  writeFileSync(log4jProperties, log4jConfig());
}

function log4jConfig(): string {
  return `# Generated by infra/kafka.ts: the broker logs to a rolling file, not to the console.
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.RollingFileAppender
log4j.appender.file.File=\${kafka.logs.dir}/server.log
log4j.appender.file.MaxFileSize=20MB
log4j.appender.file.MaxBackupIndex=3
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.kafka.log.LogCleaner=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.org.apache.kafka.storage.internals.log=WARN
`;
}

/** KRaft needs its log directory formatted with a cluster id once, before the first start. */
async function formatStorageOnce(): Promise<void> {
  if (existsSync(join(dataDir, 'meta.properties'))) return;
  await runLogged(join(logsDir, 'kafka-format.log'), 'java', [
    '-Xmx256m',
    `-Dlog4j.configuration=file:${log4jProperties}`,
    `-Dkafka.logs.dir=${brokerLogsDir}`,
    '-cp',
    `${libsDir}/*`,
    'kafka.tools.StorageTool',
    'format',
    '-t',
    clusterId(),
    '-c',
    serverProperties,
    '--ignore-formatted',
  ]);
}

/** Kept in a file so a re-format after a wiped data folder keeps the same id. */
function clusterId(): string {
  if (existsSync(clusterIdFile)) return readFileSync(clusterIdFile, 'utf8').trim();
  let id: string;
  // Kafka's Uuid: 16 random bytes in unpadded base64url; ids starting with '-' are avoided.
  do id = randomBytes(16).toString('base64url');
  while (id.startsWith('-'));
  writeFileSync(clusterIdFile, `${id}\n`);
  return id;
}
