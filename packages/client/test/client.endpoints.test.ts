import { createHash } from 'node:crypto';
import { type EndpointName, endpoints } from '@svc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWithdrawal, SvcApiError, SvcClient, verifyStandardWebhook, verifyWebhookSignature } from '../src/index.js';
import {
  accentedProvider,
  example,
  exampleProviders,
  type RealApi,
  startApi,
  UNKNOWN_PROVIDER_ID,
  withInput,
} from './support/api.js';
import { skipUntilRouted } from './support/pending-routes.js';
import { type ScriptedServer, startScripted } from './support/scripted-server.js';

// Every method once against the real API, each answer checked against its endpoint's schema in the contracts.

const WORKED = example('worked-example').provider;
const LOW_BAND = example('low-band').provider;
const ACCENTED = accentedProvider().provider;
const PROVIDER_IDS = exampleProviders().map((d) => d.provider.id);

let api: RealApi;
let receiver: ScriptedServer;
let anonymous: SvcClient;
let free: SvcClient;
let professional: SvcClient;
let enterprise: SvcClient;
let webhookSecret: string;

beforeAll(async () => {
  api = await startApi();
  await api.publish(exampleProviders());
  await api.publish([withInput(example('worked-example'), 'collateral_coverage_ratio', 1.6)]);
  for (const name of ['Acme Treasury', 'Borealis Credit']) await api.addIssuance(name);
  receiver = await startScripted(() => ({ status: 200, body: 'ok' }));
  const workspace = await api.workspace('PROFESSIONAL');
  webhookSecret = workspace.webhookSecret;
  anonymous = new SvcClient({ baseUrl: api.url });
  free = new SvcClient({ baseUrl: api.url, apiKey: await api.key('FREE') });
  professional = new SvcClient({ baseUrl: api.url, apiKey: workspace.key });
  enterprise = new SvcClient({ baseUrl: api.url, apiKey: await api.key('ENTERPRISE') });
});

afterAll(async () => {
  await receiver?.close();
  await api?.stop();
});

/** Parses a value with the success schema of the endpoint in the contracts table; throws when it does not conform. */
function conforms(name: EndpointName, value: unknown): void {
  const { success } = endpoints[name];
  if (!('schema' in success)) throw new Error(`${name} has no response schema`);
  success.schema.parse(value);
}

