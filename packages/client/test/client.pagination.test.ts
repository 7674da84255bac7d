import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWithdrawal, SvcClient } from '../src/index.js';
import { example, exampleProviders, type RealApi, startApi, withInput } from './support/api.js';
import { type ScriptedServer, startScripted } from './support/scripted-server.js';

// Async iteration against the real API with one item per page: every item once, in the order of one big page.

const WORKED = example('worked-example').provider;

let api: RealApi;
let receiver: ScriptedServer;
let client: SvcClient;
let requests = 0;

beforeAll(async () => {
  api = await startApi();
  await api.publish(exampleProviders());
  await api.publish([withInput(example('worked-example'), 'collateral_coverage_ratio', 1.6)]);
  await api.publish([withInput(example('worked-example'), 'collateral_coverage_ratio', 1.2)]);
  for (const name of ['Acme Treasury', 'Borealis Credit', 'Cobalt Finance']) await api.addIssuance(name);
  receiver = await startScripted(() => ({ status: 200 }));
  client = new SvcClient({
    baseUrl: api.url,
    apiKey: await api.key('PROFESSIONAL'),
    fetch: (input, init) => {
      requests++;
      return fetch(input, init);
    },
  });
});

afterAll(async () => {
  await receiver?.close();
  await api?.stop();
});

/** Every item of an iteration, and how many requests it took. */
async function drain<T>(iteration: AsyncIterable<T>): Promise<{ items: T[]; requests: number }> {
  const before = requests;
  const items: T[] = [];
  for await (const item of iteration) items.push(item);
  return { items, requests: requests - before };
}

describe('iterating with limit=1 sees every item exactly once, one page per request', () => {
  it('iterScores', async () => {
    const all = await client.scores({ limit: 500 });
    const { items, requests } = await drain(client.iterScores({ limit: 1 }));
    expect(items.map((i) => i.provider_id)).toEqual(all.data.map((i) => i.provider_id));
    expect(new Set(items.map((i) => i.provider_id)).size).toBe(4);
    expect(requests).toBe(4);
  });

  it('iterScores keeps the filter on every page', async () => {
    const { items } = await drain(client.iterScores({ planner_type: 'btc', limit: 1 }));
    expect(items.map((i) => i.planner_type)).toEqual(['btc', 'btc']);
  });

  it('iterHistory', async () => {
    const { items: entries, requests } = await drain(client.iterHistory(WORKED.id, { limit: 1 }));
    const items = entries.flatMap((e) => (isWithdrawal(e) ? [] : [e]));
    expect(items).toHaveLength(entries.length);
    const all = await client.history(WORKED.id, { limit: 500 });
    expect(items.map((i) => i.risk_indicator_id)).toEqual(all.data.map((i) => !isWithdrawal(i) && i.risk_indicator_id));
    expect(new Set(items.map((i) => i.risk_indicator_id)).size).toBe(3);
    expect(requests).toBe(3);
  });

  it('iterChangelog', async () => {
    const all = await client.changelog({ limit: 500 });
    const { items, requests } = await drain(client.iterChangelog({ limit: 1 }));
    expect(items.map((c) => c.id)).toEqual(all.data.map((c) => c.id));
    expect(new Set(items.map((c) => c.id)).size).toBe(6);
    expect(requests).toBe(6);
  });

  it('iterIssuances', async () => {
    const { items, requests } = await drain(client.iterIssuances({ limit: 1 }));
    expect(items.map((i) => i.issuer_name).sort()).toEqual(['Acme Treasury', 'Borealis Credit', 'Cobalt Finance']);
    expect(requests).toBe(3);
  });

  it('iterDeliveries', async () => {
    const { id } = await client.createWebhook({ url: `${receiver.url}/hook`, events: ['risk_indicator.published'] });
    const sent = [await client.testWebhook(id), await client.testWebhook(id), await client.testWebhook(id)];
    const { items, requests } = await drain(client.iterDeliveries(id, { limit: 1 }));
    expect(items.map((d) => d.id).sort()).toEqual(sent.map((d) => d.id).sort());
    expect(requests).toBe(3);
  });

  it('stops fetching when the consumer stops iterating', async () => {
    const before = requests;
    for await (const indicator of client.iterScores({ limit: 1 })) {
      expect(indicator.provider_id).toBeTruthy();
      break;
    }
    expect(requests - before).toBe(1);
  });
});
