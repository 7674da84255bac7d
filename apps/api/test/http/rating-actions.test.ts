import { createHmac } from 'node:crypto';
import {
  PublicScoresResponseSchema,
  type RatingAction,
  RatingActionsResponseSchema,
  RiskIndicatorSchema,
  ScoresListResponseSchema,
  SignedStatementSchema,
  SigningKeysResponseSchema,
  StatusResponseSchema,
  WEBHOOK_EVENT_SCHEMAS,
} from '@svc/contracts';
import { canonicalJson } from '@svc/methodology';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import {
  approveRatingActions,
  proposeOutlook,
  proposeWatch,
  proposeWatchRemoval,
} from '../../src/services/rating-actions/rating-actions.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { CAPS_ID, example, LOW_BAND_ID, WORKED_ID, withInput } from '../support/documents.js';
import { type Receiver, startReceiver } from '../support/receiver.js';
import { expectInvalid, expectJson, expectProblem, nextLinkOf } from '../support/responses.js';
import { publish, type TestServer, useServer } from '../support/server.js';
import { sha256, signatureHolds } from '../support/statements.js';
import { engines } from '../support/stores.js';
import { elementsNamed, parseXml } from '../support/xml.js';

/**
 * Rating actions over HTTP (issue 15, DESIGN-record section 4): the public feed, its filters, pages and refusals; its
 * Atom form; each action's signed statement, checked against the JWKS with node:crypto alone; the outlook and watch
 * in every indicator form and the overdue watches in the status; `rating_action.created` delivered to a real receiver.
 */

const FeedSchema = RatingActionsResponseSchema.strict();
const FEED = '/api/public/rating-actions';
/** The worked example with less collateral: 77.86, still MEDIUM. */
const lessCollateral = withInput(example('worked-example'), 'collateral_coverage_ratio', 1.3);
/** ... and with continuous on-chain proof of reserves: LOW. */
const provenReserves = withInput(lessCollateral, 'proof_of_reserves', 'onchain_continuous');
const MINUTE = 60_000;
const WEBHOOK_ENV = {
  SVC_WEBHOOK_RETRY_SCHEDULE: '30ms,60ms,120ms',
  SVC_WEBHOOK_POLL_INTERVAL: '50ms',
  SVC_WEBHOOK_TIMEOUT: '2s',
};