describe('public endpoints, without a key', () => {
  it('publicScores lists the headline score of every published provider', async () => {
    const page = await anonymous.publicScores();
    conforms('listPublicScores', page);
    expect(page.data.map((p) => p.id).sort()).toEqual([...PROVIDER_IDS].sort());
  });

  it('publicScores in pages: limit and cursor walk the same list in name order; iterPublicScores follows them', async () => {
    const whole = await anonymous.publicScores();
    expect(whole).not.toHaveProperty('next_cursor');
    const first = await anonymous.publicScores({ limit: 2 });
    conforms('listPublicScores', first);
    expect(first.data).toEqual(whole.data.slice(0, 2));
    const second = await anonymous.publicScores({ limit: 2, cursor: first.next_cursor ?? '' });
    expect(second.data).toEqual(whole.data.slice(2, 4));
    const all = [];
    for await (const p of anonymous.iterPublicScores({ limit: 3 })) all.push(p);
    expect(all).toEqual(whole.data);
  });

  it('status reports the platform and the framework version', async () => {
    const status = await anonymous.status();
    conforms('getStatus', status);
    expect(status.status).toBe('ok');
  });

  it('frameworks lists the released ones; framework answers the canonical bytes that hash to framework_sha256', async () => {
    const released = await anonymous.frameworks();
    conforms('listFrameworks', released);
    const [first] = released.data;
    const { definition, text } = await anonymous.framework(first?.version ?? '');
    conforms('getFramework', definition);
    expect(createHash('sha256').update(text, 'utf8').digest('hex')).toBe(first?.framework_sha256);
    expect(definition.framework_version).toBe(first?.framework_version);
  });

  it('transitions and bandCounts: the track record of the four providers, as JSON and as CSV', async () => {
    const counts = await anonymous.bandCounts();
    conforms('getBandStatistics', counts);
    expect(counts.total).toBe(4);
    expect(counts.bands.reduce((sum, b) => sum + b.count, 0)).toBe(4);
    const before = await anonymous.bandCounts({ as_of: '2026-04-01' });
    expect(before.total).toBe(0);
    // Nothing was rated at the start: the matrix is empty and the four are rated since.
    const matrix = await anonymous.transitions({ from: '2026-04-01' });
    conforms('getTransitionStatistics', matrix);
    expect(matrix.summary).toMatchObject({ rated_at_from: 0, rated_since: 4 });
    const csv = await anonymous.transitionsCsv({ from: '2026-04-01' });
    expect(csv.split('\r\n')[0]).toMatch(/^from,to,band,total,LOW,/);
    expect(await anonymous.bandCountsCsv()).toMatch(/^as_of,band,count,share\r\n/);
    await expect(anonymous.transitions({ from: '2026-03-01' })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
    });
  });

  it('changelog lists the changes, newest first: four new providers, then the republished one', async () => {
    const feed = await anonymous.changelog({ limit: 50 });
    conforms('getChangelog', feed);
    expect(feed.data.filter((c) => c.change_type === 'NEW')).toHaveLength(4);
    expect(feed.data).toHaveLength(5);
    expect(feed.data[0]).toMatchObject({ provider_id: WORKED.id, change_type: expect.stringMatching(/_CHANGE$/) });
  });

  it("publicationStatement, ratingActionStatement and statement answer signed statements; statement walks a provider's chain back to its first", async () => {
    const [latest] = (await anonymous.ratingActions({ provider_id: WORKED.id, limit: 1 })).data;
    const signed = await anonymous.ratingActionStatement(latest?.id ?? '');
    conforms('getRatingActionStatement', signed);
    expect(await anonymous.statement(signed.statement_sha256)).toEqual(signed);
    const types: string[] = [];
    for (let at: string | null = signed.statement_sha256; at !== null; ) {
      const step = await anonymous.statement(at);
      conforms('getStatement', step);
      expect(step.statement.provider_id).toBe(WORKED.id);
      types.unshift(step.statement.type);
      at = step.statement.prev_statement_sha256;
    }
    // Two publications, each followed by its rating action (NEW, then UPGRADE or AFFIRM).
    expect(types).toEqual(['publication', 'rating_action', 'publication', 'rating_action']);
    const first = await anonymous.publicationStatement(latest?.risk_indicator_id ?? '');
    conforms('getPublicationStatement', first);
    expect(await anonymous.statement(first.statement_sha256)).toEqual(first);
  });

  it('changelogAtom returns the feed as Atom text', async () => {
    const atom = await anonymous.changelogAtom();
    expect(atom).toMatch(/^<\?xml/);
    expect(atom).toContain('<feed');
    expect(atom).toContain(WORKED.name);
  });

  it('requestScore files a coverage request and is answered with its receipt', async () => {
    const receipt = await anonymous.requestScore({ provider_name: 'Nebula Yield', planner_type: 'stablecoin' });
    conforms('requestScore', receipt);
    expect(receipt.status).toBe('RECEIVED');
  });

  it('scoreRequestStatus answers the status and note of a coverage request, and 404 for an unknown one', async () => {
    const receipt = await anonymous.requestScore({ provider_name: 'Nebula Status', contact_email: 'a@nebula.example' });
    const status = await anonymous.scoreRequestStatus(receipt.request_id);
    conforms('getScoreRequest', status);
    expect(status).toEqual({ request_id: receipt.request_id, status: 'RECEIVED', resolution_note: null });
    const missing = await anonymous.scoreRequestStatus(`cr_${'0'.repeat(24)}`).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(SvcApiError);
    expect((missing as SvcApiError).code).toBe('not_found');
  });
});

