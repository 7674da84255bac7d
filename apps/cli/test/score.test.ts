import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RiskIndicator } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import {
  EXAMPLE_INPUTS,
  EXAMPLES,
  folderOf,
  readExample,
  STACK_FRAME,
  svc,
  svcJson,
  tempDir,
  WORKED_EXAMPLE,
  writeTemp,
} from './svc.js';

const factors = (list: { criterion_id: string; point_impact: number }[]) =>
  list.map((f) => [f.criterion_id, f.point_impact]);

/** The worked example broken four ways at once: unknown key, wrong type, as_of after evaluation_date, yield_min > yield_max. */
async function brokenDocument() {
  const doc = await readExample();
  return {
    ...doc,
    provider: { ...doc.provider, yield_min: 9 },
    inputs: {
      ...doc.inputs,
      custody_model: { ...doc.inputs.custody_model, value: 5 },
      proof_of_reserves: { ...doc.inputs.proof_of_reserves, as_of: '2026-07-30' },
      unknown_input: { ...doc.inputs.custody_model },
    },
  };
}

describe('svc score: a document', () => {
  it('scores the worked example 78.46 MEDIUM, 1.54 below LOW, confidence 1, with its published factors', async () => {
    const run = await svcJson('score', WORKED_EXAMPLE);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    const ri = run.json as RiskIndicator;
    expect(ri.final_score).toBe(78.46);
    expect(ri.risk_band).toBe('MEDIUM');
    expect(ri.confidence).toBe(1);
    expect(ri.publishable).toBe(true);
    expect(ri.risk_indicator_id).toMatch(/^ri_[0-9a-f]{24}$/);
    const decision = ri.svc_decision_object;
    expect(decision.next_band).toBe('LOW');
    expect(decision.points_to_next_band).toBe(1.54);
    expect(decision.hard_caps_fired).toEqual([]);
    expect(factors(decision.ceiling_factors)).toEqual([
      ['A1', -3],
      ['B1', -3],
      ['D2', -2.71],
    ]);
    expect(factors(decision.floor_factors)).toEqual([
      ['A1', 9],
      ['B1', 9],
      ['B2', 8],
    ]);
  });

  it('prints one Risk Indicator object, indented by 2 spaces, in --json mode', async () => {
    const run = await svc('score', WORKED_EXAMPLE, '--json');
    expect(run.stdout.startsWith('{\n  "risk_indicator_id": ')).toBe(true);
  });

  it('shows people a table with the provider, score, band, confidence and id, then the decision summary and factors', async () => {
    const run = await svc('score', WORKED_EXAMPLE);
    const ri = (await svcJson('score', WORKED_EXAMPLE)).json as RiskIndicator;
    expect(run.status).toBe(0);
    for (const text of ['Example Sats Lending', '78.46', 'MEDIUM', '1.0000', ri.risk_indicator_id, 'none']) {
      expect(run.stdout).toContain(text);
    }
    expect(run.stdout).toContain(ri.svc_decision_object.summary);
    expect(run.stdout).toContain('Next band: LOW, 1.54 points away');
    expect(run.stdout).toMatch(/ceiling .*D2 .*-2\.71/);
    expect(run.stdout).toMatch(/floor .*B2 .*8\.00/);
  });

  it('names binding and fired hard caps in the table', async () => {
    const run = await svc('score', join(EXAMPLES, 'multiple-caps.json'));
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('HC-01 34.99 (binding)');
    expect(run.stdout).toContain('SEVERE');
  });

  it('ignores a UTF-8 BOM before the document', async () => {
    const text = await readFile(WORKED_EXAMPLE, 'utf8');
    const file = await writeTemp('bom.json', `\uFEFF${text}`);
    const run = await svcJson('score', file);
    expect(run.status).toBe(0);
    expect((run.json as RiskIndicator).final_score).toBe(78.46);
  });

  it('accepts the framework version written as "DCRF v1.0"', async () => {
    const run = await svcJson('score', WORKED_EXAMPLE, '--framework', 'DCRF v1.0');
    expect(run.status).toBe(0);
    expect((run.json as RiskIndicator).framework_version).toBe('DCRF v1.0');
  });
});

