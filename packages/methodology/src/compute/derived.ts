import { type Dec, dec, HUNDRED } from '../decimal.js';
import type { InputsDocument } from '../inputs/document.js';

/**
 * Derived quantities the framework data may name. Each is a formula of the
 * methodology; the framework records its text, the engine its arithmetic.
 * Returns null when an input it reads is missing.
 */
const derivations: Record<string, (doc: InputsDocument) => Dec | null> = {
  // spread_bps = (provider.yield_max - benchmark_rate_pct) x 100
  spread_bps: (doc) => {
    const benchmark = doc.inputs.benchmark_rate_pct;
    if (!benchmark) return null;
    return dec(doc.provider.yield_max)
      .minus(dec(benchmark.value as number))
      .times(HUNDRED);
  },
};

export function derive(name: string, doc: InputsDocument): Dec | null {
  const derivation = derivations[name];
  if (!derivation) throw new RangeError(`the engine knows no derived quantity "${name}"`);
  return derivation(doc);
}

export function knownDerivations(): string[] {
  return Object.keys(derivations);
}
