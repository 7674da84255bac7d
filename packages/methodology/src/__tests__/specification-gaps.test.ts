import { describe, expect, it } from 'vitest';
import {
  type Block,
  canonicalJson,
  currentFramework,
  type InputsDocument,
  methodologyMarkdown,
  PLACES,
  readJson,
  scoreWithPackage,
  serializePackage,
  sha256Hex,
  specificationOf,
  validateInputs,
  verifyPackage,
  WORKED_EXAMPLES,
} from '../index.js';

/**
 * Issue 31: an auditor who rebuilt the engine from the generated specification alone had to guess these points.
 * Each test holds the page to the fact, and the fact to the engine, so neither can lose it silently.
 */

const framework = currentFramework();
const fw = framework.definition;
const page = methodologyMarkdown(framework);
const worked = WORKED_EXAMPLES.get('1.0') as InputsDocument;

/** The text of a section, from its `## ` heading to the next. */
function section(heading: string): string {
  const start = page.indexOf(`\n## ${heading}`);
  expect(start, heading).toBeGreaterThan(-1);
  const end = page.indexOf('\n## ', start + 1);
  return page.slice(start, end === -1 ? undefined : end);
}

/** The rows of the first table after a heading, by their first cell. */
function tableAfter(heading: string): Map<string, readonly string[]> {
  const blocks = specificationOf(framework);
  const at = blocks.findIndex((b) => b.kind === 'heading' && b.text === heading);
  const found = blocks.slice(at).find((b): b is Extract<Block, { kind: 'table' }> => b.kind === 'table');
  return new Map((found?.rows ?? []).map((row) => [row[0] as string, row.slice(1)]));
}

/** The worked example changed by `change`, scored. */
function scored(change: (doc: InputsDocument) => void) {
  const doc = structuredClone(worked);
  change(doc);
  return scoreWithPackage(doc, framework);
}

