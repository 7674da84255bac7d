import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  DeliveriesResponseSchema,
  IndicatorPublishedDataSchema,
  PingDataSchema,
  WEBHOOK_EVENT_SCHEMAS,
  WEBHOOK_EVENT_TYPES,
  type WebhookDelivery,
  WebhookDeliverySchema,
  type WebhookEndpoint,
  WebhookEndpointSchema,
  type WebhookEvent,
  WebhookEventSchema,
  type WebhookEventType,
  WebhooksListResponseSchema,
} from '@svc/contracts';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { engineIndicator, example, WORKED_ID } from '../support/documents.js';
import { type Received, type Receiver, startReceiver } from '../support/receiver.js';
import { expectInvalid, expectJson, expectProblem, nextLinkOf } from '../support/responses.js';
import { type IssuedKey, publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { keyedRouteSecurity } from './security.js';

/** Retries within a fraction of a second, so a test sees a delivery's whole life. */
const WEBHOOK_ENV = {
  SVC_WEBHOOK_RETRY_SCHEDULE: '30ms,60ms,120ms',
  SVC_WEBHOOK_POLL_INTERVAL: '50ms',
  SVC_WEBHOOK_TIMEOUT: '2s',
};

/** How long "nothing more arrives" is watched for: several times the whole retry schedule. */
const QUIET_MS = 500;

const HTTP_RULE =
  'plain http is allowed only to loopback addresses, and only when SVC_WEBHOOK_ALLOW_LOOPBACK is enabled';

const WEBHOOKS = '/api/v1/webhooks';
const ListSchema = WebhooksListResponseSchema.strict();
const EndpointSchema = WebhookEndpointSchema.strict();
const DeliverySchema = WebhookDeliverySchema.strict();
const LogSchema = DeliveriesResponseSchema.strict();

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every 25 ms until it returns a value, failing after `timeoutMs`. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await pause(25);
  }
}

/** A receiver's headers as the string record a Standard Webhooks library takes. */
function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Checks a request a receiver got as a consumer would, independently of the service's code:
 * `x-svc-signature` with node:crypto, the Standard Webhooks headers with the published library;
 * returns the event, parsed by the contract.
 */
function expectSigned(request: Received, secret: string): WebhookEvent {
  const raw = request.raw.toString('utf8');
  const headers = flatHeaders(request.headers);
  expect(request.method).toBe('POST');
  expect(request.path).toMatch(/^\/hook\/r[0-9a-f]{16}$/);
  expect(headers['content-type']).toBe('application/json');
  const hex = createHmac('sha256', Buffer.from(secret, 'utf8')).update(request.raw).digest('hex');
  expect(headers['x-svc-signature']).toBe(hex);
  const verified = new Webhook(secret).verify(raw, headers);
  const event = WebhookEventSchema.parse(JSON.parse(raw));
  expect(verified).toEqual(JSON.parse(raw));
  expect(headers['x-svc-event-id']).toBe(event.id);
  expect(headers['webhook-id']).toBe(event.id);
  expect(headers['webhook-timestamp']).toBe(headers['x-svc-timestamp']);
  // A verifier that accepted anything would make the checks above worthless.
  expect(() => new Webhook(secret).verify(`${raw} `, headers)).toThrow();
  return event;
}

const attemptOf = (request: Received) => request.headers['x-svc-delivery-attempt'];

