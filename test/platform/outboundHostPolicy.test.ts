// The outbound host policy as pure logic: list syntax, the default ranges (embedded IPv4 forms
// included), allow and deny lists with ports, and resolution of names (test/services/bulk-export/
// destinationCheck.test.ts drives it through real connections).
import { describe, expect, test } from 'vitest';
import { HostDeniedError, OutboundHostPolicy, parseHostRules } from '../../platform/outboundHostPolicy.ts';
import { loadConfig } from '../../platform/config.ts';

describe('parseHostRules', () => {
  test('host names, addresses, CIDR ranges, each with or without a port, comma or space separated', () => {
    const rules = parseHostRules(' minio.internal:9000, 10.1.2.3 10.0.0.0/8,::1,[::1]:9000 fd00::/8, localhost. ');
    expect(rules.map((r) => [r.text, r.host ?? null, r.port ?? null])).toEqual([
      ['minio.internal:9000', 'minio.internal', 9000],
      ['10.1.2.3', null, null],
      ['10.0.0.0/8', null, null],
      ['::1', null, null],
      ['[::1]:9000', null, 9000],
      ['fd00::/8', null, null],
      ['localhost.', 'localhost', null],
    ]);
    expect(parseHostRules('')).toEqual([]);
  });

  test.each([
    ['minio:port', /the port must be a number/],
    ['minio:70000', /the port must be a number/],
    ['10.0.0.0/33', /prefix length must be a number from 0 to 32/],
    ['fd00::/129', /prefix length must be a number from 0 to 128/],
    ['http://minio', /is not a host name, an IP address or a CIDR range/],
    ['minio/8', /is not a host name/],
    ['under score!', /is not a host name/],
  ])('%j is refused: %s', (text, message) => {
    expect(() => parseHostRules(text)).toThrow(message);
  });

  test('configuration with a bad entry does not load, naming the variable', () => {
    expect(() => loadConfig({ BULK_EXPORT_ALLOWED_HOSTS: 'minio:port' })).toThrow(
      /BULK_EXPORT_ALLOWED_HOSTS: "minio:port": the port must be a number/,
    );
    expect(loadConfig({ BULK_EXPORT_DENIED_HOSTS: '8.8.8.8, evil.example.com:443' }).BULK_EXPORT_DENIED_HOSTS).toBe(
      '8.8.8.8, evil.example.com:443',
    );
  });
});

describe('OutboundHostPolicy.refusal', () => {
  const policy = new OutboundHostPolicy();
  const refused = (address: string, host = address, port = 443) => policy.refusal(host, port, address) !== null;

  test.each([
    '127.0.0.1',
    '127.9.9.9',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '0.1.2.3',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'fec0::1',
    '::ffff:127.0.0.1',
    '::ffff:a9fe:a9fe',
    '::ffff:10.0.0.1',
    '::127.0.0.1',
    '64:ff9b::a00:1',
    '2002:c0a8:101::1',
  ])('%s is refused by default', (address) => {
    expect(refused(address)).toBe(true);
  });

  test.each([
    '8.8.8.8',
    '172.32.0.1',
    '192.169.0.1',
    '100.128.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s is allowed by default', (address) => {
    expect(refused(address)).toBe(false);
  });

  test('the allow list lets through, by name, address, range and port; the deny list wins', () => {
    const p = new OutboundHostPolicy({
      allowed: 'minio.internal:9000, 10.20.0.0/16, 127.0.0.1:9000, localhost',
      denied: '10.20.5.0/24, public.example.com, 8.8.4.4:53',
    });
    expect(p.refusal('minio.internal', 9000, '10.9.9.9')).toBeNull();
    expect(p.refusal('MINIO.internal.', 9000, '10.9.9.9')).toBeNull();
    expect(p.refusal('minio.internal', 9001, '10.9.9.9')).toMatch(/loopback, private/);
    expect(p.refusal('anything', 80, '10.20.1.1')).toBeNull();
    expect(p.refusal('anything', 80, '10.20.5.1')).toMatch(/deny list entry "10.20.5.0\/24"/);
    expect(p.refusal('127.0.0.1', 9000, '127.0.0.1')).toBeNull();
    expect(p.refusal('127.0.0.1', 9000, '::ffff:127.0.0.1')).toBeNull(); // the same address, IPv4-mapped
    expect(p.refusal('127.0.0.1', 8123, '127.0.0.1')).not.toBeNull();
    expect(p.refusal('localhost', 8123, '127.0.0.1')).toBeNull();
    expect(p.refusal('public.example.com', 443, '93.184.216.34')).toMatch(/deny list entry "public.example.com"/);
    expect(p.refusal('dns.example', 53, '8.8.4.4')).not.toBeNull();
    expect(p.refusal('dns.example', 443, '8.8.4.4')).toBeNull();
  });
});

describe('OutboundHostPolicy.check and lookupFor', () => {
  test('a name is judged by every address it resolves to', async () => {
    await expect(new OutboundHostPolicy().check('localhost', 9000)).rejects.toBeInstanceOf(HostDeniedError);
    await expect(new OutboundHostPolicy({ allowed: 'localhost' }).check('localhost', 9000)).resolves.toContain(
      '127.0.0.1',
    );
    await expect(new OutboundHostPolicy().check('[::1]', 9000)).rejects.toThrow('connections to ::1 are not allowed');
    await expect(new OutboundHostPolicy().check('no-such-host.invalid', 9000)).rejects.toMatchObject({
      code: 'ENOTFOUND',
    });
  });

  test('the lookup refuses before connecting, and hands over checked addresses in the form asked for', async () => {
    const lookup = (policy: OutboundHostPolicy, all: boolean) =>
      new Promise((resolve, reject) =>
        policy.lookupFor(9000)('localhost', { all, family: 4 }, (err, address, family) =>
          err ? reject(err) : resolve({ address, family }),
        ),
      );
    await expect(lookup(new OutboundHostPolicy(), false)).rejects.toMatchObject({
      name: 'HostDeniedError',
      code: 'ERR_HOST_DENIED',
    });
    await expect(lookup(new OutboundHostPolicy({ allowed: 'localhost' }), false)).resolves.toEqual({
      address: '127.0.0.1',
      family: 4,
    });
    await expect(lookup(new OutboundHostPolicy({ allowed: 'localhost' }), true)).resolves.toEqual({
      address: [{ address: '127.0.0.1', family: 4 }],
      family: undefined,
    });
  });
});
