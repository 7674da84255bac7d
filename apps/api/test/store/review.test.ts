import { buildPackage, canonicalJson, sha256Hex } from '@svc/methodology';
import { beforeEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/services/errors.js';
import { approveAllPending, approveInputs, listInputs, submitInputs } from '../../src/services/inputs/inputs.js';
import { diffPending, reviewAllPending, showPending } from '../../src/services/inputs/review.js';
import { publishRun } from '../../src/services/publishing/publication-run.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import {
  CAPS_ID,
  example,
  framework,
  type InputsDoc,
  LOW_BAND_ID,
  UNKNOWN_PROVIDER_ID,
  validated,
  WORKED_ID,
} from '../support/documents.js';
import { engines, useFreshStore } from '../support/stores.js';
import { storeContents } from './contents.js';

/** The worked example with its collateral coverage under 1.00 (HC-02 fires) and dated later, without D2's input. */
function underCollateralised(): InputsDoc {
  const d = example('worked-example');
  Object.assign(d.inputs.collateral_coverage_ratio as object, { value: 0.95, as_of: '2026-06-15' });
  delete d.inputs.duration_gap_days;
  return d;
}

/** What the engine gives for a document, computed here independently of the service: its package's steps. */
const stepsOf = (d: InputsDoc) => buildPackage(validated(d), framework).steps;

