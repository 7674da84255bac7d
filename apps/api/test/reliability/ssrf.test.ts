import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import {
  DeliveriesResponseSchema,
  type WebhookDelivery,
  WebhookDeliverySchema,
  type WebhookEndpoint,
  WebhookEndpointSchema,
  WebhooksListResponseSchema,
} from '@svc/contracts';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/services/access/access.js';
import { secretBox } from '../../src/services/shared/secrets.js';
import { addressRefusal, type UrlPolicy } from '../../src/services/shared/webhook-url.js';
import { WebhookDispatcher } from '../../src/services/webhooks/dispatcher.js';
import { pingWebhook, registerWebhook } from '../../src/services/webhooks/endpoints.js';
import { attemptsOf, listDeliveries } from '../../src/store/repositories/webhooks.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { expectInvalid, expectJson } from '../support/responses.js';
import { type TestServer, useServer } from '../support/server.js';
import { engines, useFreshStore } from '../support/stores.js';

/**
 * The SSRF rules end to end: every private, loopback, link-local, unique-local and metadata address, in every
 * spelling, is refused when an endpoint is registered over HTTP (SVC_WEBHOOK_ALLOW_LOOPBACK off), and again when a
 * delivery goes out: a redirect is never followed, a stored URL turned private is never connected to, and a name
 * re-pointed at loopback between the check and the connect is refused by the guarded lookup.
 *
 * Beside test/webhooks/url-safety.test.ts (checkWebhookUrl and guardedLookup as functions, and guardedLookup under
 * a bare node:http request) and test/webhooks/dispatcher.test.ts (one 307 to a loopback receiver, one stored
 * 10.0.0.1, one loopback receiver without the allowance, all through a dispatcher over a bare store), this suite
 * goes through the running server's route and its own dispatcher, and through WebhookDispatcher for the rebinding.
 */

const HTTP_RULE =
  'plain http is allowed only to loopback addresses, and only when SVC_WEBHOOK_ALLOW_LOOPBACK is enabled';
const WEBHOOKS = '/api/v1/webhooks';
/** One retry a few milliseconds later: each delivery below ends within a fraction of a second. */
const ENV = { SVC_WEBHOOK_RETRY_SCHEDULE: '20ms', SVC_WEBHOOK_POLL_INTERVAL: '20ms', SVC_WEBHOOK_TIMEOUT: '2s' };
/** A public address (RFC 5737 documentation space is reserved, so a real one): never connected to here. */
const PUBLIC = '93.184.216.34';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A TCP port on 127.0.0.1 and ::1 that counts every connection made to it (and drops it): "never connected" is 0. */
interface Listener {
  port: number;
  connections: number;
  close(): Promise<void>;
}