describe('scores and methodology', () => {
  it('scores lists the current indicators, by name, and reports the rate limit', async () => {
    const page = await professional.scores({ limit: 10 });
    conforms('listScores', page);
    expect(page.data.map((i) => i.name)).toEqual([...page.data.map((i) => i.name)].sort());
    expect(page.next_cursor).toBeNull();
    expect(professional.lastRateLimit).toMatchObject({ limit: 1000, windowSeconds: 3600 });
    expect(professional.lastRateLimit?.remaining).toBeLessThan(1000);
  });

  it('scores filters by planner type', async () => {
    const page = await professional.scores({ planner_type: 'btc' });
    expect(page.data.every((i) => i.planner_type === 'btc')).toBe(true);
    expect(page.data).toHaveLength(2);
  });

  it('score returns the current indicator of a provider', async () => {
    const indicator = await professional.score(WORKED.id);
    conforms('getScore', indicator);
    expect(indicator.provider_id).toBe(WORKED.id);
  });

  it('history returns every publication of a provider, newest first', async () => {
    const history = await professional.history(WORKED.id);
    conforms('getScoreHistory', history);
    expect(history.data).toHaveLength(2);
    const [newest] = history.data;
    expect(newest && !isWithdrawal(newest) && newest.risk_indicator_id).toBe(
      (await professional.score(WORKED.id)).risk_indicator_id,
    );
  });

  it('methodology returns the current framework, and an earlier one by version', async () => {
    const current = await professional.methodology();
    conforms('getMethodology', current);
    const named = await professional.methodology({ version: current.version });
    expect(named.framework_sha256).toBe(current.framework_sha256);
  });

  it('computation returns the package parsed and its exact canonical text, byte for byte', async () => {
    const { risk_indicator_id: id } = await enterprise.score(WORKED.id);
    const { package: pkg, text } = await enterprise.computation(id);
    conforms('getComputation', pkg);
    expect(pkg.risk_indicator_id).toBe(id);
    const raw = await fetch(`${api.url}/api/v1/computation/${id}`, {
      headers: { 'x-api-key': (await api.key('ENTERPRISE')) as string },
    });
    expect(text).toBe(await raw.text());
  });

  it('computation needs an ENTERPRISE key: a PROFESSIONAL one gets insufficient_tier', async () => {
    const { risk_indicator_id: id } = await professional.score(WORKED.id);
    await expect(professional.computation(id)).rejects.toMatchObject({ status: 403, code: 'insufficient_tier' });
  });
});

describe('issuances', () => {
  it('issuances lists the upcoming issuances for a FREE key', async () => {
    const page = await free.issuances({ status: 'ANNOUNCED', type: 'preferred_share' });
    conforms('listIssuances', page);
    expect(page.data.map((i) => i.issuer_name).sort()).toEqual(['Acme Treasury', 'Borealis Credit']);
  });
});

describe('webhooks, end to end: registered, pinged, delivered signed, redelivered, removed', () => {
  let webhookId = '';
  let deliveryId = '';

  it('createWebhook registers an endpoint', async () => {
    const endpoint = await professional.createWebhook({
      url: `${receiver.url}/hook`,
      events: ['risk_indicator.published', 'risk_indicator.band_changed'],
      description: 'client tests',
    });
    conforms('createWebhook', endpoint);
    expect(endpoint.status).toBe('active');
    webhookId = endpoint.id;
  });

  it('createWebhook refuses port 0, a system port and a description with a control character, naming the field', async () => {
    const refusals: [Parameters<SvcClient['createWebhook']>[0], string, string][] = [
      [{ url: 'http://127.0.0.1:0/hook', events: ['issuance.updated'] }, 'body.url', 'port 0 is not a port'],
      [{ url: 'http://127.0.0.1:22/hook', events: ['issuance.updated'] }, 'body.url', 'port 22 is a system port'],
      [
        { url: `${receiver.url}/hook`, events: ['issuance.updated'], description: 'ops\u001b[2J' },
        'body.description',
        'found U+001B at character 4',
      ],
    ];
    for (const [body, path, says] of refusals) {
      const error = await professional.createWebhook(body).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SvcApiError);
      const problem = (error as SvcApiError).problem;
      expect((error as SvcApiError).code).toBe('invalid_request');
      expect(problem?.errors?.[0]?.path).toBe(path);
      expect(problem?.errors?.[0]?.message).toContain(says);
    }
  });

  it('listWebhooks lists it', async () => {
    const list = await professional.listWebhooks();
    conforms('listWebhooks', list);
    expect(list.data.map((w) => w.id)).toEqual([webhookId]);
  });

  it('testWebhook queues a ping that arrives signed for the verification helpers', async () => {
    const delivery = await professional.testWebhook(webhookId);
    conforms('testWebhook', delivery);
    expect(delivery.event_type).toBe('ping');
    deliveryId = delivery.id;

    const [ping] = await receiver.waitFor(1);
    if (!ping) throw new Error('no ping arrived');
    const event = await verifyStandardWebhook(webhookSecret, ping.body, ping.headers);
    expect(event).toMatchObject({ type: 'ping', data: { webhook_id: webhookId } });
    expect(await verifyWebhookSignature(webhookSecret, ping.body, ping.headers['x-svc-signature'] as string)).toBe(
      true,
    );
  });

  it('deliveries lists the ping with its attempt once delivered', async () => {
    const delivered = await eventually(async () => {
      const page = await professional.deliveries(webhookId, { status: 'delivered' });
      return page.data.length > 0 ? page : null;
    });
    conforms('listDeliveries', delivered);
    expect(delivered.data[0]).toMatchObject({ id: deliveryId, attempts: 1 });
    expect(delivered.data[0]?.attempt_log[0]?.status_code).toBe(200);
  });

  it('redeliver sends the same event again as a new delivery', async () => {
    const again = await professional.redeliver(webhookId, deliveryId);
    conforms('redeliver', again);
    expect(again.redelivery_of).toBe(deliveryId);
    const [first, second] = await receiver.waitFor(2);
    expect(second?.body).toBe(first?.body);
  });

  it('deleteWebhook removes it; its delivery log is then not found', async () => {
    await expect(professional.deleteWebhook(webhookId)).resolves.toBeUndefined();
    expect((await professional.listWebhooks()).data).toEqual([]);
    await expect(professional.deliveries(webhookId)).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });
});

