import { controlCharacterProblem } from '@svc/methodology';
import { ServiceError } from '../errors.js';

/**
 * People's names as the record keeps them (operators, `--by` names, the contract administrator): NFC, so one name
 * is one string however it was typed ("José" composed or decomposed); no control characters (the free-text rule)
 * and no format characters (zero-width spaces and joiners, soft hyphens, bidi marks), which render as nothing and
 * would let "bob" and "bo\u200bb" be two people who look the same in every signed action.
 */

/** A format character (Unicode category Cf): invisible, or changing how the text around it renders. */
const FORMAT_CHARACTER = /\p{Cf}/u;

/** The name refused with the reason, or null: the free-text rule, then no format characters. */
export function nameProblem(name: string): string | null {
  const control = controlCharacterProblem(name);
  if (control) return control;
  const match = FORMAT_CHARACTER.exec(name);
  if (!match) return null;
  const position = [...name.slice(0, match.index)].length + 1;
  const code = `U+${(match[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  return `must not hold format characters (zero-width spaces or joiners, soft hyphens, direction marks); found ${code} at character ${position}`;
}

/** A name as kept: NFC, trimmed, 1 to `max` characters (code points, not UTF-16 units), without forbidden characters. */
export function cleanName(raw: string, what: string, max = 100): string {
  const problem = nameProblem(raw);
  if (problem) throw new ServiceError('invalid_value', `${what} ${problem}`);
  const name = raw.normalize('NFC').trim();
  const length = [...name].length;
  if (length < 1 || length > max) throw new ServiceError('invalid_value', `${what} is 1 to ${max} characters`);
  return name;
}
