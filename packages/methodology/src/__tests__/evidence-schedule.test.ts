import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkInputs,
  EVIDENCE_REASONS,
  type EvidenceReason,
  type EvidenceSchedule,
  evidenceSchedule,
  type InputsDocument,
  InputsError,
  type RiskIndicator,
  score,
  withEvaluationDate,
} from '../index.js';
import { breathe, DEFINITION, dateOfDay, dayOfDate, documentArb, FRAMEWORK, SEED } from './arbitraries.js';

const NUM_RUNS = process.env.FC_NUM_RUNS === undefined ? 120 : Number(process.env.FC_NUM_RUNS);
fc.configureGlobal({ seed: SEED, numRuns: NUM_RUNS });
console.log(`fast-check seed ${SEED}, ${NUM_RUNS} runs per property (replay with FC_SEED=${SEED})`);

const { full_until_days: FRESH, decay_until_days: DECAY } = DEFINITION.freshness;
const examplesDir = join(dirname(fileURLToPath(import.meta.url)), '../../../../examples/dcrf-1.0');
const example = (name: string): InputsDocument =>
  checkInputs(JSON.parse(readFileSync(join(examplesDir, `${name}.json`), 'utf8')), FRAMEWORK);

/** The oracle: the document scored by the engine's public `score` on every day from the start to the horizon. */
function everyDay(doc: InputsDocument, start: string, days: number): RiskIndicator[] {
  const first = dayOfDate(start);
  return Array.from({ length: days + 1 }, (_, k) => score(withEvaluationDate(doc, dateOfDay(first + k)), FRAMEWORK));
}

const firedOf = (ri: RiskIndicator) => ri.svc_decision_object.hard_caps_fired.map((c) => c.cap_id);
const presentAged = (ri: RiskIndicator, test: (age: number) => boolean) =>
  ri.criterion_scores.filter((c) => !c.missing && test(c.age_days as number));

/** The figures a schedule reports for a day, read from that day's indicator. */
const figuresOf = (ri: RiskIndicator) => ({
  date: ri.scored_at.slice(0, 10),
  final_score: ri.final_score,
  risk_band: ri.risk_band,
  confidence: ri.confidence,
  publishable: ri.publishable,
  hard_caps_fired: firedOf(ri),
  decaying_criteria: presentAged(ri, (age) => age > FRESH && age <= DECAY).map((c) => c.criterion_id),
});

/**
 * The schedule's definition applied to day-by-day scores: an entry on each day an input is FRESH + 1 or DECAY + 1
 * days old, a cap starts to fire, or the final score, the band or publishability differs from the day before.
 */
function expectedEntries(daily: RiskIndicator[]) {
  return daily.slice(1).flatMap((ri, i) => {
    const before = daily[i] as RiskIndicator;
    const decay = presentAged(ri, (age) => age === FRESH + 1);
    const stale = presentAged(ri, (age) => age === DECAY + 1);
    const firedBefore = new Set(firedOf(before));
    const codes: EvidenceReason[] = [];
    if (decay.length > 0) codes.push('DECAY_STARTS');
    if (stale.length > 0) codes.push('EVIDENCE_STALE');
    if (firedOf(ri).some((id) => !firedBefore.has(id))) codes.push('CAP_FIRES');
    if (ri.final_score !== before.final_score) codes.push('SCORE_CHANGES');
    if (ri.risk_band !== before.risk_band) codes.push('BAND_CHANGES');
    if (before.publishable && !ri.publishable) codes.push('NOT_PUBLISHABLE');
    if (codes.length === 0) return [];
    const ageing = ri.criterion_scores
      .filter((c) => decay.includes(c) || stale.includes(c))
      .map((c) => ({
        criterion_id: c.criterion_id,
        input_key: c.input_key,
        as_of: c.as_of,
        age_days: c.age_days,
        freshness: c.freshness,
      }));
    return [{ ...figuresOf(ri), reason_codes: codes, criteria: ageing }];
  });
}

