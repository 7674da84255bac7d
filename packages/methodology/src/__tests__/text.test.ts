import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { controlCharacterProblem, isPlainText, plainText, showControls } from '../index.js';

/** One of every kind of character the rule refuses. */
const REFUSED: [string, string][] = [
  ['\u0000', 'NUL'],
  ['\u0007', 'BEL'],
  ['\t', 'tab'],
  ['\n', 'LF'],
  ['\r', 'CR'],
  ['\u001b', 'ESC'],
  ['\u001f', 'unit separator'],
  ['\u007f', 'DEL'],
  ['\u0080', 'the first C1 control'],
  ['\u009b', 'CSI (C1)'],
  ['\u009f', 'the last C1 control'],
  ['\u2028', 'line separator'],
  ['\u2029', 'paragraph separator'],
  ['\u202a', 'LRE'],
  ['\u202e', 'RLO'],
  ['\u2066', 'LRI'],
  ['\u2069', 'PDI'],
  ['\ufffe', 'noncharacter U+FFFE'],
  ['\uffff', 'noncharacter U+FFFF'],
  ['\ud800', 'a lone high surrogate'],
  ['\udc00', 'a lone low surrogate'],
];

const KEPT = [
  'Example Sats Lending',
  'Société Générale',
  '東京 Lending',
  'شركة',
  '🚀 rockets',
  'a\u00a0b',
  'x\u200dy',
  '',
];

describe('the free-text rule', () => {
  it.each(REFUSED)('refuses %j (%s) in a line, naming it and its position', (char) => {
    const text = `ab${char}c`;
    expect(isPlainText(text)).toBe(false);
    const hex = (char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    expect(controlCharacterProblem(text)).toBe(
      `must not hold control characters, bidirectional overrides or line separators; found U+${hex} at character 3`,
    );
  });

  it('counts positions in characters, an emoji being one', () => {
    expect(controlCharacterProblem('🚀🚀\u001b')).toContain('at character 3');
  });

  it.each(KEPT)('keeps %j', (text) => {
    expect(isPlainText(text)).toBe(true);
    expect(controlCharacterProblem(text)).toBeNull();
    expect(showControls(text)).toBe(text);
  });

  it('multi-line text may hold tab, LF and CR, and nothing else the rule refuses', () => {
    expect(isPlainText('line one\r\n\tline two\n', 'multiline')).toBe(true);
    for (const [char] of REFUSED.filter(([c]) => !'\t\n\r'.includes(c))) {
      expect(isPlainText(`a${char}`, 'multiline')).toBe(false);
    }
    expect(controlCharacterProblem('a\nb\u0000', 'multiline')).toBe(
      'must not hold control characters other than tab and line breaks, bidirectional overrides or line separators; found U+0000 at character 4',
    );
  });

  it('showControls makes every refused character visible as a \\u escape, and keeps the rest', () => {
    expect(showControls('Evil\u001b[2J\u0000Co\r\n\u202egnp.exe\u0085')).toBe(
      'Evil\\u001b[2J\\u0000Co\\u000d\\u000a\\u202egnp.exe\\u0085',
    );
    for (const [char] of REFUSED) expect(isPlainText(showControls(`x${char}y`))).toBe(true);
    expect(showControls('🚀\ud800')).toBe('🚀\\ud800');
  });

  it('plainText refines a zod string, checking the text as sent (before a trim)', () => {
    const schema = plainText(z.string()).trim().min(1);
    expect(schema.parse('  Acme  ')).toBe('Acme');
    const refused = schema.safeParse('Acme\n');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toContain('found U+000A at character 5');
    expect(plainText(z.string(), 'multiline').parse('a\nb')).toBe('a\nb');
  });
});
