// The local infrastructure stack: Kafka, ClickHouse, MinIO and PostgreSQL as ordinary
// processes with data under .local/. `ensureStackUp` is what `npm run infra:up`, `npm start`
// and the tests use; it is idempotent and reuses anything that already answers at the
// configured endpoints. Before it installs or starts anything, it checks that every port of the
// components it would start is free, and otherwise names each taken port and what holds it.
import { cannotStartMessage } from '../platform/cannotStart.ts';
import { portProblems, type PortNeed } from '../platform/ports.ts';
import { clickhouseComponent } from './clickhouse.ts';
import { progress, seconds } from './commands.ts';
import type { Component } from './component.ts';
import { endpointsFromEnv, extraPortsFromEnv, isLoopback } from './config.ts';
import type { StackEndpoints } from './config.ts';
import { kafkaComponents } from './kafka.ts';
import { minioComponent } from './minio.ts';
import { buildMinioAdmin, ensureUploadsUser } from './minioAdmin.ts';
import { postgresComponent } from './postgres.ts';
import { ownPid, ownServerEndpoint, portAcceptsConnections, stopOwnServer, waitUntilHealthy } from './processes.ts';
import { withStackLock } from './stackLock.ts';
import { ensureDeployerSandbox } from './toolchain.ts';

export type { StackEndpoints } from './config.ts';

type Env = Record<string, string | undefined>;

export type StackOptions = {
  /** Where endpoint settings are read from; process.env by default. */
  env?: Env;
};

function stackComponents(endpoints: StackEndpoints, env: Env | undefined): Component[] {
  const ports = extraPortsFromEnv(env);
  return [
    ...kafkaComponents(endpoints, ports),
    clickhouseComponent(endpoints, ports),
    minioComponent(endpoints, ports),
    postgresComponent(endpoints),
  ];
}

// Calls within one process run one after another (the lock file guards across processes).
let inProcess: Promise<unknown> = Promise.resolve();
function serialized<T>(work: () => Promise<T>): Promise<T> {
  const next = inProcess.then(() => withStackLock(work));
  inProcess = next.catch(() => undefined);
  return next;
}

/** Installs what is missing and starts what is not already answering; returns the endpoints. */
export function ensureStackUp(options: StackOptions = {}): Promise<StackEndpoints> {
  return stackUp(options);
}

export type StackStages = {
  /** Kafka, ClickHouse and PostgreSQL answer; rejects as soon as one of them cannot start. */
  core: Promise<StackEndpoints>;
  /** Everything answers, object storage too (MinIO, built from its Go module on a first start: minutes). */
  all: Promise<StackEndpoints>;
};

/**
 * ensureStackUp for `npm start`: the same work (all components in parallel, under one stack lock), but
 * with a first milestone once the components the services cannot start without answer. What needs object
 * storage waits for `all` (its routes answer 503 until then: platform/blobStoreReadiness.ts).
 */
export function ensureStackUpInStages(options: StackOptions = {}): StackStages {
  const endpoints = endpointsFromEnv(options.env);
  const { core, all } = inStages((onCore) => stackUp(options, onCore));
  return { core: core.then(() => endpoints), all };
}

/** ensureComponentsUp in the same two stages (components marked servicesStartWithout come last). */
export function ensureComponentsUpInStages(components: Component[]): { core: Promise<void>; all: Promise<void> } {
  return inStages((onCore) => serialized(() => componentsUp(components, onCore)));
}

/** `run`, which hands over the promise of the core components once they are under way, as two promises. */
function inStages<T>(run: (onCore: (core: Promise<unknown>) => void) => Promise<T>): {
  core: Promise<void>;
  all: Promise<T>;
} {
  let handOver!: (core: Promise<unknown>) => void;
  const handed = new Promise<Promise<unknown>>((resolve) => (handOver = resolve));
  const all = run(handOver);
  // `all` rejects first when nothing was tried (ports taken, the stack lock).
  const core = Promise.race([handed.then((corePromise) => corePromise), all]).then(() => undefined);
  return { core, all };
}