describe.each(engines)('review before approval on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock();
  beforeEach(() => {
    clock.set(AFTER_EXAMPLES);
  });

  const ctx = () => ctxOf(store, { clock });
  const submit = async (by: string, ...docs: InputsDoc[]) => {
    clock.advance(1000);
    return submitInputs(ctxOf(store, { clock, by }), {
      documents: docs.map((document, i) => ({ source: `doc-${i}.json`, document })),
    });
  };
  const approve = async (by: string, ...providerIds: string[]) => {
    clock.advance(1000);
    return approveInputs(ctxOf(store, { clock, by }), { providerIds });
  };
  /** Submitted by alice, approved by bob, published: the indicator in force. */
  const publish = async (d: InputsDoc) => {
    const [record] = await submit('alice', d);
    await approve('bob', d.provider.id);
    const run = await publishRun(ctx(), { providers: [d.provider.id] });
    expect(run.counts.published).toBe(1);
    return record;
  };

  it('showPending: the submission, who and when, the SHA-256 of the stored canonical document, the document', async () => {
    const [record] = await submit('alice', example('worked-example'));
    const shown = await showPending(ctx(), { providerId: WORKED_ID });
    expect(shown).toEqual({
      id: record?.id,
      provider_id: WORKED_ID,
      provider_name: 'Example Sats Lending',
      submitted_by: 'alice',
      submitted_at: record?.submitted_at,
      inputs_sha256: record?.inputs_sha256,
      document: validated(example('worked-example')),
    });
    expect(shown.inputs_sha256).toBe(sha256Hex(canonicalJson(shown.document)));
  });

  it('an unknown provider, or one with nothing pending, is not_found naming the provider; nothing is written', async () => {
    await submit('alice', example('worked-example'));
    await approve('bob', WORKED_ID);
    const before = await storeContents(store);
    for (const verb of [showPending, diffPending]) {
      await expect(verb(ctx(), { providerId: UNKNOWN_PROVIDER_ID })).rejects.toMatchObject({
        code: 'not_found',
        message: `no provider ${UNKNOWN_PROVIDER_ID}`,
      });
      const failure = await verb(ctx(), { providerId: WORKED_ID }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(ServiceError);
      expect(failure).toMatchObject({
        code: 'not_found',
        message: `provider ${WORKED_ID} (Example Sats Lending) has no pending submission`,
      });
    }
    expect(await storeContents(store)).toEqual(before);
  });

  it('diffPending with no indicator in force: every input added, the old side null, the caps that fire started', async () => {
    const [record] = await submit('alice', example('multiple-caps'));
    const diff = await diffPending(ctx(), { providerId: CAPS_ID });
    const expected = stepsOf(example('multiple-caps'));
    expect(diff).toMatchObject({ submission_id: record?.id, published: null, framework_version: 'DCRF v1.0' });
    const inputs = example('multiple-caps').inputs;
    expect(diff.inputs).toHaveLength(Object.keys(inputs).length);
    for (const change of diff.inputs) {
      expect(change).toMatchObject({ change: 'added', old_value: null, old_as_of: null });
      expect([change.new_value, change.new_as_of]).toEqual([
        inputs[change.input_key]?.value,
        inputs[change.input_key]?.as_of,
      ]);
    }
    expect(diff.outcome).toEqual({
      evaluation_date: { old: null, new: example('multiple-caps').evaluation_date },
      final_score: { old: null, new: expected.final_score },
      risk_band: { old: null, new: expected.risk_band },
      confidence: { old: null, new: expected.confidence },
      publishable: expected.publishable,
      caps_started: expected.hard_caps.filter((c) => c.fired).map((c) => ({ cap_id: c.cap_id, label: c.label })),
      caps_stopped: [],
    });
    expect(diff.outcome?.caps_started.length).toBeGreaterThan(1);
  });

  it('diffPending against the indicator in force: each changed input old and new, the engine figures, a cap starting', async () => {
    const published = await publish(example('worked-example'));
    await submit('carol', underCollateralised());
    const diff = await diffPending(ctx(), { providerId: WORKED_ID });
    expect(diff.published).toMatchObject({ framework_version: 'DCRF v1.0', submission_id: published?.id });
    expect(diff.inputs).toEqual([
      {
        input_key: 'collateral_coverage_ratio',
        criterion_id: 'A1',
        change: 'changed',
        old_value: 1.35,
        old_as_of: '2026-05-31',
        new_value: 0.95,
        new_as_of: '2026-06-15',
      },
      {
        input_key: 'duration_gap_days',
        criterion_id: 'D2',
        change: 'removed',
        old_value: 45,
        old_as_of: '2026-05-31',
        new_value: null,
        new_as_of: null,
      },
    ]);
    const before = stepsOf(example('worked-example'));
    const after = stepsOf(underCollateralised());
    expect(diff.outcome).toMatchObject({
      final_score: { old: before.final_score, new: after.final_score },
      risk_band: { old: 'MEDIUM', new: after.risk_band },
      confidence: { old: before.confidence, new: after.confidence },
      caps_started: [{ cap_id: 'HC-02', label: expect.any(String) }],
      caps_stopped: [],
    });
    expect(after.risk_band).not.toBe('MEDIUM');
    expect(diff.outcome?.final_score).toEqual({ old: '78.46', new: after.final_score });
  });

  it('a cap that stops firing, and an input added back', async () => {
    await publish(underCollateralised());
    await submit('carol', example('worked-example'));
    const diff = await diffPending(ctx(), { providerId: WORKED_ID });
    expect(diff.inputs.map((c) => [c.input_key, c.change])).toEqual([
      ['collateral_coverage_ratio', 'changed'],
      ['duration_gap_days', 'added'],
    ]);
    expect(diff.outcome).toMatchObject({
      caps_started: [],
      caps_stopped: [{ cap_id: 'HC-02', label: expect.any(String) }],
    });
  });

  it('compares with the inputs of the indicator in force, not with a newer approval not yet published', async () => {
    const published = await publish(example('worked-example'));
    await submit('alice', underCollateralised());
    await approve('bob', WORKED_ID); // approved, not published
    await submit('carol', example('worked-example'));
    const diff = await diffPending(ctx(), { providerId: WORKED_ID });
    expect(diff.published?.submission_id).toBe(published?.id);
    expect(diff.inputs).toEqual([]);
    expect(diff.outcome).toMatchObject({
      final_score: { old: '78.46', new: '78.46' },
      caps_started: [],
      caps_stopped: [],
    });
  });

  it('reviewAllPending: every pending submission by provider name, with its changes counted and its outcome', async () => {
    await publish(example('worked-example'));
    const [low] = await submit('alice', example('low-band'));
    const [worked] = await submit('carol', underCollateralised());
    const review = await reviewAllPending(ctx());
    const lowSteps = stepsOf(example('low-band'));
    expect(review.map((r) => [r.provider_name, r.submission_id, r.inputs_changed])).toEqual([
      ['Example Harbour Custody', low?.id, Object.keys(example('low-band').inputs).length],
      ['Example Sats Lending', worked?.id, 2],
    ]);
    expect(review[0]).toMatchObject({
      provider_id: LOW_BAND_ID,
      submitted_by: 'alice',
      outcome: { final_score: { old: null, new: lowSteps.final_score }, risk_band: { old: null, new: 'LOW' } },
    });
    expect(review[1]?.outcome).toEqual((await diffPending(ctx(), { providerId: WORKED_ID })).outcome);
    expect(await reviewAllPending(ctxOf(store, { clock }))).toEqual(review);
  });

  it('approveAllPending with the reviewed submission ids approves only those; one that arrived later stays pending', async () => {
    await submit('alice', example('worked-example'));
    const review = await reviewAllPending(ctx());
    const [late] = await submit('alice', example('low-band'));
    clock.advance(1000);
    const result = await approveAllPending(ctxOf(store, { clock, by: 'bob' }), {
      submissionIds: review.map((r) => r.submission_id),
    });
    expect(result.approved.map((r) => r.provider_id)).toEqual([WORKED_ID]);
    expect(result.refused).toEqual([]);
    expect(result.unreviewed).toEqual([expect.objectContaining({ id: late?.id, status: 'PENDING' })]);
    expect((await listInputs(ctx(), { pendingOnly: true })).map((r) => r.id)).toEqual([late?.id]);
  });

  it('a reviewed submission superseded before the approval is not approved: its successor was not reviewed', async () => {
    await submit('alice', example('worked-example'));
    const review = await reviewAllPending(ctx());
    const [newer] = await submit('alice', underCollateralised());
    const result = await approveAllPending(ctxOf(store, { clock, by: 'bob' }), {
      submissionIds: review.map((r) => r.submission_id),
    });
    expect(result.approved).toEqual([]);
    expect(result.unreviewed.map((r) => r.id)).toEqual([newer?.id]);
  });
});
