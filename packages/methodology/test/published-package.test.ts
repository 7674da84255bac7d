import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installTarballs, type Packed, pack, publishProblems, REPO, runNode } from '../../../tooling/packed.mjs';
import { buildPackage, currentFramework, serializePackage } from '../src/index.js';

/**
 * @svc/methodology as an auditor gets it: the tarball `pnpm pack` makes, installed by `npm install` into an empty
 * project (its third-party dependencies from the npm registry), then used there to score every DCRF v1.0 example.
 * The bytes of each computation package must be those of the workspace's engine and the pinned ones below: a
 * package is what an auditor hashes, so the published engine reproduces it byte for byte.
 */

const EXAMPLES = join(REPO, 'examples', 'dcrf-1.0');

/** SHA-256 of each example's computation package (RFC 8785 text), as DCRF v1.0 publishes them: never changes. */
const PACKAGE_SHA256: Record<string, string> = {
  'low-band.json': '1f4abab90863bd9b26f4faecc45fdf1b0454136a02f97e891a3ed355195d8f12',
  'missing-inputs.json': '73d99b0bbb09e4d52af0f7714e7d1ea08dd623b1c3369bf3fa6e24d1313b184f',
  'multiple-caps.json': '33a5d2bfdc565db128859a23506e2def90f7838919da5b077b6e6dee48b9d29d',
  'stale-evidence.json': '8f0d4df787208a63c33646e29aa593a4237000cad1c6dc085317a9e592de4041',
  'worked-example.json': '2745e5c7b20f1eef3cc74c7a9374ecfba3264b988c9cac6ee649737cf112c7fe',
};

/** Methodology section 11: the worked example's figures (the other examples have theirs in expected/). */
const WORKED_EXAMPLE = { final_score: '78.46', risk_band: 'MEDIUM', confidence: '1.0000', publishable: true };

/** Runs in the empty project: only what npm installed there is importable. */
const SCORE_EXAMPLES = `
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { buildPackage, currentFramework, serializePackage, verifyPackage } from '@svc/methodology';

const dir = process.env.EXAMPLES;
const results = {};
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
  const text = serializePackage(buildPackage(JSON.parse(readFileSync(join(dir, file), 'utf8')), currentFramework()));
  const verification = verifyPackage(JSON.parse(text), text);
  results[file] = {
    text,
    sha256: createHash('sha256').update(text).digest('hex'),
    verification: verification.status,
    canonical: verification.canonical_bytes ?? null,
  };
}
console.log(JSON.stringify({ engine: import.meta.resolve('@svc/methodology'), results }));
`;

interface Scored {
  engine: string;
  results: Record<string, { text: string; sha256: string; verification: string; canonical: boolean | null }>;
}

interface Steps {
  final_score: string;
  risk_band: string;
  confidence: string;
  publishable: boolean;
}

let folder: string;
let packed: Packed;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'svc-methodology-packed-'));
  packed = await pack('packages/methodology', join(folder, 'tarballs'));
}, 60_000);

afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('@svc/methodology, packed with pnpm pack', () => {
  it('is publishable as it is: not private, licensed, README and LICENSE, types and exports in the tarball, node engines, no workspace ranges, no tests', () => {
    expect(packed.name).toBe('@svc/methodology');
    expect(publishProblems(packed)).toEqual([]);
    expect(Object.keys(packed.manifest.dependencies ?? {}).filter((name) => name.startsWith('@svc/'))).toEqual([]);
  });

  it('gives in its README the install line the next test runs: npm install of the tarball', async () => {
    const readme = await readFile(join(REPO, 'packages', 'methodology', 'README.md'), 'utf8');
    expect(readme).toContain(`\nnpm install ./${basename(packed.tarball)}\n`);
  });

  it('installs with npm into an empty project from the tarball alone and scores every DCRF v1.0 example to the published figures and package bytes', async () => {
    const project = await installTarballs(join(folder, 'consumer'), [packed.tarball]);
    expect(project.svcPackages).toEqual(['@svc/methodology']);
    const scored = JSON.parse(
      await runNode(project.folder, 'score-examples.mjs', SCORE_EXAMPLES, { EXAMPLES: EXAMPLES }),
    ) as Scored;
    // The engine that ran is the installed one, not the workspace's.
    expect(scored.engine).toBe(`file://${project.folder}/node_modules/@svc/methodology/dist/index.js`);

    const files = (await readdir(EXAMPLES)).filter((f) => f.endsWith('.json')).sort();
    expect(Object.keys(scored.results)).toEqual(files);
    expect(files).toEqual(Object.keys(PACKAGE_SHA256).sort());
    for (const file of files) {
      const result = scored.results[file];
      if (!result) throw new Error(`${file} was not scored`);
      const document = JSON.parse(await readFile(join(EXAMPLES, file), 'utf8')) as unknown;
      expect(result.sha256, file).toBe(PACKAGE_SHA256[file]);
      expect(result.text, file).toBe(serializePackage(buildPackage(document, currentFramework())));
      expect(result.verification, file).toBe('reproduced');
      expect(result.canonical, file).toBe(true);
      const steps = (JSON.parse(result.text) as { steps: Steps }).steps;
      const expected =
        file === 'worked-example.json'
          ? WORKED_EXAMPLE
          : (JSON.parse(
              await readFile(join(EXAMPLES, 'expected', file.replace('.json', '.expected.json')), 'utf8'),
            ) as Steps);
      expect(
        { final_score: steps.final_score, risk_band: steps.risk_band, publishable: steps.publishable },
        file,
      ).toEqual({
        final_score: expected.final_score,
        risk_band: expected.risk_band,
        publishable: expected.publishable,
      });
      expect(Number(steps.confidence), file).toBe(Number(expected.confidence));
    }
  }, 180_000);
});
