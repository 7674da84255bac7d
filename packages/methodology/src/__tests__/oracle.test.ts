import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compile } from '../compute/compiled.js';
import { dec } from '../decimal.js';
import type { FrameworkDefinition } from '../framework/schema.js';
import {
  canonicalJson,
  canonicalSha256,
  defineFramework,
  type Framework,
  score,
  scoreWithPackage,
  serializePackage,
  sha256Hex,
} from '../index.js';
import { type Validation, validateBySchema, validateInputs } from '../inputs/document.js';
import { validDocument } from '../inputs/valid-document.js';
import { DEFINITION, documentArb, FRAMEWORK, SEED } from './arbitraries.js';
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
  /** DCRF v1.0 with one figure of the framework given more places than it is published with. */
  const finer = (change: (definition: FrameworkDefinition) => void): Framework => {
    const definition = structuredClone(DEFINITION) as FrameworkDefinition;
    change(definition);
    return defineFramework(definition);
  };
  const lessOne = (text: string, unit: string) => dec(text).minus(unit).toFixed();
  const inexact = {
    'table points of 6 places': finer((fw) => {
      const table = fw.criteria.find((c) => c.scale.kind === 'table');
      if (table?.scale.kind !== 'table') throw new Error('DCRF v1.0 has a table scale');
      table.scale.entries = table.scale.entries.map(([v, p]) => [v, dec(p).isZero() ? '0.000001' : lessOne(p, '1e-6')]);
    }),
    'a cap of 3 places': finer((fw) => {
      const cap = fw.hard_caps[0];
      if (cap) cap.cap = lessOne(cap.cap, '0.005');
    }),
    'a band minimum of 3 places': finer((fw) => {
      const band = fw.bands[1];
      if (band) band.min = lessOne(band.min, '0.005');
    }),
  };

  it("DCRF v1.0's figures are exact at their places, so its indicator is read from the package's texts", () => {
    expect(compile(DEFINITION).exactFigures).toBe(true);
    for (const framework of Object.values(inexact)) expect(compile(framework.definition).exactFigures).toBe(false);
  });

  it.each([['DCRF v1.0', FRAMEWORK], ...Object.entries(inexact)])(
    'gives the indicator of scoreWithPackage byte for byte as score gives it (decimal.js toNumber): %s',
    (_, fw) => {
      fc.assert(
        fc.property(documentArb, (doc) => {
          expect(JSON.stringify(scoreWithPackage(doc, fw).indicator)).toBe(JSON.stringify(score(doc, fw)));
        }),
        { numRuns: fw === FRAMEWORK ? NUM_RUNS : Math.ceil(NUM_RUNS / 4) },
      );
    },
  );
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