/** Every claim the schedule makes, checked against the day-by-day scores; the reasons seen are added to `seen`. */
function checkAgainstEveryDay(doc: InputsDocument, start: string, days: number, seen: Set<string>): void {
  const schedule = evidenceSchedule(doc, FRAMEWORK, { start, days });
  const daily = everyDay(doc, start, days);
  const expected = expectedEntries(daily);
  expect(schedule.current).toEqual(figuresOf(daily[0] as RiskIndicator));
  expect(schedule.entries.map(({ reason: _, ...rest }) => rest)).toEqual(expected);
  for (const e of schedule.entries) {
    expect(e.reason).toMatch(/^[A-Z].*\.$/);
    for (const code of e.reason_codes) seen.add(code);
  }
  // Between entries only confidence moves, and only after a figure set that lists decaying criteria.
  const byDate = new Map(schedule.entries.map((e) => [e.date, e]));
  let latest: EvidenceSchedule['current'] = schedule.current;
  daily.slice(1).forEach((ri, i) => {
    const entry = byDate.get(figuresOf(ri).date);
    if (entry) {
      latest = entry;
      return;
    }
    const before = daily[i] as RiskIndicator;
    expect([ri.final_score, ri.risk_band, ri.publishable, firedOf(ri)]).toEqual([
      before.final_score,
      before.risk_band,
      before.publishable,
      firedOf(before),
    ]);
    if (ri.confidence !== before.confidence) {
      seen.add('confidence falls between entries');
      expect(latest.decaying_criteria.length).toBeGreaterThan(0);
      expect(ri.confidence).toBeLessThan(before.confidence);
    }
  });
  const bandChange = schedule.entries.find((e) => e.reason_codes.includes('BAND_CHANGES'));
  const dayOf = (date: string) => daily.findIndex((ri) => ri.scored_at.startsWith(date));
  expect(schedule.first_band_change).toEqual(
    bandChange
      ? {
          date: bandChange.date,
          from: (daily[dayOf(bandChange.date) - 1] as RiskIndicator).risk_band,
          to: bandChange.risk_band,
        }
      : null,
  );
  const firstUnpublishable = daily.findIndex((ri, k) => k > 0 && !ri.publishable && daily[k - 1]?.publishable);
  expect(schedule.not_publishable_from).toBe(
    firstUnpublishable === -1 ? null : figuresOf(daily[firstUnpublishable] as RiskIndicator).date,
  );
  expect(schedule.end_date).toBe(dateOfDay(dayOfDate(start) + days));
}

/**
 * A document, a start on or after its evaluation date, and a horizon: the start is often placed so that one of its
 * inputs passes a freshness boundary (or HC-07's age) within the horizon, so short horizons still see events.
 */
const scheduleCaseArb = (maxDays: number) =>
  fc.tuple(documentArb, fc.integer({ min: 1, max: maxDays })).chain(([doc, days]) => {
    const evaluation = dayOfDate(doc.evaluation_date);
    const ages = Object.values(doc.inputs).map((item) => evaluation - dayOfDate(item.as_of));
    // Offsets from the evaluation date that put a boundary (age FRESH + 1 or DECAY + 1) within the horizon.
    const aligned = ages
      .flatMap((age) => [FRESH + 1 - age, DECAY + 1 - age])
      .filter((offset) => offset >= 1)
      .map((offset) => fc.integer({ min: Math.max(0, offset - days), max: offset - 1 }));
    const offset = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 * DECAY }), ...aligned);
    return offset.map((o) => ({ doc, start: dateOfDay(evaluation + o), days }));
  });

describe('the evidence schedule equals scoring the inputs on every day of the horizon', () => {
  it('for generated documents, starts and horizons of up to 90 days', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(scheduleCaseArb(90), async ({ doc, start, days }) => {
        await breathe();
        checkAgainstEveryDay(doc, start, days, seen);
      }),
    );
    // Not vacuous: every reason, and confidence falling between entries, came up.
    expect([...seen].sort()).toEqual([...EVIDENCE_REASONS, 'confidence falls between entries'].sort());
  });

  it('over the full horizon of 730 days', async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(scheduleCaseArb(1), async ({ doc, start }) => {
        await breathe();
        checkAgainstEveryDay(doc, start, 730, seen);
      }),
      { numRuns: 6 },
    );
    expect(seen.size).toBeGreaterThan(0);
  });
});

