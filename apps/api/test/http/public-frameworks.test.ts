import { createHash } from 'node:crypto';
import { FrameworksResponseSchema } from '@svc/contracts';
import { DCRF_1_0, DCRF_1_0_SIGN_OFF, defineFramework, getFramework } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import { publishFramework } from '../../src/services/frameworks/frameworks.js';
import { contextFor } from '../../src/services/services.js';
import { manualClock } from '../support/clock.js';
import { engineIndicator, example } from '../support/documents.js';
import { expectInvalid, expectJson, expectProblem, limitHeadersOf } from '../support/responses.js';
import { publish, type TestServer, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

/** A test framework the server knows besides DCRF v1.0, released only when the test publishes it. */
const V1_1 = defineFramework(
  {
    ...DCRF_1_0,
    version: '1.1',
    framework_version: 'DCRF v1.1',
    effective_date: '2026-09-01',
    criteria: DCRF_1_0.criteria.map((c) =>
      c.id === 'A1' ? { ...c, weight: 10 } : c.id === 'A2' ? { ...c, weight: 12 } : c,
    ),
  },
  { role: 'chief_risk_officer', signed_off_by: 'Test Officer', signed_off_on: '2026-07-01' },
);
const V1_0 = getFramework('1.0');

const ListSchema = FrameworksResponseSchema.strict();
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function list(s: TestServer) {
  return (await expectJson(await s.get('/api/public/frameworks'), ListSchema)).data;
}

/** The definition's bytes exactly as served, and the response. */
async function definition(s: TestServer, version: string) {
  const res = await s.get(`/api/public/frameworks/${version}`);
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}

describe.each(engines)('GET /api/public/frameworks on %s', (engine) => {
  const clock = manualClock('2026-07-01T09:00:00.000Z');
  const server = useServer(engine, async (s) => publish(s, example('worked-example')), {
    clock,
    frameworks: [V1_0, V1_1],
  });

  it('lists the built-in signed-off DCRF v1.0 while no release is recorded (a framework only known is not listed)', async () => {
    const res = await server().get('/api/public/frameworks');
    expect(res.headers.get('x-ratelimit-limit')).toBe('120');
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    await res.body?.cancel();
    expect(await list(server())).toEqual([
      {
        version: '1.0',
        framework_version: 'DCRF v1.0',
        framework_sha256: V1_0.sha256,
        effective_date: DCRF_1_0.effective_date,
        signed_off_by: DCRF_1_0_SIGN_OFF.signed_off_by,
        signed_off_at: DCRF_1_0_SIGN_OFF.signed_off_on,
      },
    ]);
  });

  it('serves the canonical definition: the bytes hash to framework_sha256, which packages name', async () => {
    const s = server();
    const [listed] = await list(s);
    const { res, bytes } = await definition(s, '1.0');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(sha256(bytes)).toBe(listed?.framework_sha256);
    expect(JSON.parse(Buffer.from(bytes).toString('utf8'))).toEqual(V1_0.definition);
    expect(res.headers.get('etag')).toBe(`"${V1_0.sha256}"`);
    expect(res.headers.get('cache-control')).toBe('public, max-age=86400');
    const key = await s.key('ENTERPRISE');
    const id = engineIndicator(example('worked-example')).risk_indicator_id;
    const pkg = (await (await s.get(`/api/v1/computation/${id}`, { key })).json()) as {
      framework: { version: string; sha256: string };
    };
    expect(pkg.framework).toMatchObject({ version: '1.0', sha256: sha256(bytes) });
  });

  it('If-None-Match with the ETag gets 304 and no body, for the list and for a definition', async () => {
    const s = server();
    for (const path of ['/api/public/frameworks', '/api/public/frameworks/1.0']) {
      const first = await s.get(path);
      await first.body?.cancel();
      const etag = first.headers.get('etag') ?? '';
      const again = await s.get(path, { headers: { 'if-none-match': etag } });
      expect(again.status, path).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(await again.text()).toBe('');
    }
  });

  it('the list and the definitions spend one public budget per client address', async () => {
    const s = server();
    const a = await s.get('/api/public/frameworks');
    const b = await s.get('/api/public/frameworks/1.0');
    await a.body?.cancel();
    await b.body?.cancel();
    expect(limitHeadersOf(a).policy).toBe('"minute";q=120;w=60');
    expect(limitHeadersOf(b).remaining).toBe(Number(limitHeadersOf(a).remaining) - 1);
  });

  it('a version that is not released gets 404 naming it and the released ones', async () => {
    for (const version of ['9.9', '1.1', '01.0']) {
      const problem = await expectProblem(await server().get(`/api/public/frameworks/${version}`), 'not_found');
      expect(problem.detail).toContain(`"${version}"`);
      expect(problem.detail).toContain('released: 1.0');
    }
  });

  it('a malformed version gets 400 naming path.version, never a 500', async () => {
    for (const version of ['latest', 'v1.0', '1.0.0', '1', '1.0%20', 'x'.repeat(300), '1.0%00']) {
      await expectInvalid(await server().get(`/api/public/frameworks/${version}`), ['path.version']);
    }
    const undecodable = await server().get('/api/public/frameworks/%E0%A4%A');
    expect(undecodable.status).toBe(400);
    expect(undecodable.headers.get('content-type')).toMatch(/^application\/problem\+json\b/);
    await undecodable.body?.cancel();
  });

  it('a second release appears once published, with its recorded sign-off; a recorded 1.0 replaces the built-in entry', async () => {
    const s = server();
    const before = await s.get('/api/public/frameworks');
    await before.body?.cancel();
    const system = contextFor(s.services, { kind: 'system' });
    await publishFramework(system, { framework: V1_1, signedOffBy: 'Dana Risk' });

    const after = await s.get('/api/public/frameworks');
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    await after.body?.cancel();
    const released = await list(s);
    expect(released.map((r) => r.version)).toEqual(['1.0', '1.1']);
    expect(released[1]).toEqual({
      version: '1.1',
      framework_version: 'DCRF v1.1',
      framework_sha256: V1_1.sha256,
      effective_date: '2026-09-01',
      signed_off_by: 'Dana Risk',
      signed_off_at: expect.stringMatching(/^2026-07-01T09:00:00(\.000)?Z$/),
    });
    const { res, bytes } = await definition(s, '1.1');
    expect(res.status).toBe(200);
    expect(sha256(bytes)).toBe(V1_1.sha256);

    clock.set('2026-07-02T10:00:00.000Z');
    await publishFramework(system, { framework: V1_0, signedOffBy: 'Robin Chief' });
    const recorded = await list(s);
    expect(recorded.map((r) => [r.version, r.signed_off_by])).toEqual([
      ['1.0', 'Robin Chief'],
      ['1.1', 'Dana Risk'],
    ]);
    expect(recorded[0]?.signed_off_at).toMatch(/^2026-07-02T10:00:00(\.000)?Z$/);
    expect(sha256((await definition(s, '1.0')).bytes)).toBe(V1_0.sha256);
  });
});
