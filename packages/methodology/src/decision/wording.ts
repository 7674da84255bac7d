import type { CriterionStep } from '../compute/compute.js';
import { type Dec, fixed } from '../decimal.js';

/** How an input value reads in text: numbers as written, enums and booleans as they are. */
export function valueText(step: CriterionStep): string {
  const { item, derived } = step;
  if (item === null) return 'missing';
  if (derived !== null && derived.name === 'spread_bps') {
    return `${exact(derived.value)} bps (benchmark ${String(item.value)}%)`;
  }
  return String(item.value);
}

/** Per-factor detail, e.g. "Collateral coverage 1.35 scores 75.0000 of 100". */
export function factorDetail(step: CriterionStep, pointsPlaces: number): string {
  const label = step.criterion.label;
  if (step.item === null) return `${label} is missing (${step.criterion.input_key}) and scores 0 of 100`;
  return `${label} ${valueText(step)} scores ${fixed(step.points, pointsPlaces)} of 100`;
}

/** A decimal's exact text, with no trailing zeros. */
export function exact(value: Dec): string {
  return value.toFixed();
}

export function listOf(labels: string[]): string {
  if (labels.length <= 1) return labels.join('');
  return `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
}
