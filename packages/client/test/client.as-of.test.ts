import { setTimeout as sleep } from 'node:timers/promises';
import { endpoints } from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWithdrawal, SvcApiError, SvcClient } from '../src/index.js';
import { example, type RealApi, startApi } from './support/api.js';

/**
 * `as_of` through the client against the real API: a provider published, another published, the first withdrawn and
 * published again (a few milliseconds apart, by the real clock); each method asked about the instants of that
 * history, read back from the provider's own history.
 */

let api: RealApi;
let client: SvcClient;
let anonymous: SvcClient;
const WORKED = example('worked-example').provider;
const LOW_BAND = example('low-band').provider;
/** The instants of the history: the first publication, the withdrawal, the publication again. */
let published = '';
let withdrawn = '';
let reinstated = '';

const before = (iso: string) => new Date(Date.parse(iso) - 1).toISOString();

beforeAll(async () => {
  api = await startApi();
  await api.publish([example('worked-example')]);
  await sleep(5);
  await api.publish([example('low-band')]);
  await sleep(5);
  await api.withdraw(WORKED.id, 'ceased lending');
  await sleep(5);
  await api.publish([example('worked-example')]);
  await sleep(5);
  client = new SvcClient({ baseUrl: api.url, apiKey: (await api.workspace('PROFESSIONAL', { mcp: true })).key });
  anonymous = new SvcClient({ baseUrl: api.url });
  const { data } = await client.history(WORKED.id);
  const [again, withdrawal, first] = data;
  if (!again || isWithdrawal(again) || !withdrawal || !isWithdrawal(withdrawal) || !first || isWithdrawal(first)) {
    throw new Error('unexpected history');
  }
  [published, withdrawn, reinstated] = [first.published_at, withdrawal.withdrawn_at, again.published_at];
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

describe('as_of', () => {
  it('score(id, { as_of }): the indicator in force then, exactly at its published_at; 404 before and while withdrawn', async () => {
    const first = await client.score(WORKED.id, { as_of: published });
    endpoints.getScore.success.schema.parse(first);
    expect(first.published_at).toBe(published);
    expect((await client.score(WORKED.id, { as_of: before(withdrawn) })).published_at).toBe(published);
    for (const instant of [before(published), withdrawn, before(reinstated)]) {
      const refused = await client.score(WORKED.id, { as_of: instant }).catch((e: unknown) => e);
      expect(refused, instant).toBeInstanceOf(SvcApiError);
      expect((refused as SvcApiError).status).toBe(404);
    }
    expect((await client.score(WORKED.id, { as_of: reinstated })).published_at).toBe(reinstated);
    // Without params, and with request options as the second argument, as before as_of.
    expect(await client.score(WORKED.id, { timeoutMs: 5000 })).toEqual(await client.score(WORKED.id));
  });

  it('scores and iterScores with as_of list the indicators then in force', async () => {
    const ids = (items: { provider_id: string }[]) => items.map((i) => i.provider_id).sort();
    expect(ids((await client.scores({ as_of: before(withdrawn) })).data)).toEqual([WORKED.id, LOW_BAND.id].sort());
    const during = await client.scores({ as_of: withdrawn });
    endpoints.listScores.success.schema.parse(during);
    expect(ids(during.data)).toEqual([LOW_BAND.id]);
    const paged = [];
    for await (const item of client.iterScores({ as_of: before(withdrawn), limit: 1 })) paged.push(item);
    expect(paged).toEqual((await client.scores({ as_of: before(withdrawn) })).data);
  });

  it('publicScores and iterPublicScores with as_of, without a key', async () => {
    const whole = await anonymous.publicScores({ as_of: withdrawn });
    endpoints.listPublicScores.success.schema.parse(whole);
    expect(whole.data.map((p) => p.id)).toEqual([LOW_BAND.id]);
    const all = [];
    for await (const p of anonymous.iterPublicScores({ as_of: before(withdrawn), limit: 1 })) all.push(p);
    expect(all).toEqual((await anonymous.publicScores({ as_of: before(withdrawn) })).data);
    expect(all).toHaveLength(2);
  });

  it('callMcpTool get_provider_score with as_of', async () => {
    const output = await client.callMcpTool('get_provider_score', { provider_name: WORKED.name, as_of: published });
    expect(output).toEqual(await client.score(WORKED.id, { as_of: published }));
  });

  it('a bad as_of is a 400 naming query.as_of', async () => {
    for (const as_of of ['last week', '2026-03-31', '2999-01-01T00:00:00Z']) {
      const refused = await client.score(WORKED.id, { as_of }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(SvcApiError);
      expect((refused as SvcApiError).status).toBe(400);
      expect((refused as SvcApiError).problem?.errors?.map((e) => e.path)).toEqual(['query.as_of']);
    }
  });
});

describe('fields', () => {
  const FIELDS = ['risk_band', 'provider_id', 'final_score'] as const;
  /** The order of the full form, whatever the order asked. */
  const inFormOrder = async () => Object.keys(await client.score(WORKED.id)).filter((k) => FIELDS.includes(k as never));

  it('score(id, { fields }): only those fields, in the order of the full form; with as_of too', async () => {
    const whole = await client.score(WORKED.id);
    const picked = await client.score(WORKED.id, { fields: FIELDS });
    expect(Object.keys(picked)).toEqual(await inFormOrder());
    expect(picked).toEqual({
      provider_id: whole.provider_id,
      final_score: whole.final_score,
      risk_band: whole.risk_band,
    });
    const then = await client.score(WORKED.id, { as_of: published, fields: ['published_at'] });
    expect(then).toEqual({ published_at: published });
  });

  it('scores and iterScores with fields: each item picked, the cursor keeping the selection', async () => {
    const page = await client.scores({ fields: FIELDS });
    expect(page.data.length).toBeGreaterThan(0);
    for (const item of page.data) expect(Object.keys(item)).toEqual(await inFormOrder());
    const paged = [];
    for await (const item of client.iterScores({ fields: FIELDS, limit: 1 })) paged.push(item);
    expect(paged).toEqual(page.data);
  });

  it('an unknown field is a 400 naming it, before anything is sent back', async () => {
    const refused = await client
      .score(WORKED.id, { fields: ['final_score', 'nope' as never] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SvcApiError);
    expect((refused as SvcApiError).status).toBe(400);
    expect((refused as SvcApiError).message).toContain('nope');
  });
});
