import { type Dec, dec, ONE, percent, r4, ZERO } from '../decimal.js';
import type { CriterionDefinition, FrameworkDefinition } from '../framework/schema.js';
import { PLACES } from '../places.js';

/** A criterion's scale with its decimals parsed once. */
export interface CompiledCriterion {
  definition: CriterionDefinition;
  weight: Dec;
  /** weight / 100, exact (an integer weight): a contribution is points x share (contributionOf). */
  share: Dec;
  /** Linear anchors (x, points), or null for a table. */
  anchors: (readonly [Dec, Dec])[] | null;
  /** For each anchor after the first, (x - previous x, points - previous points): exact, so computed once. */
  spans: (readonly [Dec, Dec])[] | null;
  /** Table points by value, or null for a linear scale. */
  table: Map<string | boolean, Dec> | null;
  /**
   * The contribution and shortfall of each of the table's points (the very decimals of `table`), computed as
   * compute computes them, once; empty for a linear scale.
   */
  parts: Map<Dec, { contribution: Dec; shortfall: Dec }>;
}

export interface CompiledFramework {
  criteria: CompiledCriterion[];
  /** The indexes in `criteria` of each module's criteria, in framework order; modules in framework order. */
  moduleCriteria: number[][];
  caps: Map<string, Dec>;
  bands: { band: string; min: Dec }[];
  decay: Dec;
  staleFactor: Dec;
  /** The freshness rule `decayed` was computed under. */
  freshness: FrameworkDefinition['freshness'];
  /** The freshness factor at each age in the decay window, by age - full_until_days - 1. */
  decayed: Dec[];
  /**
   * Each freshness factor a criterion can have (0, 1, the decayed ones, the stale factor: these very decimals) as a
   * whole number of 10^-4, when each has at most 4 places and lies in [0, 10^6]; else null (see confidenceOf).
   */
  freshnessUnits: Map<Dec, number> | null;
  floorMinPoints: Dec;
  minConfidence: Dec;
  numericInputKeys: Set<string>;
  derivedNames: Set<string>;
  /**
   * Whether every sum of contributions is exact at the engine's 40 digits, so that any order of adding gives the
   * same value (see exactContributionSums).
   */
  exactSums: boolean;
  /**
   * Whether every figure a scoring reports is exact at its published places (see exactFiguresOf), so that a
   * figure's JSON number is the number its fixed-place text reads.
   */
  exactFigures: boolean;
}

const compiled = new WeakMap<FrameworkDefinition, CompiledFramework>();

/** The framework's numbers as decimals, parsed once per (frozen) definition. */
export function compile(fw: FrameworkDefinition): CompiledFramework {
  let found = compiled.get(fw);
  if (!found) {
    const decay = dec(fw.freshness.decay);
    found = {
      criteria: fw.criteria.map((c) => {
        const anchors = c.scale.kind === 'linear' ? c.scale.anchors.map(([x, p]) => [dec(x), dec(p)] as const) : null;
        const weight = dec(c.weight);
        const share = percent(weight);
        const table = c.scale.kind === 'table' ? new Map(c.scale.entries.map(([v, p]) => [v, dec(p)])) : null;
        return {
          definition: c,
          weight,
          share,
          anchors,
          spans: anchors === null ? null : spansOf(anchors),
          table,
          parts: new Map([...(table?.values() ?? [])].map((points) => [points, partsOf({ weight, share }, points)])),
        };
      }),
      moduleCriteria: fw.modules.map((m) => fw.criteria.flatMap((c, i) => (c.module_id === m.id ? [i] : []))),
      caps: new Map(fw.hard_caps.map((cap) => [cap.id, dec(cap.cap)])),
      bands: fw.bands.map((b) => ({ band: b.band, min: dec(b.min) })),
      decay,
      staleFactor: dec(fw.freshness.stale_factor),
      freshness: fw.freshness,
      decayed: decayWindow(fw.freshness, decay),
      freshnessUnits: null,
      floorMinPoints: dec(fw.decision.floor_min_points),
      minConfidence: dec(fw.publication.min_confidence),
      numericInputKeys: new Set(fw.criteria.filter((c) => c.scale.kind === 'linear').map((c) => c.input_key)),
      derivedNames: new Set(fw.derived.map((d) => d.name)),
      exactSums: exactContributionSums(fw),
      exactFigures: false,
    };
    found.exactFigures = exactFiguresOf(found);
    found.freshnessUnits = freshnessUnitsOf(found);
    compiled.set(fw, found);
  }
  return found;
}

/** The factors of section 7's linear decay at every whole age inside the window, as freshnessFactor computes them. */
function decayWindow(rule: FrameworkDefinition['freshness'], decay: Dec): Dec[] {
  const span = rule.decay_until_days - rule.full_until_days;
  return Array.from({ length: span }, (_, i) => decayedAt(decay, i + 1, span));
}

/** r4(1 - decay x days past full / span): the one formula of the decay. */
export function decayedAt(decay: Dec, daysPastFull: number, span: number): Dec {
  return r4(ONE.minus(decay.times(daysPastFull).div(span)));
}

