import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ComputationPackage } from '@svc/methodology';
import { beforeAll, describe, expect, it } from 'vitest';
import { svc, svcJson, tempDir, WORKED_EXAMPLE, writeTemp } from './svc.js';

let packageFile: string;
let canonical: string;

beforeAll(async () => {
  packageFile = join(await tempDir(), 'worked.package.json');
  expect((await svc('score', WORKED_EXAMPLE, '--package', packageFile)).status).toBe(0);
  canonical = await readFile(packageFile, 'utf8');
});

/** A copy of the worked example's package, changed by `edit`, written to a temporary file. */
async function tampered(edit: (pkg: ComputationPackage) => void): Promise<string> {
  const pkg = JSON.parse(canonical) as ComputationPackage;
  edit(pkg);
  return writeTemp('tampered.package.json', pkg);
}

describe('svc verify: a package that reproduces', () => {
  it('exits 0 with one line naming the identifier, the framework and the result hash', async () => {
    const run = await svc('verify', packageFile);
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^reproduced: ri_[0-9a-f]{24} \(DCRF v1\.0\), result sha256 [0-9a-f]{64}\n$/);
  });

  it('prints the verification object in --json mode', async () => {
    const run = await svcJson('verify', packageFile);
    expect(run.status).toBe(0);
    expect(run.json).toMatchObject({ status: 'reproduced', framework_version: 'DCRF v1.0', canonical_bytes: true });
  });

  it('says so when the file bytes are not the canonical serialisation', async () => {
    const file = await writeTemp('indented.package.json', JSON.stringify(JSON.parse(canonical), null, 2));
    const run = await svc('verify', file);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('not the canonical RFC 8785 serialisation');
    expect(((await svcJson('verify', file)).json as { canonical_bytes: boolean }).canonical_bytes).toBe(false);
  });
});

describe('svc verify: a package that does not reproduce', () => {
  it('exits 1 naming the first differing step with what was expected and found', async () => {
    const file = await tampered((pkg) => {
      const first = pkg.steps.criteria[0];
      if (first) first.points = '76.0000';
    });
    const run = await svc('verify', file);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('does not reproduce: steps.criteria[A1].points: expected "75.0000", found "76.0000"');
  });

  it('names the first difference in the order of the computation and counts the further ones', async () => {
    const file = await tampered((pkg) => {
      pkg.result.final_score = '99.00';
      pkg.steps.final_score = '99.00';
    });
    const run = await svc('verify', file);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('steps.final_score: expected "78.46", found "99.00" (and 1 further difference)');
  });

  it('fails on a changed result field (result.final_score)', async () => {
    const file = await tampered((pkg) => {
      pkg.result.final_score = '99.00';
    });
    const run = await svc('verify', file);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('does not reproduce: result.final_score: expected "78.46", found "99.00"\n');
  });

  it('fails on a changed input value, whose recomputation gives other hashes', async () => {
    const file = await tampered((pkg) => {
      const input = pkg.inputs.inputs.collateral_coverage_ratio;
      if (input) input.value = 1.36;
    });
    const run = await svc('verify', file);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('does not reproduce: inputs_sha256: ');
  });

  it('prints the differences with an error field in --json mode', async () => {
    const file = await tampered((pkg) => {
      pkg.steps.uncapped = '78.462501';
    });
    const run = await svcJson('verify', file);
    expect(run.status).toBe(1);
    expect(run.json).toMatchObject({
      code: 'does_not_reproduce',
      status: 'differs',
      differences: [{ step: 'steps.uncapped', expected: '"78.462500"', found: '"78.462501"' }],
    });
  });

  it('fails at framework.sha256 when the package claims another definition of the framework', async () => {
    const file = await tampered((pkg) => {
      pkg.framework.sha256 = 'f'.repeat(64);
    });
    const run = await svc('verify', file);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('does not reproduce: framework.sha256');
  });

  it('refuses a package naming a framework version the engine does not know, with exit 2', async () => {
    const file = await tampered((pkg) => {
      pkg.framework.version = '9.9';
    });
    const run = await svc('verify', file);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('not a valid computation package');
    expect(run.stderr).toContain('framework.version: unknown framework version "9.9"; supported: 1.0');
  });
});

describe('svc verify: files it cannot use', () => {
  it('refuses a file that is not JSON with exit 2', async () => {
    const run = await svc('verify', await writeTemp('garbage.json', '\u0000\u0001 garbage'));
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('not valid JSON');
  });

  it('refuses a missing file with exit 2', async () => {
    const run = await svcJson('verify', join(await tempDir(), 'missing.package.json'));
    expect(run.status).toBe(2);
    expect(run.json).toMatchObject({ code: 'unreadable' });
  });

  it('refuses JSON that is not a computation package with exit 2, listing the problems', async () => {
    const file = await writeTemp('other.json', { report: 'quarterly', figures: [1, 2] });
    const run = await svcJson('verify', file);
    expect(run.status).toBe(2);
    const body = run.json as { code: string; status: string; problems: { path: string }[] };
    expect(body.code).toBe('invalid_package');
    expect(body.status).toBe('invalid');
    expect(body.problems.map((p) => p.path)).toContain('package_format');
    expect((await svc('verify', file)).stderr).toContain(`${file}: package_format: `);
  });

  it('says an approved-inputs document is not a package and points to svc score, in one line (exit 2)', async () => {
    for (const file of [WORKED_EXAMPLE, await writeTemp('inputs.json', await readFile(WORKED_EXAMPLE, 'utf8'))]) {
      const run = await svc('verify', file);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(
        `error: ${file}: an approved-inputs document, not a computation package: score it with \`svc score ${file}\`, and add --package OUT to write the package that svc verify checks\n`,
      );
      const json = await svcJson('verify', file);
      expect(json.status).toBe(2);
      expect(json.json).toEqual({
        error: expect.stringContaining('an approved-inputs document, not a computation package'),
        code: 'invalid_package',
        status: 'invalid',
      });
    }
  });
});
