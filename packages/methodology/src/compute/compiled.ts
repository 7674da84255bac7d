import { type Dec, dec } from '../decimal.js';
import type { CriterionDefinition, FrameworkDefinition } from '../framework/schema.js';

/** A criterion's scale with its decimals parsed once. */
export interface CompiledCriterion {
  definition: CriterionDefinition;
  weight: Dec;
  /** Linear anchors (x, points), or null for a table. */
  anchors: (readonly [Dec, Dec])[] | null;
  /** Table points by value, or null for a linear scale. */
  table: Map<string | boolean, Dec> | null;
}

export interface CompiledFramework {
  criteria: CompiledCriterion[];
  caps: Map<string, Dec>;
  bands: { band: string; min: Dec }[];
  decay: Dec;
  staleFactor: Dec;
  floorMinPoints: Dec;
  minConfidence: Dec;
  numericInputKeys: Set<string>;
  derivedNames: Set<string>;
}

const compiled = new WeakMap<FrameworkDefinition, CompiledFramework>();

/** The framework's numbers as decimals, parsed once per (frozen) definition. */
export function compile(fw: FrameworkDefinition): CompiledFramework {
  let found = compiled.get(fw);
  if (!found) {
    found = {
      criteria: fw.criteria.map((c) => ({
        definition: c,
        weight: dec(c.weight),
        anchors: c.scale.kind === 'linear' ? c.scale.anchors.map(([x, p]) => [dec(x), dec(p)] as const) : null,
        table: c.scale.kind === 'table' ? new Map(c.scale.entries.map(([v, p]) => [v, dec(p)])) : null,
      })),
      caps: new Map(fw.hard_caps.map((cap) => [cap.id, dec(cap.cap)])),
      bands: fw.bands.map((b) => ({ band: b.band, min: dec(b.min) })),
      decay: dec(fw.freshness.decay),
      staleFactor: dec(fw.freshness.stale_factor),
      floorMinPoints: dec(fw.decision.floor_min_points),
      minConfidence: dec(fw.publication.min_confidence),
      numericInputKeys: new Set(fw.criteria.filter((c) => c.scale.kind === 'linear').map((c) => c.input_key)),
      derivedNames: new Set(fw.derived.map((d) => d.name)),
    };
    compiled.set(fw, found);
  }
  return found;
}
