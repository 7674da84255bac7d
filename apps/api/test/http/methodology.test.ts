import { MethodologyResponseSchema } from '@svc/contracts';
import { canonicalSha256, currentFramework, frameworks, getFramework } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import { publishFramework } from '../../src/services/frameworks/frameworks.js';
import { openStore } from '../../src/store/store.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { expectInvalid, expectJson } from '../support/responses.js';
import { useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { keyedRouteSecurity } from './security.js';

const MethodologySchema = MethodologyResponseSchema.strict();

describe.each(engines)('GET /api/v1/methodology on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    key = await s.key('PROFESSIONAL');
  });

  keyedRouteSecurity('getMethodology', server, () => '/api/v1/methodology');

  describe('happy path', () => {
    it('answers the current framework by default, approved and signed off', async () => {
      const body = await expectJson(await server().get('/api/v1/methodology', { key }), MethodologySchema);
      expect(body.framework_version).toBe('DCRF v1.0');
      expect(body.version).toBe('1.0');
      expect(body.effective_date).toBe('2026-04-01');
      expect(body.status).toBe('approved');
      expect(body.sign_off).not.toBeNull();
      expect(body.definition.modules.map((m) => m.weight).reduce((a, b) => a + b, 0)).toBe(100);
      expect(body.definition.criteria).toHaveLength(14);
    });

    it('the definition is the published framework data, unchanged', async () => {
      const text = await (await server().get('/api/v1/methodology', { key })).text();
      expect(JSON.parse(text).definition).toEqual(JSON.parse(JSON.stringify(currentFramework().definition)));
    });

    it('framework_sha256 is the SHA-256 of the canonical (RFC 8785) definition', async () => {
      const text = await (await server().get('/api/v1/methodology', { key })).text();
      const body = JSON.parse(text) as { definition: unknown; framework_sha256: string };
      expect(body.framework_sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(body.framework_sha256).toBe(canonicalSha256(body.definition));
      expect(body.framework_sha256).toBe(currentFramework().sha256);
    });

    it('?version=1.0, ?version=v1.0 and ?version=DCRF v1.0 answer the same document as the default', async () => {
      const current = await (await server().get('/api/v1/methodology', { key })).json();
      for (const version of ['1.0', 'v1.0', 'DCRF v1.0', 'dcrf V1.0']) {
        const res = await server().get(`/api/v1/methodology?version=${encodeURIComponent(version)}`, { key });
        expect(await expectJson(res, MethodologySchema), version).toEqual(current);
      }
    });
  });

  describe('errors', () => {
    for (const version of ['9.9', '2.0', 'latest', '1', '']) {
      it(`an unknown version gets 400 listing the supported ones (version="${version}")`, async () => {
        const res = await server().get(`/api/v1/methodology?version=${encodeURIComponent(version)}`, { key });
        const problem = await expectInvalid(res, ['query.version']);
        const supported = [...frameworks.keys()];
        for (const v of supported) expect(problem.detail).toContain(v);
        expect(problem.errors?.[0]?.message).toContain(supported.join(', '));
      });
    }

    it('a version longer than 32 characters gets 400', async () => {
      await expectInvalid(await server().get(`/api/v1/methodology?version=${'1'.repeat(33)}`, { key }), [
        'query.version',
      ]);
    });

    it('an unknown query parameter gets 400 naming it', async () => {
      await expectInvalid(await server().get('/api/v1/methodology?format=xml', { key }), ['query.format']);
    });
  });
});

describe.each(engines)(
  'GET /api/v1/methodology after the version was published (svc methodology publish) on %s',
  (engine) => {
    let key = '';
    const server = useServer(engine, async (s) => {
      key = await s.key('PROFESSIONAL');
    });

    it("shows the sign-off recorded in the store, not the engine's built-in one; the framework keeps its bytes", async () => {
      const before = await expectJson(await server().get('/api/v1/methodology', { key }), MethodologySchema);
      expect(before.sign_off?.signed_off_on).toBe('2026-04-01');
      const store = openStore(server().location);
      try {
        const clock = manualClock('2026-09-15T10:00:00.000Z');
        await publishFramework(ctxOf(store, { clock }), { framework: getFramework('1.0'), signedOffBy: 'Dana Risk' });
      } finally {
        await store.close();
      }
      for (const path of [
        '/api/v1/methodology',
        '/api/v1/methodology?version=1.0',
        '/api/v1/methodology?version=v1.0',
      ]) {
        const text = await (await server().get(path, { key })).text();
        const after = MethodologySchema.parse(JSON.parse(text));
        expect(after.sign_off, path).toEqual({
          role: 'chief_risk_officer',
          signed_off_by: 'Dana Risk',
          signed_off_on: '2026-09-15',
        });
        expect(after.status).toBe('approved');
        expect(after.framework_sha256).toBe(before.framework_sha256);
        expect(after.framework_sha256).toBe(currentFramework().sha256);
        expect(JSON.stringify(after.definition)).toBe(JSON.stringify(before.definition));
      }
    });
  },
);