describe('analysis', () => {
  it('searchProviders finds providers by part of their name, accents and case ignored', async () => {
    const found = await professional.searchProviders({ q: 'angstrom' });
    conforms('searchProviders', found);
    expect(found.data.map((m) => m.id)).toEqual([ACCENTED.id]);
    const sats = await professional.searchProviders({ q: 'SATS', planner_type: 'btc', limit: 5 });
    expect(sats.data.map((m) => m.id).sort()).toEqual([WORKED.id, ACCENTED.id].sort());
  });

  it('compare puts providers side by side', async () => {
    const comparison = await professional.compare([WORKED.id, LOW_BAND.id]);
    conforms('compareScores', comparison);
    expect(comparison.final_score.highest).toBe(LOW_BAND.id);
  });

  it('exportCsv returns every current indicator as CSV, one row each, filtered by planner type', async () => {
    const all = await professional.exportCsv();
    expect(all.trim().split(/\r?\n/)).toHaveLength(1 + PROVIDER_IDS.length);
    expect(all.split(/\r?\n/)[0]).toMatch(/^provider_id,name,planner_type/);
    const btc = await professional.exportCsv({ planner_type: 'btc' });
    expect(btc.trim().split(/\r?\n/)).toHaveLength(1 + 2);
  });

  it('portfolio scores holdings by amount', async (ctx) => {
    await skipUntilRouted(ctx, api.url, 'POST', '/api/v1/portfolio/score');
    const holdings = [
      { provider_id: WORKED.id, amount: 100 },
      { provider_id: LOW_BAND.id, amount: 300 },
    ];
    const score = await professional.portfolio(holdings);
    conforms('scorePortfolio', score);
    expect(score.total_amount).toBe(400);
    expect(score.holdings.map((h) => h.provider_id).sort()).toEqual([WORKED.id, LOW_BAND.id].sort());
  });

  it('portfolioMemo writes a memo of the holdings, as Markdown and as HTML', async (ctx) => {
    await skipUntilRouted(ctx, api.url, 'POST', '/api/v1/portfolio/memo');
    const holdings = [
      { provider_id: WORKED.id, amount: 100 },
      { provider_id: LOW_BAND.id, amount: 300 },
    ];
    const markdown = await professional.portfolioMemo(holdings);
    expect(markdown).toContain(LOW_BAND.name);
    const html = await professional.portfolioMemo(holdings, { format: 'html' });
    expect(html).toMatch(/<[a-z]/i);
  });

  it('whatIf recomputes an indicator with an input changed, storing nothing', async (ctx) => {
    await skipUntilRouted(ctx, api.url, 'POST', `/api/v1/scores/${WORKED.id}/what-if`);
    const before = await professional.score(WORKED.id);
    const answer = await professional.whatIf(WORKED.id, { collateral_coverage_ratio: 1.1 });
    conforms('whatIf', answer);
    expect(answer.stored).toBe(false);
    expect(answer.base.risk_indicator_id).toBe(before.risk_indicator_id);
    expect((await professional.score(WORKED.id)).risk_indicator_id).toBe(before.risk_indicator_id);
  });

  it('evidenceSchedule gives the dates the indicator changes as its evidence ages, within days of today', async (ctx) => {
    await skipUntilRouted(ctx, api.url, 'GET', `/api/v1/scores/${WORKED.id}/evidence-schedule`);
    const year = await professional.evidenceSchedule(WORKED.id);
    conforms('getEvidenceSchedule', year);
    expect(year.provider_id).toBe(WORKED.id);
    expect(year.risk_indicator_id).toBe((await professional.score(WORKED.id)).risk_indicator_id);
    expect(year.days).toBe(365);
    expect(year.current.date).toBe(year.start_date);
    const dayOf = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;
    expect(dayOf(year.end_date) - dayOf(year.start_date)).toBe(365);
    for (const e of year.entries) {
      expect(dayOf(e.date)).toBeGreaterThan(dayOf(year.start_date));
      expect(dayOf(e.date)).toBeLessThanOrEqual(dayOf(year.end_date));
    }
    const week = await professional.evidenceSchedule(WORKED.id, { days: 7 });
    expect([week.days, dayOf(week.end_date) - dayOf(week.start_date)]).toEqual([7, 7]);
    expect(week.entries).toEqual(year.entries.filter((e) => dayOf(e.date) <= dayOf(week.end_date)));
    await expect(professional.evidenceSchedule(WORKED.id, { days: 731 })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request',
      problem: { errors: [{ path: 'query.days', message: 'must be at most 730' }] },
    });
    await expect(professional.evidenceSchedule(UNKNOWN_PROVIDER_ID)).rejects.toMatchObject({ status: 404 });
  });

  it("memo writes a credit memo of a provider's indicator, as Markdown and as HTML", async (ctx) => {
    await skipUntilRouted(ctx, api.url, 'GET', `/api/v1/scores/${WORKED.id}/memo`);
    expect(await professional.memo(WORKED.id)).toContain(WORKED.name);
    expect(await professional.memo(WORKED.id, { format: 'html' })).toMatch(/<[a-z]/i);
    await expect(professional.memo(UNKNOWN_PROVIDER_ID)).rejects.toBeInstanceOf(SvcApiError);
  });
});