async function countingListener(): Promise<Listener> {
  const counter = { connections: 0 };
  const server: Server = createServer((socket) => {
    counter.connections++;
    socket.destroy();
  });
  // Dual-stack where the machine has IPv6, so [::1] and IPv4-mapped connects are counted too.
  const listen = (host: string) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => resolve());
    });
  await listen('::').catch(() => listen('127.0.0.1'));
  const { port } = server.address() as { port: number };
  return {
    port,
    get connections() {
      return counter.connections;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A DNS that answers from a table (the answer may change per call) and records what it was asked. */
function fakeDns(table: Record<string, string[] | (() => string[])>) {
  const asked: string[] = [];
  const resolve = async (name: string): Promise<string[]> => {
    asked.push(name);
    const entry = table[name.replace(/\.$/, '')];
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return typeof entry === 'function' ? entry() : entry;
  };
  return { asked, resolve };
}

/** This machine's own host name and its addresses, when the system resolver says they are not public; else null. */
async function privateHostName(): Promise<{ name: string; refusal: string } | null> {
  const name = hostname().toLowerCase();
  try {
    const found = await lookup(name, { all: true, verbatim: true });
    const refusals = found.map((a) => addressRefusal(a.address, { allowLoopback: false }));
    if (found.length === 0 || refusals.some((r) => r === null)) return null;
    return { name, refusal: `${name} resolves to ${refusals[0]?.replace(' is ', ', ')}` };
  } catch {
    return null;
  }
}
const OWN_NAME = await privateHostName();

/** Every address of the issue's list and its spellings, with the reason the consumer is given. */
const REFUSED_AT_REGISTRATION: [string, string][] = [
  ['https://10.0.0.1/hook', '10.0.0.1 is a private address'],
  ['https://172.16.0.1/hook', '172.16.0.1 is a private address'],
  ['https://172.31.255.254/hook', '172.31.255.254 is a private address'],
  ['https://192.168.0.1/hook', '192.168.0.1 is a private address'],
  ['https://127.0.0.1/hook', '127.0.0.1 is a loopback address'],
  ['https://127.255.255.254/hook', '127.255.255.254 is a loopback address'],
  ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address (cloud metadata)'],
  ['https://[::1]/hook', '::1 is a loopback address'],
  ['https://[fe80::1]/hook', 'fe80::1 is a link-local address'],
  ['https://[fc00::1]/hook', 'fc00::1 is a unique-local address'],
  ['https://[fd00::1]/hook', 'fd00::1 is a unique-local address'],
  ['https://[fd00:ec2::254]/latest/meta-data/', 'fd00:ec2::254 is a unique-local address (cloud metadata)'],
  ['https://0.0.0.0/hook', '0.0.0.0 is the unspecified address'],
  // Decimal, hex, octal and short IPv4 spellings: the URL parser turns them into the address they are.
  ['https://2130706433/hook', '127.0.0.1 is a loopback address'],
  ['https://0x7f000001/hook', '127.0.0.1 is a loopback address'],
  ['https://0177.0.0.1/hook', '127.0.0.1 is a loopback address'],
  ['https://017700000001/hook', '127.0.0.1 is a loopback address'],
  ['https://127.1/hook', '127.0.0.1 is a loopback address'],
  ['https://167772161/hook', '10.0.0.1 is a private address'],
  ['https://0xc0a80001/hook', '192.168.0.1 is a private address'],
  ['https://2852039166/latest/meta-data/', '169.254.169.254 is a link-local address (cloud metadata)'],
  ['https://0xa9fea9fe/latest/meta-data/', '169.254.169.254 is a link-local address (cloud metadata)'],
  ['https://0251.0376.0251.0376/latest/meta-data/', '169.254.169.254 is a link-local address (cloud metadata)'],
  // IPv4-mapped IPv6: judged as the IPv4 address inside.
  ['https://[::ffff:127.0.0.1]/hook', '::ffff:7f00:1 (127.0.0.1) is a loopback address'],
  ['https://[::ffff:10.0.0.1]/hook', '::ffff:a00:1 (10.0.0.1) is a private address'],
  [
    'https://[::ffff:169.254.169.254]/latest/meta-data/',
    '::ffff:a9fe:a9fe (169.254.169.254) is a link-local address (cloud metadata)',
  ],
  ['https://[::ffff:7f00:1]/hook', '::ffff:7f00:1 (127.0.0.1) is a loopback address'],
  // Names that are loopback by definition, and plain http.
  ['https://localhost/hook', 'localhost is a loopback name'],
  ['https://LOCALHOST./hook', 'localhost is a loopback name'],
  ['https://api.localhost/hook', 'api.localhost is a loopback name'],
  ['http://127.0.0.1:8080/hook', HTTP_RULE],
];

/** Names the server's resolver (injected through Services.webhookPolicy) answers with private addresses. */
const RESOLVED_AT_REGISTRATION: [string, string[], string][] = [
  ['https://intranet.example/hook', ['10.1.2.3'], 'intranet.example resolves to 10.1.2.3, a private address'],
  [
    'https://metadata.example/latest/meta-data/',
    ['169.254.169.254'],
    'metadata.example resolves to 169.254.169.254, a link-local address (cloud metadata)',
  ],
  ['https://loop.example/hook', ['127.0.0.1'], 'loop.example resolves to 127.0.0.1, a loopback address'],
  ['https://loop6.example/hook', ['::1'], 'loop6.example resolves to ::1, a loopback address'],
  ['https://ula.example/hook', ['fd12::1'], 'ula.example resolves to fd12::1, a unique-local address'],
  [
    'https://mapped.example/hook',
    ['::ffff:127.0.0.1'],
    'mapped.example resolves to ::ffff:127.0.0.1 (127.0.0.1), a loopback address',
  ],
  ['https://mixed.example/hook', [PUBLIC, '192.168.7.7'], 'mixed.example resolves to 192.168.7.7, a private address'],
];

const listOf = async (s: TestServer, key: string): Promise<WebhookEndpoint[]> =>
  (await expectJson(await s.get(WEBHOOKS, { key }), WebhooksListResponseSchema.strict())).data;

/** Polls an endpoint's log until the delivery has left pending. */
async function settled(s: TestServer, key: string, webhookId: string, deliveryId: string): Promise<WebhookDelivery> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const log = await expectJson(
      await s.get(`${WEBHOOKS}/${webhookId}/deliveries`, { key }),
      DeliveriesResponseSchema.strict(),
    );
    const found = log.data.find((d) => d.id === deliveryId);
    if (found && found.status !== 'pending') return found;
    if (Date.now() > deadline) throw new Error(`delivery ${deliveryId} did not settle: ${JSON.stringify(found)}`);
    await pause(20);
  }
}

