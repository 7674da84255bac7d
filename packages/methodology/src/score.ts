import { type Computation, compute } from './compute/compute.js';
import type { Framework } from './framework/schema.js';
import { asNumber, identify, type RiskIndicator, renderIndicator } from './indicator.js';
import { type InputsDocument, type Problem, validateInputs } from './inputs/document.js';

/** An approved-inputs document that breaks the methodology's rules; nothing was scored. */
export class InputsError extends Error {
  override readonly name = 'InputsError';
  constructor(readonly problems: readonly Problem[]) {
    super(
      `invalid approved-inputs document: ${problems.map((p) => `${p.path || '(document)'}: ${p.message}`).join('; ')}`,
    );
  }
}

/** Validates or throws InputsError listing every problem. */
export function checkInputs(document: unknown, framework: Framework): InputsDocument {
  const validation = validateInputs(document, framework);
  if (!validation.ok) throw new InputsError(validation.problems);
  return validation.document;
}

/** Validates and computes; the shared first half of score and buildPackage. */
export function computeFrom(document: unknown, framework: Framework): Computation {
  return compute(checkInputs(document, framework), framework);
}

/**
 * Scores an approved-inputs document under `framework`: the authenticated Risk Indicator of
 * methodology section 9, figures as JSON numbers. Pure and deterministic.
 * Throws InputsError, listing every problem, for an invalid document. The framework is the
 * caller's to choose (the service's is the one in force on a date): the engine has no default.
 */
export function score(document: unknown, framework: Framework): RiskIndicator {
  const c = computeFrom(document, framework);
  return renderIndicator(c, identify(c), asNumber);
}

/** A copy of a document with another evaluation date (the CLI's --date). */
export function withEvaluationDate(document: unknown, date: string): unknown {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return document;
  return { ...(document as Record<string, unknown>), evaluation_date: date };
}