describe('agent tools (preview)', () => {
  it('mcpManifest lists the tools and says whether calls are answered', async (ctx) => {
    await skipUntilRouted(ctx, api.url, 'GET', '/api/mcp');
    const manifest = await anonymous.mcpManifest();
    conforms('getMcpManifest', manifest);
    expect(manifest.enabled).toBe(true);
  });

  it('callMcpTool calls a tool and resolves to its output', async (ctx) => {
    await skipUntilRouted(ctx, api.url, 'POST', '/api/mcp');
    const agent = new SvcClient({ baseUrl: api.url, apiKey: (await api.workspace('PROFESSIONAL', { mcp: true })).key });
    const history = await agent.callMcpTool('get_score_history', { provider_name: WORKED.name, limit: 1 });
    conforms('callMcpTool', { tool_name: 'get_score_history', output: history });
    expect('data' in history && history.data[0]?.provider_id).toBe(WORKED.id);
    const found = await agent.callMcpTool('search_providers', { query: 'harbour' });
    expect(found.data.map((m) => m.id)).toEqual([LOW_BAND.id]);
    const actions = await agent.callMcpTool('get_rating_actions', { provider_name: WORKED.name, limit: 1 });
    conforms('callMcpTool', { tool_name: 'get_rating_actions', output: actions });
    expect(actions).toEqual(await anonymous.ratingActions({ provider_id: WORKED.id, limit: 1 }));
    expect('data' in actions && actions.data.map((a) => a.type)).toEqual(['UPGRADE']);
    expect('data' in actions && actions.next_cursor).not.toBeNull();
  });

  it('readMcpResource reads the methodology and a framework definition; an unknown one is 404', async (ctx) => {
    await skipUntilRouted(ctx, api.url, 'POST', '/api/mcp');
    const agent = new SvcClient({ baseUrl: api.url, apiKey: (await api.workspace('PROFESSIONAL', { mcp: true })).key });
    const manifest = await anonymous.mcpManifest();
    expect(manifest.resources.map((r) => r.uri)).toContain('svc://methodology/1.0');
    const methodology = await agent.readMcpResource('svc://methodology/1.0');
    conforms('callMcpTool', methodology);
    expect(methodology.mime_type).toBe('text/markdown');
    expect(methodology.text).toContain('DCRF v1.0');
    const framework = await agent.readMcpResource('svc://frameworks/1.0');
    const released = await anonymous.frameworks();
    expect(framework.sha256).toBe(released.data.find((f) => f.version === '1.0')?.framework_sha256);
    await expect(agent.readMcpResource('svc://methodology/7.0')).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });

  it('callMcpTool from a workspace without the tools is 403 mcp_not_enabled', async (ctx) => {
    await skipUntilRouted(ctx, api.url, 'POST', '/api/mcp');
    await expect(professional.callMcpTool('get_methodology', {})).rejects.toMatchObject({
      status: 403,
      code: 'mcp_not_enabled',
    });
  });
});

/** Polls until `probe` returns a value (not null), for up to 10 s. */
async function eventually<T>(probe: () => Promise<T | null>): Promise<T> {
  const until = Date.now() + 10_000;
  for (;;) {
    const value = await probe();
    if (value !== null) return value;
    if (Date.now() > until) throw new Error('gave up waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
