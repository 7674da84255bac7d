import { basename } from 'node:path';
import type { Framework, Scored } from '@svc/methodology';
import { scoreFiles } from './commands/score.js';
import type { CliError } from './errors.js';
import { always } from './framework-in-force.js';

/** One side of a provider's comparison: its figures under one framework. */
export interface ScoredSide {
  final_score: string;
  risk_band: string;
  publishable: boolean;
  risk_indicator_id: string;
}

/** The same approved inputs scored under two frameworks. */
export interface ProviderMove {
  file: string;
  provider_id: string;
  name: string;
  a: ScoredSide;
  b: ScoredSide;
  /** b - a, two decimal places, signed ("+1.25", "-3.00", "0.00"). */
  delta: string;
  /** "LOW -> MEDIUM", or null when the band is the same. */
  band_move: string | null;
}

export interface InputsComparison {
  from: { framework_version: string; sha256: string };
  to: { framework_version: string; sha256: string };
  providers: ProviderMove[];
  /** Documents that could not be scored under A or B (A's failure first), one per file. */
  failures: CliError[];
}

/**
 * Scores every file under both frameworks, one after another, in the given order.
 * A document valid under one framework but not the other is a failure: it has no side-by-side figures.
 */
export async function compareOnInputs(
  files: readonly string[],
  a: Framework,
  b: Framework,
  date?: string,
): Promise<InputsComparison> {
  const underA = await scoreFiles(files, always(a), date);
  const underB = await scoreFiles(files, always(b), date);
  const providers: ProviderMove[] = [];
  const failures: CliError[] = [];
  underA.forEach((first, i) => {
    const second = underB[i];
    if (second === undefined) return;
    if ('failure' in first) failures.push(first.failure);
    else if ('failure' in second) failures.push(second.failure);
    else providers.push(moveOf(first.file, first.scored, second.scored));
  });
  return {
    from: { framework_version: a.definition.framework_version, sha256: a.sha256 },
    to: { framework_version: b.definition.framework_version, sha256: b.sha256 },
    providers,
    failures,
  };
}

function moveOf(file: string, a: Scored, b: Scored): ProviderMove {
  const sideA = sideOf(a);
  const sideB = sideOf(b);
  return {
    file: basename(file),
    provider_id: a.package.result.provider_id,
    name: a.package.result.name,
    a: sideA,
    b: sideB,
    delta: deltaOf(sideA.final_score, sideB.final_score),
    band_move: sideA.risk_band === sideB.risk_band ? null : `${sideA.risk_band} -> ${sideB.risk_band}`,
  };
}

function sideOf(scored: Scored): ScoredSide {
  const { steps, result } = scored.package;
  return {
    final_score: steps.final_score,
    risk_band: steps.risk_band,
    publishable: steps.publishable,
    risk_indicator_id: result.risk_indicator_id,
  };
}

/** Exact on two-place decimal text: the difference in hundredths. */
export function deltaOf(a: string, b: string): string {
  const cents = hundredths(b) - hundredths(a);
  const sign = cents > 0 ? '+' : cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

function hundredths(text: string): number {
  const [whole = '0', fraction = ''] = text.split('.');
  const negative = whole.startsWith('-');
  const value = Math.abs(Number(whole)) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
  return negative ? -value : value;
}