describe.each(engines)('webhooks over HTTP on %s', (engine) => {
  const server = useServer(engine, async () => {}, { env: WEBHOOK_ENV });

  /** Receivers started by a test, closed after it. */
  const receivers: Receiver[] = [];
  const receiver = async () => {
    // A path of its own: a port given again after another test's receiver closed it still gets that test's retries.
    const r = await startReceiver(`/hook/r${randomBytes(8).toString('hex')}`, { ownPathOnly: true });
    receivers.push(r);
    return r;
  };
  afterEach(async () => {
    for (const r of receivers.splice(0)) await r.close();
  });

  const issue = (tier: 'FREE' | 'PROFESSIONAL' = 'PROFESSIONAL'): Promise<IssuedKey> => server().issueKey(tier);

  const register = async (key: string, url: string, events: WebhookEventType[] = ['issuance.updated']) => {
    const res = await server().send('POST', WEBHOOKS, { url, events }, key);
    const endpoint = await expectJson(res, EndpointSchema, 201);
    expect(res.headers.get('location')).toBe(`${WEBHOOKS}/${endpoint.id}`);
    return endpoint;
  };

  const list = async (key: string): Promise<WebhookEndpoint[]> =>
    (await expectJson(await server().get(WEBHOOKS, { key }), ListSchema)).data;

  const ping = async (key: string, webhookId: string): Promise<WebhookDelivery> =>
    expectJson(await server().send('POST', `${WEBHOOKS}/${webhookId}/test`, undefined, key), DeliverySchema, 202);

  const log = async (key: string, webhookId: string, query = '') =>
    expectJson(await server().get(`${WEBHOOKS}/${webhookId}/deliveries${query}`, { key }), LogSchema);

  /** Polls the delivery log until the delivery has left `pending`, and returns it. */
  const settled = (key: string, webhookId: string, deliveryId: string) =>
    until(`delivery ${deliveryId} to settle`, async () => {
      const found = (await log(key, webhookId)).data.find((d) => d.id === deliveryId);
      return found && found.status !== 'pending' ? found : undefined;
    });

  const redeliverPath = (webhookId: string, deliveryId: string) =>
    `${WEBHOOKS}/${webhookId}/deliveries/${deliveryId}/redeliver`;

  describe('security', () => {
    let shared: Receiver | undefined;
    beforeAll(async () => {
      shared = await startReceiver();
    });
    afterAll(async () => {
      await shared?.close();
    });

    keyedRouteSecurity(
      'createWebhook',
      server,
      () => WEBHOOKS,
      () => ({ url: shared?.url, events: ['methodology.published'] }),
    );
    keyedRouteSecurity('listWebhooks', server, () => WEBHOOKS);
  });

  describe('registration', () => {
    it('POST /webhooks answers 201 with an active WebhookEndpoint and its Location, and GET lists it', async () => {
      const { key } = await issue();
      const r = await receiver();
      const res = await server().send(
        'POST',
        WEBHOOKS,
        { url: r.url, events: ['risk_indicator.published', 'issuance.updated'], description: 'ops alerts' },
        key,
      );
      const endpoint = await expectJson(res, EndpointSchema, 201);
      expect(endpoint.id).toMatch(/^wh_[0-9a-f]{24}$/);
      expect(res.headers.get('location')).toBe(`${WEBHOOKS}/${endpoint.id}`);
      expect(endpoint).toMatchObject({
        url: r.url,
        events: ['risk_indicator.published', 'issuance.updated'],
        description: 'ops alerts',
        status: 'active',
        disabled_at: null,
        disabled_reason: null,
      });
      expect(Math.abs(Date.parse(endpoint.created_at) - Date.now())).toBeLessThan(60_000);
      expect(await list(key)).toEqual([endpoint]);
    });

    it('the URL is stored normalised: scheme and host lower-cased, dot segments resolved', async () => {
      const { key } = await issue();
      const r = await receiver();
      const endpoint = await register(key, `HTTP://127.0.0.1:${r.port}/a/..${new URL(r.url).pathname}`);
      expect(endpoint.url).toBe(r.url);
      expect((await list(key)).map((e) => e.url)).toEqual([r.url]);
    });

    it('with SVC_WEBHOOK_ALLOW_LOOPBACK on, https to a loopback address is allowed, a decimal IPv4 host included, stored dotted', async () => {
      const { key } = await issue();
      expect((await register(key, 'https://2130706433/hook')).url).toBe('https://127.0.0.1/hook');
      expect((await register(key, 'https://[::1]/hook')).url).toBe('https://[::1]/hook');
      expect((await list(key)).map((e) => e.url)).toEqual(['https://127.0.0.1/hook', 'https://[::1]/hook']);
    });

    it('the same active URL twice in a workspace is a 400 naming body.url and the endpoint it duplicates, in any spelling', async () => {
      const { key } = await issue();
      const r = await receiver();
      const first = await register(key, r.url);
      const own = new URL(r.url).pathname;
      for (const url of [r.url, `http://127.0.0.1:${r.port}/x/..${own}`, `HTTP://127.0.0.1:${r.port}${own}`]) {
        const dup = await expectInvalid(
          await server().send('POST', WEBHOOKS, { url, events: ['methodology.published'] }, key),
          ['body.url'],
        );
        expect(dup.errors?.[0]?.message).toContain(`already registered as ${first.id}`);
      }
      expect(await list(key)).toEqual([first]);
      // Another workspace may register the same URL.
      const other = await issue();
      expect((await register(other.key, r.url)).id).not.toBe(first.id);
    });

    it('a workspace may have 20 endpoints: the 21st is a 409 too_many_webhooks, and deleting one makes room', async () => {
      const { key } = await issue();
      // Nothing emits methodology.published here, so nothing is sent (and port 1024 is not a system port).
      const url = (n: number) => `https://127.0.0.1:1024/hooks/${n}`;
      const made: WebhookEndpoint[] = [];
      for (let n = 1; n <= 20; n++) made.push(await register(key, url(n), ['methodology.published']));
      const res = await server().send('POST', WEBHOOKS, { url: url(21), events: ['methodology.published'] }, key);
      const problem = await expectProblem(res, 'too_many_webhooks');
      expect(problem.detail).toContain('20');
      expect((await list(key)).map((e) => e.id)).toEqual(made.map((e) => e.id));

      const gone = made[0]?.id ?? '';
      expect((await server().send('DELETE', `${WEBHOOKS}/${gone}`, undefined, key)).status).toBe(204);
      await register(key, url(21), ['methodology.published']);
      expect(await list(key)).toHaveLength(20);
    });
  });

  describe('bad registrations', () => {
    interface Bad {
      proves: string;
      body: unknown;
      paths: string[];
      /** What the first error's message must say. */
      says: string | RegExp;
    }
    const long = `https://example.com/${'a'.repeat(2048)}`;
    const bad: Bad[] = [
      {
        proves: 'http to a public address is refused',
        body: { url: 'http://93.184.216.34/hook', events: ['issuance.updated'] },
        paths: ['body.url'],
        says: HTTP_RULE,
      },
      {
        proves: 'a private address is refused',
        body: { url: 'https://10.0.0.1/hook', events: ['issuance.updated'] },
        paths: ['body.url'],
        says: '10.0.0.1 is a private address',
      },
      {
        proves: 'the cloud metadata address is refused and named',
        body: { url: 'https://169.254.169.254/latest/meta-data/', events: ['issuance.updated'] },
        paths: ['body.url'],
        says: '169.254.169.254 is a link-local address (cloud metadata)',
      },
      {
        proves: 'a decimal spelling of a private address is refused as the address it is',
        body: { url: 'https://167772161/hook', events: ['issuance.updated'] },
        paths: ['body.url'],
        says: '10.0.0.1 is a private address',
      },
      {
        proves: 'port 0 is refused: no receiver can listen there',
        body: { url: 'https://93.184.216.34:0/hook', events: ['issuance.updated'] },
        paths: ['body.url'],
        says: 'port 0 is not a port a receiver can listen on',
      },
      {
        proves: 'a system port below 1024 is refused, naming the ports allowed',
        body: { url: 'https://93.184.216.34:25/hook', events: ['issuance.updated'] },
        paths: ['body.url'],
        says: 'port 25 is a system port (below 1024) that cannot be a webhook receiver; use 443, 80 or a port from 1024 up',
      },
      {
        proves: 'a URL carrying a user name and password is refused',
        body: { url: 'https://user:pass@93.184.216.34/hook', events: ['issuance.updated'] },
        paths: ['body.url'],
        says: 'must not carry a user name or password',
      },
      {
        proves: 'text that is not a URL is refused',
        body: { url: 'not a url', events: ['issuance.updated'] },
        paths: ['body.url'],
        says: 'must be an absolute https URL',
      },
      {
        proves: 'a scheme other than https is refused',
        body: { url: 'ftp://93.184.216.34/hook', events: ['issuance.updated'] },
        paths: ['body.url'],
        says: 'must use https',
      },
      {
        proves: 'a URL over 2048 characters is refused',
        body: { url: long, events: ['issuance.updated'] },
        paths: ['body.url'],
        says: 'at most 2048 characters',
      },
      {
        proves: 'an empty event list is refused',
        body: { url: 'https://93.184.216.34/hook', events: [] },
        paths: ['body.events'],
        says: 'must name at least one event',
      },
      {
        proves: 'an unknown event is refused, naming the events there are',
        body: { url: 'https://93.184.216.34/hook', events: ['issuance.updated', 'risk_indicator.deleted'] },
        paths: ['body.events.1'],
        says: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
      },
      {
        proves: 'ping cannot be subscribed to',
        body: { url: 'https://93.184.216.34/hook', events: ['ping'] },
        paths: ['body.events.0'],
        says: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
      },
      {
        proves: 'an event named twice is refused',
        body: { url: 'https://93.184.216.34/hook', events: ['issuance.updated', 'issuance.updated'] },
        paths: ['body.events'],
        says: 'must not name an event twice',
      },
      {
        proves: 'an unknown field is refused',
        body: { url: 'https://93.184.216.34/hook', events: ['issuance.updated'], secret: 'mine' },
        paths: ['body.secret'],
        says: 'is not a field of this endpoint',
      },
      {
        proves: 'a missing url is refused',
        body: { events: ['issuance.updated'] },
        paths: ['body.url'],
        says: 'is required',
      },
      {
        proves: 'a url that is not a string is refused',
        body: { url: 42, events: ['issuance.updated'] },
        paths: ['body.url'],
        says: 'must be a string',
      },
      {
        proves: 'events that are not a list are refused',
        body: { url: 'https://93.184.216.34/hook', events: 'issuance.updated' },
        paths: ['body.events'],
        says: 'must be an array',
      },
      {
        proves: 'a blank description is refused',
        body: { url: 'https://93.184.216.34/hook', events: ['issuance.updated'], description: '   ' },
        paths: ['body.description'],
        says: 'must not be empty',
      },
      {
        proves: 'a description with a terminal escape is refused, naming the character',
        body: { url: 'https://93.184.216.34/hook', events: ['issuance.updated'], description: 'ops\u001b[2J' },
        paths: ['body.description'],
        says: 'must not hold control characters, bidirectional overrides or line separators; found U+001B at character 4',
      },
      {
        proves: 'a description with a line break or a bidi override is refused',
        body: { url: 'https://93.184.216.34/hook', events: ['issuance.updated'], description: 'ops\r\n\u202eteam' },
        paths: ['body.description'],
        says: 'found U+000D at character 4',
      },
      {
        proves: 'a body that is not an object is refused',
        body: ['https://93.184.216.34/hook'],
        paths: ['body'],
        says: 'must be an object',
      },
      {
        proves: 'every problem of a body is listed at once',
        body: { url: 7, events: [] },
        paths: ['body.url', 'body.events'],
        says: /must be a string|must name at least one event/,
      },
    ];

    it.each(bad)('$proves: a 400 naming $paths, and nothing is stored', async ({ body, paths, says }) => {
      const { key } = await issue();
      const problem = await expectInvalid(await server().send('POST', WEBHOOKS, body, key), paths);
      const message = problem.errors?.[0]?.message ?? '';
      if (typeof says === 'string') expect(message).toContain(says);
      else expect(message).toMatch(says);
      expect(problem.detail).toContain(message);
      expect(await list(key)).toEqual([]);
    });

    it('a body that is not JSON is a 400 naming body, and nothing is stored', async () => {
      const { key } = await issue();
      const res = await server().get(WEBHOOKS, {
        key,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"url": "https://93.184.216.34/hook", "events": [',
      });
      const problem = await expectInvalid(res, ['body']);
      expect(problem.errors?.[0]?.message).toContain('is not valid JSON');
      expect(await list(key)).toEqual([]);
    });

    it('a body nested thousands deep is a 400 that says so, and nothing is stored', async () => {
      const { key } = await issue();
      const res = await server().get(WEBHOOKS, {
        key,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"url": "https://93.184.216.34/hook", "events": ${'['.repeat(30_000)}${']'.repeat(30_000)}}`,
      });
      const problem = await expectInvalid(res, ['body']);
      expect(problem.errors?.[0]?.message).toBe('is not valid JSON: arrays and objects are nested too deeply to read');
      expect(await list(key)).toEqual([]);
    });

    it('a body that is not application/json is a 415, and nothing is stored', async () => {
      const { key } = await issue();
      const res = await server().get(WEBHOOKS, {
        key,
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ url: 'https://93.184.216.34/hook', events: ['issuance.updated'] }),
      });
      await expectProblem(res, 'unsupported_media_type');
      expect(await list(key)).toEqual([]);
    });
  });

  describe('isolation and access', () => {
    it("another workspace's key gets 404 on every route of an endpoint, does not list it, and leaves it untouched", async () => {
      const a = await issue();
      const b = await issue();
      const r = await receiver();
      const endpoint = await register(a.key, r.url);
      const delivery = await ping(a.key, endpoint.id);
      await settled(a.key, endpoint.id, delivery.id);

      const s = server();
      await expectProblem(await s.send('DELETE', `${WEBHOOKS}/${endpoint.id}`, undefined, b.key), 'not_found');
      await expectProblem(await s.get(`${WEBHOOKS}/${endpoint.id}/deliveries`, { key: b.key }), 'not_found');
      await expectProblem(await s.send('POST', `${WEBHOOKS}/${endpoint.id}/test`, undefined, b.key), 'not_found');
      await expectProblem(await s.send('POST', redeliverPath(endpoint.id, delivery.id), undefined, b.key), 'not_found');
      expect(await list(b.key)).toEqual([]);
      // Nor can B reach A's delivery through an endpoint of its own.
      const own = await register(b.key, r.url);
      await expectProblem(await s.send('POST', redeliverPath(own.id, delivery.id), undefined, b.key), 'not_found');
      expect((await log(b.key, own.id)).data).toEqual([]);

      expect(await list(a.key)).toEqual([endpoint]);
      const after = await log(a.key, endpoint.id);
      expect(after.data.map((d) => d.id)).toEqual([delivery.id]);
      expect(r.received).toHaveLength(1);
    });

    it('a FREE key gets 403 insufficient_tier on each of the six webhook routes', async () => {
      const a = await issue();
      const free = await issue('FREE');
      const r = await receiver();
      const endpoint = await register(a.key, r.url);
      const delivery = await ping(a.key, endpoint.id);
      const s = server();
      const answers = [
        await s.send('POST', WEBHOOKS, { url: r.url, events: ['issuance.updated'] }, free.key),
        await s.get(WEBHOOKS, { key: free.key }),
        await s.send('DELETE', `${WEBHOOKS}/${endpoint.id}`, undefined, free.key),
        await s.get(`${WEBHOOKS}/${endpoint.id}/deliveries`, { key: free.key }),
        await s.send('POST', `${WEBHOOKS}/${endpoint.id}/test`, undefined, free.key),
        await s.send('POST', redeliverPath(endpoint.id, delivery.id), undefined, free.key),
      ];
      for (const res of answers)
        expect((await expectProblem(res, 'insufficient_tier')).required_tier).toBe('PROFESSIONAL');
      expect(await list(a.key)).toEqual([endpoint]);
    });

    it('malformed webhook and delivery ids are a 400 naming the path parameter', async () => {
      const { key } = await issue();
      const r = await receiver();
      const endpoint = await register(key, r.url);
      const s = server();
      const badWebhook = [
        await s.send('DELETE', `${WEBHOOKS}/wh_xyz`, undefined, key),
        await s.get(`${WEBHOOKS}/wh_xyz/deliveries`, { key }),
        await s.send('POST', `${WEBHOOKS}/wh_xyz/test`, undefined, key),
        await s.send('POST', redeliverPath('wh_xyz', `whd_${'0'.repeat(24)}`), undefined, key),
      ];
      for (const res of badWebhook) {
        const problem = await expectInvalid(res, ['path.webhookId']);
        expect(problem.errors?.[0]?.message).toContain('must be a webhook id');
      }
      const problem = await expectInvalid(await s.send('POST', redeliverPath(endpoint.id, 'whd_1'), undefined, key), [
        'path.deliveryId',
      ]);
      expect(problem.errors?.[0]?.message).toContain('must be a delivery id');
      expect(await list(key)).toEqual([endpoint]);
    });

    it('a well-formed id that does not exist is a 404', async () => {
      const { key } = await issue();
      const r = await receiver();
      const endpoint = await register(key, r.url);
      const noWebhook = `wh_${'0'.repeat(24)}`;
      const noDelivery = `whd_${'0'.repeat(24)}`;
      const s = server();
      await expectProblem(await s.send('DELETE', `${WEBHOOKS}/${noWebhook}`, undefined, key), 'not_found');
      await expectProblem(await s.send('POST', `${WEBHOOKS}/${noWebhook}/test`, undefined, key), 'not_found');
      await expectProblem(await s.send('POST', redeliverPath(endpoint.id, noDelivery), undefined, key), 'not_found');
    });
  });

  describe('delivery', () => {
    it('POST /test answers 202 with a pending delivery, and the receiver gets a signed ping that both signatures verify', async () => {
      const { key, webhookSecret } = await issue();
      const r = await receiver();
      const endpoint = await register(key, r.url);
      const queued = await ping(key, endpoint.id);
      expect(queued).toMatchObject({
        webhook_id: endpoint.id,
        event_type: 'ping',
        status: 'pending',
        attempts: 0,
        delivered_at: null,
        redelivery_of: null,
        attempt_log: [],
      });
      expect(queued.id).toMatch(/^whd_[0-9a-f]{24}$/);

      const [request] = await r.waitFor(1);
      if (!request) throw new Error('no request');
      const event = expectSigned(request, webhookSecret);
      const pingEvent = WEBHOOK_EVENT_SCHEMAS.ping.strict().parse(event);
      expect(PingDataSchema.strict().parse(pingEvent.data).webhook_id).toBe(endpoint.id);
      expect(event.id).toBe(queued.event_id);
      expect(attemptOf(request)).toBe('1');
      // Another workspace's secret does not verify it.
      const other = await issue();
      expect(() =>
        new Webhook(other.webhookSecret).verify(request.raw.toString('utf8'), flatHeaders(request.headers)),
      ).toThrow();

      const done = await settled(key, endpoint.id, queued.id);
      expect(done.status).toBe('delivered');
      expect(done.attempts).toBe(1);
      expect(done.next_attempt_at).toBeNull();
      expect(done.delivered_at).not.toBeNull();
      expect(done.attempt_log).toHaveLength(1);
      const [attempt] = done.attempt_log;
      expect(attempt).toMatchObject({ attempt: 1, status_code: 200, error: null, response_excerpt: 'ok' });
      expect(attempt?.duration_ms).toBeGreaterThanOrEqual(0);
      expect(Date.parse(attempt?.started_at ?? '')).toBeGreaterThanOrEqual(Date.parse(queued.created_at));
    });

    it('an endpoint stored with port 0 (registered before ports were checked) is not sent to: the attempt says why', async () => {
      const { key } = await issue();
      const r = await receiver();
      const endpoint = await register(key, r.url);
      const stale = endpoint.url.replace(/:\d+\//, ':0/');
      expect(stale).not.toBe(endpoint.url);
      await server()
        .services.store.db.updateTable('webhook_endpoints')
        .set({ url: stale })
        .where('id', '=', endpoint.id)
        .execute();
      const queued = await ping(key, endpoint.id);
      const tried = await until('the first attempt', async () => {
        const found = (await log(key, endpoint.id)).data.find((d) => d.id === queued.id);
        return found && found.attempt_log.length > 0 ? found : undefined;
      });
      expect(tried.attempt_log[0]).toMatchObject({
        attempt: 1,
        status_code: null,
        error: 'not sent: port 0 is not a port a receiver can listen on',
      });
      expect(r.received).toHaveLength(0);
    });

    it('a publication reaches the endpoints subscribed to risk_indicator.published, with the contract data, and no other', async () => {
      const { key, webhookSecret } = await issue();
      const subscribed = await receiver();
      const unsubscribed = await receiver();
      const published = await register(key, subscribed.url, ['risk_indicator.published']);
      const other = await register(key, unsubscribed.url, ['issuance.updated']);

      const doc = example('worked-example');
      await publish(server(), doc);
      const [request] = await subscribed.waitFor(1);
      if (!request) throw new Error('no request');
      const event = expectSigned(request, webhookSecret);
      const typed = WEBHOOK_EVENT_SCHEMAS['risk_indicator.published'].strict().parse(event);
      const data = IndicatorPublishedDataSchema.strict().parse(typed.data);
      const indicator = engineIndicator(doc);
      expect(data).toMatchObject({
        provider_id: WORKED_ID,
        provider_name: doc.provider.name,
        risk_indicator_id: indicator.risk_indicator_id,
        final_score: indicator.final_score,
        risk_band: indicator.risk_band,
        change_type: 'NEW',
        previous_score: null,
        previous_band: null,
      });

      const [delivery] = (await log(key, published.id)).data;
      expect(delivery).toMatchObject({ event_id: event.id, event_type: 'risk_indicator.published' });
      await settled(key, published.id, delivery?.id ?? '');
      // Deliveries are written with the publication, so the other endpoint's empty log is final.
      expect((await log(key, other.id)).data).toEqual([]);
      expect(unsubscribed.received).toEqual([]);
      expect(subscribed.received).toHaveLength(1);
    });

    it('a 500 is retried on the schedule: attempt 1 logs 500, attempt 2 logs 200, same event id and bytes', async () => {
      const { key, webhookSecret } = await issue();
      const r = await receiver();
      r.answer((_, n) => (n === 0 ? { status: 500, body: 'down for a moment' } : { status: 200, body: 'ok' }));
      const endpoint = await register(key, r.url);
      const queued = await ping(key, endpoint.id);

      const [first, second] = await r.waitFor(2);
      if (!first || !second) throw new Error('no requests');
      expect(expectSigned(second, webhookSecret).id).toBe(expectSigned(first, webhookSecret).id);
      expect(second.raw.equals(first.raw)).toBe(true);
      expect([attemptOf(first), attemptOf(second)]).toEqual(['1', '2']);
      expect(second.at - first.at).toBeGreaterThanOrEqual(20); // 30 ms less the jitter

      const done = await settled(key, endpoint.id, queued.id);
      expect(done).toMatchObject({ status: 'delivered', attempts: 2, event_id: queued.event_id });
      expect(done.attempt_log).toMatchObject([
        { attempt: 1, status_code: 500, error: 'the receiver answered 500', response_excerpt: 'down for a moment' },
        { attempt: 2, status_code: 200, error: null },
      ]);
      expect(r.received).toHaveLength(2);
    });

    it('redelivery answers 202 with a new delivery of the same event, and the receiver gets the same bytes again', async () => {
      const { key, webhookSecret } = await issue();
      const r = await receiver();
      const endpoint = await register(key, r.url);
      const original = await ping(key, endpoint.id);
      await settled(key, endpoint.id, original.id);

      const res = await server().send('POST', redeliverPath(endpoint.id, original.id), undefined, key);
      const again = await expectJson(res, DeliverySchema, 202);
      expect(again.id).not.toBe(original.id);
      expect(again).toMatchObject({
        webhook_id: endpoint.id,
        event_id: original.event_id,
        event_type: 'ping',
        status: 'pending',
        attempts: 0,
        redelivery_of: original.id,
        attempt_log: [],
      });

      const [first, second] = await r.waitFor(2);
      if (!first || !second) throw new Error('no requests');
      expect(second.raw.equals(first.raw)).toBe(true);
      expect(expectSigned(second, webhookSecret).id).toBe(original.event_id);
      expect(attemptOf(second)).toBe('1');

      const done = await settled(key, endpoint.id, again.id);
      expect(done).toMatchObject({ status: 'delivered', redelivery_of: original.id, attempts: 1 });
      const entries = (await log(key, endpoint.id)).data;
      expect(entries.map((d) => d.id).sort()).toEqual([original.id, again.id].sort());
      expect(entries.find((d) => d.id === original.id)).toMatchObject({ status: 'delivered', attempts: 1 });
    });

    it('a 410 disables the endpoint with a reason; test and redeliver then answer 409, and registering the URL again works', async () => {
      const { key } = await issue();
      const r = await receiver();
      r.answer(() => ({ status: 410, body: 'gone' }));
      const endpoint = await register(key, r.url);
      const queued = await ping(key, endpoint.id);

      const disabled = await until('the endpoint to be disabled', async () =>
        (await list(key)).find((e) => e.id === endpoint.id && e.status === 'disabled'),
      );
      expect(disabled.disabled_reason).toContain('410');
      expect(disabled.disabled_at).not.toBeNull();
      const failed = await settled(key, endpoint.id, queued.id);
      expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
      expect(failed.attempt_log).toMatchObject([{ attempt: 1, status_code: 410 }]);

      const s = server();
      const test = await expectProblem(
        await s.send('POST', `${WEBHOOKS}/${endpoint.id}/test`, undefined, key),
        'webhook_disabled',
      );
      expect(test.detail).toContain(endpoint.id);
      await expectProblem(
        await s.send('POST', redeliverPath(endpoint.id, queued.id), undefined, key),
        'webhook_disabled',
      );
      expect((await log(key, endpoint.id)).data.map((d) => d.id)).toEqual([queued.id]);

      r.answer(() => ({ status: 200, body: 'ok' }));
      const fresh = await register(key, r.url);
      expect(fresh.id).not.toBe(endpoint.id);
      expect(fresh.status).toBe('active');
      expect((await list(key)).map((e) => [e.id, e.status])).toEqual([
        [endpoint.id, 'disabled'],
        [fresh.id, 'active'],
      ]);
      await settled(key, fresh.id, (await ping(key, fresh.id)).id);
      expect(r.received).toHaveLength(2);
    });

    it('DELETE answers 204; the endpoint is gone from every route, and its pending delivery is cancelled', async () => {
      const { key } = await issue();
      const r = await receiver();
      r.answer(() => 'hang');
      const endpoint = await register(key, r.url);
      const queued = await ping(key, endpoint.id);
      await r.waitFor(1);

      const s = server();
      const res = await s.send('DELETE', `${WEBHOOKS}/${endpoint.id}`, undefined, key);
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
      expect(await list(key)).toEqual([]);
      await expectProblem(await s.send('DELETE', `${WEBHOOKS}/${endpoint.id}`, undefined, key), 'not_found');
      await expectProblem(await s.get(`${WEBHOOKS}/${endpoint.id}/deliveries`, { key }), 'not_found');
      await expectProblem(await s.send('POST', `${WEBHOOKS}/${endpoint.id}/test`, undefined, key), 'not_found');
      await expectProblem(await s.send('POST', redeliverPath(endpoint.id, queued.id), undefined, key), 'not_found');

      // The attempt in flight runs into the timeout; what it records must not revive the delivery.
      const { db } = s.services.store;
      const stored = () =>
        db.selectFrom('webhook_deliveries').selectAll().where('id', '=', queued.id).executeTakeFirstOrThrow();
      expect((await stored()).status).toBe('cancelled');
      await until(
        'the timed-out attempt to be recorded',
        async () =>
          (await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', queued.id).execute())[0],
      );
      r.answer(() => ({ status: 200, body: 'ok' }));
      await pause(QUIET_MS);
      expect(r.received).toHaveLength(1);
      expect(await stored()).toMatchObject({ status: 'cancelled', next_attempt_at: null });
    });
  });

  describe('the delivery log', () => {
    it('pages newest first with next_cursor and a Link header, without duplicates or gaps, and filters by status', async () => {
      const { key } = await issue();
      const r = await receiver();
      const endpoint = await register(key, r.url);
      const delivered: string[] = [];
      for (let n = 0; n < 3; n++) delivered.push((await ping(key, endpoint.id)).id);
      await r.waitFor(3);
      r.answer(() => ({ status: 500, body: 'no' }));
      const failed: string[] = [];
      for (let n = 0; n < 2; n++) failed.push((await ping(key, endpoint.id)).id);
      for (const id of [...delivered, ...failed]) await settled(key, endpoint.id, id);

      const all = (await log(key, endpoint.id)).data;
      expect(all.map((d) => d.id).sort()).toEqual([...delivered, ...failed].sort());
      const newestFirst = [...all].sort((x, y) => y.created_at.localeCompare(x.created_at) || y.id.localeCompare(x.id));
      expect(all.map((d) => d.id)).toEqual(newestFirst.map((d) => d.id));
      // The later pings were created after the earlier ones were delivered.
      expect(
        all
          .slice(0, 2)
          .map((d) => d.id)
          .sort(),
      ).toEqual([...failed].sort());

      const paged: string[] = [];
      let path: string | null = `${WEBHOOKS}/${endpoint.id}/deliveries?limit=2`;
      let pages = 0;
      while (path !== null) {
        const res = await server().get(path, { key });
        const page = await expectJson(res, LogSchema);
        pages++;
        expect(page.data.length).toBeLessThanOrEqual(2);
        paged.push(...page.data.map((d) => d.id));
        const link = nextLinkOf(res);
        if (page.next_cursor === null) expect(link).toBeNull();
        else expect(link).toBe(`${WEBHOOKS}/${endpoint.id}/deliveries?limit=2&cursor=${page.next_cursor}`);
        path = link;
      }
      expect(pages).toBe(3);
      expect(paged).toEqual(all.map((d) => d.id));

      const ok = (await log(key, endpoint.id, '?status=delivered')).data;
      expect(ok.map((d) => d.id).sort()).toEqual([...delivered].sort());
      expect(ok.every((d) => d.status === 'delivered')).toBe(true);
      const bad = (await log(key, endpoint.id, '?status=failed')).data;
      expect(bad.map((d) => d.id).sort()).toEqual([...failed].sort());
      for (const d of bad) {
        expect(d.attempts).toBe(4); // the first try and the three retries of the schedule
        expect(d.attempt_log.map((a) => [a.attempt, a.status_code])).toEqual([
          [1, 500],
          [2, 500],
          [3, 500],
          [4, 500],
        ]);
      }
      const filteredRes = await server().get(`${WEBHOOKS}/${endpoint.id}/deliveries?status=delivered&limit=2`, { key });
      const filtered = await expectJson(filteredRes, LogSchema);
      expect(nextLinkOf(filteredRes)).toBe(
        `${WEBHOOKS}/${endpoint.id}/deliveries?status=delivered&limit=2&cursor=${filtered.next_cursor}`,
      );
      const rest = await log(key, endpoint.id, `?status=delivered&limit=2&cursor=${filtered.next_cursor}`);
      expect([...filtered.data, ...rest.data].map((d) => d.id)).toEqual(ok.map((d) => d.id));
      expect(rest.next_cursor).toBeNull();
    });

    it('a bad cursor, limit=0 or an unknown status is a 400 naming the query parameter', async () => {
      const { key } = await issue();
      const r = await receiver();
      const endpoint = await register(key, r.url);
      const base = `${WEBHOOKS}/${endpoint.id}/deliveries`;
      const s = server();
      const notACursor = Buffer.from(JSON.stringify({ n: 1 })).toString('base64url');
      for (const cursor of ['nope', notACursor]) {
        const problem = await expectInvalid(await s.get(`${base}?cursor=${cursor}`, { key }), ['query.cursor']);
        expect(problem.errors?.[0]?.message).toContain('next_cursor');
      }
      await expectInvalid(await s.get(`${base}?limit=0`, { key }), ['query.limit']);
      await expectInvalid(await s.get(`${base}?limit=501`, { key }), ['query.limit']);
      await expectInvalid(await s.get(`${base}?status=sent`, { key }), ['query.status']);
      await expectInvalid(await s.get(`${base}?since=2026-01-01`, { key }), ['query.since']);
    });

    it("an endpoint's log holds only its own deliveries, not those of the workspace's other endpoints", async () => {
      const { key } = await issue();
      const r1 = await receiver();
      const r2 = await receiver();
      const one = await register(key, r1.url);
      const two = await register(key, r2.url);
      const ofOne = [(await ping(key, one.id)).id, (await ping(key, one.id)).id];
      const ofTwo = [(await ping(key, two.id)).id];
      for (const id of ofOne) await settled(key, one.id, id);
      for (const id of ofTwo) await settled(key, two.id, id);

      const logOne = (await log(key, one.id)).data;
      const logTwo = (await log(key, two.id)).data;
      expect(logOne.map((d) => d.id).sort()).toEqual([...ofOne].sort());
      expect(logTwo.map((d) => d.id)).toEqual(ofTwo);
      expect(logOne.every((d) => d.webhook_id === one.id)).toBe(true);
      expect(logTwo.every((d) => d.webhook_id === two.id)).toBe(true);
      expect([r1.received.length, r2.received.length]).toEqual([2, 1]);
      // A delivery is redelivered only through its own endpoint.
      await expectProblem(
        await server().send('POST', redeliverPath(two.id, ofOne[0] ?? ''), undefined, key),
        'not_found',
      );
    });
  });
});

describe.each(engines)('webhook registration without SVC_WEBHOOK_ALLOW_LOOPBACK on %s', (engine) => {
  const server = useServer(engine, async () => {}, { env: { ...WEBHOOK_ENV, SVC_WEBHOOK_ALLOW_LOOPBACK: 'false' } });
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('http to a loopback receiver is a 400 that names SVC_WEBHOOK_ALLOW_LOOPBACK, and nothing is stored', async () => {
    const { key } = await server().issueKey('PROFESSIONAL');
    const url = receiver?.url ?? '';
    const problem = await expectInvalid(
      await server().send('POST', WEBHOOKS, { url, events: ['issuance.updated'] }, key),
      ['body.url'],
    );
    expect(problem.errors?.[0]?.message).toContain('SVC_WEBHOOK_ALLOW_LOOPBACK');
    expect(problem.detail).toContain('SVC_WEBHOOK_ALLOW_LOOPBACK');
    const list = await expectJson(await server().get(WEBHOOKS, { key }), ListSchema);
    expect(list.data).toEqual([]);
  });

  it.each([
    ['https://127.0.0.1/hook', '127.0.0.1 is a loopback address'],
    ['https://[::1]/hook', '::1 is a loopback address'],
    ['https://2130706433/hook', '127.0.0.1 is a loopback address'],
    ['https://localhost/hook', 'localhost is a loopback name'],
    ['http://localhost/hook', HTTP_RULE],
  ])('%s is refused: %s', async (url, reason) => {
    const { key } = await server().issueKey('PROFESSIONAL');
    const problem = await expectInvalid(
      await server().send('POST', WEBHOOKS, { url, events: ['issuance.updated'] }, key),
      ['body.url'],
    );
    expect(problem.errors?.[0]?.message).toBe(reason);
    const list = await expectJson(await server().get(WEBHOOKS, { key }), ListSchema);
    expect(list.data).toEqual([]);
  });
});
