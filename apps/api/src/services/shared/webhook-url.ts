import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { createRequire } from 'node:module';
import { isIP, type LookupFunction } from 'node:net';

/**
 * ipaddr.js is CommonJS typed by an ambient `export =`, which this workspace (no esModuleInterop) cannot
 * default-import, and whose named exports Node's ESM loader cannot see; so it is required.
 */
const ipaddr: typeof import('ipaddr.js') = createRequire(import.meta.url)('ipaddr.js');

/**
 * The SSRF guard for webhook endpoints: a consumer-supplied URL may only lead
 * the service to public unicast addresses over https. It is applied when an
 * endpoint is registered and again before every delivery, because DNS answers
 * change; `guardedLookup` makes the delivery socket connect only to addresses
 * it has just checked, so a name cannot be re-pointed between check and connect.
 */
export interface UrlPolicy {
  allowLoopback: boolean;
  /** Resolves a host name to its addresses (all of them); defaults to dns.promises.lookup(host, { all: true, verbatim: true }). Injected by tests. */
  resolve?: (hostname: string) => Promise<string[]>;
}

export type UrlCheck = { ok: true; url: URL; addresses: string[] } | { ok: false; reason: string };

/** Long enough for any real endpoint, short enough to bound what we store and log. */
const MAX_URL_LENGTH = 2048;

const ADDRESS_ERROR_CODE = 'EWEBHOOKADDRESS';

const HTTP_REFUSAL =
  'plain http is allowed only to loopback addresses, and only when SVC_WEBHOOK_ALLOW_LOOPBACK is enabled';

/** What each ipaddr.js range is, in words a consumer can act on; any range not named here is still refused. */
const RANGE_WORDS: Record<string, string> = {
  private: 'a private address',
  loopback: 'a loopback address',
  linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  unspecified: 'the unspecified address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  rfc6052: 'a NAT64 address',
  rfc6145: 'an IPv4-translated address',
  '6to4': 'a 6to4 tunnel address',
  teredo: 'a Teredo tunnel address',
  deprecatedSiteLocal: 'a site-local address',
};

/** Addresses worth naming because they are the usual SSRF prize: the AWS/GCP/Azure instance metadata services. */
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);

/**
 * ipaddr.js 2.5 files the deprecated IPv4-compatible block ::/96 (e.g. ::7f00:1,
 * "::127.0.0.1") under 'unicast'; it is never a legitimate public endpoint and
 * some stacks tunnel it to the embedded IPv4 address, so it is refused too.
 */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

interface Classified {
  /** The address as shown in reasons, with its IPv4 form when it is IPv4-mapped. */
  shown: string;
  /** ipaddr.js range of the effective address, or 'ipv4Compatible'. */
  range: string;
  /** Why it is refused regardless of policy, or null when it is public unicast or loopback. */
  words: string | null;
}

function classify(address: string): Classified | null {
  if (isIP(address) === 0) return null;
  const parsed = ipaddr.parse(address);
  let range: string = parsed.range();
  if (parsed instanceof ipaddr.IPv6) {
    if (parsed.isIPv4MappedAddress()) {
      const inner = classify(parsed.toIPv4Address().toString());
      return inner && { ...inner, shown: `${address} (${inner.shown})` };
    }
    if (range === 'unicast' && parsed.match(IPV4_COMPATIBLE)) range = 'ipv4Compatible';
  }
  let words: string | null = null;
  if (range === 'ipv4Compatible') words = 'an IPv4-compatible IPv6 address (deprecated)';
  else if (range !== 'unicast') words = RANGE_WORDS[range] ?? `a special-purpose address (${range})`;
  if (words && METADATA_ADDRESSES.has(parsed.toString())) words = `${words} (cloud metadata)`;
  return { shown: address, range, words };
}

/** The refusal phrase for an address ("a private address"), or null when it may be connected to. */
function refusalWords(c: Classified, allowLoopback: boolean): string | null {
  if (c.range === 'loopback' && allowLoopback) return null;
  return c.words;
}

/** Why an address may not be connected to, or null when it may. */
export function addressRefusal(address: string, policy: Pick<UrlPolicy, 'allowLoopback'>): string | null {
  const c = classify(address);
  if (!c) return `${address} is not an IP address`;
  const words = refusalWords(c, policy.allowLoopback);
  return words && `${c.shown} is ${words}`;
}

async function systemResolve(hostname: string): Promise<string[]> {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => a.address);
}

/** RFC 6761: these names are loopback by definition, whatever a resolver says. */
function isLoopbackName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

const refuse = (reason: string): UrlCheck => ({ ok: false, reason });

