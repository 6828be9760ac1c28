// Which hosts a service may connect to on a user's behalf (bulk-export destinations): not its
// own infrastructure, cloud metadata or anything else on loopback, link-local or private
// addresses, unless allowed by configuration. A host name is judged by every address it resolves
// to, and `lookupFor` makes the check part of each connection (the socket goes to an address that
// was just checked), so a name that resolved to a public address when it was configured and to a
// private one later is still refused.
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';

/** Refused unless allowed: unspecified, loopback, private, carrier-grade NAT, link-local (cloud metadata), unique-local. */
const DEFAULT_DENIED = new BlockList();
const DENIED_IPV4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const;
const DENIED_IPV6 = [
  ['::', 128],
  ['::1', 128],
  ['fe80::', 10],
  ['fec0::', 10],
  ['fc00::', 7],
] as const;
for (const [net, prefix] of DENIED_IPV4) DEFAULT_DENIED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of DENIED_IPV6) DEFAULT_DENIED.addSubnet(net, prefix, 'ipv6');

/** One entry of an allow or deny list: a host name, or an address or CIDR range; either with or without a port. */
interface HostRule {
  text: string;
  host?: string;
  net?: BlockList;
  port?: number;
}

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/i;

function portOf(text: string, entry: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new Error(`"${entry}": the port must be a number from 1 to 65535`);
  return port;
}

function parseRule(entry: string): HostRule {
  if (entry.includes('://')) {
    throw new Error(`"${entry}" is not a host name, an IP address or a CIDR range: give the host without a scheme`);
  }
  let address = entry;
  let port: number | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(entry);
  if (bracketed) {
    address = bracketed[1]!;
    if (bracketed[2] !== undefined) port = portOf(bracketed[2], entry);
  } else if ((entry.match(/:/g) ?? []).length === 1) {
    const at = entry.lastIndexOf(':');
    address = entry.slice(0, at);
    port = portOf(entry.slice(at + 1), entry);
  }
  const [base = '', prefixText] = address.split('/');
  const family = isIP(base);
  if (family !== 0) {
    const bits = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
    if (!(prefix >= 0 && prefix <= bits))
      throw new Error(`"${entry}": the prefix length must be a number from 0 to ${bits}`);
    const net = new BlockList();
    net.addSubnet(base, prefix, family === 4 ? 'ipv4' : 'ipv6');
    return { text: entry, net, port };
  }
  if (prefixText !== undefined || !HOST_NAME.test(address.replace(/\.$/, ''))) {
    throw new Error(`"${entry}" is not a host name, an IP address or a CIDR range (each optionally with :port)`);
  }
  return { text: entry, host: address.replace(/\.$/, '').toLowerCase(), port };
}

/**
 * A list of hosts as the *_HOSTS settings take it, comma or space separated: host names
 * (`minio.internal`), addresses (`10.1.2.3`, `::1`), CIDR ranges (`10.0.0.0/8`, `fd00::/8`), each
 * optionally with a port (`minio.internal:9000`, `10.1.2.3:9000`, `[::1]:9000`). Throws naming the
 * first entry that is none of these.
 */
export function parseHostRules(text: string): HostRule[] {
  return text
    .split(/[\s,]+/)
    .filter((entry) => entry !== '')
    .map(parseRule);
}

/** The 16 bytes of an IPv6 address. */
function ipv6Bytes(address: string): number[] {
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1); // dotted quads become hex groups
  const [head = '', tail] = canonical.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), which is where it leads. */
function embeddedIPv4(address: string): string | null {
  const b = ipv6Bytes(address);
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const quad = (at: number) => b.slice(at, at + 4).join('.');
  const mapped = b[10] === 0xff && b[11] === 0xff;
  const compatible = b[10] === 0 && b[11] === 0;
  if (zeros(0, 10) && (mapped || compatible)) return quad(12); // ::ffff:a.b.c.d, ::a.b.c.d
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return quad(12); // 64:ff9b::/96
  if (b[0] === 0x20 && b[1] === 0x02) return quad(2); // 2002::/16
  return null;
}