describe('svc score: a folder', () => {
  it('scores the examples folder as the README shows: five documents in file-name order, a JSON array', async () => {
    const run = await svcJson('score', EXAMPLES);
    expect(run.status).toBe(0);
    const results = run.json as RiskIndicator[];
    expect(results).toHaveLength(5);
    const oneByOne = await Promise.all(
      EXAMPLE_INPUTS.map(async (name) => (await svcJson('score', join(EXAMPLES, name))).json),
    );
    expect(results).toEqual(oneByOne);
  });

  it('orders files by code unit, not by locale: "Z.json" and "10.json" come before "a.json" and "9.json"', async () => {
    const dir = await tempDir();
    const copies: [string, string][] = [
      ['a.json', 'low-band.json'],
      ['Z.json', 'multiple-caps.json'],
      ['9.json', 'stale-evidence.json'],
      ['10.json', 'worked-example.json'],
    ];
    for (const [name, example] of copies) await copyFile(join(EXAMPLES, example), join(dir, name));
    const results = (await svcJson('score', dir)).json as RiskIndicator[];
    expect(results.map((r) => r.name)).toEqual([
      'Example Sats Lending', // 10.json
      'Example Oldbook Credit', // 9.json
      'Example Quickyield Earn', // Z.json
      'Example Harbour Custody', // a.json
    ]);
  });

  it('reads only *.json files', async () => {
    const dir = await folderOf(EXAMPLE_INPUTS);
    await writeFile(join(dir, 'notes.txt'), 'not an input');
    await mkdir(join(dir, 'nested.json'));
    const run = await svcJson('score', dir);
    expect(run.status).toBe(0);
    expect(run.json).toHaveLength(5);
  });

  it('shows people one table row per provider with its band', async () => {
    const run = await svc('score', await folderOf(EXAMPLE_INPUTS));
    expect(run.status).toBe(0);
    for (const text of ['Example Harbour Custody', 'LOW', 'Example Sats Lending', 'MEDIUM', 'ELEVATED', 'SEVERE']) {
      expect(run.stdout).toContain(text);
    }
  });

  it('draws no progress bar when stderr is not a terminal', async () => {
    const run = await svc('score', await folderOf(EXAMPLE_INPUTS), '--json');
    expect(run.stderr).toBe('');
  });

  it('still scores the valid documents when one is invalid, lists its problems and exits 2', async () => {
    const dir = await folderOf(['low-band.json', 'worked-example.json']);
    await writeTemp('broken.json', await brokenDocument(), dir);
    const run = await svcJson('score', dir);
    expect(run.status).toBe(2);
    const body = run.json as { error: string; problems: { file: string; path: string }[]; results: RiskIndicator[] };
    expect(body.error).toContain('1 of 3 files');
    expect(body.results.map((r) => r.name)).toEqual(['Example Harbour Custody', 'Example Sats Lending']);
    expect(body.problems).toHaveLength(4);
    expect(body.problems.every((p) => p.file.endsWith('broken.json'))).toBe(true);
    const text = await svc('score', dir);
    expect(text.status).toBe(2);
    expect(text.stdout).toContain('Example Sats Lending');
    expect(text.stderr).toContain('broken.json: provider.yield_min');
  });

  it('exits 2 when a file in the folder is not JSON, still scoring the others', async () => {
    const dir = await folderOf(['worked-example.json']);
    await writeTemp('garbage.json', 'this is not JSON', dir);
    const run = await svcJson('score', dir);
    expect(run.status).toBe(2);
    expect((run.json as { results: unknown[] }).results).toHaveLength(1);
    expect(run.stderr).toContain('garbage.json: not valid JSON');
  });

  it('refuses an empty folder with exit 2', async () => {
    const run = await svc('score', await tempDir());
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/^error: .* holds no \*\.json files to score\n$/);
    expect(run.stdout).toBe('');
  });
});

describe('svc score --package', () => {
  it('writes the canonical package bytes, with no trailing newline, and verify reproduces them', async () => {
    const out = join(await tempDir(), 'worked.package.json');
    const run = await svcJson('score', WORKED_EXAMPLE, '--package', out);
    expect(run.status).toBe(0);
    const bytes = await readFile(out, 'utf8');
    expect(bytes.endsWith('}')).toBe(true);
    expect(JSON.parse(bytes).risk_indicator_id).toBe((run.json as RiskIndicator).risk_indicator_id);
    const verify = await svc('verify', out);
    expect(verify.status).toBe(0);
    expect(verify.stdout).toContain('reproduced: ri_');
  });

  it('writes one <input base name>.package.json per valid document of a folder, none for an invalid one', async () => {
    const dir = await folderOf(['low-band.json', 'worked-example.json']);
    await writeTemp('broken.json', await brokenDocument(), dir);
    const out = join(await tempDir(), 'packages', 'nested');
    const run = await svc('score', dir, '--package', out);
    expect(run.status).toBe(2);
    expect((await readdir(out)).sort()).toEqual(['low-band.package.json', 'worked-example.package.json']);
    for (const name of await readdir(out)) expect((await svc('verify', join(out, name))).status).toBe(0);
  });

  it("makes the file's folders when they are missing (the README's out/ in a fresh clone)", async () => {
    const out = join(await tempDir(), 'out', 'deeper', 'worked.package.json');
    const run = await svc('score', WORKED_EXAMPLE, '--date', '2026-07-31', '--package', out);
    expect(run.status, run.stderr).toBe(0);
    expect((await svc('verify', out)).status).toBe(0);
    // A path through a file is still refused, as a place it cannot write (exit 2).
    const file = await writeTemp('plain.txt', 'not a folder');
    const refused = await svc('score', WORKED_EXAMPLE, '--package', join(file, 'worked.package.json'));
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(
      /cannot write .*plain\.txt.*: a part of the path is not a directory|a file of that name exists/,
    );
  });

  it('writes no package for an invalid document', async () => {
    const out = join(await tempDir(), 'never.package.json');
    const run = await svc('score', await writeTemp('broken.json', await brokenDocument()), '--package', out);
    expect(run.status).toBe(2);
    await expect(readFile(out)).rejects.toThrow();
  });
});

