import { DCRF_1_0, defineFramework, FrameworkError, getFramework } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import { FrameworkReleases } from '../../src/services/frameworks/framework-releases.js';
import {
  findRelease,
  frameworkInForce,
  listReleases,
  publishFramework,
} from '../../src/services/frameworks/frameworks.js';
import { publishRun } from '../../src/services/publishing/publication-run.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { engines, useFreshStore } from '../support/stores.js';

const V1_0 = getFramework('1.0');
/** A v1.1 draft the engine does not know: it can never be published. */
const DRAFT_1_1 = defineFramework({
  ...DCRF_1_0,
  version: '1.1',
  framework_version: 'DCRF v1.1',
  effective_date: '2026-10-01',
});

describe.each(engines)('framework releases on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock('2026-07-01T09:00:00.000Z');

  it('falls back to the built-in signed-off v1.0 while no release is recorded', async () => {
    expect(await listReleases(ctxOf(store))).toEqual([]);
    const current = await frameworkInForce(ctxOf(store, { clock }), { on: '2026-07-01' });
    expect(current.sha256).toBe(V1_0.sha256);
    expect(current.signOff?.role).toBe('chief_risk_officer');
  });

  it("records the chief risk officer's sign-off and makes the version current from its effective date", async () => {
    const result = await publishFramework(ctxOf(store, { clock }), { framework: V1_0, signedOffBy: '  Dana Risk ' });
    expect(result.created).toBe(true);
    expect(result.release).toEqual({
      version: '1.0',
      framework_version: 'DCRF v1.0',
      framework_sha256: V1_0.sha256,
      signed_off_by: 'Dana Risk',
      signed_off_at: '2026-07-01T09:00:00.000Z',
      effective_date: '2026-04-01',
      published_at: '2026-07-01T09:00:00.000Z',
    });
    expect(result.framework.signOff).toEqual({
      role: 'chief_risk_officer',
      signed_off_by: 'Dana Risk',
      signed_off_on: '2026-07-01',
    });
    expect(await findRelease(ctxOf(store), { version: '1.0' })).toEqual(result.release);
    const current = await frameworkInForce(ctxOf(store, { clock }), { on: '2026-07-02' });
    expect(current.sha256).toBe(V1_0.sha256);
    expect(current.signOff?.signed_off_by).toBe('Dana Risk');
    // Before its effective date the release is not current: the built-in framework stands.
    const before = await frameworkInForce(ctxOf(store, { clock }), { on: '2026-03-31' });
    expect(before.signOff?.signed_off_by).toBe('Chief Risk Officer');
  });

  it('is idempotent: publishing the same version again changes nothing', async () => {
    const first = await publishFramework(ctxOf(store, { clock }), { framework: V1_0, signedOffBy: 'Dana Risk' });
    clock.advance(60_000);
    const again = await publishFramework(ctxOf(store, { clock }), { framework: V1_0, signedOffBy: 'Someone Else' });
    expect(again.created).toBe(false);
    expect(again.release).toEqual(first.release);
    expect(await listReleases(ctxOf(store))).toHaveLength(1);
  });

  it('refuses an unsigned request, a version the engine does not know and a changed definition', async () => {
    await expect(publishFramework(ctxOf(store, { clock }), { framework: V1_0, signedOffBy: ' ' })).rejects.toThrow(
      /no chief risk officer sign-off/,
    );
    await expect(
      publishFramework(ctxOf(store, { clock }), { framework: DRAFT_1_1, signedOffBy: 'Dana Risk' }),
    ).rejects.toThrow(/knows no framework version 1.1/);
    const tampered = defineFramework({ ...DCRF_1_0, publication: { min_confidence: '0.4' } });
    await expect(
      publishFramework(ctxOf(store, { clock }), { framework: tampered, signedOffBy: 'Dana Risk' }),
    ).rejects.toThrow(FrameworkError);
    expect(await listReleases(ctxOf(store))).toEqual([]);
  });

  it('a process reads the releases at most once a second, and at once after its own publication', async () => {
    const cached = ctxOf(store, { clock, frameworks: new FrameworkReleases(store, clock) });
    const signer = async () => (await frameworkInForce(cached)).signOff?.signed_off_by;
    expect(await signer()).toBe('Chief Risk Officer');
    // Recorded by another process (the CLI): not seen within the second, seen after it.
    await publishFramework(ctxOf(store, { clock }), { framework: V1_0, signedOffBy: 'Dana Risk' });
    expect(await signer()).toBe('Chief Risk Officer');
    expect((await frameworkInForce(cached, { fresh: true })).signOff?.signed_off_by).toBe('Dana Risk');
    const other = ctxOf(store, { clock, frameworks: new FrameworkReleases(store, clock) });
    expect((await frameworkInForce(other)).signOff?.signed_off_by).toBe('Dana Risk');
    await store.db.deleteFrom('framework_releases').execute();
    expect((await frameworkInForce(other)).signOff?.signed_off_by).toBe('Dana Risk');
    clock.advance(1000);
    expect((await frameworkInForce(other)).signOff?.signed_off_by).toBe('Chief Risk Officer');
    // Recorded by this process: seen at once.
    await publishFramework(other, { framework: V1_0, signedOffBy: 'Eve Risk' });
    expect((await frameworkInForce(other)).signOff?.signed_off_by).toBe('Eve Risk');
  });

  it('a publication run takes the released framework', async () => {
    const { framework } = await publishFramework(ctxOf(store, { clock }), {
      framework: V1_0,
      signedOffBy: 'Dana Risk',
    });
    const report = await publishRun(ctxOf(store, { clock }), { providers: 'all', framework });
    expect(report.framework_version).toBe('DCRF v1.0');
    expect(report.outcomes).toEqual([]);
    await expect(publishRun(ctxOf(store, { clock }), { providers: 'all', framework: DRAFT_1_1 })).rejects.toThrow(
      /no chief risk officer sign-off/,
    );
  });
});

describe('the framework in force with no store (a command scoring offline)', () => {
  it('knows no release: the built-in signed-off v1.0 on any date, the same framework as over an empty store', async () => {
    const offline = { store: null, clock: manualClock('2026-07-01T09:00:00.000Z') };
    for (const on of ['2020-01-01', '2026-04-01', '2030-12-31']) {
      expect(await frameworkInForce(offline, { on })).toBe(V1_0);
    }
    expect(await frameworkInForce(offline)).toBe(V1_0);
  });
});
