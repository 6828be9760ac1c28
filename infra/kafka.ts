// Apache Kafka 3.9 in KRaft mode, run from the jars that infra/kafka/pom.xml resolves from Maven
// Central, on the machine's Java 17. One node acting as broker and controller by default; when
// KAFKA_BROKERS lists several local addresses, a cluster of that many such nodes (node i at the
// i-th address, its controller at KAFKA_CONTROLLER_PORT + i - 1), with every topic replicated to
// up to 3 of them and written to at least 2 before a produce with acks=all is acknowledged.
// Kafka is the system of record, so retention is unlimited and topics are created on purpose
// (auto-create is off).
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Base } from '@platformatic/kafka';
import type { Component } from './component.ts';
import { brokerAddresses, extraPortsFromEnv, localDir, logsDir, repoRoot } from './config.ts';
import type { ExtraPorts, HostPort, StackEndpoints } from './config.ts';
import { progress, runLogged, seconds } from './commands.ts';
import { logFilePath, startDetached } from './processes.ts';
import { inputsHash, stampMatches, writeStamp } from './stamps.ts';
import { ensureCommands } from './toolchain.ts';

const kafkaDir = join(localDir, 'kafka');
const libsDir = join(kafkaDir, 'libs');
/** The Kafka jars (Maven Central, kafka/pom.xml): also ZooKeeper's (zookeeper.ts). */
export const kafkaLibsDir = libsDir;
const pomFile = join(repoRoot, 'infra', 'kafka', 'pom.xml');

/** The Kafka version the pom pins, for messages. */
export function kafkaVersion(): string {
  return /<kafka\.version>([^<]+)</.exec(readFileSync(pomFile, 'utf8'))?.[1] ?? 'unknown';
}

/** One KRaft node (broker and controller) of a local cluster. */
export type KafkaNode = HostPort & {
  /** Its component name: its pid file and log under .local/run and .local/logs. */
  name: string;
  nodeId: number;
  controllerPort: number;
  /** Holds its server.properties, data/ and logs/. */
  dir: string;
};

export type KafkaCluster = {
  nodes: KafkaNode[];
  /** Holds the cluster id every node is formatted with. */
  dir: string;
  /** The JVM's -Xmx; 1g unless said. */
  heap?: string;
};

/**
 * The local cluster KAFKA_BROKERS names: one node in .local/kafka (component "kafka"), or
 * nodes kafka-1…kafka-N in .local/kafka/cluster/node-<i>.
 */
export function localKafkaCluster(endpoints: StackEndpoints, ports: ExtraPorts = extraPortsFromEnv()): KafkaCluster {
  const brokers = brokerAddresses(endpoints.kafkaBrokers);
  if (brokers.length === 1) {
    const [broker] = brokers as [HostPort];
    return {
      dir: kafkaDir,
      nodes: [{ ...broker, name: 'kafka', nodeId: 1, controllerPort: ports.kafkaControllerPort, dir: kafkaDir }],
    };
  }
  const controllerPorts = brokers.map((_, i) => ports.kafkaControllerPort + i);
  return kafkaCluster(join(kafkaDir, 'cluster'), brokers, controllerPorts, 'kafka');
}

/** A cluster of one node per broker address, in `dir`, node i's controller on controllerPorts[i]. */
export function kafkaCluster(
  dir: string,
  brokers: HostPort[],
  controllerPorts: number[],
  namePrefix: string,
  heap?: string,
): KafkaCluster {
  const nodes = brokers.map((broker, i) => ({
    ...broker,
    name: `${namePrefix}-${i + 1}`,
    nodeId: i + 1,
    controllerPort: controllerPorts[i]!,
    dir: join(dir, `node-${i + 1}`),
  }));
  return { dir, nodes, ...(heap ? { heap } : {}) };
}

export function kafkaComponents(endpoints: StackEndpoints, ports: ExtraPorts = extraPortsFromEnv()): Component[] {
  return clusterComponents(localKafkaCluster(endpoints, ports));
}

/** A component per node of the cluster: started together, as a KRaft quorum needs a majority to elect. */
export function clusterComponents(cluster: KafkaCluster): Component[] {
  return cluster.nodes.map((node) => nodeComponent(cluster, node));
}

