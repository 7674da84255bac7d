import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson, readJson } from '@svc/methodology';
import { afterAll, describe, expect, it } from 'vitest';
import { CliError } from '../errors.js';
import { checkStatement, instantKey } from '../statement.js';

/**
 * The shared corpus (examples/statements, written by tooling/statement-corpus.mjs): genuine, forged and edge-case
 * statements with the exit code the rules of docs/auditing.md section 8 give each. The Python verifier is tested
 * against the same files (packages/client-python/tests/test_statement_corpus.py), so the two cannot disagree.
 */
const CORPUS = fileURLToPath(new URL('../../../../examples/statements/', import.meta.url));
const cases = JSON.parse(readFileSync(join(CORPUS, 'cases.json'), 'utf8')) as {
  name: string;
  rule: string;
  exit: number;
  envelope: unknown;
  keys: unknown;
}[];
const packageText = readFileSync(join(CORPUS, 'worked-example.package.json'), 'utf8');
const pkg = {
  value: readJson(packageText) as Record<string, unknown>,
  canonical: canonicalJson(readJson(packageText)),
};
const work = mkdtempSync(join(tmpdir(), 'svc-corpus-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function exitOf(envelope: unknown, keys: unknown, name: string): Promise<{ exit: number; message: string }> {
  const statement = join(work, `${name}.statement.json`);
  const keySet = join(work, `${name}.keys.json`);
  writeFileSync(statement, JSON.stringify(envelope));
  writeFileSync(keySet, JSON.stringify(keys));
  try {
    await checkStatement({ statement, keys: keySet }, pkg);
    return { exit: 0, message: '' };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { exit: error.exitCode, message: error.message };
  }
}

describe('svc verify --statement against the shared corpus of statements', () => {
  it('holds every rule at least once, with genuine cases as well as forged ones', () => {
    expect(new Set(cases.map((c) => c.rule))).toEqual(new Set(['all', '1', '2', '3', '4', '5', '6', '7']));
    expect(cases.filter((c) => c.exit === 0).length).toBeGreaterThanOrEqual(4);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (name, c) => {
    const { exit, message } = await exitOf(c.envelope, c.keys, name);
    expect(exit, message).toBe(c.exit);
    if (c.exit === 1) expect(message).toContain(`(rule ${c.rule})`);
  });
});

describe('timestamps compare as instants (rule 6)', () => {
  it('puts a fraction after the whole second, and equal instants written differently together', () => {
    expect(instantKey('2026-07-01T09:00:00.5Z')).toBe('2026-07-01T09:00:00.500000000');
    expect(instantKey('2026-07-01T09:00:00Z')).toBe('2026-07-01T09:00:00.000000000');
    expect(String(instantKey('2026-07-01T09:00:00.5Z')) > String(instantKey('2026-07-01T09:00:00Z'))).toBe(true);
    expect(instantKey('2026-07-01T09:00:00.500000000Z')).toBe(instantKey('2026-07-01T09:00:00.5Z'));
  });

  it.each(['2026-07-01T09:00:00+00:00', '2026-07-01', '2026-02-30T00:00:00Z', '2026-07-01T09:00:00.1234567891Z', 1])(
    'refuses %s',
    (text) => {
      expect(instantKey(text)).toBeNull();
    },
  );
});
