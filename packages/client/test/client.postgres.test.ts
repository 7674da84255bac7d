import { endpoints } from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcApiError, SvcClient } from '../src/index.js';
import { example, exampleProviders, postgresReachable, type RealApi, startApi } from './support/api.js';

// The client is store-agnostic; one smoke run over PostgreSQL shows the answers are the same shape there too.

const WORKED = example('worked-example').provider;
const selected = (process.env.SVC_TEST_STORES ?? 'sqlite,postgres').split(',').includes('postgres');
const available = selected && (await postgresReachable());

describe.skipIf(!available)('the client against the API over PostgreSQL', () => {
  let api: RealApi;
  let client: SvcClient;

  beforeAll(async () => {
    api = await startApi('postgres');
    await api.publish(exampleProviders());
    client = new SvcClient({ baseUrl: api.url, apiKey: await api.key('ENTERPRISE') });
  });

  afterAll(async () => {
    await api?.stop();
  });

  it('lists, iterates, reads one indicator and its computation package', async () => {
    endpoints.listScores.success.schema.parse(await client.scores());
    const ids: string[] = [];
    for await (const indicator of client.iterScores({ limit: 1 })) ids.push(indicator.provider_id);
    expect(ids).toHaveLength(4);
    const indicator = await client.score(WORKED.id);
    endpoints.getScore.success.schema.parse(indicator);
    const { package: pkg } = await client.computation(indicator.risk_indicator_id);
    expect(pkg.risk_indicator_id).toBe(indicator.risk_indicator_id);
    expect((await client.status()).components.store).toBe('ok');
  });

  it('turns an error answer into an SvcApiError', async () => {
    await expect(client.scores({ cursor: 'not-a-cursor' })).rejects.toBeInstanceOf(SvcApiError);
  });
});