/**
 * A criterion's contribution, weight x points / 100 (methodology section 4: the product rounded to the engine's 40
 * digits, then divided by 100, which is exact), as one product: points x (weight / 100), where weight / 100 is exact.
 * Both are the exact product correctly rounded to 40 significant digits and moved two places, since rounding to
 * significant digits does not depend on where the point is. The property suite holds it to the two steps.
 */
export function contributionOf(criterion: { share: Dec }, points: Dec): Dec {
  return points.times(criterion.share);
}

/** A criterion's contribution and its shortfall, weight x (100 - points) / 100. */
export function partsOf(criterion: { weight: Dec; share: Dec }, points: Dec): { contribution: Dec; shortfall: Dec } {
  const contribution = contributionOf(criterion, points);
  // weight x (100 - points) / 100 = weight - contribution: every term is exact (points has 4 places).
  return { contribution, shortfall: criterion.weight.minus(contribution) };
}

/** The freshness factors in units of 10^-4 (CompiledFramework.freshnessUnits). */
function freshnessUnitsOf(c: CompiledFramework): Map<Dec, number> | null {
  const factors = [ZERO, ONE, c.staleFactor, ...c.decayed];
  const fits = (f: Dec) => f.decimalPlaces() <= 4 && !f.isNegative() && f.lte(MAX_FRESHNESS);
  return factors.every(fits) ? new Map(factors.map((f) => [f, f.times(10_000).toNumber()])) : null;
}

const MAX_FRESHNESS = dec(1_000_000);

/** (x1 - x0, p1 - p0) of each segment between consecutive anchors. */
function spansOf(anchors: readonly (readonly [Dec, Dec])[]): (readonly [Dec, Dec])[] {
  return anchors.slice(1).map(([x1, p1], i) => {
    const [x0, p0] = anchors[i] as readonly [Dec, Dec];
    return [x1.minus(x0), p1.minus(p0)] as const;
  });
}

/** Places and magnitude of the framework's points within which exactContributionSums holds. */
const MAX_POINTS_PLACES = 12;
const MAX_POINTS = dec('1e9');

/**
 * Whether every sum of contributions a scoring can make is exact at 40 significant digits. A criterion's points are
 * an anchor's or a table's points, or r4 of a value between two anchors' points; with at most 12 places and at most
 * 10^9 in size, a contribution (an integer weight of at most 100, times the points, over 100) has at most 14 places
 * and is at most 10^9, and a sum of at most 100 of them (weights are positive integers summing to 100) has at most
 * 11 + 14 = 25 digits: no addition rounds, so the order of adding does not change the sum.
 */
function exactContributionSums(fw: FrameworkDefinition): boolean {
  const points = fw.criteria.flatMap((c) =>
    c.scale.kind === 'linear' ? c.scale.anchors.map(([, p]) => p) : c.scale.entries.map(([, p]) => p),
  );
  return (
    fw.criteria.length <= 100 &&
    points.every((p) => {
      const value = dec(p);
      return value.decimalPlaces() <= MAX_POINTS_PLACES && value.abs().lte(MAX_POINTS);
    })
  );
}

/**
 * Whether every figure of a Risk Indicator has no more places than it is published with (methodology section 10),
 * whatever the document. Points are an anchor's or a table's points, or r4 of a value between two anchors' points: at
 * most 4 places when the framework's points have at most 4. A contribution (an integer weight times the points over
 * 100) then has at most 6; a module's score, a sum of contributions, too when those sums are exact (exactSums).
 * Freshness is 0, 1, r4 of the decay, or the stale factor; confidence, the final score and every point impact are
 * rounded to their places; a cap is the framework's, and the points to the next band are a band's minimum less the
 * final score: at most 2 places when caps and band minimums have at most 2.
 */
function exactFiguresOf(c: CompiledFramework): boolean {
  const within = (places: number) => (value: Dec) => value.decimalPlaces() <= places;
  const points = c.criteria.flatMap((k) => [...(k.anchors?.map(([, p]) => p) ?? []), ...(k.table?.values() ?? [])]);
  return (
    c.exactSums &&
    points.every(within(PLACES.points)) &&
    within(PLACES.freshness)(c.staleFactor) &&
    [...c.caps.values(), ...c.bands.map((b) => b.min)].every(within(PLACES.score))
  );
}

/** A cache of what is worked out once per (frozen) framework definition and name (a criterion, an input key). */
export type PerFramework<T> = WeakMap<FrameworkDefinition, Map<string, T>>;

/** The value cached for (fw, name), made and kept the first time it is asked for. */
export function oncePerFramework<T>(cache: PerFramework<T>, fw: FrameworkDefinition, name: string, make: () => T): T {
  let byName = cache.get(fw);
  if (!byName) {
    byName = new Map();
    cache.set(fw, byName);
  }
  if (byName.has(name)) return byName.get(name) as T;
  const made = make();
  byName.set(name, made);
  return made;
}
