// What infra/stack.ts needs from each part of the local stack (infra/kafka.ts,
// infra/clickhouse.ts, infra/minio.ts, infra/postgres.ts), so that up/down/status treat them alike.
import type { PortNeed } from '../platform/ports.ts';
import type { StartedServer } from './processes.ts';

export type Component = {
  /** Also the name of its pid file and log: .local/run/<name>.pid, .local/logs/<name>.log. */
  name: string;
  /** What clients connect to, as it appears in StackEndpoints. */
  endpoint: string;
  /** Where the server would listen; used to refuse starting on a non-local address. */
  host: string;
  /** Its main port, to tell "not running" from "port taken by something else". */
  port: number;
  /** Every port the server listens on, the main one first, with the variable that moves it: all must be free to start it. */
  ports: PortNeed[];
  /** A substring of our server's command line, so a stale pid is never mistaken for it. */
  processMarker: string;
  /** A real request to the server (metadata, SELECT 1, health/ready); never throws. */
  isHealthy: () => Promise<boolean>;
  /** Brings binaries/jars in place; fast when they already are. */
  install: () => Promise<void>;
  /** Writes config, prepares data directories and spawns the server. */
  start: () => Promise<StartedServer>;
  healthTimeoutMs: number;
  /** What `down` sends first; SIGTERM unless that means something slower to the server. */
  stopSignal?: NodeJS.Signals;
  /** Grace period between that signal and SIGKILL on `down`. */
  stopGraceMs: number;
  /** Logs worth reading when it fails, most useful first. */
  logFiles: string[];
  /** The services start before it answers (object storage: what needs it answers 503 until then). */
  servicesStartWithout?: boolean;
};
