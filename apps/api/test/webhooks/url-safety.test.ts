import type { LookupOptions } from 'node:dns';
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  addressRefusal,
  checkWebhookUrl,
  guardedLookup,
  type UrlPolicy,
} from '../../src/services/shared/webhook-url.js';

const HTTP_RULE =
  'plain http is allowed only to loopback addresses, and only when SVC_WEBHOOK_ALLOW_LOOPBACK is enabled';

/** A DNS that answers from a table and records what it was asked; names not in the table do not resolve. */
function fakeDns(hosts: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const found = hosts[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return found;
  };
  return { asked, resolve };
}

interface Refused {
  proves: string;
  url: string;
  reason: string;
  allowLoopback?: boolean;
  /** The DNS the case sees; without it the case must be refused without asking DNS at all. */
  hosts?: Record<string, string[]>;
}

const refused: Refused[] = [
  { proves: 'RFC 1918 10/8 is refused', url: 'https://10.0.0.1/', reason: '10.0.0.1 is a private address' },
  { proves: 'RFC 1918 172.16/12 is refused', url: 'https://172.16.0.1/', reason: '172.16.0.1 is a private address' },
  {
    proves: 'the top of 172.16/12 is refused',
    url: 'https://172.31.255.255/',
    reason: '172.31.255.255 is a private address',
  },
  { proves: 'RFC 1918 192.168/16 is refused', url: 'https://192.168.1.1/', reason: '192.168.1.1 is a private address' },
  { proves: 'loopback 127.0.0.1 is refused', url: 'https://127.0.0.1/', reason: '127.0.0.1 is a loopback address' },
  { proves: 'all of 127/8 is loopback', url: 'https://127.1.2.3/', reason: '127.1.2.3 is a loopback address' },
  {
    proves: 'the cloud metadata address is refused and named',
    url: 'https://169.254.169.254/latest/meta-data/',
    reason: '169.254.169.254 is a link-local address (cloud metadata)',
  },
  { proves: '0.0.0.0 is refused', url: 'https://0.0.0.0/', reason: '0.0.0.0 is the unspecified address' },
  { proves: 'CGNAT 100.64/10 is refused', url: 'https://100.64.0.1/', reason: '100.64.0.1 is a carrier-grade NAT' },
  { proves: 'IPv4 multicast is refused', url: 'https://224.0.0.1/', reason: '224.0.0.1 is a multicast address' },
  {
    proves: 'the broadcast address is refused',
    url: 'https://255.255.255.255/',
    reason: '255.255.255.255 is the broadcast address',
  },
  { proves: 'documentation space is refused', url: 'https://192.0.2.1/', reason: '192.0.2.1 is a reserved address' },
  { proves: 'IPv6 loopback is refused', url: 'https://[::1]/', reason: '::1 is a loopback address' },
  { proves: 'IPv6 link-local is refused', url: 'https://[fe80::1]/', reason: 'fe80::1 is a link-local address' },
  { proves: 'fc00::/7 is unique-local', url: 'https://[fc00::1]/', reason: 'fc00::1 is a unique-local address' },
  {
    proves: 'fd00::/8 is unique-local',
    url: 'https://[fd12:3456::1]/',
    reason: 'fd12:3456::1 is a unique-local address',
  },
  { proves: 'the IPv6 unspecified address is refused', url: 'https://[::]/', reason: ':: is the unspecified address' },
  {
    proves: 'IPv4-mapped loopback in dotted form is judged as IPv4',
    url: 'https://[::ffff:127.0.0.1]/',
    reason: '::ffff:7f00:1 (127.0.0.1) is a loopback address',
  },
  {
    proves: 'IPv4-mapped loopback in hex form is judged as IPv4',
    url: 'https://[::ffff:7f00:1]/',
    reason: '::ffff:7f00:1 (127.0.0.1) is a loopback address',
  },
  {
    proves: 'IPv4-mapped private is judged as IPv4',
    url: 'https://[::ffff:10.0.0.1]/',
    reason: '::ffff:a00:1 (10.0.0.1) is a private address',
  },
  {
    proves: 'NAT64 (64:ff9b::/96) of 10.0.0.1 is refused',
    url: 'https://[64:ff9b::a00:1]/',
    reason: '64:ff9b::a00:1 is a NAT64 address',
  },
  { proves: '6to4 is refused', url: 'https://[2002:a00:1::]/', reason: '2002:a00:1:: is a 6to4 tunnel address' },
  { proves: 'Teredo is refused', url: 'https://[2001::1]/', reason: '2001::1 is a Teredo tunnel address' },
  {
    proves: 'IPv4-compatible IPv6, which ipaddr.js calls unicast, is refused',
    url: 'https://[::7f00:1]/',
    reason: '::7f00:1 is an IPv4-compatible IPv6 address',
  },
  { proves: 'IPv6 documentation space is refused', url: 'https://[2001:db8::1]/', reason: 'is a reserved address' },
  {
    proves: 'decimal IPv4 is normalised and refused',
    url: 'https://2130706433/',
    reason: '127.0.0.1 is a loopback address',
  },
  { proves: 'decimal IPv4 over http is refused', url: 'http://2130706433/', reason: HTTP_RULE },
  { proves: 'hex IPv4 is normalised', url: 'https://0x7f000001/', reason: '127.0.0.1 is a loopback address' },
  { proves: 'octal IPv4 is normalised', url: 'https://0177.0.0.1/', reason: '127.0.0.1 is a loopback address' },
  { proves: 'short IPv4 is normalised', url: 'https://127.1/', reason: '127.0.0.1 is a loopback address' },
  { proves: 'mixed hex short IPv4 is normalised', url: 'https://0x7f.1/', reason: '127.0.0.1 is a loopback address' },
  { proves: 'localhost is refused by name', url: 'https://localhost/', reason: 'localhost is a loopback name' },
  {
    proves: 'an upper-case, trailing-dot localhost is refused',
    url: 'https://LOCALHOST./',
    reason: 'localhost is a loopback name',
  },
  {
    proves: 'subdomains of localhost are refused',
    url: 'https://api.localhost/',
    reason: 'api.localhost is a loopback name',
  },
  {
    proves: 'a name resolving to a private address is refused',
    url: 'https://example.internal/hook',
    hosts: { 'example.internal': ['10.0.0.5'] },
    reason: 'example.internal resolves to 10.0.0.5, a private address',
  },
  {
    proves: 'one private address among public ones is enough to refuse',
    url: 'https://mixed.example/hook',
    hosts: { 'mixed.example': ['93.184.216.34', '192.168.0.10'] },
    reason: 'mixed.example resolves to 192.168.0.10, a private address',
  },
  {
    proves: 'a name resolving to mapped metadata is refused',
    url: 'https://sneaky.example/',
    hosts: { 'sneaky.example': ['::ffff:169.254.169.254'] },
    reason:
      'sneaky.example resolves to ::ffff:169.254.169.254 (169.254.169.254), a link-local address (cloud metadata)',
  },
  {
    proves: 'a trailing-dot name is resolved and checked',
    url: 'https://inside.example./',
    hosts: { 'inside.example.': ['172.20.0.3'] },
    reason: 'inside.example resolves to 172.20.0.3, a private address',
  },
  {
    proves: 'a name that does not resolve is refused, not thrown',
    url: 'https://gone.example/',
    hosts: {},
    reason: 'the host name gone.example does not resolve',
  },
  {
    proves: 'an empty DNS answer counts as not resolving',
    url: 'https://empty.example/',
    hosts: { 'empty.example': [] },
    reason: 'the host name empty.example does not resolve',
  },
  { proves: 'http to a public address is refused', url: 'http://93.184.216.34/hook', reason: HTTP_RULE },
  {
    proves: 'http to a public address is refused even with loopback allowed',
    url: 'http://93.184.216.34/hook',
    allowLoopback: true,
    reason: HTTP_RULE,
  },
  {
    proves: 'http to a name with public addresses is refused even with loopback allowed',
    url: 'http://public.example/hook',
    allowLoopback: true,
    hosts: { 'public.example': ['93.184.216.34'] },
    reason: `${HTTP_RULE} (public.example resolves to 93.184.216.34)`,
  },
  { proves: 'http to loopback needs allowLoopback', url: 'http://127.0.0.1:8080/hook', reason: HTTP_RULE },
  {
    proves: 'credentials in the URL are refused',
    url: 'https://user:pass@example.com/',
    reason: 'the URL must not carry a user name or password',
  },
  {
    proves: 'a user name alone is refused',
    url: 'https://user@example.com/',
    reason: 'the URL must not carry a user name or password',
  },
  { proves: 'ftp is refused', url: 'ftp://example.com/hook', reason: 'the URL must use https' },
  { proves: 'javascript: is refused', url: 'javascript:alert(1)', reason: 'the URL must use https' },
  { proves: 'a relative URL is refused', url: '/hooks/in', reason: 'the URL must be an absolute https URL' },
  { proves: 'an empty URL is refused', url: '', reason: 'the URL is empty' },
  {
    proves: 'a URL over 2048 characters is refused',
    url: `https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`,
    reason: 'the URL must be at most 2048 characters',
  },
  { proves: 'a fragment is refused', url: 'https://example.com/hook#part', reason: 'the URL must not have a fragment' },
  { proves: 'an empty fragment is refused', url: 'https://example.com/hook#', reason: 'must not have a fragment' },
  { proves: 'empty host labels are refused', url: 'https://a..b/', reason: 'a..b is not a valid host name' },
  {
    proves: 'port 0 is refused, before DNS',
    url: 'https://hooks.example.com:0/x',
    reason: 'port 0 is not a port a receiver can listen on',
  },
  {
    proves: 'port 0 is refused on a loopback literal even where loopback is allowed',
    url: 'http://127.0.0.1:0/x',
    allowLoopback: true,
    reason: 'port 0 is not a port a receiver can listen on',
  },
  {
    proves: 'a system port (22) is refused, naming the ports allowed',
    url: 'https://93.184.216.34:22/',
    reason: 'port 22 is a system port (below 1024) that cannot be a webhook receiver; use 443 or a port from 1024 up',
  },
  { proves: 'port 1 is refused', url: 'https://hooks.example.com:1/', reason: 'port 1 is a system port' },
  { proves: 'port 1023 is refused', url: 'https://hooks.example.com:1023/', reason: 'port 1023 is a system port' },
  {
    proves: 'port 80 over https is refused without the loopback setting',
    url: 'https://hooks.example.com:80/',
    reason: 'port 80 is a system port (below 1024) that cannot be a webhook receiver; use 443 or a port from 1024 up',
  },
  {
    proves: 'a system port is refused where loopback is allowed too, naming 80 as allowed',
    url: 'http://127.0.0.1:25/',
    allowLoopback: true,
    reason:
      'port 25 is a system port (below 1024) that cannot be a webhook receiver; use 443, 80 or a port from 1024 up',
  },
];

