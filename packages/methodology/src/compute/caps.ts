import type { Dec } from '../decimal.js';
import { compare, dec } from '../decimal.js';
import type { CapCondition, HardCapDefinition } from '../framework/schema.js';
import type { InputValue } from '../inputs/document.js';

/** What a condition reads: an input's value, a derived quantity, or a criterion's age. */
export interface Operand {
  operand: string;
  kind: 'input' | 'derived' | 'age';
  /** An age is its whole number of days. */
  value: InputValue | Dec | null;
}

export interface CapEvaluation {
  cap: HardCapDefinition;
  operands: Operand[];
  fired: boolean;
}

export interface CapContext {
  /** The value of an input key or a derived quantity; null when missing. */
  read(operand: string): { kind: 'input' | 'derived'; value: InputValue | Dec | null };
  /** Age in days of a criterion's evidence; null when missing. */
  ageOf(criterionId: string): number | null;
}

/**
 * Evaluates a hard cap (methodology section 5). A condition that reads a
 * missing input is false as a whole; the stale-evidence condition reads only
 * the criteria that are present.
 */
export function evaluateCap(cap: HardCapDefinition, ctx: CapContext): CapEvaluation {
  const operands: Operand[] = [];
  const outcome = holds(cap.condition, ctx, operands);
  return { cap, operands, fired: outcome.holds && !outcome.readsMissing };
}

interface Outcome {
  holds: boolean;
  readsMissing: boolean;
}

function holds(cond: CapCondition, ctx: CapContext, operands: Operand[]): Outcome {
  switch (cond.op) {
    case 'all': {
      // Evaluate every part so the package records every operand.
      const parts = cond.of.map((c) => holds(c, ctx, operands));
      return { holds: parts.every((p) => p.holds), readsMissing: parts.some((p) => p.readsMissing) };
    }
    case 'stale': {
      const stale = cond.criteria.map((id) => {
        const age = ctx.ageOf(id);
        operands.push({ operand: `${id}.age_days`, kind: 'age', value: age });
        return age !== null && age > cond.age_days_over;
      });
      return { holds: stale.some(Boolean), readsMissing: false };
    }
    default: {
      const { kind, value } = ctx.read(cond.operand);
      operands.push({ operand: cond.operand, kind, value });
      if (value === null) return { holds: false, readsMissing: true };
      if (cond.op === 'eq') return { holds: value === cond.value, readsMissing: false };
      if (cond.op === 'in') return { holds: cond.values.includes(value as string), readsMissing: false };
      const x = value as Dec;
      const bound = boundOf(cond);
      const side = compare(x, bound);
      return { holds: cond.op === 'lt' ? side < 0 : side > 0, readsMissing: false };
    }
  }
}

/** A comparison's bound as a decimal, parsed once per (frozen) condition of the framework data. */
const bounds = new WeakMap<object, Dec>();

function boundOf(cond: { value: string | number }): Dec {
  let bound = bounds.get(cond);
  if (bound === undefined) {
    bound = dec(cond.value);
    bounds.set(cond, bound);
  }
  return bound;
}
