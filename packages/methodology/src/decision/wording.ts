import type { Dec } from '../decimal.js';

/** A decimal's exact text, with no trailing zeros. */
export function exact(value: Dec): string {
  return value.toFixed();
}

export function listOf(labels: readonly string[]): string {
  if (labels.length <= 1) return labels.join('');
  return `${labels.slice(0, -1).join(', ')} and ${labels[labels.length - 1]}`;
}