describe('checkWebhookUrl refuses', () => {
  it.each(refused)('$proves: $url', async (c) => {
    const dns = fakeDns(c.hosts ?? {});
    const check = await checkWebhookUrl(c.url, { allowLoopback: c.allowLoopback ?? false, resolve: dns.resolve });
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.reason).toContain(c.reason);
    if (!c.hosts) expect(dns.asked).toEqual([]);
  });

  it('the 2049-character case is one over the limit, and 2048 characters pass', async () => {
    const url = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;
    expect(url).toHaveLength(2048);
    const dns = fakeDns({ 'example.com': ['93.184.216.34'] });
    expect((await checkWebhookUrl(url, { allowLoopback: false, resolve: dns.resolve })).ok).toBe(true);
    expect((await checkWebhookUrl(`${url}a`, { allowLoopback: false, resolve: dns.resolve })).ok).toBe(false);
  });

  it('a resolver that throws something odd is still a refusal, not a throw', async () => {
    const check = await checkWebhookUrl('https://odd.example/', {
      allowLoopback: false,
      resolve: () => Promise.reject('not even an Error'),
    });
    expect(check).toEqual({ ok: false, reason: 'the host name odd.example does not resolve' });
  });
});

interface Accepted {
  proves: string;
  url: string;
  policy: UrlPolicy;
  href: string;
  addresses: string[];
}

