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

  // scorePortfolio.
  emptyPortfolio: 'a portfolio needs at least one holding',
  notAmount: (i: number, amount: unknown) =>
    `holdings[${i}].amount must be decimal text such as "1250000.00", got ${JSON.stringify(amount) ?? String(amount)}`,
  nonPositiveAmount: (i: number, amount: string) => `holdings[${i}].amount must be positive, got ${amount}`,
  notScore: (i: number, score: unknown) => `holdings[${i}].final_score must be a finite number, got ${String(score)}`,
  unknownBand: (i: number, band: string, framework: string, bands: string[]) =>
    `holdings[${i}].risk_band ${band} is not a band of ${framework} (${bands.join(', ')})`,
} as const;
