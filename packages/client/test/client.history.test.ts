import { closeIssuance, standaloneContext } from '@svc/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HistoryEntry, type HistoryPublication, isWithdrawal, SvcClient } from '../src/index.js';
import { example, type RealApi, startApi } from './support/api.js';

/** What the operator records, read through the client against the real API: a withdrawal, a closed issuance. */

let api: RealApi;
let client: SvcClient;
const WORKED = example('worked-example').provider;

beforeAll(async () => {
  api = await startApi();
  await api.publish([example('worked-example')]);
  await api.withdraw(WORKED.id, 'ceased lending');
  // Published again from the same inputs: the same content-addressed indicator id as before the withdrawal.
  await api.publish([example('worked-example')]);
  client = new SvcClient({ baseUrl: api.url, apiKey: await api.key('PROFESSIONAL') });
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

const kinds = (entries: readonly HistoryEntry[]) =>
  entries.map((e) => (isWithdrawal(e) ? `withdrawal of ${e.withdrawn_risk_indicator_id}` : e.risk_indicator_id));

describe('history with a withdrawal', () => {
  it('history lists the withdrawal as an entry of its own, between the two publications', async () => {
    const { data } = await client.history(WORKED.id);
    const current = (await client.score(WORKED.id)).risk_indicator_id;
    expect(kinds(data)).toEqual([current, `withdrawal of ${current}`, current]);
    const withdrawal = data.find(isWithdrawal);
    expect(withdrawal).toMatchObject({ entry_type: 'withdrawal', reason: 'ceased lending', previous_band: 'MEDIUM' });
  });

  it('names the kind of every entry: a publication is the indicator as score() serves it, its entry_type first', async () => {
    const { data } = await client.history(WORKED.id);
    expect(data.map((e) => e.entry_type)).toEqual(['publication', 'withdrawal', 'publication']);
    const { entry_type, ...indicator } = data[0] as HistoryPublication;
    expect(Object.keys(data[0] ?? {})[0]).toBe('entry_type');
    expect(indicator).toEqual(await client.score(WORKED.id));
  });

  it('iterHistory yields the same entries one page at a time', async () => {
    const entries: HistoryEntry[] = [];
    for await (const entry of client.iterHistory(WORKED.id, { limit: 1 })) entries.push(entry);
    expect(kinds(entries)).toEqual(kinds((await client.history(WORKED.id)).data));
  });
});

describe('closed issuances', () => {
  it('issuances lists the upcoming ones; include_closed also the closed, with their status', async () => {
    const free = new SvcClient({ baseUrl: api.url, apiKey: await api.key('FREE') });
    const kept = await api.addIssuance('Kept Capital');
    const closed = await api.addIssuance('Closed Capital');
    const { store, clock } = api.running.services;
    await closeIssuance(standaloneContext(store, { actor: { kind: 'system' }, clock }), {
      id: closed,
      status: 'PRICED',
    });
    expect((await free.issuances()).data.map((i) => i.id)).toEqual([kept]);
    const all = await free.issuances({ include_closed: true });
    expect(all.data.map((i) => [i.id, i.status, typeof i.target_amount])).toEqual([
      [closed, 'PRICED', 'number'],
      [kept, 'ANNOUNCED', 'number'],
    ]);
  });
});
