import { ComputationPackageSchema, MethodologyResponseSchema, RiskIndicatorSchema } from '@svc/contracts';
import { canonicalJson, verifyPackage } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import { engineIndicator, example, WORKED_ID } from '../support/documents.js';
import { expectInvalid, expectJson, expectProblem } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { keyedRouteSecurity } from './security.js';

const RI_ID = engineIndicator(example('worked-example')).risk_indicator_id;

describe.each(engines)('GET /api/v1/computation/{id} on %s', (engine) => {
  const server = useServer(engine, async (s) => {
    await publish(s, example('worked-example'));
  });
  const path = `/api/v1/computation/${RI_ID}`;

  keyedRouteSecurity('getComputation', server, () => path);

  describe('happy path', () => {
    for (const tier of ['ENTERPRISE', 'CUSTOM'] as const) {
      it(`a ${tier} key gets the package, whose bytes verify as reproduced and canonical`, async () => {
        const res = await server().get(path, { key: await server().key(tier) });
        const text = await res.text();
        expect(res.status, text).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
        const pkg = ComputationPackageSchema.parse(JSON.parse(text));
        expect(pkg.risk_indicator_id).toBe(RI_ID);
        expect(text).toBe(canonicalJson(JSON.parse(text)));
        const verification = verifyPackage(JSON.parse(text), text);
        expect(verification).toMatchObject({ status: 'reproduced', risk_indicator_id: RI_ID, canonical_bytes: true });
      });
    }

    it('the package names the framework by the framework_sha256 the methodology route publishes', async () => {
      const s = server();
      const key = await s.key('ENTERPRISE');
      const pkg = ComputationPackageSchema.parse(await (await s.get(path, { key })).json());
      const methodology = await expectJson(await s.get('/api/v1/methodology', { key }), MethodologyResponseSchema);
      expect(pkg.framework.sha256).toBe(methodology.framework_sha256);
      expect(pkg.framework.framework_version).toBe(methodology.framework_version);
    });

    it('the risk_indicator_id of a served score addresses its package', async () => {
      const s = server();
      const key = await s.key('ENTERPRISE');
      const score = await expectJson(await s.get(`/api/v1/scores/${WORKED_ID}`, { key }), RiskIndicatorSchema);
      expect(score.risk_indicator_id).toBe(RI_ID);
      expect((await s.get(`/api/v1/computation/${score.risk_indicator_id}`, { key })).status).toBe(200);
    });
  });

  describe('errors', () => {
    it('an unknown risk indicator id gets 404 not_found', async () => {
      const key = await server().key('ENTERPRISE');
      await expectProblem(await server().get('/api/v1/computation/ri_000000000000000000000000', { key }), 'not_found');
    });

    for (const id of ['ri_123', 'ri_ZZZZZZZZZZZZZZZZZZZZZZZZ', RI_ID.toUpperCase(), WORKED_ID, `${RI_ID}0`]) {
      it(`a malformed id gets 400 naming path.id (${id})`, async () => {
        const key = await server().key('ENTERPRISE');
        await expectInvalid(await server().get(`/api/v1/computation/${id}`, { key }), ['path.id']);
      });
    }
  });
});