function stackUp(options: StackOptions, onCore?: (core: Promise<unknown>) => void): Promise<StackEndpoints> {
  return serialized(async () => {
    const endpoints = endpointsFromEnv(options.env);
    // The control plane's deployer runs deployments in it (a Debian package, like ClickHouse's).
    await Promise.all([componentsUp(stackComponents(endpoints, options.env), onCore), ensureDeployerSandbox()]);
    // The user the control plane signs upload URLs with.
    await ensureUploadsUser(endpoints, options.env);
    return endpoints;
  });
}

/**
 * Starts servers outside the stack's own configuration as ensureStackUp starts its own (the
 * fault tests' Kafka cluster of three nodes in a scratch folder, kafka.ts's kafkaCluster()).
 */
export function ensureComponentsUp(components: Component[]): Promise<void> {
  return serialized(() => componentsUp(components));
}

/** Stops such servers (by their pid files, as stopStack does); graceMs 0 kills them at once. */
export function stopComponents(components: Component[], graceMs?: number): Promise<StopReport[]> {
  return serialized(() =>
    Promise.all(
      components.map(async (component) => ({
        name: component.name,
        endpoint: component.endpoint,
        ...(await stopOwnServer(
          component.name,
          component.processMarker,
          graceMs ?? component.stopGraceMs,
          component.stopSignal,
        )),
      })),
    ),
  );
}

/** `onCore` is handed the promise of every component but object storage, once they are all under way. */
async function componentsUp(components: Component[], onCore?: (core: Promise<unknown>) => void): Promise<void> {
  const taken = await portProblemsBeforeStart(components);
  if (taken.length > 0) {
    throw new Error(
      cannotStartMessage('local stack: nothing was installed or started; these ports are not free:', taken),
    );
  }
  // In parallel: the slow parts (mvn download, apt-get, the MinIO build) overlap, and the nodes
  // of a Kafka cluster start together (a KRaft quorum elects once a majority is up).
  const ups = components.map((component) =>
    component.name === 'minio'
      ? // The admin tool is built after MinIO so the two Go builds do not fight over 2 cores.
        ensureComponentUp(component).then(async (reused) => {
          await buildMinioAdmin();
          return reused;
        })
      : ensureComponentUp(component),
  );
  onCore?.(Promise.all(ups.filter((_, index) => !components[index]!.servicesStartWithout)));
  const results = await Promise.allSettled(ups);
  const failures = results.flatMap((result, index) =>
    result.status === 'rejected' ? [`${components[index]?.name}: ${errorText(result.reason)}`] : [],
  );
  if (failures.length > 0) throw new Error(`infra up failed\n${failures.join('\n\n')}`);
  // One line for everything that was already up: tests call this once per file.
  const reused = results.flatMap((result) => (result.status === 'fulfilled' && result.value ? [result.value] : []));
  if (reused.length > 0) progress(`already running: ${reused.join(', ')}`);
}

/**
 * True when ensureComponentUp would start the component here: nothing healthy answers, no server
 * of ours is (still) running for it, and its address is local.
 */
async function wouldStart(component: Component): Promise<boolean> {
  if (!isLoopback(component.host) || ownPid(component.name, component.processMarker) !== undefined) return false;
  if (await component.isHealthy()) return false;
  return !((await portAcceptsConnections(component.host, component.port)) && (await turnsHealthy(component)));
}

/**
 * For a server that holds the component's port but did not answer the health check: true when it
 * does within 15 s (someone else's server still starting, or ours too busy to answer at once).
 */
function turnsHealthy(component: Component): Promise<boolean> {
  const wait = {
    name: component.name,
    isHealthy: component.isHealthy,
    logFiles: component.logFiles,
    timeoutMs: 15_000,
  };
  return waitUntilHealthy(wait).then(
    () => true,
    () => false,
  );
}

async function portsToStart(components: Component[]): Promise<PortNeed[]> {
  const starting = await Promise.all(
    components.map(async (component) => ((await wouldStart(component)) ? component.ports : [])),
  );
  return starting.flat();
}

/** What stops the components that would be started from listening (a port taken, …): one message each. */
export async function portProblemsBeforeStart(components: Component[]): Promise<string[]> {
  return portProblems(await portsToStart(components));
}

