// Is a port free before we start a server on it, and if not, who holds it. `npm start`
// (services/main.ts), `npm run infra:up` (infra/stack.ts) and each service's entry point ask
// here, so a taken port is reported at once, the same way everywhere: the port, what holds it
// (pid and command, read from /proc/net/tcp{,6} and /proc/<pid>/fd on Linux), and the variable
// that moves it.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { exitCannotStart } from './cannotStart.ts';

/** A port one of our servers will listen on, and what to tell the user when it cannot. */
export type PortNeed = {
  host: string;
  /** 0 means any free port, which is never taken. */
  port: number;
  /** The environment variable that moves it (a URL's or a host:port list's port counts). */
  variable: string;
  /** Who listens there, for messages: "the agent server", "Kafka's controller". */
  purpose: string;
};

/** A process listening on the port; pid and command are unknown when it is not ours to inspect. */
export type PortHolder = { uid: number; pid?: number; command?: string };

/**
 * What stops each of `needs` from being listened on (taken by another program, two of ours on one
 * port, an address that is not this machine's), one message per problem, every problem at once.
 */
export async function portProblems(needs: readonly PortNeed[]): Promise<string[]> {
  const wanted = needs.filter((need) => need.port !== 0);
  const clashes: string[] = [];
  const probed: PortNeed[] = [];
  for (const need of wanted) {
    const earlier = probed.find((other) => other.port === need.port && sameListenAddress(other.host, need.host));
    if (earlier === undefined) {
      probed.push(need);
      continue;
    }
    const both = `${earlier.variable} and ${need.variable}`;
    clashes.push(
      `${both} both ask for port ${need.port} (${earlier.purpose}, ${need.purpose}); give each its own port`,
    );
  }
  const bindProblems = await Promise.all(probed.map(async (need) => bindProblem(need, await tryListen(need))));
  return [...clashes, ...bindProblems.filter((problem) => problem !== undefined)];
}

/** For an entry point, before it builds anything: a port it cannot listen on ends the process (cannot-start code). */
export async function exitIfPortsTaken(who: string, needs: readonly PortNeed[]): Promise<void> {
  const problems = await portProblems(needs);
  if (problems.length > 0) exitCannotStart(`${who} cannot start:`, problems);
}

/** `listen()` for an entry point: a port taken since the check (a race) ends the process the same way. */
export async function listenOrExit<T>(who: string, need: PortNeed, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (err) {
    const problem = bindProblem(need, err as NodeJS.ErrnoException);
    if (problem === undefined) throw err;
    exitCannotStart(`${who} cannot start:`, [problem]);
  }
}

/** The message for a failed listen on `need`, or undefined when `error` is not about the address (or there is none). */
export function bindProblem(need: PortNeed, error: NodeJS.ErrnoException | undefined): string | undefined {
  if (error?.code === undefined) return undefined;
  const where = `port ${need.port} on ${need.host} (${need.purpose})`;
  switch (error.code) {
    case 'EADDRINUSE':
      return `${where} is in use by ${describeHolders(need.port)}; stop that program, or move ${need.purpose} to a free port with ${need.variable}`;
    case 'EACCES':
      return `${where} needs privileges this user lacks (a port below 1024); choose 1024 or above with ${need.variable}`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${where}: ${need.host} is not an address of this machine (${error.code})`;
    default:
      return `${where}: ${error.code} ${error.message}`;
  }
}

/** Listens on host:port and closes again; the error when that is not possible. */
function tryListen({ host, port }: PortNeed): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen({ host, port }, () => server.close(() => resolve(undefined)));
  });
}

const wildcardHosts = new Set(['0.0.0.0', '::', '']);

/** Two listeners on one port clash unless both name specific, different addresses. */
function sameListenAddress(a: string, b: string): boolean {
  const normal = (host: string) => (host === 'localhost' ? '127.0.0.1' : host);
  return wildcardHosts.has(a) || wildcardHosts.has(b) || normal(a) === normal(b);
}

/** "pid 1234 (python3 -m http.server 2024)", or as much as this user may know. */
export function describeHolders(port: number): string {
  const holders = portHolders(port);
  const seen = holders.filter((holder) => holder.pid !== undefined);
  if (seen.length > 0) {
    const shown = seen.slice(0, 3).map((holder) => `pid ${holder.pid} (${holder.command})`);
    return seen.length > 3 ? `${shown.join(', ')} and ${seen.length - 3} more` : shown.join(', ');
  }
  const first = holders[0];
  if (first !== undefined) {
    const where = "another user's, or in another container or PID namespace";
    return `a process of ${userName(first.uid)} (uid ${first.uid}) that is not visible from here (${where})`;
  }
  return `another program (see \`ss -ltnp 'sport = :${port}'\`, or \`lsof -nP -iTCP:${port} -sTCP:LISTEN\`)`;
}

/**
 * The processes listening on TCP `port` (any address, IPv4 or IPv6): the socket inodes from
 * /proc/net/tcp{,6}, then the processes holding them among /proc/<pid>/fd. A socket whose
 * process this user cannot read (another user's, another PID namespace) comes back without pid.
 * Empty where there is no /proc (not Linux).
 */
export function portHolders(port: number): PortHolder[] {
  const sockets = listeningSockets(port);
  if (sockets.size === 0) return [];
  const holders: PortHolder[] = [];
  const found = new Set<string>();
  for (const pid of numericEntries('/proc')) {
    for (const fd of numericEntries(`/proc/${pid}/fd`)) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      const uid = inode === undefined ? undefined : sockets.get(inode);
      if (inode === undefined || uid === undefined) continue;
      found.add(inode);
      if (!holders.some((holder) => holder.pid === pid)) holders.push({ uid, pid, command: commandOf(pid) });
    }
  }
  for (const [inode, uid] of sockets) if (!found.has(inode)) holders.push({ uid });
  return holders;
}

/** Inode → owner uid of the sockets listening on `port`. */
function listeningSockets(port: number): Map<string, number> {
  const sockets = new Map<string, number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const [, local, , state, , , , uid, , inode] = fields;
      if (local === undefined || inode === undefined || uid === undefined) continue;
      const LISTEN = '0A';
      if (state !== LISTEN || Number.parseInt(local.split(':')[1] ?? '', 16) !== port) continue;
      sockets.set(inode, Number(uid));
    }
  }
  return sockets;
}

function numericEntries(dir: string): number[] {
  try {
    return readdirSync(dir)
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return [];
  }
}

function commandOf(pid: number): string {
  try {
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    if (commandLine) return commandLine.length > 100 ? `${commandLine.slice(0, 97)}...` : commandLine;
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return 'command unknown';
  }
}

function userName(uid: number): string {
  try {
    const entry = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((line) => line.split(':')[2] === String(uid));
    if (entry) return `user ${entry.split(':')[0]}`;
  } catch {
    // No /etc/passwd to read: the uid alone.
  }
  return 'another user';
}