const publicDns = fakeDns({
  'hooks.example.com': ['93.184.216.34', '2606:4700::1111'],
  'hooks.example.com.': ['93.184.216.34'],
});

const accepted: Accepted[] = [
  {
    proves: 'a public IPv4 literal passes without DNS',
    url: 'https://93.184.216.34/hook',
    policy: { allowLoopback: false, resolve: fakeDns({}).resolve },
    href: 'https://93.184.216.34/hook',
    addresses: ['93.184.216.34'],
  },
  {
    proves: 'a public IPv6 literal passes without DNS',
    url: 'https://[2606:4700::1111]/',
    policy: { allowLoopback: false, resolve: fakeDns({}).resolve },
    href: 'https://[2606:4700::1111]/',
    addresses: ['2606:4700::1111'],
  },
  {
    proves: 'a name with only public addresses passes, keeping port, path and query',
    url: 'https://Hooks.Example.com:8443/events/in?topic=scores',
    policy: { allowLoopback: false, resolve: publicDns.resolve },
    href: 'https://hooks.example.com:8443/events/in?topic=scores',
    addresses: ['93.184.216.34', '2606:4700::1111'],
  },
  {
    proves: 'a trailing-dot public name passes',
    url: 'https://hooks.example.com./x',
    policy: { allowLoopback: false, resolve: publicDns.resolve },
    href: 'https://hooks.example.com./x',
    addresses: ['93.184.216.34'],
  },
  {
    proves: 'http to 127.0.0.1 passes when loopback is allowed',
    url: 'http://127.0.0.1:8787/x',
    policy: { allowLoopback: true },
    href: 'http://127.0.0.1:8787/x',
    addresses: ['127.0.0.1'],
  },
  {
    proves: 'http to a decimal loopback literal passes when loopback is allowed, normalised',
    url: 'http://2130706433:8787/x',
    policy: { allowLoopback: true },
    href: 'http://127.0.0.1:8787/x',
    addresses: ['127.0.0.1'],
  },
  {
    proves: 'http to [::1] passes when loopback is allowed',
    url: 'http://[::1]:8787/',
    policy: { allowLoopback: true },
    href: 'http://[::1]:8787/',
    addresses: ['::1'],
  },
  {
    proves: 'an explicit :443 passes (and is dropped as the default)',
    url: 'https://93.184.216.34:443/hook',
    policy: { allowLoopback: false, resolve: fakeDns({}).resolve },
    href: 'https://93.184.216.34/hook',
    addresses: ['93.184.216.34'],
  },
  {
    proves: 'port 1024, the first non-system port, passes',
    url: 'https://93.184.216.34:1024/hook',
    policy: { allowLoopback: false, resolve: fakeDns({}).resolve },
    href: 'https://93.184.216.34:1024/hook',
    addresses: ['93.184.216.34'],
  },
  {
    proves: 'http on its default port 80 to loopback passes when loopback is allowed',
    url: 'http://127.0.0.1/x',
    policy: { allowLoopback: true },
    href: 'http://127.0.0.1/x',
    addresses: ['127.0.0.1'],
  },
  {
    proves: 'https to loopback passes when loopback is allowed',
    url: 'https://127.0.0.1/x',
    policy: { allowLoopback: true },
    href: 'https://127.0.0.1/x',
    addresses: ['127.0.0.1'],
  },
];

