import { listOf } from '../decision/wording.js';

/** Every sentence and error message of the analyses, in one place. */
export const messages = {
  // pathToNextBand: why a criterion alone cannot reach the next band, and the summary.
  capHolds: (caps: { id: string; cap: string; label: string }[], lowest: string, inputKey: string) =>
    caps.length === 1
      ? `cap ${caps[0]?.id} (${caps[0]?.label}) holds the score at ${lowest} whatever ${inputKey} is`
      : `caps ${listOf(caps.map((c) => `${c.id} (${c.cap})`))} fire whatever ${inputKey} is and hold the score at ${lowest}`,
  atBest: (inputKey: string, value: string) =>
    `${inputKey} is already at its best value (${value}); no other value of it scores more`,
  short: (inputKey: string, value: string, score: string, band: string, min: string) =>
    `even at its best value (${value}), ${inputKey} lifts the score only to ${score}, short of ${band} at ${min}`,
  notMonotone: (criterionId: string, inputKey: string) =>
    `the scale of ${criterionId} rises and falls, so no single direction of ${inputKey} improves it`,
  summaryBest: (score: string, band: string) => `${score} is in ${band}, the best band: there is no next band.`,
  summary: (score: string, band: string, gap: string, next: string, min: string, changes: string[]) =>
    `${score} (${band}) is ${gap} points below ${next} (${min}). ${
      changes.length === 0
        ? `No change to a single input reaches ${next}.`
        : `Any one of these changes alone reaches ${next}: ${listOf(changes)}.`
    }`,
  change: (inputKey: string, value: string, asOf: string | null) =>
    `${inputKey} ${value}${asOf === null ? '' : ` (evidence as of ${asOf})`}`,

  // applyOverrides.
  notOverrides: 'overrides must be a JSON object of input keys',
  notOverrideField: 'is not a field of an override (value, as_of)',
  whatIfSource: 'what-if override',
  whatIfApprover: 'what-if',

  // indicatorChanges.
  differentFrameworks: (before: string, after: string) =>
    `cannot compare indicators scored under different frameworks (${before} and ${after})`,

  // evidenceSchedule.
  notStartDate: (start: unknown) => `the start of an evidence schedule must be a date YYYY-MM-DD, got ${String(start)}`,
  notHorizon: (days: unknown, max: number) =>
    `the horizon of an evidence schedule must be a whole number of days from 1 to ${max}, got ${String(days)}`,
  freshnessRises: (framework: string) =>
    `${framework}'s freshness rule does not fall with age as the evidence schedule assumes (full, then a linear decay no lower than the stale factor)`,
  decayStarts: (asOf: string, inputs: string[], days: number) =>
    `the evidence as of ${asOf} for ${listOf(inputs)} passes ${days} days, so its freshness starts to fall and confidence with it`,
  evidenceStale: (asOf: string, inputs: string[], days: number, factor: string) =>
    `the evidence as of ${asOf} for ${listOf(inputs)} passes ${days} days, so its freshness drops to ${factor}`,
  capsFire: (caps: { id: string; label: string; cap: string }[]) =>
    `${listOf(caps.map((c) => `${c.id} (${c.label}) fires, capping the score at ${c.cap}`))}`,
  scoreMoves: (from: string, to: string) => `the final score moves from ${from} to ${to}`,
  bandMoves: (from: string, to: string) => `the band moves from ${from} to ${to}`,
  notPublishable: (confidence: string, minimum: string) =>
    `confidence falls to ${confidence}, below ${minimum}, so the indicator is no longer publishable`,
  /** Clauses as one sentence: the first capitalised, joined by semicolons, a full stop at the end. */
  sentence: (clauses: string[]) => {
    const text = clauses.join('; ');
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  },

  // scorePortfolio.
  emptyPortfolio: 'a portfolio needs at least one holding',
  notAmount: (i: number, amount: unknown) =>
    `holdings[${i}].amount must be decimal text such as "1250000.00", got ${JSON.stringify(amount) ?? String(amount)}`,
  nonPositiveAmount: (i: number, amount: string) => `holdings[${i}].amount must be positive, got ${amount}`,
  notScore: (i: number, score: unknown) => `holdings[${i}].final_score must be a finite number, got ${String(score)}`,
  unknownBand: (i: number, band: string, framework: string, bands: string[]) =>
    `holdings[${i}].risk_band ${band} is not a band of ${framework} (${bands.join(', ')})`,
} as const;