async function ping(s: TestServer, key: string, webhookId: string): Promise<WebhookDelivery> {
  return expectJson(
    await s.send('POST', `${WEBHOOKS}/${webhookId}/test`, undefined, key),
    WebhookDeliverySchema.strict(),
    202,
  );
}

describe.each(engines)('SSRF over HTTP without SVC_WEBHOOK_ALLOW_LOOPBACK on %s', (engine) => {
  const dns = fakeDns({
    'public.example': [PUBLIC],
    ...Object.fromEntries(RESOLVED_AT_REGISTRATION.map(([url, addresses]) => [new URL(url).hostname, addresses])),
  });
  const server = useServer(
    engine,
    async (s) => {
      // The route reads Services.webhookPolicy on every request; its resolver is the seam UrlPolicy offers tests.
      // Names it does not know go to the system resolver, as in production.
      const system = s.services.webhookPolicy;
      expect(system).toEqual({ allowLoopback: false });
      s.services.webhookPolicy = {
        allowLoopback: false,
        resolve: (name) =>
          dns
            .resolve(name)
            .catch(async () => (await lookup(name, { all: true, verbatim: true })).map((a) => a.address)),
      };
    },
    { env: { ...ENV, SVC_WEBHOOK_ALLOW_LOOPBACK: 'false' } },
  );

  describe('at registration', () => {
    it.each(REFUSED_AT_REGISTRATION)('%s is a 400 naming body.url: %s; nothing is stored', async (url, reason) => {
      const s = server();
      const { key } = await s.issueKey('PROFESSIONAL');
      const problem = await expectInvalid(await s.send('POST', WEBHOOKS, { url, events: ['issuance.updated'] }, key), [
        'body.url',
      ]);
      expect(problem.errors?.[0]?.message).toBe(reason);
      expect(problem.detail).toBe(`the webhook URL is refused: ${reason}`);
      expect(await listOf(s, key)).toEqual([]);
    });

    it.each(RESOLVED_AT_REGISTRATION)(
      '%s, a name resolving to %j, is a 400 naming body.url; nothing is stored',
      async (url, _addresses, reason) => {
        const s = server();
        const { key } = await s.issueKey('PROFESSIONAL');
        const problem = await expectInvalid(
          await s.send('POST', WEBHOOKS, { url, events: ['issuance.updated'] }, key),
          ['body.url'],
        );
        expect(problem.errors?.[0]?.message).toBe(reason);
        expect(dns.asked).toContain(new URL(url).hostname);
        expect(await listOf(s, key)).toEqual([]);
      },
    );

    it.runIf(OWN_NAME)(
      "this machine's own host name, which the system resolver answers with a non-public address, is refused",
      async () => {
        const s = server();
        const { key } = await s.issueKey('PROFESSIONAL');
        const url = `https://${OWN_NAME?.name}/hook`;
        const problem = await expectInvalid(
          await s.send('POST', WEBHOOKS, { url, events: ['issuance.updated'] }, key),
          ['body.url'],
        );
        expect(problem.errors?.[0]?.message).toBe(OWN_NAME?.refusal);
      },
    );

    it('the same server registers a public address and a name resolving to one: the refusals above are about the address', async () => {
      const s = server();
      const { key } = await s.issueKey('PROFESSIONAL');
      for (const url of [`https://${PUBLIC}/hook`, 'https://public.example/hook']) {
        await expectJson(
          await s.send('POST', WEBHOOKS, { url, events: ['issuance.updated'] }, key),
          WebhookEndpointSchema,
          201,
        );
      }
      expect((await listOf(s, key)).map((e) => e.url)).toEqual([
        `https://${PUBLIC}/hook`,
        'https://public.example/hook',
      ]);
    });
  });

  describe("at delivery, by the server's own dispatcher", () => {
    let listener: Listener;
    beforeAll(async () => {
      listener = await countingListener();
    });
    afterAll(async () => {
      await listener.close();
    });

    it('an endpoint whose stored URL turns private after registration is never connected to: every attempt is "not sent"', async () => {
      const s = server();
      const { key } = await s.issueKey('PROFESSIONAL');
      const port = listener.port;
      const turned: [string, string][] = [
        [`https://127.0.0.1:${port}/hook`, '127.0.0.1 is a loopback address'],
        [`https://[::1]:${port}/hook`, '::1 is a loopback address'],
        [`https://[::ffff:127.0.0.1]:${port}/hook`, '::ffff:7f00:1 (127.0.0.1) is a loopback address'],
        [`https://2130706433:${port}/hook`, '127.0.0.1 is a loopback address'],
        [`https://localhost:${port}/hook`, 'localhost is a loopback name'],
        [`http://127.0.0.1:${port}/hook`, HTTP_RULE],
        ['https://10.0.0.1/hook', '10.0.0.1 is a private address'],
        ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is a link-local address (cloud metadata)'],
        ['https://[fd00:ec2::254]/latest/meta-data/', 'fd00:ec2::254 is a unique-local address (cloud metadata)'],
        ...(OWN_NAME ? [[`https://${OWN_NAME.name}:${port}/hook`, OWN_NAME.refusal] as [string, string]] : []),
      ];
      const { db } = s.services.store;
      const queued: { endpoint: WebhookEndpoint; delivery: WebhookDelivery; reason: string }[] = [];
      for (const [n, [url, reason]] of turned.entries()) {
        const endpoint = await expectJson(
          await s.send('POST', WEBHOOKS, { url: `https://${PUBLIC}/hook/${n}`, events: ['issuance.updated'] }, key),
          WebhookEndpointSchema,
          201,
        );
        // What a tampered row or a bug elsewhere could leave: the delivery must judge the URL it is about to use.
        await db.updateTable('webhook_endpoints').set({ url }).where('id', '=', endpoint.id).execute();
        queued.push({ endpoint, delivery: await ping(s, key, endpoint.id), reason });
      }
      for (const { endpoint, delivery, reason } of queued) {
        const done = await settled(s, key, endpoint.id, delivery.id);
        expect(done.status, endpoint.id).toBe('failed');
        expect(done.attempt_log.map((a) => [a.status_code, a.error])).toEqual([
          [null, `not sent: ${reason}`],
          [null, `not sent: ${reason}`],
        ]);
      }
      expect(listener.connections).toBe(0);
    });
  });
});

