import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalSha256, score, scoreWithPackage, serializePackage, sha256Hex } from '../index.js';
import { documentArb, FRAMEWORK, SEED } from './arbitraries.js';

/**
 * The engine's fast path held to the maintained libraries it stands in for (docs/decisions/0034-fast-engine-path.md):
 * the package serialiser written for the package's shape against `canonicalize` (RFC 8785), on generated documents,
 * byte for byte. Seeded: FC_SEED replays a failure.
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
