import type { z } from 'zod';

/**
 * The one rule for free text (names, sources, descriptions, notes), shared by the engine's
 * validation of inputs documents, the service's entry points and the CLI's output.
 *
 * Free text never holds a character that is not text a reader can see: the C0 controls (NUL, ESC,
 * CR, LF, tab, …), DEL, the C1 controls (U+0080–U+009F), the line and paragraph separators
 * (U+2028, U+2029), the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069), lone surrogates and the noncharacters U+FFFE and U+FFFF. Such characters rewrite
 * a terminal (ESC), split a CSV row or a log line (CR, LF), reverse what a reader sees (bidi
 * overrides) or make an XML document ill-formed (any C0 control but tab, LF and CR; U+FFFE/U+FFFF).
 * Multi-line text (a message) may hold tab, LF and CR, and nothing else of these.
 */

export type TextKind = 'line' | 'multiline';

/** The classes of the rule, written as escapes (a character class's source text). */
const CONTROLS_C0 = '\\u0000-\\u001f';
const CONTROLS_C0_BUT_TAB_LF_CR = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f';
/** DEL and C1, the line and paragraph separators, the bidi embeddings, overrides and isolates, U+FFFE/U+FFFF, lone surrogates (with the `u` flag a surrogate matches only when lone). */
const OTHERS = '\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ufffe\\uffff\\ud800-\\udfff';

const FORBIDDEN_LINE = new RegExp(`[${CONTROLS_C0}${OTHERS}]`, 'u');
const FORBIDDEN_MULTILINE = new RegExp(`[${CONTROLS_C0_BUT_TAB_LF_CR}${OTHERS}]`, 'u');
/**
 * The line rule as a JSON Schema `pattern` (ECMA-262 with the `u` flag, as JSON Schema validators such as ajv read
 * it): a text none of whose characters the rule forbids.
 */
export const PLAIN_TEXT_PATTERN = `^[^${CONTROLS_C0}${OTHERS}]*$`;
/** Every character `showControls` rewrites: those of the line rule. */
const SHOWN = new RegExp(`[${CONTROLS_C0}${OTHERS}]`, 'gu');

/** U+001B, as people write a code point. */
export function codePointName(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Why the text breaks the free-text rule, naming the first offending character and where it is
 * (counted in characters from 1), or null when it keeps the rule.
 */
export function controlCharacterProblem(text: string, kind: TextKind = 'line'): string | null {
  const match = (kind === 'line' ? FORBIDDEN_LINE : FORBIDDEN_MULTILINE).exec(text);
  if (!match) return null;
  const position = [...text.slice(0, match.index)].length + 1;
  const allowed = kind === 'line' ? '' : ' other than tab and line breaks';
  return `must not hold control characters${allowed}, bidirectional overrides or line separators; found ${codePointName(match[0])} at character ${position}`;
}

/** True when the text keeps the free-text rule. */
export function isPlainText(text: string, kind: TextKind = 'line'): boolean {
  return !(kind === 'line' ? FORBIDDEN_LINE : FORBIDDEN_MULTILINE).test(text);
}

/**
 * The text with every character the line rule forbids made visible as a `\uXXXX` escape (ESC
 * becomes `\u001b`), for output to terminals, tables and feeds whatever a store holds. Text that
 * keeps the rule comes back unchanged.
 */
export function showControls(text: string): string {
  return text.replace(SHOWN, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

/**
 * A zod string schema that also keeps the free-text rule, its issue naming the character found.
 * The rule sees the text as sent, before any trimming, so a line break is refused wherever it is.
 */
export function plainText<T extends z.ZodString>(schema: T, kind: TextKind = 'line'): T {
  return schema.refine((s) => isPlainText(s, kind), {
    error: (iss) => controlCharacterProblem(String(iss.input), kind) ?? 'must be plain text',
    abort: true,
  });
}