/** The date `days` before the worked example's evaluation date. */
const daysBefore = (days: number) =>
  new Date(Date.parse(`${worked.evaluation_date}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);

describe('the specification states what the auditor had to guess (issue 31)', () => {
  it('lists every point under Notes for implementers, pointing to its section', () => {
    const notes = section('Notes for implementers');
    for (const point of [
      'Roundings (section 1)',
      'Freshness (section 7)',
      'Derived quantities (section 3',
      'Cap conditions (section 5)',
      'Confidence (section 7)',
      '(section 8)',
      '“Stale” (sections 7 and 12)',
      '15 significant digits',
      'shortest form of their double (section 10)',
      'The `engine` member is part of the package bytes that `package_sha256` hashes',
    ]) {
      expect(notes, point).toContain(point);
    }
  });

  it('names the figures r4 and r2 round, and that the 6-place figures are exact, never rounded', () => {
    const rows = tableAfter('Where each rounding applies');
    const r2 = [
      '`final_score`',
      '`point_impact` of a ceiling factor',
      '`point_impact` of a floor factor',
      '`point_impact` of a cap',
    ];
    for (const figure of r2) expect(rows.get(figure)?.slice(1), figure).toEqual(['`r2`', String(PLACES.score)]);
    for (const figure of ['`points` between two anchors of a linear scale', '`freshness`', '`confidence`']) {
      expect(rows.get(figure)?.[1], figure).toMatch(/^`r4`/);
    }
    for (const figure of ['`contribution`', 'module `score`', '`uncapped`', '`capped`']) {
      expect(rows.get(figure)?.slice(1), figure).toEqual(['no: exact', String(PLACES.contribution)]);
    }
    expect(rows.get('`points_to_next_band`')?.slice(1)).toEqual(['no: exact', String(PLACES.score)]);
    expect(section('1. ')).toContain(`There is no rounding to ${PLACES.contribution} places`);
    expect(section('1. ')).toContain('no figure has more places than it is written with');
    // The engine: every 6-place figure of the worked example's package is its exact value, zeros appended.
    const { package: pkg } = scoreWithPackage(worked, framework);
    expect(pkg.steps.uncapped).toBe('78.462500');
    expect(pkg.steps.criteria.find((c) => c.criterion_id === 'D2')?.contribution).toBe('4.287500');
  });

  it('ties the freshness formula’s numbers to decay, full_until_days and decay_until_days', () => {
    const f = fw.freshness;
    const text = section('7. ');
    expect(text).toContain(`\`full_until_days\` = ${f.full_until_days}`);
    expect(text).toContain(`\`decay_until_days\` = ${f.decay_until_days}`);
    expect(text).toContain(`\`decay\` = ${f.decay}`);
    expect(text).toContain(`${f.decay_until_days - f.full_until_days} = \`decay_until_days - full_until_days\``);
    expect(text).toContain('r4(1 - decay x (age_days - full_until_days) / (decay_until_days - full_until_days))');
    expect(text).toContain('f is 0.9982 at 91 days, 0.5000 (1 - 0.5) at 365 and 0.2500 from 366');
    const freshnessAt = (days: number) =>
      scored((d) => {
        (d.inputs.custody_model as { as_of: string }).as_of = daysBefore(days);
      }).package.steps.criteria.find((c) => c.criterion_id === 'B1')?.freshness;
    expect([91, 365, 366].map(freshnessAt)).toEqual(['0.9982', '0.5000', '0.2500']);
  });

  it('gives spread_bps exactly, with its negative and fractional values, and its template', () => {
    const text = section('3. ');
    expect(text).toContain('`spread_bps` (bps) = `(provider.yield_max - benchmark_rate_pct) x 100`, exact');
    expect(text).toContain('(`"300"`, `"300.55"`, `"-125"`)');
    expect(text).toContain('That template, not `detail`, writes the `detail` of C3');
    expect(text).toContain('`Yield spread over benchmark 300 bps (benchmark 4.25%) scores 90.0000 of 100`');
    for (const [yieldMax, spread, points] of [
      [7.2555, '300.55', '89.9450'],
      [3, '-125', '100.0000'],
    ] as const) {
      const { package: pkg } = scored((d) => {
        d.provider.yield_max = yieldMax;
      });
      const c3 = pkg.steps.criteria.find((c) => c.criterion_id === 'C3');
      expect(c3?.derived).toEqual({ name: 'spread_bps', value: spread });
      expect(c3?.points).toBe(points);
      const hc05 = pkg.steps.hard_caps.find((c) => c.cap_id === 'HC-05');
      expect(hc05?.operands.find((o) => o.operand === 'spread_bps')?.value).toBe(spread);
    }
  });

  it('maps every condition operator of the framework data to the condition text', () => {
    const ops = specificationOf(framework)
      .filter((b): b is Extract<Block, { kind: 'table' }> => b.kind === 'table' && b.head[0] === '`op`')
      .flatMap((b) => b.rows);
    const byOp = new Map(ops.map((row) => [row[0] as string, row]));
    expect([...byOp.keys()]).toEqual(['`eq`', '`in`', '`lt`', '`gt`', '`all`', '`stale`']);
    expect(byOp.get('`eq`')?.[2]).toBe('`operand = value`');
    expect(byOp.get('`in`')?.[2]).toBe('`operand in {a, b}`');
    expect(byOp.get('`lt`')?.[2]).toBe('`operand < value`');
    expect(byOp.get('`gt`')?.[2]).toBe('`operand > value`');
    expect(byOp.get('`all`')?.[2]).toBe('the parts joined by `AND`');
    expect(byOp.get('`stale`')?.[1]).toContain('`age_days_over`');
    expect(byOp.get('`stale`')?.[2]).toContain('where N is `age_days_over`');
    const used = new Set<string>();
    const walk = (cond: (typeof fw.hard_caps)[number]['condition']): void => {
      used.add(`\`${cond.op}\``);
      if (cond.op === 'all') for (const part of cond.of) walk(part);
    };
    for (const cap of fw.hard_caps) walk(cap.condition);
    for (const op of used) expect(byOp.has(op), op).toBe(true);
    expect(tableAfter('5. Hard caps').get('HC-07')?.[1]).toBe('any of A1, A2, B1 present with age_days > 365');
  });

  it('says publishable compares the rounded confidence, summed exactly and rounded once', () => {
    const text = section('7. ');
    expect(text).toContain('rounded once, with `r4`, at the end, never term by term');
    expect(text).toContain('comparing the rounded `confidence`');
    expect(text).toContain('an unrounded 0.49995 rounds half-even to 0.5000 and is publishable');
    expect(text).toContain('an unrounded 0.49994 rounds half-even to 0.4999 and is not publishable');
    // The engine: weights x freshness summing to 49.995 (A1 at 97 days, D2 at 157, four fresh, eight missing).
    const present = ['collateral_coverage_ratio', 'proof_of_reserves', 'rehypothecation'];
    present.push('security_incidents_36m', 'yield_source_disclosure', 'duration_gap_days');
    const { package: pkg, indicator } = scored((d) => {
      for (const key of Object.keys(d.inputs)) if (!present.includes(key)) delete d.inputs[key];
      (d.inputs.collateral_coverage_ratio as { as_of: string }).as_of = daysBefore(97);
      (d.inputs.duration_gap_days as { as_of: string }).as_of = daysBefore(157);
    });
    const sum = pkg.steps.criteria.reduce((total, c) => total + c.weight * Number(c.freshness) * 10_000, 0);
    expect(sum).toBe(499_950);
    expect(pkg.steps.confidence).toBe('0.5000');
    expect(indicator.publishable).toBe(true);
  });

  it('says a point impact that rounds to zero is written "0.00", and the engine writes it so', () => {
    const text = section('8. ');
    expect(text).toContain('rounds to zero and is written `"0.00"` in a package and `0` as a JSON number');
    expect(text).toContain('falls short by 0.000015 and has `point_impact` `"0.00"`');
    expect(text).toContain('a cap of 64.99 under an uncapped 64.992012 binds with `point_impact` `"0.00"`');
    const ceiling = scored((d) => {
      const best: Record<string, string | number> = {
        collateral_coverage_ratio: 2,
        proof_of_reserves: 'onchain_continuous',
        rehypothecation: 'prohibited',
        custody_model: 'collaborative_client_keys',
        largest_counterparty_exposure_pct: 10,
        yield_source_disclosure: 'position_level_monthly',
        benchmark_rate_pct: d.provider.yield_max,
        redemption_notice_days: 0,
        duration_gap_days: 0,
        regulatory_status: 'licensed_tier1',
        operating_history_years: 7.9999,
      };
      for (const [key, value] of Object.entries(best)) (d.inputs[key] as { value: unknown }).value = value;
    });
    expect(ceiling.package.steps.criteria.find((c) => c.criterion_id === 'E3')?.points).toBe('99.9995');
    expect(ceiling.package.result.svc_decision_object.ceiling_factors).toMatchObject([
      { criterion_id: 'E3', point_impact: '0.00' },
    ]);
    expect(Object.is(ceiling.indicator.svc_decision_object.ceiling_factors[0]?.point_impact, 0)).toBe(true);
    const cap = scored((d) => {
      (d.inputs.rehypothecation as { value: unknown }).value = 'permitted_without_consent';
      (d.inputs.custody_model as { value: unknown }).value = 'single_custodian';
      (d.inputs.largest_counterparty_exposure_pct as { value: unknown }).value = 42.7382;
    });
    expect(cap.package.steps.uncapped).toBe('64.992012');
    expect(cap.package.result.svc_decision_object.hard_caps_fired).toEqual([
      { cap_id: 'HC-04', label: 'Unconsented rehypothecation', cap: '64.99', binding: true, point_impact: '0.00' },
    ]);
    expect(cap.package.steps.final_score).toBe('64.99');
  });

  it('says the overview’s {stale} counts inputs older than full_until_days, not the 365 days of “stale”', () => {
    const f = fw.freshness;
    expect(section('12. ')).toContain(
      `\`{stale}\` counts the present inputs older than \`freshness.full_until_days\` (${f.full_until_days} days)`,
    );
    expect(section('12. ')).toContain(`older than \`freshness.decay_until_days\` (${f.decay_until_days} days)`);
    expect(section('7. ')).toContain('“Stale” names different ages');
    expect(section('7. ')).toContain('HC-07’s `age_days_over` (365 days)');
    const { indicator } = scored((d) => {
      (d.inputs.custody_model as { as_of: string }).as_of = daysBefore(f.full_until_days + 1);
      (d.inputs.proof_of_reserves as { as_of: string }).as_of = daysBefore(f.decay_until_days + 1);
    });
    expect(indicator.score_commentary.overview).toContain(`and 2 older than ${f.full_until_days} days`);
  });

  it('says what the 15 significant digits count, and the engine accepts and refuses as it says', () => {
    const text = section('2. ');
    expect(text).toContain('from its first non-zero digit to its last non-zero digit, the zeros between them included');
    expect(text).toContain('`0.000123` has 3, `1.50` and `1.5E2` have 2, `1234567890123450000` has 15 (accepted)');
    expect(text).toContain('`1234567890123456`, `123456789012345.6` and `1.0000000000000001` have 16 (refused)');
    const accepts = (lexeme: string) => {
      const text = JSON.stringify(worked).replace(
        '"operating_history_years":{"value":4',
        `"operating_history_years":{"value":${lexeme}`,
      );
      return validateInputs(readJson(text), framework).ok;
    };
    for (const lexeme of ['0.000123', '1.50', '1.5E2', '1234567890123450000', '123456789012345']) {
      expect(accepts(lexeme), lexeme).toBe(true);
    }
    for (const lexeme of ['1234567890123456', '123456789012345.6', '1.0000000000000001', '1e400']) {
      expect(accepts(lexeme), lexeme).toBe(false);
    }
  });

  it('says numbers are written in the double’s shortest form, the value written only because of 15 digits', () => {
    const text = section('10. ');
    expect(text).toContain('That form has exactly the value written in the inputs only because');
    expect(text).toContain('`1.50` as `1.5`, `1.5E2` as `150`, `1e20` as `100000000000000000000`, `-0` as `0`');
    expect(text).toContain('`1e-400` is read and written as `0`');
    const written = (lexeme: string) => {
      const doc = readJson(
        JSON.stringify(worked).replace(
          '"operating_history_years":{"value":4',
          `"operating_history_years":{"value":${lexeme}`,
        ),
      );
      const validation = validateInputs(doc, framework);
      if (!validation.ok) throw new Error(lexeme);
      const bytes = serializePackage(scoreWithPackage(validation.document, framework).package);
      return /"operating_history_years":\{[^}]*"value":([^,}]*)/.exec(bytes)?.[1];
    };
    expect(['1.50', '1.5E2', '1e20', '-0', '1.23456789012345e-310', '1e-400'].map(written)).toEqual([
      '1.5',
      '150',
      '100000000000000000000',
      '0',
      '1.23456789012346e-310',
      '0',
    ]);
  });

  it('says the engine member is part of the bytes package_sha256 hashes, and verification ignores it', () => {
    const rows = tableAfter('The package');
    const engine = rows.get('`engine`')?.[1];
    expect(engine).toContain('It is part of the package’s bytes, so `package_sha256` covers it');
    expect(engine).toContain('(`inputs_sha256`, `result_sha256` and the identifier do not)');
    expect(section('10. ')).toContain(
      '`package_sha256` = SHA-256 of the whole package’s canonical bytes, `engine` included',
    );
    const { package: pkg } = scoreWithPackage(worked, framework);
    const other = { ...pkg, engine: { name: 'another-engine', version: '9.9.9' } };
    expect(sha256Hex(canonicalJson(other))).not.toBe(sha256Hex(serializePackage(pkg)));
    expect(verifyPackage(other).status).toBe('reproduced');
  });
});
