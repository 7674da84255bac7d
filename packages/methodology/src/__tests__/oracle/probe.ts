import { whatIfItem } from '../../analysis/overrides.js';
import { type Computation, compute } from '../../compute/compute.js';
import type { Dec } from '../../decimal.js';
import type { CriterionDefinition, Framework } from '../../framework/schema.js';
import type { InputItem, InputsDocument, InputValue } from '../../inputs/document.js';

/** One value tried for a criterion's input, everything else as in the document. */
export interface Trial {
  value: InputValue;
  computation: Computation;
}

/** The outcome of searching one criterion's values for the next band. */
export type Outcome =
  /** The smallest improvement that reaches the band. */
  | { kind: 'reached'; trial: Trial }
  /** No value reaches it; `best` is the least improvement that scores the most. */
  | { kind: 'short'; best: Trial }
  /** No value better than the current one scores more. */
  | { kind: 'at-best'; best: Trial }
  | { kind: 'not-monotone' };

/**
 * Tries values of one criterion's input with the real engine. A missing or
 * stale input is tried as fresh evidence dated on the evaluation date: the
 * suggestion is then to provide (or renew) it, which also lifts the
 * stale-evidence cap it may trigger.
 */
export interface Probe {
  criterion: CriterionDefinition;
  /** The current value, null when missing. */
  current: InputValue | null;
  /** Whether trials date the evidence on the evaluation date. */
  refresh: boolean;
  /** The document with the input set to `value`. */
  documentWith(value: InputValue): InputsDocument;
  trial(value: InputValue): Trial;
  reaches(trial: Trial): boolean;
}

export function probeOf(
  criterion: CriterionDefinition,
  document: InputsDocument,
  framework: Framework,
  target: Dec,
  isStale: (item: InputItem) => boolean,
): Probe {
  const key = criterion.input_key;
  const item = document.inputs[key];
  const refresh = item === undefined || isStale(item);
  const base = item ?? whatIfItem(document, false);
  const as_of = refresh ? document.evaluation_date : base.as_of;
  const documentWith = (value: InputValue): InputsDocument => ({
    ...document,
    inputs: { ...document.inputs, [key]: { ...base, value, as_of } },
  });
  return {
    criterion,
    current: item === undefined ? null : item.value,
    refresh,
    documentWith,
    trial: (value) => ({ value, computation: compute(documentWith(value), framework) }),
    reaches: (trial) => trial.computation.finalScore.gte(target),
  };
}