describe('checkWebhookUrl accepts', () => {
  it.each(accepted)('$proves: $url', async (c) => {
    const check = await checkWebhookUrl(c.url, c.policy);
    expect(check).toMatchObject({ ok: true, addresses: c.addresses });
    if (check.ok) expect(check.url.href).toBe(c.href);
  });

  it('literal hosts never ask DNS', async () => {
    const dns = fakeDns({});
    await checkWebhookUrl('https://93.184.216.34/', { allowLoopback: false, resolve: dns.resolve });
    await checkWebhookUrl('https://[2606:4700::1111]/', { allowLoopback: false, resolve: dns.resolve });
    expect(dns.asked).toEqual([]);
  });

  it('http to localhost passes when loopback is allowed, resolved by the system resolver to loopback only', async () => {
    const check = await checkWebhookUrl('http://localhost:8787/x', { allowLoopback: true });
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.url.href).toBe('http://localhost:8787/x');
    expect(check.addresses.length).toBeGreaterThan(0);
    for (const address of check.addresses) expect(['127.0.0.1', '::1']).toContain(address);
  });
});

describe('addressRefusal', () => {
  it.each([
    { proves: 'public IPv4 may be connected to', address: '93.184.216.34', allowLoopback: false, refusal: null },
    { proves: 'public IPv6 may be connected to', address: '2606:4700::1111', allowLoopback: false, refusal: null },
    { proves: 'loopback may when allowed', address: '127.0.0.1', allowLoopback: true, refusal: null },
    { proves: 'IPv6 loopback may when allowed', address: '::1', allowLoopback: true, refusal: null },
    { proves: 'mapped loopback may when allowed', address: '::ffff:127.0.0.1', allowLoopback: true, refusal: null },
    {
      proves: 'allowing loopback does not allow private',
      address: '10.0.0.1',
      allowLoopback: true,
      refusal: '10.0.0.1 is a private address',
    },
    {
      proves: 'allowing loopback does not allow metadata',
      address: '169.254.169.254',
      allowLoopback: true,
      refusal: '169.254.169.254 is a link-local address (cloud metadata)',
    },
    {
      proves: 'a zone index does not hide link-local',
      address: 'fe80::1%eth0',
      allowLoopback: false,
      refusal: 'fe80::1%eth0 is a link-local address',
    },
    {
      proves: 'ranges without their own words are still refused',
      address: '100::1',
      allowLoopback: false,
      refusal: '100::1 is a special-purpose address (discard)',
    },
    {
      proves: 'non-addresses are refused',
      address: 'example.com',
      allowLoopback: false,
      refusal: 'example.com is not an IP address',
    },
    {
      proves: "ipaddr.js's lenient IPv4 forms are not accepted as addresses",
      address: '127.1',
      allowLoopback: false,
      refusal: '127.1 is not an IP address',
    },
  ])('$proves: $address', ({ address, allowLoopback, refusal }) => {
    expect(addressRefusal(address, { allowLoopback })).toBe(refusal);
  });
});

