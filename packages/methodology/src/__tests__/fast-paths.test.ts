import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile, contributionOf } from '../compute/compiled.js';
import { confidenceOf, fixedUnits, halfEvenQuotient } from '../compute/freshness.js';
import { epochDay, isUtcTimestamp } from '../dates.js';
import {
  boundTest,
  compare,
  dec,
  fixed,
  percent,
  roundTo,
  significantDigits,
  significantDigitsOfText,
} from '../decimal.js';
import { buildPackage, canonicalJson, serializePackage, sha256Hex } from '../index.js';
import { JsonSyntaxError, readJson, readJsonExactly } from '../inputs/read-json.js';
import { DEFINITION, documentArb, FRAMEWORK, SEED } from './arbitraries.js';

/**
 * Each shortcut the engine takes for speed gives exactly what the route it
 * replaces gives, over the inputs it can meet. Seeded: FC_SEED replays a failure.
 */

fc.configureGlobal({ seed: SEED, numRuns: 2000 });

/** JSON number lexemes: long mantissas, leading and trailing zeros, exponents. */
const lexemeArb = fc.stringMatching(/^-?(0|[1-9][0-9]{0,24}0{0,5})(\.0{0,5}[0-9]{1,24}0{0,5})?([eE][+-]?[0-9]{1,3})?$/);

/** Finite doubles, with the integers and short decimals that documents hold. */
const numberArb = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.integer({ min: -10_000_000, max: 10_000_000 }).map((n) => n / 10_000),
);

describe('significant digits counted on the text', () => {
  it('equals the decimal count for the String() of every finite number', () => {
    fc.assert(
      fc.property(numberArb, (n) => {
        expect(significantDigitsOfText(String(n))).toBe(significantDigits(dec(String(n))));
      }),
    );
  });

  it('equals the decimal count for every JSON number lexeme', () => {
    fc.assert(
      fc.property(lexemeArb, (text) => {
        expect(significantDigitsOfText(text)).toBe(significantDigits(dec(text)));
      }),
    );
  });
});