describe('evidence schedule examples', () => {
  it('the worked example: every input passes 90 days on day 91, then 365 days on day 366 where HC-07 fires and publishability is lost', () => {
    const doc = example('worked-example');
    const s = evidenceSchedule(doc, FRAMEWORK, { start: doc.evaluation_date, days: 730 });
    // Evidence as of 2026-05-31, evaluated 2026-06-30 (age 30): 91 days old on 2026-08-30, 366 days on 2027-06-01.
    expect(s.entries.map((e) => [e.date, e.reason_codes])).toEqual([
      ['2026-08-30', ['DECAY_STARTS']],
      ['2027-06-01', ['EVIDENCE_STALE', 'CAP_FIRES', 'SCORE_CHANGES', 'BAND_CHANGES', 'NOT_PUBLISHABLE']],
    ]);
    expect(s.current).toMatchObject({ final_score: 78.46, risk_band: 'MEDIUM', confidence: 1, publishable: true });
    // At 365 days every freshness is exactly 0.5: confidence 0.5 is still publishable; the next day it is 0.25.
    expect(s.entries[1]).toMatchObject({
      final_score: 64.99,
      risk_band: 'ELEVATED',
      confidence: 0.25,
      publishable: false,
      hard_caps_fired: ['HC-07'],
    });
    expect(s.first_band_change).toEqual({ date: '2027-06-01', from: 'MEDIUM', to: 'ELEVATED' });
    expect(s.not_publishable_from).toBe('2027-06-01');
    expect(s.entries[1]?.reason).toBe(
      'The evidence as of 2026-05-31 for A1 Collateral coverage, A2 Proof of reserves, A3 Rehypothecation, ' +
        'B1 Custody model, B2 Security incidents (36 months), C1 Largest counterparty exposure, C2 Yield source ' +
        'disclosure, C3 Yield spread over benchmark, D1 Redemption notice, D2 Asset-liability duration gap, ' +
        'E1 Regulatory status, E2 Financial statements, E3 Operating history and E4 Default or withdrawal freeze ' +
        '(36 months) passes 365 days, so its freshness drops to 0.25; HC-07 (Stale core evidence) fires, capping ' +
        'the score at 64.99; the final score moves from 78.46 to 64.99; the band moves from MEDIUM to ELEVATED; ' +
        'confidence falls to 0.2500, below 0.5, so the indicator is no longer publishable.',
    );
  });

  it('finds the publishability crossing inside a decay, not only at a boundary', () => {
    const doc = example('worked-example');
    // A1 and B1 (weight 24) already stale, so HC-07 fires today; the other 76 points of weight, 30 days old, decay:
    // confidence = r4(0.06 + 0.76 x f), below 0.5 once f <= 0.5788, first at age 322 (f = 0.5782, 0.4994), which is
    // 2027-04-18; at age 321 f = 0.58 and confidence 0.5008.
    const mixed = {
      ...doc,
      inputs: {
        ...doc.inputs,
        collateral_coverage_ratio: { ...doc.inputs.collateral_coverage_ratio, as_of: '2025-06-01' },
        custody_model: { ...doc.inputs.custody_model, as_of: '2025-06-01' },
      },
    } as InputsDocument;
    const s = evidenceSchedule(mixed, FRAMEWORK, { start: '2026-06-30', days: 730 });
    expect(s.current).toMatchObject({
      final_score: 64.99,
      confidence: 0.82,
      publishable: true,
      hard_caps_fired: ['HC-07'],
    });
    const lost = s.entries.find((e) => e.reason_codes.includes('NOT_PUBLISHABLE'));
    expect(lost).toMatchObject({ date: '2027-04-18', reason_codes: ['NOT_PUBLISHABLE'], confidence: 0.4994 });
    expect(s.entries.find((e) => e.date === '2027-04-17')).toBeUndefined();
    const daily = everyDay(mixed, '2026-06-30', 730);
    expect(daily.findIndex((ri) => !ri.publishable)).toBe(dayOfDate('2027-04-18') - dayOfDate('2026-06-30'));
    expect(daily[dayOfDate('2027-04-17') - dayOfDate('2026-06-30')]?.confidence).toBe(0.5008);
  });

  it('refuses a start before an input’s as_of, a start that is not a date, and a horizon outside 1..3660', () => {
    const doc = example('worked-example');
    expect(() => evidenceSchedule(doc, FRAMEWORK, { start: '2026-05-30', days: 10 })).toThrow(InputsError);
    expect(() => evidenceSchedule(doc, FRAMEWORK, { start: '2026-02-30', days: 10 })).toThrow(RangeError);
    for (const days of [0, -1, 1.5, 3661, Number.NaN]) {
      expect(() => evidenceSchedule(doc, FRAMEWORK, { start: '2026-06-30', days })).toThrow(RangeError);
    }
  });
});