describe('svc score: invalid input', () => {
  it('refuses an invalid document with exit 2, naming the file and every problem with its path', async () => {
    const file = await writeTemp('broken.json', await brokenDocument());
    const run = await svc('score', file);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe(`error: ${file}: not a valid approved-inputs document (4 problems); nothing was scored`);
    for (const path of [
      'inputs.custody_model.value',
      'inputs.proof_of_reserves.as_of',
      'inputs.unknown_input',
      'provider.yield_min',
    ]) {
      expect(lines.some((line) => line.startsWith(`  ${file}: ${path}: `))).toBe(true);
    }
    expect(run.stderr).toContain('after the evaluation date');
  });

  it('prints only a JSON error object listing every problem in --json mode', async () => {
    const run = await svcJson('score', await writeTemp('broken.json', await brokenDocument()));
    expect(run.status).toBe(2);
    const body = run.json as { error: string; code: string; problems: { path: string; message: string }[] };
    expect(body.code).toBe('invalid_inputs');
    expect(body.problems.map((p) => p.path)).toEqual([
      'inputs.custody_model.value',
      'inputs.proof_of_reserves.as_of',
      'inputs.unknown_input',
      'provider.yield_min',
    ]);
  });

  it('refuses a number of more than 15 significant digits instead of rounding it', async () => {
    const text = (await readFile(WORKED_EXAMPLE, 'utf8')).replace('"value": 1.35,', '"value": 1.3500000000000001,');
    const run = await svc('score', await writeTemp('precise.json', text));
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('inputs.collateral_coverage_ratio.value: ');
    expect(run.stderr).toContain('15 significant digits');
  });

  it('refuses a path that does not exist with exit 2', async () => {
    const run = await svc('score', join(EXAMPLES, 'no-such-file.json'));
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('no such file or directory');
  });

  it('refuses a file that is not JSON with exit 2', async () => {
    const run = await svcJson('score', await writeTemp('garbage.json', '{"provider": '));
    expect(run.status).toBe(2);
    expect((run.json as { code: string }).code).toBe('not_json');
    expect(run.stderr).toMatch(/^error: .*garbage\.json: not valid JSON/);
  });

  it('refuses an unknown framework version, naming the supported ones, with exit 2', async () => {
    const run = await svc('score', WORKED_EXAMPLE, '--framework', '9.9');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('unknown framework version "9.9"; supported: 1.0');
  });
});

describe('svc score --date', () => {
  it('moves the evaluation date: scored_at, ages and the identifier follow it', async () => {
    const original = (await svcJson('score', WORKED_EXAMPLE)).json as RiskIndicator;
    const run = await svcJson('score', WORKED_EXAMPLE, '--date', '2026-07-15');
    expect(run.status).toBe(0);
    const moved = run.json as RiskIndicator;
    expect(moved.scored_at).toBe('2026-07-15T00:00:00Z');
    expect(moved.criterion_scores[0]?.age_days).toBe(45);
    expect(moved.risk_indicator_id).not.toBe(original.risk_indicator_id);
  });

  it('scores a document dated after the present (analysts explore) but warns on stderr, naming each date', async () => {
    const doc = await readExample();
    const item = doc.inputs.operating_history_years as { as_of: string };
    item.as_of = '2029-06-01';
    const file = await writeTemp('future.json', { ...doc, evaluation_date: '2030-01-01' });
    const run = await svcJson('score', file);
    expect(run.status).toBe(0);
    expect((run.json as RiskIndicator).scored_at).toBe('2030-01-01T00:00:00Z');
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe(
      `warning: ${file}: dated after the present; scored for exploration only (svc inputs import and svc publish refuse it)`,
    );
    expect(lines.slice(1).map((l) => l.trim().split(':')[0])).toEqual([
      'evaluation_date',
      'inputs.operating_history_years.as_of',
    ]);
    expect((await svc('score', WORKED_EXAMPLE, '--date', '2030-01-01')).stderr).toMatch(
      /^warning: .*\n {2}evaluation_date: /,
    );
    expect((await svc('score', WORKED_EXAMPLE)).stderr).toBe('');
  });

  it('reports every as_of after the new date as a validation problem (exit 2)', async () => {
    const run = await svcJson('score', WORKED_EXAMPLE, '--date', '2026-05-01');
    expect(run.status).toBe(2);
    const problems = (run.json as { problems: { path: string; message: string }[] }).problems;
    expect(problems).toHaveLength(14);
    expect(problems.every((p) => p.path.endsWith('.as_of') && p.message.includes('2026-05-01'))).toBe(true);
  });

  it.each(['2026-02-30', '30/06/2026', '2026-6-30'])('must be a calendar date YYYY-MM-DD: %s exits 2', async (date) => {
    const run = await svc('score', WORKED_EXAMPLE, '--date', date);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('must be a calendar date YYYY-MM-DD');
    expect(run.stderr).not.toMatch(STACK_FRAME);
  });
});