function nodeComponent(cluster: KafkaCluster, node: KafkaNode): Component {
  const serverProperties = join(node.dir, 'server.properties');
  const brokerLogsDir = join(node.dir, 'logs');
  const several = cluster.nodes.length > 1;
  return {
    name: node.name,
    endpoint: `${node.host}:${node.port}`,
    host: node.host,
    port: node.port,
    ports: [
      {
        host: node.host,
        port: node.port,
        variable: 'KAFKA_BROKERS',
        purpose: several ? `Kafka broker ${node.nodeId}` : 'the Kafka broker',
      },
      {
        host: node.host,
        port: node.controllerPort,
        variable: 'KAFKA_CONTROLLER_PORT',
        purpose: several
          ? `the KRaft controller of Kafka node ${node.nodeId} (KAFKA_CONTROLLER_PORT + ${node.nodeId - 1})`
          : "Kafka's KRaft controller",
      },
    ],
    processMarker: serverProperties,
    isHealthy: () => kafkaAnswersMetadata(`${node.host}:${node.port}`),
    install: installKafkaJarsOnce,
    start: async () => {
      writeNodeConfig(cluster, node);
      await formatStorageOnce(cluster, node);
      return startDetached({
        name: node.name,
        endpoint: `${node.host}:${node.port}`,
        command: 'java',
        args: [...jvmOptions(cluster.heap ?? '1g', node.dir), '-cp', `${libsDir}/*`, 'kafka.Kafka', serverProperties],
        cwd: node.dir,
      });
    },
    // A cold JVM plus KRaft's first election takes 10-20 s on 2 busy cores.
    healthTimeoutMs: 180_000,
    // Controlled shutdown of a single node flushes and closes every log segment.
    stopGraceMs: 60_000,
    logFiles: [logFilePath(node.name), join(brokerLogsDir, 'server.log')],
  };
}