function isDeniedByDefault(address: string): boolean {
  if (isIP(address) === 4) return DEFAULT_DENIED.check(address, 'ipv4');
  if (DEFAULT_DENIED.check(address, 'ipv6')) return true;
  const v4 = embeddedIPv4(address);
  return v4 !== null && DEFAULT_DENIED.check(v4, 'ipv4');
}

/** An address as list entries see it: an IPv4-mapped IPv6 address (::ffff:a.b.c.d) is the IPv4 address. */
function listAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  if (isIP(address) === 4) return { address, family: 'ipv4' };
  const b = ipv6Bytes(address);
  const mapped = b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff;
  if (mapped) return { address: b.slice(12).join('.'), family: 'ipv4' };
  return { address, family: 'ipv6' };
}

/** A connection the policy refuses; `reason` is for the logs, never for the caller. */
export class HostDeniedError extends Error {
  readonly code = 'ERR_HOST_DENIED';
  readonly reason: string;
  constructor(host: string, reason: string) {
    super(`connections to ${host} are not allowed`);
    this.name = 'HostDeniedError';
    this.reason = reason;
  }
}

export interface OutboundHostPolicyOptions {
  /** Let through what the default ranges refuse (parseHostRules text). */
  allowed?: string;
  /** Refused whatever else says (parseHostRules text). */
  denied?: string;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type PolicyLookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

export class OutboundHostPolicy {
  readonly #allowed: HostRule[];
  readonly #denied: HostRule[];

  constructor(options: OutboundHostPolicyOptions = {}) {
    this.#allowed = parseHostRules(options.allowed ?? '');
    this.#denied = parseHostRules(options.denied ?? '');
  }

  /**
   * Why a connection to `address` for `host:port` is refused, or null when it is allowed: the
   * deny list, then the allow list, then the default ranges decide.
   */
  refusal(host: string, port: number, address: string): string | null {
    const name = host
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '')
      .toLowerCase();
    const seen = listAddress(address);
    const matches = (rule: HostRule) =>
      (rule.port === undefined || rule.port === port) &&
      (rule.host !== undefined ? rule.host === name : rule.net!.check(seen.address, seen.family));
    const denied = this.#denied.find(matches);
    if (denied) return `${address} (${host}:${port}) matches the deny list entry "${denied.text}"`;
    if (this.#allowed.some(matches)) return null;
    if (isDeniedByDefault(address))
      return `${address} (${host}:${port}) is a loopback, private, link-local or unspecified address`;
    return null;
  }

  /** Every address `host` resolves to (itself for an address), once all are allowed for `port`; else HostDeniedError. */
  async check(host: string, port: number): Promise<string[]> {
    const bare = host.replace(/^\[|\]$/g, '');
    const addresses = isIP(bare)
      ? [bare]
      : await new Promise<string[]>((resolve, reject) =>
          dnsLookup(bare, { all: true, verbatim: true }, (err, found) =>
            err ? reject(err) : resolve(found.map((a) => a.address)),
          ),
        );
    for (const address of addresses) {
      const why = this.refusal(bare, port, address);
      if (why) throw new HostDeniedError(bare, why);
    }
    return addresses;
  }

  /**
   * A `lookup` for sockets to `port` (http.Agent / net.connect): resolves, refuses the connection
   * when any address is not allowed, else hands over the checked addresses. Sockets to an IP
   * address skip `lookup`: check those with `refusal` before connecting.
   */
  lookupFor(port: number): PolicyLookup {
    return (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (err, found) => {
        if (err) return callback(err, '');
        for (const a of found) {
          const why = this.refusal(hostname, port, a.address);
          if (why) return callback(new HostDeniedError(hostname, why), '');
        }
        if (found.length === 0)
          return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
        if (options.all) return callback(null, found);
        return callback(null, found[0]!.address, found[0]!.family);
      });
    };
  }
}