/**
 * Why a port can never be a webhook receiver, or null when it may be one. Port 0 is no port at all
 * (a connection to it fails or lands on whatever the system picks); the ports below 1024 belong to
 * system services (SSH, SMTP, DNS, …), so a URL naming one is a mistake or a probe. 443 is https's
 * own; 80 is plain http's, allowed only with SVC_WEBHOOK_ALLOW_LOOPBACK (the development setting,
 * where http to loopback is allowed too).
 */
function portRefusal(url: URL, allowLoopback: boolean): string | null {
  const port = url.port === '' ? (url.protocol === 'http:' ? 80 : 443) : Number(url.port);
  if (port === 443) return null;
  if (port === 80 && allowLoopback) return null;
  if (port === 0) return 'port 0 is not a port a receiver can listen on';
  if (port < 1024) {
    const allowed = allowLoopback ? '443, 80' : '443';
    return `port ${port} is a system port (below 1024) that cannot be a webhook receiver; use ${allowed} or a port from 1024 up`;
  }
  return null;
}

/** Parses and checks a webhook URL; never throws for bad input. */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy): Promise<UrlCheck> {
  if (typeof raw !== 'string' || raw.trim() === '') return refuse('the URL is empty');
  if (raw.length > MAX_URL_LENGTH) return refuse(`the URL must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse('the URL must be an absolute https URL');
  }
  const http = url.protocol === 'http:';
  if (url.protocol !== 'https:' && !http) return refuse('the URL must use https');
  if (http && !policy.allowLoopback) return refuse(HTTP_REFUSAL);
  if (url.username !== '' || url.password !== '') return refuse('the URL must not carry a user name or password');
  // An empty fragment ("…/hook#") leaves url.hash empty; '#' is escaped everywhere else in a serialised URL.
  if (url.href.includes('#')) return refuse('the URL must not have a fragment (#…)');
  if (url.hostname === '') return refuse('the URL must name a host');
  const port = portRefusal(url, policy.allowLoopback);
  if (port) return refuse(port);

  const literal = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(literal) !== 0) {
    const c = classify(literal);
    if (!c) return refuse(`${literal} is not an IP address`);
    const words = refusalWords(c, policy.allowLoopback);
    if (words) return refuse(`${c.shown} is ${words}`);
    if (http && c.range !== 'loopback') return refuse(HTTP_REFUSAL);
    return { ok: true, url, addresses: [literal] };
  }

  // WHATWG has already lower-cased the name and turned every numeric IPv4 spelling into dotted form.
  const name = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  if (name === '' || name.split('.').includes('')) return refuse(`${url.hostname} is not a valid host name`);
  if (isLoopbackName(name) && !policy.allowLoopback) return refuse(`${name} is a loopback name`);

  let addresses: string[];
  try {
    addresses = await (policy.resolve ?? systemResolve)(url.hostname);
  } catch {
    return refuse(`the host name ${name} does not resolve`);
  }
  if (addresses.length === 0) return refuse(`the host name ${name} does not resolve`);
  for (const address of addresses) {
    const c = classify(address);
    if (!c) return refuse(`${name} resolves to ${address}, which is not an IP address`);
    const words = refusalWords(c, policy.allowLoopback);
    if (words) return refuse(`${name} resolves to ${c.shown}, ${words}`);
    if (http && c.range !== 'loopback') return refuse(`${HTTP_REFUSAL} (${name} resolves to ${c.shown})`);
  }
  return { ok: true, url, addresses };
}

function addressError(message: string, hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: ADDRESS_ERROR_CODE, hostname });
}

function wantedFamily(family: LookupOptions['family']): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/** A `lookup` for node:http/https request options: resolves like dns.lookup and refuses (an Error with code 'EWEBHOOKADDRESS' and a clear message) when any address is refused, so the socket only ever connects to checked addresses. Honours the `all` option and family. */
export function guardedLookup(policy: UrlPolicy): LookupFunction {
  const resolve = policy.resolve ?? systemResolve;
  return (hostname, options, callback) => {
    const found = isIP(hostname) !== 0 ? Promise.resolve([hostname]) : resolve(hostname);
    found.then(
      (addresses) => {
        // Every answer is checked, not only the one used, so a mixed public/private answer is refused outright.
        for (const address of addresses) {
          const reason = addressRefusal(address, policy);
          if (reason) return callback(addressError(`webhook host ${hostname} refused: ${reason}`, hostname), '');
        }
        const family = wantedFamily(options.family);
        const usable: LookupAddress[] = addresses
          .map((address) => ({ address, family: isIP(address) }))
          .filter((a) => family === 0 || a.family === family);
        const first = usable[0];
        if (!first) {
          const err: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
            code: 'ENOTFOUND',
            hostname,
          });
          return callback(err, '');
        }
        if (options.all) return callback(null, usable);
        return callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}