describe.each(engines)('redirects at delivery, through the server (loopback receivers allowed) on %s', (engine) => {
  const server = useServer(engine, async () => {}, { env: ENV });
  let receiver: Receiver;
  let listener: Listener;
  beforeAll(async () => {
    receiver = await startReceiver();
    listener = await countingListener();
  });
  afterAll(async () => {
    await receiver.close();
    await listener.close();
  });

  it('a 3xx to loopback, metadata or private addresses is never followed: the target gets nothing, the attempt fails', async () => {
    const s = server();
    const { key } = await s.issueKey('PROFESSIONAL');
    const port = listener.port;
    const redirects: [number, string][] = [
      [302, `http://127.0.0.1:${port}/internal`],
      [307, 'http://169.254.169.254/latest/meta-data/iam/security-credentials/'],
      [308, `http://[::1]:${port}/internal`],
      [301, 'https://10.0.0.1/admin'],
      [303, `http://localhost:${port}/`],
      // The receiver itself, at another path: a followed redirect would show there.
      [307, `http://127.0.0.1:${receiver.port}/followed`],
    ];
    receiver.answer((request) => {
      const n = Number(request.path.split('/').pop());
      const [status, location] = redirects[n] ?? [500, ''];
      return { status, headers: { location }, body: 'moved' };
    });
    const queued: { webhookId: string; deliveryId: string; status: number; location: string }[] = [];
    for (const [n, [status, location]] of redirects.entries()) {
      const url = `http://127.0.0.1:${receiver.port}/redirecting/${n}`;
      const endpoint = await expectJson(
        await s.send('POST', WEBHOOKS, { url, events: ['issuance.updated'] }, key),
        WebhookEndpointSchema,
        201,
      );
      queued.push({ webhookId: endpoint.id, deliveryId: (await ping(s, key, endpoint.id)).id, status, location });
    }
    for (const { webhookId, deliveryId, status, location } of queued) {
      const done = await settled(s, key, webhookId, deliveryId);
      expect(done.status).toBe('failed');
      expect(done.attempt_log.map((a) => [a.status_code, a.error])).toEqual([
        [status, `redirects are not followed (to ${location})`],
        [status, `redirects are not followed (to ${location})`],
      ]);
    }
    expect(receiver.received.map((r) => r.path).sort()).toEqual(
      redirects.flatMap((_, n) => [`/redirecting/${n}`, `/redirecting/${n}`]).sort(),
    );
    expect(listener.connections).toBe(0);
  });
});