describe.each(engines)('rating actions over HTTP on %s', (engine) => {
  const clock = manualClock(AFTER_EXAMPLES);
  /** When the first three publications were done, and the watch placed. */
  let afterFirst = '';
  let watchSince = '';
  const server = useServer(
    engine,
    async (s) => {
      const step = async (work: () => Promise<unknown>) => {
        clock.advance(MINUTE);
        await work();
      };
      await step(() => publish(s, example('worked-example')));
      await step(() => publish(s, example('low-band')));
      await step(() => publish(s, example('multiple-caps')));
      afterFirst = new Date(clock.now().getTime() + 1).toISOString();
      await step(() => publish(s, lessCollateral));
      await step(() => publish(s, provenReserves));
      const { store } = s.services;
      const ann = ctxOf(store, { clock, by: 'Ann Analyst' });
      const bea = ctxOf(store, { clock, by: 'Bea Approver' });
      clock.advance(MINUTE);
      const watch = await proposeWatch(ann, {
        providerId: LOW_BAND_ID,
        direction: 'NEGATIVE',
        reviewBy: '2026-08-20',
        rationale: 'reserves attestation late',
      });
      clock.advance(MINUTE);
      const outlook = await proposeOutlook(ann, { providerId: CAPS_ID, outlook: 'NEGATIVE', rationale: 'caps bind' });
      clock.advance(MINUTE);
      await approveRatingActions(bea, { ids: [watch.id, outlook.id] });
      watchSince = clock.now().toISOString();
      clock.advance(MINUTE);
      await withdrawProvider(bea, { providerId: CAPS_ID, reason: 'coverage ended' });
      s.services.snapshot.invalidate();
    },
    { clock, env: WEBHOOK_ENV },
  );

  const all = async (query = ''): Promise<RatingAction[]> =>
    (await expectJson(await server().get(`${FEED}?limit=500${query}`), FeedSchema)).data;

  describe('the feed', () => {
    it('lists every action newest first, in the order they took effect, each in the contract', async () => {
      const res = await server().get(FEED);
      expect(res.headers.get('cache-control')).toBe('public, max-age=30');
      const body = await expectJson(res, FeedSchema);
      expect(body.next_cursor).toBeNull();
      expect(body.data.map((a) => [a.provider_id, a.type])).toEqual([
        [CAPS_ID, 'WITHDRAW'],
        [CAPS_ID, 'OUTLOOK_CHANGED'],
        [LOW_BAND_ID, 'WATCH_PLACED'],
        [WORKED_ID, 'UPGRADE'],
        [WORKED_ID, 'AFFIRM'],
        [CAPS_ID, 'NEW'],
        [LOW_BAND_ID, 'NEW'],
        [WORKED_ID, 'NEW'],
      ]);
      const [withdrawn, outlook, watch, upgrade] = body.data;
      expect(withdrawn).toMatchObject({
        previous_band: outlook?.new_band,
        new_band: null,
        new_score: null,
        outlook: 'STABLE',
        watch: null,
        rationale: 'coverage ended',
        approved_by: 'Bea Approver',
      });
      expect(outlook).toMatchObject({ outlook: 'NEGATIVE', proposed_by: 'Ann Analyst', approved_by: 'Bea Approver' });
      expect(watch).toMatchObject({
        watch: { direction: 'NEGATIVE', since: watchSince, review_by: '2026-08-20' },
        rationale: 'reserves attestation late',
        effective_at: watchSince,
      });
      expect(upgrade).toMatchObject({ previous_band: 'MEDIUM', new_band: 'LOW', previous_score: 77.86 });
      for (const a of body.data) expect(a.signature?.statement_sha256).toMatch(/^[0-9a-f]{64}$/);
    });

    it('filters by provider, by type, by time, and by all three; pages keep the filters', async () => {
      expect((await all(`&provider_id=${WORKED_ID}`)).map((a) => a.type)).toEqual(['UPGRADE', 'AFFIRM', 'NEW']);
      // Provider ids are compared as the store keeps them: lower case.
      expect(await all(`&provider_id=${WORKED_ID.toUpperCase()}`)).toEqual(await all(`&provider_id=${WORKED_ID}`));
      expect((await all('&type=NEW')).map((a) => a.provider_id)).toEqual([CAPS_ID, LOW_BAND_ID, WORKED_ID]);
      expect((await all(`&since=${encodeURIComponent(afterFirst)}`)).map((a) => a.type)).toEqual([
        'WITHDRAW',
        'OUTLOOK_CHANGED',
        'WATCH_PLACED',
        'UPGRADE',
        'AFFIRM',
      ]);
      expect(await all('&since=2026-08-01')).toHaveLength(8);
      expect(await all('&since=2026-08-02')).toEqual([]);
      expect(
        (await all(`&provider_id=${CAPS_ID}&type=OUTLOOK_CHANGED&since=${encodeURIComponent(afterFirst)}`)).map(
          (a) => a.type,
        ),
      ).toEqual(['OUTLOOK_CHANGED']);
      const first = await server().get(`${FEED}?provider_id=${WORKED_ID}&limit=1`);
      const link = nextLinkOf(first);
      expect(link).toContain(`provider_id=${WORKED_ID}`);
      const second = await expectJson(await server().get(link ?? ''), FeedSchema);
      expect(second.data.map((a) => a.type)).toEqual(['AFFIRM']);
    });

    it('limit=3 pages through every action once, following next_cursor and the Link header', async () => {
      const full = await all();
      const ids: string[] = [];
      let next: string | null = `${FEED}?limit=3`;
      while (next !== null) {
        const res: Response = await server().get(next);
        next = nextLinkOf(res);
        const body = await expectJson(res, FeedSchema);
        expect(body.next_cursor === null).toBe(next === null);
        ids.push(...body.data.map((a) => a.id));
      }
      expect(ids).toEqual(full.map((a) => a.id));
    });

    for (const [query, path] of [
      ['provider_id=not-a-uuid', 'query.provider_id'],
      ['type=UPGRADED', 'query.type'],
      ['type=new', 'query.type'],
      ['type=NEW&type=AFFIRM', 'query.type'],
      ['since=yesterday', 'query.since'],
      ['since=2026-02-30', 'query.since'],
      ['limit=0', 'query.limit'],
      ['limit=501', 'query.limit'],
      ['cursor=abc', 'query.cursor'],
      [`cursor=${Buffer.from('{"n":"x"}').toString('base64url')}`, 'query.cursor'],
      ['provider=x', 'query.provider'],
    ] as const) {
      it(`${query} gets 400 naming ${path}`, async () => {
        await expectInvalid(await server().get(`${FEED}?${query}`), [path]);
      });
    }

    it('an unknown type names the nine kinds', async () => {
      const problem = await expectInvalid(await server().get(`${FEED}?type=UPGRADED`), ['query.type']);
      expect(problem.errors?.[0]?.message).toBe(
        'must be one of NEW, UPGRADE, DOWNGRADE, AFFIRM, WITHDRAW, REINSTATE, WATCH_PLACED, WATCH_REMOVED, OUTLOOK_CHANGED',
      );
    });
  });

  describe('statements', () => {
    it("each action's statement states it exactly and verifies under the JWKS key, with node:crypto alone", async () => {
      const keys = await expectJson(
        await server().get('/.well-known/svc-signing-keys.json'),
        SigningKeysResponseSchema,
      );
      for (const a of await all()) {
        const res = await server().get(`${FEED}/${a.id}/statement`);
        expect(res.headers.get('cache-control')).toBe('public, max-age=86400, immutable');
        const signed = await expectJson(res, SignedStatementSchema.strict());
        const { signature, ...form } = a;
        expect(signed.statement).toMatchObject({
          type: 'rating_action',
          provider_id: a.provider_id,
          risk_indicator_id: a.risk_indicator_id,
          action: form,
        });
        const text = canonicalJson(signed.statement);
        expect(sha256(text)).toBe(signed.statement_sha256);
        expect(signature).toEqual({
          kid: signed.kid,
          value: signed.signature,
          statement_sha256: signed.statement_sha256,
        });
        const key = keys.keys.find((k) => k.kid === signed.kid);
        expect(signatureHolds(text, signed.signature, key?.x ?? '')).toBe(true);
      }
    });

    it('an unknown action is 404; a malformed id is 400 naming it', async () => {
      await expectProblem(await server().get(`${FEED}/ra_${'0'.repeat(24)}/statement`), 'not_found');
      await expectInvalid(await server().get(`${FEED}/ra_xyz/statement`), ['path.ratingActionId']);
    });
  });

  describe('Atom', () => {
    it('GET /api/public/rating-actions.atom is well-formed Atom, one entry per action, each linking its statement', async () => {
      const res = await server().get(`${FEED}.atom`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/atom\+xml\b/);
      const feed = parseXml(await res.text());
      expect(feed.name).toBe('feed');
      const entries = elementsNamed(feed, 'entry');
      expect(entries).toHaveLength(8);
      for (const entry of entries) {
        expect(entry.children.map((c) => c.name).sort()).toEqual(['id', 'link', 'summary', 'title', 'updated']);
      }
      const titles = entries.map((e) => e.children.find((c) => c.name === 'title')?.text);
      expect(titles.slice(0, 4)).toEqual([
        expect.stringMatching(/: rating withdrawn \(was [\d.]+, [A-Z]+\)$/),
        expect.stringMatching(/: outlook NEGATIVE$/),
        expect.stringMatching(/: placed on watch NEGATIVE \(review by 2026-08-20\)$/),
        expect.stringMatching(/: upgraded MEDIUM to LOW \(77\.86 to [\d.]+\)$/),
      ]);
      const links = entries.map((e) => e.children.find((c) => c.name === 'link')?.attributes.href);
      const ids = (await all()).map((a) => a.id);
      expect(links).toEqual(
        ids.map((id) => expect.stringMatching(new RegExp(`/api/public/rating-actions/${id}/statement$`))),
      );
    });

    it('an unknown query parameter gets 400', async () => {
      await expectInvalid(await server().get(`${FEED}.atom?x=1`), ['query.x']);
    });
  });

  describe('the indicator forms and the status', () => {
    it('the public list, the keyed list and the detail carry the outlook and watch in force', async () => {
      const watch = { direction: 'NEGATIVE', since: watchSince, review_by: '2026-08-20' };
      const pub = await expectJson(await server().get('/api/public/scores'), PublicScoresResponseSchema.strict());
      expect(pub.data.map((h) => [h.id, h.outlook, h.watch])).toEqual(
        expect.arrayContaining([
          [LOW_BAND_ID, 'STABLE', watch],
          [WORKED_ID, 'STABLE', null],
        ]),
      );
      // Withdrawn: out of every list, its outlook gone with it.
      expect(pub.data.map((h) => h.id)).not.toContain(CAPS_ID);
      const key = await server().key('ENTERPRISE');
      const list = await expectJson(await server().get('/api/v1/scores', { key }), ScoresListResponseSchema.strict());
      expect(list.data.find((i) => i.provider_id === LOW_BAND_ID)).toMatchObject({ outlook: 'STABLE', watch });
      const detail = await expectJson(
        await server().get(`/api/v1/scores/${LOW_BAND_ID}`, { key }),
        RiskIndicatorSchema,
      );
      expect({ outlook: detail.outlook, watch: detail.watch }).toEqual({ outlook: 'STABLE', watch });
    });

    it('the status counts the watches on and the overdue ones (review_by before today)', async () => {
      const status = async () =>
        (await expectJson(await server().get('/api/v1/status'), StatusResponseSchema.strict())).watches;
      expect(await status()).toEqual({ on_watch: 1, overdue: 0 });
      clock.set('2026-08-20T23:59:00.000Z');
      server().services.snapshot.invalidate();
      expect(await status()).toEqual({ on_watch: 1, overdue: 0 });
      clock.set('2026-08-21T00:00:00.000Z');
      expect(await status()).toEqual({ on_watch: 1, overdue: 1 });
    });
  });

  describe('webhooks', () => {
    let receiver: Receiver | undefined;
    beforeAll(async () => {
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver?.close();
    });

    it('rating_action.created reaches a subscribed receiver, signed, with the action as the feed serves it', async () => {
      const s: TestServer = server();
      const r = receiver as Receiver;
      const { key, webhookSecret } = await s.issueKey('PROFESSIONAL');
      const res = await s.send('POST', '/api/v1/webhooks', { url: r.url, events: ['rating_action.created'] }, key);
      expect(res.status).toBe(201);
      clock.advance(MINUTE);
      const { store } = s.services;
      const proposal = await proposeWatchRemoval(ctxOf(store, { clock, by: 'Ann Analyst' }), {
        providerId: LOW_BAND_ID,
        rationale: 'attestation received',
      });
      clock.advance(MINUTE);
      await approveRatingActions(ctxOf(store, { clock, by: 'Bea Approver' }), { ids: [proposal.id] });
      clock.advance(MINUTE);
      await publish(s, example('multiple-caps'));
      const received = await r.waitFor(2);
      const events = received.map((request) => {
        const hex = createHmac('sha256', Buffer.from(webhookSecret, 'utf8')).update(request.raw).digest('hex');
        expect(request.headers['x-svc-signature']).toBe(hex);
        return WEBHOOK_EVENT_SCHEMAS['rating_action.created'].strict().parse(JSON.parse(request.raw.toString('utf8')));
      });
      const feed = await all();
      expect(events.map((e) => e.data.type)).toEqual(['WATCH_REMOVED', 'REINSTATE']);
      for (const e of events) {
        expect(e.data).toEqual(feed.find((a) => a.id === e.data.id));
        expect(e.created_at).toBe(e.data.effective_at);
      }
      expect(feed.slice(0, 2).map((a) => a.type)).toEqual(['REINSTATE', 'WATCH_REMOVED']);
    });
  });
});