/** The ports ensureStackUp would listen on now, so that `npm start` checks them together with its own. */
export function stackPortsToStart(options: StackOptions = {}): Promise<PortNeed[]> {
  return portsToStart(stackComponents(endpointsFromEnv(options.env), options.env));
}

/** Makes one component healthy; returns a note when it was already running, undefined when started. */
async function ensureComponentUp(component: Component): Promise<string | undefined> {
  const { name, endpoint } = component;
  if (await component.isHealthy()) {
    const pid = ownPid(name, component.processMarker);
    return `${name} at ${endpoint} (${pid ? `pid ${pid}` : 'not started by infra up'})`;
  }
  const health = { name, isHealthy: component.isHealthy, logFiles: component.logFiles };
  const starting = ownPid(name, component.processMarker);
  if (starting !== undefined) {
    const startedFor = ownServerEndpoint(name);
    if (startedFor !== undefined && startedFor !== endpoint) {
      throw new Error(
        `pid ${starting} was started by infra up for ${startedFor}, not ${endpoint}; run infra:down first (both would share .local/${name})`,
      );
    }
    // Ours, alive, not answering yet: a previous `up` is still starting it. Never start a second.
    progress(`${name}: pid ${starting} is still starting; waiting`);
    await waitUntilHealthy({ ...health, timeoutMs: component.healthTimeoutMs });
    return undefined;
  }
  if (!isLoopback(component.host)) {
    throw new Error(
      `nothing healthy answers at ${endpoint}, and the local stack only starts servers on loopback addresses`,
    );
  }
  // Taken since the check before start (portProblemsBeforeStart), by a server that may still be starting.
  if (await portAcceptsConnections(component.host, component.port)) {
    if (await turnsHealthy(component)) return `${name} at ${endpoint} (not started by infra up)`;
    throw new Error(
      `port ${component.port} on ${component.host} is taken by a process that is not a healthy ${name} (and not one infra up started); stop it or point the endpoint elsewhere`,
    );
  }
  const started = Date.now();
  await component.install();
  progress(`${name}: starting`);
  const server = await component.start();
  await waitUntilHealthy({ ...health, timeoutMs: component.healthTimeoutMs, server });
  progress(`${name}: ready at ${endpoint} (pid ${server.pid}, ${seconds(started)})`);
  return undefined;
}

export type StopReport = { name: string; endpoint: string; stopped: boolean; pid?: number; killed?: boolean };

/** Stops the servers this project started (by the pids in .local/run/), nothing else. */
export function stopStack(options: StackOptions = {}): Promise<StopReport[]> {
  return stopComponents(stackComponents(endpointsFromEnv(options.env), options.env));
}

/**
 * Stops one component this project started (fault tests: "ClickHouse is down", "the broker
 * restarts"): "kafka" (or "kafka-<i>", a node of a local cluster), "clickhouse", "minio",
 * "postgres". graceMs 0 kills it at once. ensureStackUp() starts it again.
 */
export function stopComponent(name: string, options: StackOptions & { graceMs?: number } = {}): Promise<StopReport> {
  return serialized(async () => {
    const component = stackComponents(endpointsFromEnv(options.env), options.env).find((c) => c.name === name);
    if (!component) throw new Error(`no component named ${name}`);
    const result = await stopOwnServer(
      component.name,
      component.processMarker,
      options.graceMs ?? component.stopGraceMs,
      component.stopSignal,
    );
    if (!result.stopped)
      throw new Error(`${name} was not started by this project's infra scripts, so a test cannot stop it`);
    return { name: component.name, endpoint: component.endpoint, ...result };
  });
}

export type ComponentStatus = {
  name: string;
  endpoint: string;
  /** The endpoint answers a real request. */
  running: boolean;
  /** Set when the server is one we started (from .local/run/<name>.pid). */
  pid?: number;
};

export async function stackStatus(options: StackOptions = {}): Promise<ComponentStatus[]> {
  const components = stackComponents(endpointsFromEnv(options.env), options.env);
  return Promise.all(
    components.map(async (component) => {
      const pid = ownPid(component.name, component.processMarker);
      const status: ComponentStatus = {
        name: component.name,
        endpoint: component.endpoint,
        running: await component.isHealthy(),
      };
      if (pid !== undefined) status.pid = pid;
      return status;
    }),
  );
}

function errorText(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
