import { DCRF_1_0, defineFramework, getFramework } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import { frameworkInForce, publishFramework } from '../../src/services/frameworks/frameworks.js';
import { approveInputs, submitInputs } from '../../src/services/inputs/inputs.js';
import { publishRun } from '../../src/services/publishing/publication-run.js';
import { contextFor } from '../../src/services/services.js';
import { manualClock } from '../support/clock.js';
import { ctxOf, TEST_SIGNER } from '../support/context.js';
import { example, WORKED_ID } from '../support/documents.js';
import { useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { enableAgentTools } from '../support/terms.js';

/**
 * A test framework signed off after DCRF v1.0: 1.0's definition with a module renamed and two criteria's weights
 * swapped (so the worked example scores differently), effective from 2026-09-01.
 */
const V1_1 = defineFramework(
  {
    ...DCRF_1_0,
    version: '1.1',
    framework_version: 'DCRF v1.1',
    effective_date: '2026-09-01',
    modules: DCRF_1_0.modules.map((m) => (m.id === 'A' ? { ...m, label: 'Reserves, collateral and proof' } : m)),
    criteria: DCRF_1_0.criteria.map((c) =>
      c.id === 'A1' ? { ...c, weight: 10 } : c.id === 'A2' ? { ...c, weight: 12 } : c,
    ),
  },
  { role: 'chief_risk_officer', signed_off_by: 'Test Officer', signed_off_on: '2026-07-01' },
);

describe.each(engines)('a second signed-off release on %s', (engine) => {
  const clock = manualClock('2026-07-01T09:00:00.000Z');
  let key = '';
  let mcpKey = '';
  const server = useServer(
    engine,
    async (s) => {
      key = await s.key('ENTERPRISE');
      const issued = await s.issueKey('ENTERPRISE');
      await enableAgentTools(ctxOf(s.services.store), issued.workspaceId);
      mcpKey = issued.key;
      const { store } = s.services;
      await submitInputs(ctxOf(store, { clock, by: 'maker' }), {
        documents: [{ source: 'worked.json', document: example('worked-example') }],
      });
      await approveInputs(ctxOf(store, { clock, by: 'checker' }), { providerIds: [WORKED_ID] });
    },
    { clock, frameworks: [getFramework('1.0'), V1_1], env: { SVC_MCP_ENABLED: 'true' } },
  );

  const json = async (path: string) => (await server().get(path, { key })).json();
  const tool = async (tool_name: string, input: unknown) => {
    const res = await server().send('POST', '/api/mcp', { tool_name, input }, mcpKey);
    expect(res.status).toBe(200);
    return ((await res.json()) as { output: Record<string, unknown> }).output;
  };
  /** What every reader names as the framework, and what the score of the worked example was computed under. */
  async function readers() {
    const list = (await json('/api/v1/scores')) as { framework_version: string };
    const detail = (await json(`/api/v1/scores/${WORKED_ID}`)) as {
      framework_version: string;
      risk_indicator_id: string;
    };
    const status = (await json('/api/v1/status')) as { framework_version: string };
    const methodology = (await json('/api/v1/methodology')) as { framework_version: string; definition: unknown };
    const csv = await (await server().get('/api/v1/scores/export.csv', { key })).text();
    const llms = await (await server().get('/llms.txt')).text();
    const toolMethodology = await tool('get_methodology', {});
    const toolScore = await tool('get_provider_score', { provider_name: 'Example Sats Lending' });
    const verify = await (await server().get(`/verify/${detail.risk_indicator_id}`)).text();
    const holdings = [{ provider_id: WORKED_ID, amount: 1000 }];
    const portfolio = (await (await server().send('POST', '/api/v1/portfolio/score', { holdings }, key)).json()) as {
      framework_version: string;
    };
    return { list, detail, status, methodology, csv, llms, toolMethodology, toolScore, verify, portfolio };
  }

  it('every reader answers v1.0 before its effective date and the new release from it, and so does publication', async () => {
    const services = { ...contextFor(server().services, { kind: 'system' }), signer: TEST_SIGNER };
    const first = await publishRun(services, { providers: 'all' });
    expect(first.framework_version).toBe('DCRF v1.0');
    expect(first.counts.published).toBe(1);
    services.snapshot.invalidate();

    const { created } = await publishFramework(services, { framework: V1_1, signedOffBy: 'Dana Risk' });
    expect(created).toBe(true);

    // Recorded, but not yet in force: every reader still answers DCRF v1.0.
    const before = await readers();
    expect(before.list.framework_version).toBe('DCRF v1.0');
    expect(before.detail.framework_version).toBe('DCRF v1.0');
    expect(before.status.framework_version).toBe('DCRF v1.0');
    expect(before.methodology).toMatchObject({
      framework_version: 'DCRF v1.0',
      definition: { modules: DCRF_1_0.modules },
    });
    expect(before.csv.split('\n')[1]).toContain('DCRF v1.0');
    expect(before.llms).toContain('## Methodology: DCRF v1.0');
    expect(before.toolMethodology.framework_version).toBe('DCRF v1.0');
    expect(before.toolScore.framework_version).toBe('DCRF v1.0');
    expect(before.verify).toContain('<dt>Framework</dt><dd>DCRF v1.0</dd>');
    expect(before.verify).toContain('/api/public/frameworks/1.0');
    expect(before.portfolio.framework_version).toBe('DCRF v1.0');
    expect((await frameworkInForce(services)).definition.framework_version).toBe('DCRF v1.0');

    // From the effective date the release is in force; a publication run re-scores under it.
    clock.set('2026-09-02T09:00:00.000Z');
    const moved = (await json('/api/v1/scores')) as { framework_version: string };
    expect(moved.framework_version).toBe('DCRF v1.1');
    const run = await publishRun(services, { providers: 'all', date: '2026-09-02' });
    expect(run.framework_version).toBe('DCRF v1.1');
    expect(run.counts.published).toBe(1);
    services.snapshot.invalidate();

    const after = await readers();
    expect(after.list.framework_version).toBe('DCRF v1.1');
    expect(after.detail.framework_version).toBe('DCRF v1.1');
    expect(after.detail.risk_indicator_id).not.toBe(before.detail.risk_indicator_id);
    expect(after.status.framework_version).toBe('DCRF v1.1');
    expect(after.methodology).toMatchObject({
      framework_version: 'DCRF v1.1',
      definition: { modules: V1_1.definition.modules },
    });
    expect(after.csv.split('\n')[0]).toBe(before.csv.split('\n')[0]);
    expect(after.csv.split('\n')[1]).toContain('DCRF v1.1');
    expect(after.llms).toContain('## Methodology: DCRF v1.1');
    expect(after.toolMethodology).toMatchObject({
      framework_version: 'DCRF v1.1',
      sign_off: { signed_off_by: 'Dana Risk', signed_off_on: '2026-07-01' },
    });
    expect(after.toolScore.framework_version).toBe('DCRF v1.1');
    expect(after.verify).toContain('<dt>Framework</dt><dd>DCRF v1.1</dd>');
    expect(after.verify).toContain('/api/public/frameworks/1.1');
    // The page sends auditors to the public framework, which serves the release's bytes without a key.
    expect((await server().get('/api/public/frameworks/1.1')).headers.get('etag')).toBe(`"${V1_1.sha256}"`);
    expect(after.verify).toContain(V1_1.sha256);
    expect(after.portfolio.framework_version).toBe('DCRF v1.1');

    // The package the run stored names the new release, and a named version is still there to read.
    const computation = (await json(`/api/v1/computation/${after.detail.risk_indicator_id}`)) as {
      framework: { framework_version: string; sha256: string };
    };
    expect(computation.framework).toMatchObject({ framework_version: 'DCRF v1.1', sha256: V1_1.sha256 });
    const named = (await json('/api/v1/methodology?version=1.0')) as { framework_version: string };
    expect(named.framework_version).toBe('DCRF v1.0');
  });
});