describe('a bound test on doubles', () => {
  const boundArb = fc.oneof(
    fc.constantFrom('0', '100', '0.90', '1.00', '0.1', '-7', '1e-7'),
    fc.stringMatching(/^-?(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/),
  );
  const near = (bound: string) => {
    const b = Number(bound);
    return fc.oneof(numberArb, fc.constantFrom(b, b + Number.EPSILON * Math.abs(b), b - Number.EPSILON * Math.abs(b)));
  };

  it('decides n >= min and n <= max as the decimal of String(n) does', () => {
    fc.assert(
      fc.property(
        boundArb.chain((bound) => fc.tuple(fc.constant(bound), near(bound))),
        ([bound, n]) => {
          expect(boundTest(bound, 'min')(n)).toBe(dec(n).gte(dec(bound)));
          expect(boundTest(bound, 'max')(n)).toBe(dec(n).lte(dec(bound)));
        },
      ),
    );
  });
});

/** What a reader gives for a text: its value, or the error it throws. */
function outcome(read: (text: string) => unknown, text: string): { value: unknown } | { error: string } {
  try {
    return { value: read(text) };
  } catch (error) {
    return { error: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

describe('readJson through JSON.parse', () => {
  const numberTextArb = fc.oneof(lexemeArb, numberArb.map(String), fc.constantFrom('1e400', '-0', '0.0', '1E-400'));
  const keyArb = fc.constantFrom('a', 'b', '__proto__', 'value', '0', '\\u0061');
  const valueTextArb: fc.Arbitrary<string> = fc.letrec((tie) => ({
    value: fc.oneof(
      { arbitrary: numberTextArb, weight: 4 },
      { arbitrary: fc.constantFrom('true', 'false', 'null', '"x"', '"\\"1:2{"', '"\\ud800"'), weight: 2 },
      { arbitrary: fc.string().map((s) => JSON.stringify(s)), weight: 1 },
      { arbitrary: fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(', ')}]`), weight: 1 },
      {
        arbitrary: fc
          .array(fc.tuple(keyArb, tie('value')), { maxLength: 4 })
          .map((members) => `{ ${members.map(([k, v]) => `"${k}" : ${v}`).join(',')} }`),
        weight: 2,
      },
    ),
  })).value;
  const brokenArb = fc.tuple(valueTextArb, fc.nat()).map(([text, cut]) => text.slice(0, cut % (text.length + 1)));

  it('gives what the exact reader gives, value or error, for valid, duplicate-keyed and broken texts', () => {
    fc.assert(
      fc.property(fc.oneof(valueTextArb, brokenArb), (text) => {
        expect(outcome(readJson, text)).toStrictEqual(outcome(readJsonExactly, text));
      }),
    );
  });

  it('leaves deep nesting to the exact reader, which says so in words', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(outcome(readJson, deep)).toStrictEqual(outcome(readJsonExactly, deep));
    for (const text of [deep, '['.repeat(100_000), `{"a":${'{"a":'.repeat(50_000)}`]) {
      expect(() => readJson(text)).toThrow(new JsonSyntaxError('arrays and objects are nested too deeply to read'));
    }
  });
});

describe('decimal shortcuts', () => {
  const decimalArb = fc
    .tuple(fc.bigInt({ min: -(10n ** 45n), max: 10n ** 45n }), fc.integer({ min: -10, max: 50 }))
    .map(([units, scale]) => dec(`${units}e${-scale}`))
    .chain((d) => fc.constantFrom(d, dec(String(d.toNumber())), d.neg(), dec(0).neg()));

  it('fixed(value, places) is toFixed(places, half-even) without "-0"', () => {
    fc.assert(
      fc.property(decimalArb, fc.integer({ min: 0, max: 8 }), (d, places) => {
        const text = d.toFixed(places, 6);
        expect(fixed(d, places)).toBe(/^-0(\.0+)?$/.test(text) ? text.slice(1) : text);
      }),
    );
  });

  it('compare(a, b) is a.comparedTo(b), for decimals near each other, of either sign, zeros of either sign', () => {
    const pairArb = fc.oneof(
      fc.tuple(decimalArb, decimalArb),
      // the same digits but the last, or one more or fewer words: the cases the exponent does not decide
      decimalArb.chain((d) =>
        fc.tuple(
          fc.constant(d),
          fc.constantFrom(d, d.plus('1e-40'), d.minus('1e-12'), d.plus(d.abs().times('1e-8')), d.times(10), d.neg()),
        ),
      ),
    );
    fc.assert(
      fc.property(pairArb, ([a, b]) => {
        expect(compare(a, b)).toBe(a.comparedTo(b));
        expect(compare(b, a)).toBe(b.comparedTo(a));
      }),
    );
  });

  it('roundTo(value, places) has the value of toDecimalPlaces(places, half-even)', () => {
    fc.assert(
      fc.property(decimalArb, fc.integer({ min: 0, max: 8 }), (d, places) => {
        const expected = d.toDecimalPlaces(places, 6);
        const got = roundTo(d, places);
        expect([got.toString(), got.isNeg()]).toStrictEqual([expected.toString(), expected.isNeg()]);
      }),
    );
  });

  it('a contribution as one product, points x (weight / 100), is percent(weight x points) at 40 digits', () => {
    fc.assert(
      fc.property(decimalArb, fc.integer({ min: 1, max: 100 }), (points, w) => {
        const weight = dec(w);
        const expected = percent(weight.times(points));
        const got = contributionOf({ share: percent(weight) }, points);
        expect([got.toString(), got.isNeg()]).toStrictEqual([expected.toString(), expected.isNeg()]);
      }),
    );
  });

  it('percent(value) is value / 100', () => {
    fc.assert(
      fc.property(decimalArb, (d) => {
        const expected = d.div(100);
        expect([percent(d).toString(), percent(d).isNeg()]).toStrictEqual([expected.toString(), expected.isNeg()]);
      }),
    );
  });
});

describe('dates read by character codes', () => {
  // The regular expressions the readers replaced, with the same checks on the numbers they capture.
  const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
  const UTC_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?Z$/;
  const realDate = (y: number, m: number, d: number) => {
    const date = new Date(0);
    date.setUTCFullYear(y, m - 1, d);
    return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
  };
  const dateByPattern = (text: string) => {
    const m = DATE.exec(text);
    return m !== null && realDate(Number(m[1]), Number(m[2]), Number(m[3]));
  };
  const timestampByPattern = (text: string) => {
    const m = UTC_TIMESTAMP.exec(text);
    if (!m) return false;
    return (
      realDate(Number(m[1]), Number(m[2]), Number(m[3])) && Number(m[4]) < 24 && Number(m[5]) < 60 && Number(m[6]) < 60
    );
  };
  const charArb = fc.constantFrom('0', '1', '2', '3', '5', '9', '-', 'T', ':', '.', 'Z', ' ', '٣', 'a');
  const mutated = (base: string) =>
    fc
      .tuple(fc.nat({ max: base.length }), charArb, fc.constantFrom('replace', 'insert', 'delete', 'keep'))
      .map(([at, c, how]) =>
        how === 'keep'
          ? base
          : base.slice(0, at) + (how === 'delete' ? '' : c) + base.slice(how === 'insert' ? at : at + 1),
      );
  const dateArb = fc
    .tuple(
      fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 4, 100, 1900, 2000, 2024, 2100)),
      fc.integer({ min: 0, max: 13 }),
      fc.oneof(fc.integer({ min: 0, max: 32 }), fc.constantFrom(28, 29, 30, 31)),
    )
    .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);
  const timestampArb = fc
    .tuple(
      dateArb,
      fc.integer({ min: 0, max: 25 }),
      fc.integer({ min: 0, max: 61 }),
      fc.integer({ min: 0, max: 61 }),
      fc.stringMatching(/^(\.[0-9]{0,10})?$/),
    )
    .map(([date, h, m, s, f]) => `${date}T${[h, m, s].map((n) => String(n).padStart(2, '0')).join(':')}${f}Z`);

  it('reads a calendar date as the pattern YYYY-MM-DD with a real day does', () => {
    fc.assert(
      fc.property(dateArb.chain(mutated), (text) => {
        expect(epochDay(text) !== null).toBe(dateByPattern(text));
      }),
    );
  });

  it('reads a UTC timestamp as its pattern with a real date and time does', () => {
    fc.assert(
      fc.property(timestampArb.chain(mutated), (text) => {
        expect(isUtcTimestamp(text)).toBe(timestampByPattern(text));
      }),
    );
  });
});

describe('canonical texts composed from parts', () => {
  it('serialises a package to canonicalJson(package), and hashes canonicalJson of its inputs and result', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        const pkg = buildPackage(doc, FRAMEWORK);
        expect(serializePackage(pkg)).toBe(canonicalJson(pkg));
        expect(pkg.result_sha256).toBe(sha256Hex(canonicalJson(pkg.result)));
        expect(pkg.inputs_sha256).toBe(sha256Hex(canonicalJson(pkg.inputs)));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the parts out of sight: a package is what its bytes read back give, and a copy serialises the same', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        const pkg = buildPackage(doc, FRAMEWORK);
        const bytes = serializePackage(pkg);
        const read = JSON.parse(bytes) as typeof pkg;
        expect(Object.keys(pkg).sort()).toEqual(Object.keys(read).sort());
        expect(pkg).toStrictEqual(read);
        expect(JSON.parse(JSON.stringify(pkg))).toStrictEqual(read);
        // A copy holds no parts: it goes through canonicalJson, to the same bytes.
        expect(serializePackage({ ...pkg })).toBe(bytes);
        expect(serializePackage(structuredClone(pkg))).toBe(bytes);
      }),
      { numRuns: 100 },
    );
  });
});

describe('confidence in whole numbers', () => {
  const compiled = compile(DEFINITION);
  const units = compiled.freshnessUnits;
  const factors = [...(units?.keys() ?? [])];
  const weights = DEFINITION.criteria.map((c) => c.weight);

  it("holds for DCRF v1.0's freshness factors", () => {
    expect(units).not.toBeNull();
    expect(factors.length).toBe(compiled.decayed.length + 3);
  });

  it('gives the decimal route’s confidence for any freshness of each criterion, and for a factor it does not know', () => {
    const stranger = dec('0.33335');
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...factors, stranger), { minLength: weights.length, maxLength: weights.length }),
        (chosen) => {
          const criteria = chosen.map((freshness, i) => ({ criterion: { weight: weights[i] as number }, freshness }));
          expect(confidenceOf(criteria, units).toFixed()).toBe(confidenceOf(criteria).toFixed());
        },
      ),
    );
  });

  it('rounds a quotient half-even and writes units as fixed-place text, as decimal.js does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), fc.integer({ min: 0, max: 6 }), (n, places) => {
        const d = 10 ** places;
        expect(halfEvenQuotient(n, d)).toBe(dec(n).div(d).toDecimalPlaces(0, 6).toNumber());
        expect(fixedUnits(n, places)).toBe(dec(n).div(d).toFixed(places));
      }),
    );
  });
});
