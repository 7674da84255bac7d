import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalSha256, score, scoreWithPackage, serializePackage, sha256Hex } from '../index.js';
import { type Validation, validateBySchema, validateInputs } from '../inputs/document.js';
import { validDocument } from '../inputs/valid-document.js';
import { documentArb, FRAMEWORK, SEED } from './arbitraries.js';
import { BREAKAGES, copy } from './breakages.js';

/**
 * The engine's fast path held to the maintained libraries it stands in for (docs/decisions/0034-fast-engine-path.md):
 * the package serialiser written for the package's shape against `canonicalize` (RFC 8785), on generated documents,
 * byte for byte; the hand-written happy path of validation against the zod schema. Seeded: FC_SEED replays a failure.
 */

const NUM_RUNS = process.env.FC_NUM_RUNS === undefined ? 500 : Number(process.env.FC_NUM_RUNS);
fc.configureGlobal({ seed: SEED, numRuns: NUM_RUNS });

describe('the package serialiser against canonicalize', () => {
  it('writes every package byte for byte as canonicalize writes the same package', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        const { package: pkg } = scoreWithPackage(doc, FRAMEWORK);
        expect(serializePackage(pkg)).toBe(canonicalJson(pkg));
      }),
    );
  });

  it('hashes the canonicalize texts: inputs_sha256, result_sha256 and the risk_indicator_id', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        const { package: pkg } = scoreWithPackage(doc, FRAMEWORK);
        expect(pkg.inputs_sha256).toBe(sha256Hex(canonicalJson(pkg.inputs)));
        expect(pkg.result_sha256).toBe(sha256Hex(canonicalJson(pkg.result)));
        const identity = canonicalSha256({
          framework_sha256: FRAMEWORK.sha256,
          inputs_sha256: pkg.inputs_sha256,
          evaluation_date: pkg.evaluation_date,
        });
        expect(pkg.risk_indicator_id).toBe(`ri_${identity.slice(0, 24)}`);
      }),
    );
  });

  it('serialises a package it did not build (a copy) through canonicalize, to the same bytes', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        const { package: pkg } = scoreWithPackage(doc, FRAMEWORK);
        expect(serializePackage(structuredClone(pkg))).toBe(serializePackage(pkg));
      }),
      { numRuns: 50 },
    );
  });
});

/** Every object and array under `value` that is not frozen, by path. */
function unfrozen(value: unknown, path = 'package'): string[] {
  if (value === null || typeof value !== 'object') return [];
  const own = Object.isFrozen(value) ? [] : [path];
  return own.concat(...Object.entries(value).map(([key, member]) => unfrozen(member, `${path}.${key}`)));
}

describe('figures written once for both forms', () => {
  it('gives the indicator of scoreWithPackage byte for byte as score gives it (decimal.js toNumber)', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        expect(JSON.stringify(scoreWithPackage(doc, FRAMEWORK).indicator)).toBe(JSON.stringify(score(doc, FRAMEWORK)));
      }),
    );
  });
});

describe('a package built by the engine', () => {
  it('is frozen all through, so the canonical texts kept for it stay true', () => {
    fc.assert(
      fc.property(documentArb, (doc) => {
        expect(unfrozen(scoreWithPackage(doc, FRAMEWORK).package)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });
});

/** A validation as text, members in order: the same text is the same outcome, down to key order. */
const shown = (v: Validation) => JSON.stringify(v);

describe('the happy path of validation against the zod schema', () => {
  it('accepts every valid document and builds the document the schema builds, members in the same order', () => {
    fc.assert(
      fc.property(documentArb, fc.boolean(), (doc, throughText) => {
        const raw = throughText ? JSON.parse(JSON.stringify(doc)) : structuredClone(doc);
        const fast = validDocument(raw, FRAMEWORK);
        expect(fast).toBeDefined();
        expect(shown({ ok: true, document: fast as NonNullable<typeof fast> })).toBe(
          shown(validateBySchema(raw, FRAMEWORK)),
        );
      }),
    );
  });

  it("accepts no broken document: every breakage gives the schema's problems", () => {
    fc.assert(
      fc.property(documentArb, fc.constantFrom(...BREAKAGES.keys()), (doc, b) => {
        const broken = copy(doc);
        (BREAKAGES[b] as (d: typeof broken) => void)(broken);
        const reference = validateBySchema(broken, FRAMEWORK);
        if (!reference.ok) expect(validDocument(broken, FRAMEWORK)).toBeUndefined();
        expect(shown(validateInputs(broken, FRAMEWORK))).toBe(shown(reference));
      }),
    );
  });

  it("gives the schema's outcome for a document with one member replaced by any JSON value", () => {
    const pathArb = fc.constantFrom(
      ['provider', 'id'],
      ['provider', 'name'],
      ['provider', 'planner_type'],
      ['provider', 'provider_subtype'],
      ['provider', 'yield_min'],
      ['provider', 'yield_max'],
      ['evaluation_date'],
      ['inputs'],
      ['provider'],
    );
    fc.assert(
      fc.property(documentArb, pathArb, fc.jsonValue(), (doc, path, value) => {
        const broken = copy(doc) as unknown as Record<string, Record<string, unknown>>;
        if (path.length === 1) (broken as Record<string, unknown>)[path[0] as string] = value;
        else (broken[path[0] as string] as Record<string, unknown>)[path[1] as string] = value;
        expect(shown(validateInputs(broken, FRAMEWORK))).toBe(shown(validateBySchema(broken, FRAMEWORK)));
      }),
    );
  });

  it("gives the schema's outcome for numbers near every bound, too precise, negative zero or not whole", () => {
    const numberArb = fc.oneof(
      fc.double({ min: -2, max: 102, noNaN: true }),
      fc.integer({ min: -5, max: 2000 }),
      fc.constantFrom(-0, 0, 100, 0.1 + 0.2, 1e-7, 1e21, 99.99999999999999, 7.5, Number.MAX_VALUE),
    );
    fc.assert(
      fc.property(
        documentArb.filter((d) => Object.keys(d.inputs).length > 0),
        numberArb,
        fc.nat(),
        fc.constantFrom('yield_min', 'yield_max', 'input'),
        (doc, value, pick, where) => {
          const broken = copy(doc);
          if (where === 'input') {
            const keys = Object.keys(broken.inputs);
            (broken.inputs[keys[pick % keys.length] as string] as Record<string, unknown>).value = value;
          } else broken.provider[where] = value;
          expect(shown(validateInputs(broken, FRAMEWORK))).toBe(shown(validateBySchema(broken, FRAMEWORK)));
        },
      ),
    );
  });

  it("gives the schema's outcome for an input item with one member replaced by any JSON value", () => {
    fc.assert(
      fc.property(
        documentArb.filter((d) => Object.keys(d.inputs).length > 0),
        fc.constantFrom('value', 'as_of', 'source', 'approved_by', 'approved_at', 'extra'),
        fc.jsonValue(),
        fc.nat(),
        (doc, member, value, pick) => {
          const broken = copy(doc);
          const keys = Object.keys(broken.inputs);
          const item = broken.inputs[keys[pick % keys.length] as string] as Record<string, unknown>;
          item[member] = value;
          expect(shown(validateInputs(broken, FRAMEWORK))).toBe(shown(validateBySchema(broken, FRAMEWORK)));
        },
      ),
    );
  });
});