type Looked = { err: NodeJS.ErrnoException | null; address: unknown; family: number | undefined };

function lookupWith(lookup: LookupFunction, hostname: string, options: LookupOptions): Promise<Looked> {
  return new Promise((resolve) =>
    lookup(hostname, options, (err, address, family) => resolve({ err, address, family })),
  );
}

describe('guardedLookup, called as net would', () => {
  const dns = fakeDns({
    'dual.example': ['93.184.216.34', '2606:4700::1111'],
    'half.example': ['93.184.216.34', 'fd00::1'],
  });
  const lookup = guardedLookup({ allowLoopback: false, resolve: dns.resolve });

  it('with all: true answers every address with its family', async () => {
    expect(await lookupWith(lookup, 'dual.example', { all: true })).toMatchObject({
      err: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ],
    });
  });

  it('without all answers the first address of the asked family', async () => {
    expect(await lookupWith(lookup, 'dual.example', {})).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect(await lookupWith(lookup, 'dual.example', { family: 6 })).toEqual({
      err: null,
      address: '2606:4700::1111',
      family: 6,
    });
    expect(await lookupWith(lookup, 'dual.example', { family: 'IPv4', all: true })).toMatchObject({
      address: [{ address: '93.184.216.34', family: 4 }],
    });
  });

  it('refuses a name with any refused address, even one the asked family would skip', async () => {
    const { err } = await lookupWith(lookup, 'half.example', { family: 4 });
    expect(err?.code).toBe('EWEBHOOKADDRESS');
    expect(err?.message).toBe('webhook host half.example refused: fd00::1 is a unique-local address');
  });

  it('passes resolution failures through like dns.lookup', async () => {
    expect((await lookupWith(lookup, 'gone.example', {})).err?.code).toBe('ENOTFOUND');
  });
});

