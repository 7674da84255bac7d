import { createHmac } from 'node:crypto';
import { WebhookEventSchema } from '@svc/contracts';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createWorkspace, rotateWebhookSecret } from '../../src/services/access/access.js';
import { publishFramework } from '../../src/services/frameworks/frameworks.js';
import { updateIssuance } from '../../src/services/issuances/issuances.js';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { secretBox } from '../../src/services/shared/secrets.js';
import { WebhookDispatcher } from '../../src/services/webhooks/dispatcher.js';
import { registerWebhook } from '../../src/services/webhooks/endpoints.js';
import { upsertIssuance } from '../../src/store/repositories/issuances.js';
import { attemptsOf, listDeliveries } from '../../src/store/repositories/webhooks.js';
import type { Store } from '../../src/store/store.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { framework, newProvider } from '../support/documents.js';
import { type Received, type Receiver, startReceiver } from '../support/receiver.js';
import { engines, useFreshStore } from '../support/stores.js';

const box = secretBox(Buffer.alloc(32, 9));
const silent = pino({ level: 'silent' });
const APPROVED_AT = '2026-06-02T10:00:00.000Z';

/** Node's own HMAC, independent of the service's signing code. */
const hex = (secret: string, raw: Buffer) =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(raw).digest('hex');

