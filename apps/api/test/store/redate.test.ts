import { canonicalJson, readJson } from '@svc/methodology';
import { beforeEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/services/errors.js';
import { approveInputs, submitInputs } from '../../src/services/inputs/inputs.js';
import { redateInputs } from '../../src/services/inputs/redate.js';
import { listAudit } from '../../src/services/operators/audit.js';
import { publishRun } from '../../src/services/publishing/publication-run.js';
import { DEFAULT_FRESHNESS_POLICY } from '../../src/services/shared/freshness-policy.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { example, UNKNOWN_PROVIDER_ID, WORKED_ID } from '../support/documents.js';
import { engines, useFreshStore } from '../support/stores.js';
import { storeContents } from './contents.js';

describe.each(engines)('svc inputs redate (redateInputs) on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock();
  const as = (by: string) => ctxOf(store, { clock, by, freshness: DEFAULT_FRESHNESS_POLICY });
  const approvedDocument = async (submissionId: string) => {
    const row = await store.db
      .selectFrom('approved_inputs')
      .select(['document', 'status'])
      .where('id', '=', submissionId)
      .executeTakeFirstOrThrow();
    return { ...row, document: readJson(row.document) as Record<string, unknown> };
  };
  beforeEach(async () => {
    clock.set('2026-07-01T09:00:00.000Z');
    await submitInputs(as('alice'), { documents: [{ source: 'w.json', document: example('worked-example') }] });
    await approveInputs(as('bob'), { providerIds: [WORKED_ID] });
    clock.set('2026-12-02T10:00:00.000Z');
  });

  it('submits a PENDING copy evaluated today (UTC), the evidence unchanged; refused publication becomes possible once another operator approves it', async () => {
    const before = await publishRun(as('bob'), { providers: [WORKED_ID] });
    expect(before.outcomes[0]?.reason).toMatch(/^evaluation_date 2026-06-30 is 155 days before today/);
    const record = await redateInputs(as('carol'), { providerId: WORKED_ID });
    expect(record).toMatchObject({ provider_id: WORKED_ID, status: 'PENDING', submitted_by: 'carol' });
    const copy = await approvedDocument(record.id);
    const expected = { ...example('worked-example'), evaluation_date: '2026-12-02' };
    expect(canonicalJson(copy.document)).toBe(canonicalJson(expected));
    // Maker-checker: the one who re-dated it cannot approve it; another approves the content seen (--sha256).
    await expect(
      approveInputs(as('carol'), { providerIds: [WORKED_ID], inputsSha256: [record.inputs_sha256] }),
    ).rejects.toMatchObject({ code: 'refused' });
    await approveInputs(as('bob'), { providerIds: [WORKED_ID], inputsSha256: [record.inputs_sha256] });
    const run = await publishRun(as('bob'), { providers: [WORKED_ID] });
    expect(run.counts).toEqual({ published: 1, unchanged: 0, refused: 0 });
    const [imported] = (await listAudit(as('bob'), { action: 'inputs.imported' })).slice(-1);
    expect(imported?.details).toMatchObject({
      provider_id: WORKED_ID,
      inputs_sha256: record.inputs_sha256,
      redated_from: { evaluation_date: '2026-06-30', submission_id: expect.stringMatching(/^in_/) },
    });
  });

  it('--date sets the new evaluation date', async () => {
    const record = await redateInputs(as('carol'), { providerId: WORKED_ID, date: '2026-11-20' });
    expect((await approvedDocument(record.id)).document.evaluation_date).toBe('2026-11-20');
  });

  const refusals: [string, string, RegExp][] = [
    ['after today', '2026-12-03', /--date 2026-12-03: is after today \(2026-12-02, UTC\); nothing was submitted$/],
    ['the current evaluation date', '2026-06-30', /is not after the approved inputs' evaluation_date \(2026-06-30\)/],
    ['before it', '2026-06-01', /is not after the approved inputs' evaluation_date \(2026-06-30\)/],
    ['not a calendar date', '2026-02-30', /is not a calendar date \(YYYY-MM-DD\)/],
  ];
  for (const [what, date, message] of refusals) {
    it(`a date ${what} is invalid_value naming --date, and nothing is written`, async () => {
      const contents = await storeContents(store);
      const failure = await redateInputs(as('carol'), { providerId: WORKED_ID, date }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(ServiceError);
      expect(failure).toMatchObject({ code: 'invalid_value', message: expect.stringMatching(message) });
      expect((failure as ServiceError).problems[0]?.path).toBe('--date');
      expect(await storeContents(store)).toEqual(contents);
    });
  }

  it('a provider with no approved inputs, or none at all, is not_found, and nothing is written', async () => {
    await submitInputs(as('alice'), {
      documents: [{ source: 'l.json', document: example('low-band') }],
    });
    const contents = await storeContents(store);
    const lowId = example('low-band').provider.id;
    await expect(redateInputs(as('carol'), { providerId: lowId })).rejects.toMatchObject({
      code: 'not_found',
      message: `provider ${lowId} has no approved inputs to redate: import and approve them first (svc inputs import)`,
    });
    await expect(redateInputs(as('carol'), { providerId: UNKNOWN_PROVIDER_ID })).rejects.toMatchObject({
      code: 'not_found',
      message: `no provider ${UNKNOWN_PROVIDER_ID}`,
    });
    expect(await storeContents(store)).toEqual(contents);
  });
});
