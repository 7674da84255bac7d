// The bench's documents: N valid approved-inputs documents generated deterministically from the framework data
// (every criterion kind, all bands, caps and stale evidence), as JSON text. Shared by throughput.mjs and ab.mjs.

export const SEED = 20_260_401;
const DAY_MS = 86_400_000;

/** mulberry32: a small seeded PRNG, so every run scores the same documents. */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** The JSON texts of N documents under `framework` (the same texts for the same framework and N). */
export function documentTexts(framework, plannerTypes, N) {
  const random = mulberry32(SEED);
  const pick = (items) => items[Math.floor(random() * items.length)];
  const between = (low, high) => low + random() * (high - low);
  /** A decimal of at most 4 places, through exact text. */
  const decimal = (low, high) => Number(between(low, high).toFixed(4));
  const hex = (n) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
  const dateOf = (day) => new Date(day * DAY_MS).toISOString().slice(0, 10);

  const definition = framework.definition;
  const effectiveDay = Date.parse(`${definition.effective_date}T00:00:00Z`) / DAY_MS;

  /** A value in the criterion's domain, from the framework data: table entries, or around the scale's anchors. */
  function valueFor(criterion, yieldMax) {
    const { input, scale } = criterion;
    if (scale.kind === 'table') return pick(scale.entries)[0];
    if (scale.on !== 'input') return decimal(Math.max(0, yieldMax - 16), yieldMax); // a benchmark below the yield
    const xs = scale.anchors.map(([x]) => Number(x));
    const first = xs[0];
    const last = xs[xs.length - 1];
    const low = input.min === undefined ? first - (last - first) / 3 : Number(input.min);
    const high = input.max === undefined ? last + (last - first) / 3 : Number(input.max);
    return input.type === 'integer' ? Math.round(between(low, high)) : decimal(low, high);
  }

  function documentAt(index) {
    const evaluationDay = effectiveDay + Math.floor(random() * 1500);
    const yields = [decimal(0, 20), decimal(0, 20)].sort((a, b) => a - b);
    const inputs = {};
    for (const criterion of definition.criteria) {
      if (random() < 0.1) continue; // about one input in ten missing
      const asOfDay = evaluationDay - Math.floor(pick([between(0, 90), between(91, 365), between(366, 800)]));
      inputs[criterion.input_key] = {
        value: valueFor(criterion, yields[1]),
        as_of: dateOf(asOfDay),
        source: `Attestation ${index}, p. ${1 + Math.floor(random() * 40)}`,
        approved_by: pick(['analyst.a', 'analyst.b', 'risk.lead']),
        approved_at: `${dateOf(asOfDay + 2)}T10:00:00Z`,
      };
    }
    return {
      provider: {
        id: `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`,
        name: `Provider ${index}`,
        planner_type: pick(plannerTypes),
        provider_subtype: pick(['lender', 'exchange_earn', 'cefi_yield', 'bank']),
        yield_min: yields[0],
        yield_max: yields[1],
      },
      evaluation_date: dateOf(evaluationDay),
      inputs,
    };
  }

  return Array.from({ length: N }, (_, i) => JSON.stringify(documentAt(i)));
}