/** Polls until the condition holds (bounded), for outcomes written by a dispatcher running on its own. */
async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(engines)('webhook delivery on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock('2026-07-01T09:00:00.000Z');
  let receiver: Receiver;
  const dispatchers: WebhookDispatcher[] = [];

  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    for (const d of dispatchers.splice(0)) await d.stop();
    await receiver.close();
  });

  const dispatcher = (options: Partial<ConstructorParameters<typeof WebhookDispatcher>[0]> = {}) => {
    const d = new WebhookDispatcher({
      store,
      box,
      logger: silent,
      policy: { allowLoopback: true },
      schedule: [20, 40, 80],
      timeoutMs: 2000,
      pollMs: 20,
      concurrency: 8,
      ...options,
    });
    dispatchers.push(d);
    return d;
  };

  async function workspace(events: string[] = ['risk_indicator.published'], url = receiver.url) {
    const ws = await createWorkspace(ctxOf(store, { clock, box }), { name: 'consumer' });
    const endpoint = await registerWebhook(
      ctxOf(store, { clock, policy: { allowLoopback: true }, workspaceId: ws.workspace_id }),
      {
        url,
        events: events as never,
      },
    );
    return { ...ws, endpoint };
  }

  const publish = (variation = {}) =>
    publishIndicator(ctxOf(store, { clock }), { document: newProvider(variation), framework, approvedAt: APPROVED_AT });

  const deliveriesOf = (s: Store, endpointId: string) => listDeliveries(s.db, endpointId, { limit: 1000 });

  it('a publication reaches the receiver signed as the specification says and as Standard Webhooks says', async () => {
    const ws = await workspace();
    const outcome = await publish();
    expect(outcome.status).toBe('published');
    expect(await dispatcher().drain()).toBe(1);
    const [got] = await receiver.waitFor(1);
    const request = got as Received;
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');

    // x-svc-signature: hex HMAC-SHA-256 of the exact bytes received, keyed with the secret's UTF-8 bytes.
    expect(request.headers['x-svc-signature']).toBe(hex(ws.webhook_secret, request.raw));
    expect(request.headers['x-svc-signature-previous']).toBeUndefined();
    // The Standard Webhooks signature, recomputed with Node's crypto: base64 HMAC-SHA-256 of "id.timestamp.body",
    // keyed with the base64-decoded secret after whsec_.
    const standardKey = Buffer.from(ws.webhook_secret.slice('whsec_'.length), 'base64');
    const signed = `${request.headers['webhook-id']}.${request.headers['webhook-timestamp']}.${request.raw.toString('utf8')}`;
    expect(request.headers['webhook-signature']).toBe(
      `v1,${createHmac('sha256', standardKey).update(signed, 'utf8').digest('base64')}`,
    );
    // The same headers, checked by the published library (it refuses stale timestamps too).
    const event = new Webhook(ws.webhook_secret).verify(request.raw.toString('utf8'), {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    }) as { id: string };

    const body = WebhookEventSchema.parse(JSON.parse(request.raw.toString('utf8')));
    expect(event.id).toBe(body.id);
    expect(request.headers['x-svc-event-id']).toBe(body.id);
    expect(request.headers['webhook-id']).toBe(body.id);
    expect(request.headers['x-svc-delivery-attempt']).toBe('1');
    expect(request.headers['x-svc-timestamp']).toBe(request.headers['webhook-timestamp']);
    expect(Math.abs(Number(request.headers['x-svc-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(body.type).toBe('risk_indicator.published');
    if (body.type !== 'risk_indicator.published' || outcome.status !== 'published') throw new Error('unexpected');
    expect(body.data).toMatchObject({
      provider_id: outcome.indicator.provider_id,
      risk_indicator_id: outcome.indicator.risk_indicator_id,
      final_score: 78.46,
      risk_band: 'MEDIUM',
      change_type: 'NEW',
      previous_score: null,
      previous_band: null,
      score_verified_at: APPROVED_AT,
    });

    const [delivery] = await deliveriesOf(store, ws.endpoint.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, lease_owner: null, next_attempt_at: null });
    const log = await attemptsOf(store.db, [delivery?.id ?? '']);
    expect(log).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 200, error: null, response_excerpt: 'ok' }),
    ]);
  });

  it('a tampered body or another secret fails the checks a receiver makes', async () => {
    const ws = await workspace();
    await publish();
    await dispatcher().drain();
    const [request] = (await receiver.waitFor(1)) as [Received];
    const tampered = Buffer.from(request.raw.toString('utf8').replace('78.46', '98.46'));
    expect(request.headers['x-svc-signature']).not.toBe(hex(ws.webhook_secret, tampered));
    expect(request.headers['x-svc-signature']).not.toBe(hex(`${ws.webhook_secret}x`, request.raw));
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    expect(() => new Webhook(ws.webhook_secret).verify(tampered.toString('utf8'), headers)).toThrow();
  });

  it('a band change sends band_changed beside published; an unchanged re-publication sends nothing', async () => {
    const ws = await workspace(['risk_indicator.published', 'risk_indicator.band_changed']);
    const doc = newProvider();
    await publishIndicator(ctxOf(store, { clock }), { document: doc, framework, approvedAt: APPROVED_AT });
    const moved = newProvider({ provider: { id: doc.provider.id }, values: { collateral_coverage_ratio: 1.5 } });
    const outcome = await publishIndicator(ctxOf(store, { clock }), {
      document: moved,
      framework,
      approvedAt: APPROVED_AT,
    });
    expect(outcome).toMatchObject({ status: 'published', change: 'BAND_CHANGE' });
    expect(
      (await publishIndicator(ctxOf(store, { clock }), { document: moved, framework, approvedAt: APPROVED_AT })).status,
    ).toBe('unchanged');
    await dispatcher().drain();
    const bodies = (await receiver.waitFor(3)).map((r) => JSON.parse(r.raw.toString('utf8')));
    expect(bodies.map((b) => b.type).sort()).toEqual([
      'risk_indicator.band_changed',
      'risk_indicator.published',
      'risk_indicator.published',
    ]);
    const band = bodies.find((b) => b.type === 'risk_indicator.band_changed');
    expect(band.data).toMatchObject({
      provider_id: doc.provider.id,
      previous_band: 'MEDIUM',
      new_band: 'LOW',
      direction: 'improved',
    });
    expect((await deliveriesOf(store, ws.endpoint.id)).length).toBe(3);
  });

  it('withdrawals, issuance updates and framework releases are events too, written with their change', async () => {
    const ws = await workspace(['risk_indicator.withdrawn', 'issuance.updated', 'methodology.published']);
    const outcome = await publish();
    if (outcome.status !== 'published') throw new Error('not published');
    await withdrawProvider(ctxOf(store, { clock }), {
      providerId: outcome.indicator.provider_id,
      reason: 'coverage ended',
    });
    await upsertIssuance(store.db, {
      id: 'iss_0123456789abcdef01234567',
      issuer_name: 'Example Issuer',
      provider_id: null,
      instrument_name: 'Series A Preferred',
      ticker: null,
      type: 'preferred_share',
      status: 'ANNOUNCED',
      currency: 'USD',
      target_amount: '25000000',
      coupon_rate_pct: 8,
      coupon_frequency: 'monthly',
      expected_pricing_date: null,
      announced_at: '2026-06-01T00:00:00.000Z',
      updated_at: '2026-06-01T00:00:00.000Z',
    });
    await updateIssuance(ctxOf(store, { clock }), {
      id: 'iss_0123456789abcdef01234567',
      changes: { status: 'PRICING' },
    });
    // The same values again change nothing, so they send nothing.
    await updateIssuance(ctxOf(store, { clock }), {
      id: 'iss_0123456789abcdef01234567',
      changes: { status: 'PRICING' },
    });
    const release = await publishFramework(ctxOf(store, { clock }), { framework, signedOffBy: 'A. Officer' });
    expect(release.created).toBe(true);
    // Publishing the same version again records nothing and sends nothing.
    expect((await publishFramework(ctxOf(store, { clock }), { framework, signedOffBy: 'A. Officer' })).created).toBe(
      false,
    );
    await dispatcher().drain();
    const bodies = (await receiver.waitFor(3)).map((r) => WebhookEventSchema.parse(JSON.parse(r.raw.toString('utf8'))));
    expect(bodies.map((b) => b.type).sort()).toEqual([
      'issuance.updated',
      'methodology.published',
      'risk_indicator.withdrawn',
    ]);
    const methodology = bodies.find((b) => b.type === 'methodology.published');
    expect(methodology?.data).toMatchObject({
      version: '1.0',
      signed_off_by: 'A. Officer',
      framework_sha256: framework.sha256,
    });
    const issuance = bodies.find((b) => b.type === 'issuance.updated');
    expect(issuance?.data).toMatchObject({ changed_fields: ['status'], issuance: { status: 'PRICING' } });
    const withdrawn = bodies.find((b) => b.type === 'risk_indicator.withdrawn');
    expect(withdrawn?.data).toMatchObject({ reason: 'coverage ended', previous_band: 'MEDIUM' });
    expect((await deliveriesOf(store, ws.endpoint.id)).every((d) => d.status === 'delivered')).toBe(true);
  });

  it('a receiver that is down for a while gets every event once it is back, none lost', async () => {
    const ws = await workspace();
    await receiver.stop();
    // Short first retries, then a long tail: under load the publications may take a while, and no delivery
    // may spend its schedule before the receiver is back.
    const d = dispatcher({ schedule: [30, 60, ...Array.from({ length: 18 }, () => 300)] });
    d.start();
    for (let i = 0; i < 10; i++) await publish();
    const failing = await eventually(
      () => deliveriesOf(store, ws.endpoint.id),
      (rows) => rows.length === 10 && rows.every((r) => r.attempts >= 2),
    );
    expect(failing.every((r) => r.status === 'pending')).toBe(true);
    await receiver.restart();
    await eventually(
      () => deliveriesOf(store, ws.endpoint.id),
      (rows) => rows.every((r) => r.status === 'delivered'),
    );
    const ids = receiver.received.map((r) => JSON.parse(r.raw.toString('utf8')).id);
    expect(new Set(ids).size).toBe(10);
    expect(ids.length).toBe(10);
    const log = await attemptsOf(
      store.db,
      failing.map((r) => r.id),
    );
    expect(log.filter((a) => a.status_code === null).every((a) => a.error === 'connection refused')).toBe(true);
  });

  it('a receiver answering 500 then 200 is retried on the schedule and the delivery ends delivered', async () => {
    const ws = await workspace();
    receiver.answer((_r, i) => (i === 0 ? { status: 500, body: 'try later' } : { status: 204 }));
    await publish();
    dispatcher().start();
    const [first, second] = await receiver.waitFor(2);
    expect(second?.headers['x-svc-event-id']).toBe(first?.headers['x-svc-event-id']);
    expect(second?.raw.equals(first?.raw ?? Buffer.alloc(0))).toBe(true);
    expect([first?.headers['x-svc-delivery-attempt'], second?.headers['x-svc-delivery-attempt']]).toEqual(['1', '2']);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(15); // 20 ms less 20% jitter, at least
    const [delivery] = await eventually(
      () => deliveriesOf(store, ws.endpoint.id),
      (rows) => rows[0]?.status === 'delivered',
    );
    const log = await attemptsOf(store.db, [delivery?.id ?? '']);
    expect(log.map((a) => [a.attempt, a.status_code, a.error, a.response_excerpt])).toEqual([
      [1, 500, 'the receiver answered 500', 'try later'],
      [2, 204, null, null],
    ]);
  });

  it('when the schedule is spent the delivery is marked failed with every attempt in the log', async () => {
    const ws = await workspace();
    receiver.answer(() => ({ status: 503 }));
    await publish();
    dispatcher({ schedule: [10, 10] }).start();
    const [delivery] = await eventually(
      () => deliveriesOf(store, ws.endpoint.id),
      (rows) => rows[0]?.status === 'failed',
    );
    expect(delivery).toMatchObject({ attempts: 3, next_attempt_at: null });
    expect((await attemptsOf(store.db, [delivery?.id ?? ''])).map((a) => a.status_code)).toEqual([503, 503, 503]);
    expect(receiver.received.length).toBe(3);
  });

  it("a receiver's Retry-After is honoured as the least delay", async () => {
    await workspace();
    receiver.answer((_r, i) => (i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
    await publish();
    // Retry-After counts up to the schedule's longest step (24 h in production).
    dispatcher({ schedule: [10, 5000] }).start();
    const [first, second] = await receiver.waitFor(2, 5000);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('a receiver that does not answer in time counts as a failed attempt and is retried', async () => {
    const ws = await workspace();
    receiver.answer((_r, i) => (i === 0 ? 'hang' : { status: 200 }));
    await publish();
    dispatcher({ timeoutMs: 300 }).start();
    await receiver.waitFor(2, 5000);
    const [delivery] = await eventually(
      () => deliveriesOf(store, ws.endpoint.id),
      (rows) => rows[0]?.status === 'delivered',
    );
    const log = await attemptsOf(store.db, [delivery?.id ?? '']);
    expect(log[0]).toMatchObject({ attempt: 1, status_code: null, error: 'timed out after 300 ms' });
    expect(log[0]?.duration_ms).toBeGreaterThanOrEqual(290);
    expect(log[1]).toMatchObject({ attempt: 2, status_code: 200 });
  });

  it('redirects are not followed: the target is never called and the attempt fails', async () => {
    const elsewhere = await startReceiver('/elsewhere');
    try {
      const ws = await workspace();
      receiver.answer(() => ({ status: 307, headers: { location: elsewhere.url } }));
      await publish();
      dispatcher({ schedule: [10] }).start();
      const [delivery] = await eventually(
        () => deliveriesOf(store, ws.endpoint.id),
        (rows) => rows[0]?.status === 'failed',
      );
      const log = await attemptsOf(store.db, [delivery?.id ?? '']);
      expect(log[0]?.status_code).toBe(307);
      expect(log[0]?.error).toMatch(/^redirects are not followed/);
      expect(elsewhere.received.length).toBe(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('410 Gone disables the endpoint and cancels its other pending deliveries', async () => {
    const ws = await workspace();
    receiver.answer(() => ({ status: 410 }));
    await publish();
    await publish();
    await dispatcher({ concurrency: 1 }).drain();
    const rows = await deliveriesOf(store, ws.endpoint.id);
    expect(rows.map((r) => r.status).sort()).toEqual(['cancelled', 'failed']);
    const endpoint = await store.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', ws.endpoint.id)
      .executeTakeFirstOrThrow();
    expect(endpoint.status).toBe('disabled');
    expect(endpoint.disabled_reason).toMatch(/410 Gone/);
    expect(receiver.received.length).toBe(1);
    // A disabled endpoint gets no new events.
    await publish();
    expect((await deliveriesOf(store, ws.endpoint.id)).length).toBe(2);
  });

  it('two dispatchers on one store never send the same attempt twice, and deliver everything', async () => {
    const ws = await workspace();
    for (let i = 0; i < 40; i++) await publish();
    receiver.answer(() => ({ status: 200 }));
    const a = dispatcher({ concurrency: 4 });
    const b = dispatcher({ concurrency: 4 });
    await Promise.all([a.drain(), b.drain()]);
    const seen = receiver.received.map((r) => `${r.headers['x-svc-event-id']}#${r.headers['x-svc-delivery-attempt']}`);
    expect(seen.length).toBe(40);
    expect(new Set(seen).size).toBe(40);
    const rows = await deliveriesOf(store, ws.endpoint.id);
    expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true);
  });

  it('an expired lease (a dispatcher that died mid-attempt) is taken over with the next attempt number', async () => {
    const ws = await workspace();
    await publish();
    // A dispatcher claims the delivery and dies: its lease is left behind, already expired.
    await store.db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: 'dispatcher_dead', lease_until: '2026-01-01T00:00:00.000Z', attempts: 1 })
      .where('endpoint_id', '=', ws.endpoint.id)
      .execute();
    await dispatcher().drain();
    const [request] = (await receiver.waitFor(1)) as [Received];
    expect(request.headers['x-svc-delivery-attempt']).toBe('2');
    const [row] = await deliveriesOf(store, ws.endpoint.id);
    expect(row).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('a lease still running is left alone', async () => {
    const ws = await workspace();
    await publish();
    await store.db
      .updateTable('webhook_deliveries')
      .set({ lease_owner: 'dispatcher_busy', lease_until: new Date(Date.now() + 60_000).toISOString(), attempts: 1 })
      .where('endpoint_id', '=', ws.endpoint.id)
      .execute();
    expect(await dispatcher().drain()).toBe(0);
    expect(receiver.received.length).toBe(0);
  });

  it('during a rotation overlap both secrets sign; after it only the new one does', async () => {
    const ws = await workspace();
    // The overlap runs in the dispatcher's time, the system clock.
    const rotated = await rotateWebhookSecret(ctxOf(store, { clock: systemClock, box }), {
      workspaceId: ws.workspace_id,
      overlapMs: 3_600_000,
    });
    await publish();
    await dispatcher().drain();
    const [request] = (await receiver.waitFor(1)) as [Received];
    expect(request.headers['x-svc-signature']).toBe(hex(rotated.webhook_secret, request.raw));
    expect(request.headers['x-svc-signature-previous']).toBe(hex(ws.webhook_secret, request.raw));
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    // A receiver still on the old secret and one already on the new both accept it.
    expect(() => new Webhook(ws.webhook_secret).verify(request.raw.toString('utf8'), headers)).not.toThrow();
    expect(() => new Webhook(rotated.webhook_secret).verify(request.raw.toString('utf8'), headers)).not.toThrow();

    const ended = await rotateWebhookSecret(ctxOf(store, { clock: systemClock, box }), {
      workspaceId: ws.workspace_id,
      overlapMs: 0,
    });
    expect(ended.previous_secret_valid_until).toBeNull();
    await publish();
    await dispatcher().drain();
    const [, later] = (await receiver.waitFor(2)) as [Received, Received];
    expect(later.headers['x-svc-signature']).toBe(hex(ended.webhook_secret, later.raw));
    expect(later.headers['x-svc-signature-previous']).toBeUndefined();
    expect(String(later.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });

  it('an address refused at delivery (a stored URL to a private address) is never connected to', async () => {
    const ws = await workspace();
    await store.db
      .updateTable('webhook_endpoints')
      .set({ url: 'https://10.0.0.1/hook' })
      .where('id', '=', ws.endpoint.id)
      .execute();
    await publish();
    // A retry far away: one attempt is made, and the delivery waits for the next.
    await dispatcher({ schedule: [60_000] }).drain();
    const [row] = await deliveriesOf(store, ws.endpoint.id);
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    const log = await attemptsOf(store.db, [row?.id ?? '']);
    expect(log[0]?.error).toMatch(/^not sent: .*10\.0\.0\.1.*private/);
    expect(log[0]?.status_code).toBeNull();
  });

  it('a dispatcher without the loopback allowance refuses a loopback receiver at delivery', async () => {
    const ws = await workspace();
    await publish();
    await dispatcher({ policy: { allowLoopback: false }, schedule: [10] }).drain();
    expect(receiver.received.length).toBe(0);
    const [row] = await deliveriesOf(store, ws.endpoint.id);
    const log = await attemptsOf(store.db, [row?.id ?? '']);
    expect(log[0]?.error).toMatch(/^not sent: /);
  });
});