describe.each(engines)('a name re-pointed at loopback between check and connect, on %s', (engine) => {
  const store = useFreshStore(engine);
  const box = secretBox(Buffer.alloc(32, 3));
  const clock = manualClock('2026-07-01T09:00:00.000Z');
  let listener: Listener;
  beforeAll(async () => {
    listener = await countingListener();
  });
  afterAll(async () => {
    await listener.close();
  });

  /**
   * Registers `https://NAME:PORT/hook` while the name resolves to a public address, pings it, and lets one
   * dispatcher attempt it with the delivery-time DNS and policy; returns the attempt's error and what DNS was asked.
   */
  async function deliverWith(name: string, atDelivery: () => string[], allowLoopback = false) {
    const ws = await createWorkspace(ctxOf(store, { clock, box }), { name: 'consumer' });
    const url = `https://${name}:${listener.port}/hook`;
    const registration: UrlPolicy = { allowLoopback: false, resolve: fakeDns({ [name]: [PUBLIC] }).resolve };
    const endpoint = await registerWebhook(
      ctxOf(store, { clock, policy: registration, workspaceId: ws.workspace_id }),
      {
        url,
        events: ['issuance.updated'],
      },
    );
    await pingWebhook(ctxOf(store, { clock, workspaceId: ws.workspace_id }), { webhookId: endpoint.id });
    const dns = fakeDns({ [name]: atDelivery });
    const dispatcher = new WebhookDispatcher({
      store,
      box,
      logger: pino({ level: 'silent' }),
      policy: { allowLoopback, resolve: dns.resolve },
      schedule: [],
      timeoutMs: 1000,
      pollMs: 20,
      concurrency: 1,
    });
    expect(await dispatcher.drain()).toBe(1);
    await dispatcher.stop();
    const [delivery] = await listDeliveries(store.db, endpoint.id, { limit: 10 });
    const [attempt] = await attemptsOf(store.db, [delivery?.id ?? '']);
    return { error: attempt?.error, status: attempt?.status_code, asked: dns.asked };
  }

  it('public at the check, loopback at the connect: the guarded lookup refuses and nothing connects', async () => {
    const answers = [[PUBLIC], ['127.0.0.1']];
    const outcome = await deliverWith('rebind.example', () => answers.shift() ?? ['127.0.0.1']);
    expect(outcome).toEqual({
      error: 'not sent: webhook host rebind.example refused: 127.0.0.1 is a loopback address',
      status: null,
      // Once for the delivery-time check, once by the socket's lookup: the second answer is the one refused.
      asked: ['rebind.example', 'rebind.example'],
    });
    expect(listener.connections).toBe(0);
  });

  it('public at the check, a mixed answer with a private address at the connect: refused, nothing connects', async () => {
    const answers = [[PUBLIC], [PUBLIC, '::1']];
    const outcome = await deliverWith('mixed-rebind.example', () => answers.shift() ?? ['::1']);
    expect(outcome.error).toBe('not sent: webhook host mixed-rebind.example refused: ::1 is a loopback address');
    expect(listener.connections).toBe(0);
  });

  it('a name that resolved publicly at registration and resolves to loopback at delivery: the check refuses it', async () => {
    const outcome = await deliverWith('moved.example', () => ['127.0.0.1']);
    expect(outcome).toEqual({
      error: 'not sent: moved.example resolves to 127.0.0.1, a loopback address',
      status: null,
      asked: ['moved.example'],
    });
    expect(listener.connections).toBe(0);
  });

  it('control: with the loopback allowance the same re-pointed name does connect, so the counts above can see one', async () => {
    const answers = [[PUBLIC], ['127.0.0.1']];
    const before = listener.connections;
    const outcome = await deliverWith('allowed.example', () => answers.shift() ?? ['127.0.0.1'], true);
    expect(outcome.status).toBeNull();
    expect(outcome.error).not.toMatch(/^not sent/);
    expect(listener.connections).toBe(before + 1);
  });
});