/** A real Metadata request: the broker is up and has joined its own KRaft quorum. */
async function kafkaAnswersMetadata(broker: string): Promise<boolean> {
  const client = new Base({
    clientId: 'infra-health',
    bootstrapBrokers: [broker],
    retries: 0,
    connectTimeout: 1_000,
    requestTimeout: 3_000,
    timeout: 3_000,
  });
  try {
    const metadata = await client.metadata({ topics: [] });
    return metadata.brokers.size > 0;
  } catch {
    return false;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** One install for all the nodes started together (they share the jars). */
let installing: Promise<void> | undefined;
export function installKafkaJarsOnce(): Promise<void> {
  installing ??= installKafkaJars().finally(() => {
    installing = undefined;
  });
  return installing;
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

function jvmOptions(heap: string, nodeDir: string): string[] {
  return [
    `-Xmx${heap}`,
    '-Xms256m',
    // The flags Kafka's own kafka-server-start.sh uses.
    '-server',
    '-XX:+UseG1GC',
    '-XX:MaxGCPauseMillis=20',
    '-XX:InitiatingHeapOccupancyPercent=35',
    '-XX:+ExplicitGCInvokesConcurrent',
    '-Djava.awt.headless=true',
    `-Dlog4j.configuration=file:${join(nodeDir, 'log4j.properties')}`,
    `-Dkafka.logs.dir=${join(nodeDir, 'logs')}`,
  ];
}

/** The replication of a cluster of n nodes: up to 3 copies, acknowledged by up to 2 (1 and 1 on one node). */
export function replicationOf(n: number): { factor: number; minInSync: number } {
  return { factor: Math.min(3, n), minInSync: Math.min(2, n) };
}

/**
 * What a 2xx is worth on a cluster of n nodes, as broker settings (docker-compose.yml's Kafka nodes
 * set the same; test/infra/composeFile.test.ts compares them). Topics the platform creates take
 * the broker's defaults (platform/kafka/topicAdmin.ts asks for replication factor -1): an event
 * is on min.insync.replicas nodes before acks=all is answered, and a partition whose in-sync
 * replicas fall below that refuses writes (the API answers 503) rather than keep one copy.
 */
export function durabilitySettings(n: number): Record<string, number | boolean> {
  const { factor, minInSync } = replicationOf(n);
  return {
    'default.replication.factor': factor,
    'min.insync.replicas': minInSync,
    'offsets.topic.replication.factor': factor,
    'transaction.state.log.replication.factor': factor,
    'transaction.state.log.min.isr': minInSync,
    // A replica that was not in sync never becomes leader: no acknowledged write is dropped in an election.
    'unclean.leader.election.enable': false,
    // How long a node that died without a word (kill -9, a lost machine) keeps leading its
    // partitions before the controller fences it and moves them: the time writes to them are
    // refused. Kafka's 9 s default measured 9-12 s without a 2xx here (the 2 s election of a new
    // controller first, when the node was it); 4 s, with a heartbeat each second, leaves three
    // heartbeats of slack for a node that is merely slow.
    ...(n > 1 ? { 'broker.session.timeout.ms': 4000, 'broker.heartbeat.interval.ms': 1000 } : {}),
  };
}

function writeNodeConfig(cluster: KafkaCluster, node: KafkaNode): void {
  const dataDir = join(node.dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(join(node.dir, 'logs'), { recursive: true });
  const properties: Record<string, string | number | boolean> = {
    'process.roles': 'broker,controller',
    'node.id': node.nodeId,
    'controller.quorum.voters': quorumVoters(cluster),
    listeners: `PLAINTEXT://${node.host}:${node.port},CONTROLLER://${node.host}:${node.controllerPort}`,
    'advertised.listeners': `PLAINTEXT://${node.host}:${node.port}`,
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'controller.listener.names': 'CONTROLLER',
    'inter.broker.listener.name': 'PLAINTEXT',
    'log.dirs': dataDir,
    'num.partitions': 6,
    ...durabilitySettings(cluster.nodes.length),
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
  writeFileSync(
    join(node.dir, 'server.properties'),
    `# Generated by infra/kafka.ts; edits are overwritten on the next start.\n${text}\n`,
  );
  writeFileSync(join(node.dir, 'log4j.properties'), log4jConfig());
}

const quorumVoters = (cluster: KafkaCluster): string =>
  cluster.nodes.map((n) => `${n.nodeId}@${n.host}:${n.controllerPort}`).join(',');

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

/**
 * KRaft needs each node's log directory formatted with the cluster's id once, before its first
 * start. A cluster's data is only good for the voters it was made with: other ports are refused.
 */
async function formatStorageOnce(cluster: KafkaCluster, node: KafkaNode): Promise<void> {
  const votersFile = join(cluster.dir, 'voters');
  const voters = quorumVoters(cluster);
  if (cluster.nodes.length > 1) {
    mkdirSync(cluster.dir, { recursive: true });
    const recorded = existsSync(votersFile) ? readFileSync(votersFile, 'utf8').trim() : undefined;
    if (recorded === undefined) writeFileSync(votersFile, `${voters}\n`);
    else if (recorded !== voters) {
      throw new Error(
        `the Kafka cluster in ${cluster.dir} was made for the controllers ${recorded}, not ${voters} (KAFKA_BROKERS, KAFKA_CONTROLLER_PORT): ` +
          `set them back, or remove ${cluster.dir} to make a new, empty cluster`,
      );
    }
  }
  if (existsSync(join(node.dir, 'data', 'meta.properties'))) return;
  await runLogged(join(logsDir, `${node.name}-format.log`), 'java', [
    '-Xmx256m',
    `-Dlog4j.configuration=file:${join(node.dir, 'log4j.properties')}`,
    `-Dkafka.logs.dir=${join(node.dir, 'logs')}`,
    '-cp',
    `${libsDir}/*`,
    'kafka.tools.StorageTool',
    'format',
    '-t',
    clusterId(cluster.dir),
    '-c',
    join(node.dir, 'server.properties'),
    '--ignore-formatted',
  ]);
}

/** Kept in a file so a re-format after a wiped data folder keeps the same id. */
function clusterId(dir: string): string {
  const file = join(dir, 'cluster-id');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  let id: string;
  // Kafka's Uuid: 16 random bytes in unpadded base64url; ids starting with '-' are avoided.
  do id = randomBytes(16).toString('base64url');
  while (id.startsWith('-'));
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, `${id}\n`);
  return id;
}
