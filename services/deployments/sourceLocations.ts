// Where a github deployment's repo_url points, and whether a workspace may build from there.
// Deployed code is a tenant's: cloning `file:///…`, a bare path or a git server on the host's
// loopback or private network would read, for a tenant, whatever the platform's user can read. So
// those are refused unless the operator allows them (DEPLOYMENT_LOCAL_SOURCES: `auto`, the
// default, allows them while the control plane has a single workspace, as in the quick start),
// and hosts are judged by the outbound-host policy bulk export uses (DEPLOYMENT_ALLOWED_HOSTS,
// DEPLOYMENT_DENIED_HOSTS). Git's other transports (ext::, fd::, …) are never taken.
import { isIP } from 'node:net';
import { OutboundHostPolicy } from '../../platform/outboundHostPolicy.ts';
import type { Config } from '../../platform/config.ts';

export type GitLocation =
  | { kind: 'local' }
  | { kind: 'remote'; scheme: 'https' | 'http' | 'ssh' | 'git'; host: string; port: number }
  | { kind: 'unsupported'; why: string };

const DEFAULT_PORTS = { https: 443, http: 80, ssh: 22, git: 9418 } as const;

/** What git would make of `repoUrl`: a path on this machine, a host to connect to, or something refused. */
export function gitLocation(repoUrl: string): GitLocation {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(repoUrl)?.[1]?.toLowerCase();
  if (scheme === 'file') return { kind: 'local' };
  if (scheme !== undefined) {
    if (!(scheme in DEFAULT_PORTS))
      return { kind: 'unsupported', why: `git URLs of scheme ${scheme}:// are not taken; use https://` };
    let url: URL;
    try {
      url = new URL(repoUrl);
    } catch {
      return { kind: 'unsupported', why: 'it is not a valid URL' };
    }
    const s = scheme as keyof typeof DEFAULT_PORTS;
    return {
      kind: 'remote',
      scheme: s,
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port ? Number(url.port) : DEFAULT_PORTS[s],
    };
  }
  // git's own transports (ext::<command>, fd::…) run commands or read descriptors: never.
  if (/^[a-z][a-z0-9+.-]*::/i.test(repoUrl))
    return { kind: 'unsupported', why: 'git transports written <name>:: are not taken; use https://' };
  // scp-like: [user@]host:path, where the part before the first colon has no slash (git's rule).
  const scp = /^(?:[^@/]+@)?(\[[^\]]+\]|[^:/]+):(?!\/\/)/.exec(repoUrl);
  if (scp && !/^[a-z]:[\\/]/i.test(repoUrl))
    return { kind: 'remote', scheme: 'ssh', host: scp[1]!.replace(/^\[|\]$/g, ''), port: 22 };
  return { kind: 'local' };
}

export type LocalSourcesSetting = Config['DEPLOYMENT_LOCAL_SOURCES'];

/** The control plane's rules for sources, from its settings; `workspaceCount` says how many workspaces it has now. */
export class SourceLocationPolicy {
  readonly #setting: LocalSourcesSetting;
  readonly #workspaceCount: () => number;
  readonly hosts: OutboundHostPolicy;

  constructor(
    config: Pick<Config, 'DEPLOYMENT_LOCAL_SOURCES' | 'DEPLOYMENT_ALLOWED_HOSTS' | 'DEPLOYMENT_DENIED_HOSTS'>,
    workspaceCount: () => number,
  ) {
    this.#setting = config.DEPLOYMENT_LOCAL_SOURCES;
    this.#workspaceCount = workspaceCount;
    this.hosts = new OutboundHostPolicy({
      allowed: config.DEPLOYMENT_ALLOWED_HOSTS,
      denied: config.DEPLOYMENT_DENIED_HOSTS,
    });
  }

  /** Whether paths on this machine and hosts on its private networks may be built from now. */
  localAllowed(): boolean {
    return this.#setting === 'allow' || (this.#setting === 'auto' && this.#workspaceCount() <= 1);
  }

  #why(): string {
    return this.#setting === 'deny'
      ? 'DEPLOYMENT_LOCAL_SOURCES is deny'
      : 'this control plane serves several workspaces (DEPLOYMENT_LOCAL_SOURCES=auto allows them only while it serves one)';
  }

  /**
   * Why `repoUrl` cannot be built from, as far as it can be told without resolving a name (the
   * create and patch commands' check: a 400), or null. The build checks again, resolving.
   */
  problem(repoUrl: string): string | null {
    const where = gitLocation(repoUrl);
    if (where.kind === 'unsupported')
      return `source_config.repo_url ${JSON.stringify(repoUrl)} is refused: ${where.why}`;
    if (this.localAllowed()) return null;
    if (where.kind === 'local')
      return `source_config.repo_url ${JSON.stringify(repoUrl)} is a path on the control plane's machine; such sources are refused because ${this.#why()}: use an https:// URL of a git server, or an internal_source upload`;
    const literal =
      where.host === 'localhost' || where.host.endsWith('.localhost')
        ? '127.0.0.1'
        : isIP(where.host)
          ? where.host
          : null;
    const refusal = literal === null ? null : this.hosts.refusal(where.host, where.port, literal);
    return refusal === null
      ? null
      : `source_config.repo_url ${JSON.stringify(repoUrl)} points at a loopback or private address; such sources are refused because ${this.#why()} (DEPLOYMENT_ALLOWED_HOSTS lets a git server through)`;
  }
}