interface Delivery {
  status?: number;
  error?: NodeJS.ErrnoException;
  /** Whether the socket ever connected to anything. */
  connected: boolean;
}

/** One POST through node:http with the given lookup; settles on the response or the error, never hangs. */
function deliver(url: string, lookup: LookupFunction): Promise<Delivery> {
  return new Promise((resolve) => {
    let connected = false;
    const req = request(url, { method: 'POST', lookup, agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connected }));
    });
    req.on('socket', (socket) => socket.on('connect', () => (connected = true)));
    req.on('timeout', () => req.destroy(new Error('the delivery timed out')));
    req.on('error', (error) => resolve({ error, connected }));
    req.end('{"type":"score.published"}');
  });
}

describe('guardedLookup in a real delivery', () => {
  let server: Server;
  let port = 0;
  let received = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      received += 1;
      req.resume();
      res.end('ok');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.close();
    await once(server, 'close');
  });

  beforeEach(() => {
    received = 0;
  });

  it('refuses localhost when loopback is not allowed, and the server receives nothing', async () => {
    const outcome = await deliver(`http://localhost:${port}/`, guardedLookup({ allowLoopback: false }));
    expect(outcome.error?.code).toBe('EWEBHOOKADDRESS');
    expect(outcome.error?.message).toContain('webhook host localhost refused: 127.0.0.1 is a loopback address');
    expect(outcome.connected).toBe(false);
    expect(received).toBe(0);
  });

  it('reaches a loopback server and gets 200 when loopback is allowed', async () => {
    const outcome = await deliver(`http://localhost:${port}/`, guardedLookup({ allowLoopback: true }));
    expect(outcome).toEqual({ status: 200, connected: true });
    expect(received).toBe(1);
  });

  it('fails before connecting when the name resolves to a private address', async () => {
    const dns = fakeDns({ 'rebind.test': ['10.0.0.1'] });
    const outcome = await deliver(
      `http://rebind.test:${port}/`,
      guardedLookup({ allowLoopback: false, resolve: dns.resolve }),
    );
    expect(outcome.error?.code).toBe('EWEBHOOKADDRESS');
    expect(outcome.error?.message).toBe('webhook host rebind.test refused: 10.0.0.1 is a private address');
    expect(outcome.connected).toBe(false);
    expect(dns.asked).toEqual(['rebind.test']);
  });

  it('closes the DNS-rebinding gap: a name that passed the check and now points at loopback is refused at connect', async () => {
    const answers = [['93.184.216.34'], ['127.0.0.1']];
    const policy: UrlPolicy = { allowLoopback: false, resolve: async () => answers.shift() ?? [] };
    expect((await checkWebhookUrl(`https://rebinding.example:${port}/`, policy)).ok).toBe(true);
    const outcome = await deliver(`http://rebinding.example:${port}/`, guardedLookup(policy));
    expect(outcome.error?.code).toBe('EWEBHOOKADDRESS');
    expect(outcome.connected).toBe(false);
    expect(received).toBe(0);
  });
});
