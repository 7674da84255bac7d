import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  installTarballs,
  type Packed,
  pack,
  publishProblems,
  REPO,
  runNode,
  typecheck,
} from '../../../tooling/packed.mjs';
import { exampleProviders, type RealApi, startApi, UNKNOWN_PROVIDER_ID } from './support/api.js';

/**
 * @svc/client as a customer gets it: the tarballs `pnpm pack` makes of it and of the packages it depends on
 * (@svc/contracts for its types, which depends on @svc/methodology), installed by `npm install` into an empty project
 * (third-party dependencies from the npm registry, never an @svc one), then used there against the running service
 * and compiled there by TypeScript with the types it ships.
 */

const PUBLISHED_TOGETHER = ['@svc/client', '@svc/contracts', '@svc/methodology'];

/** Runs in the empty project: only what npm installed there is importable. */
const USE_THE_CLIENT = `
import { SvcApiError, SvcClient } from '@svc/client';

const svc = new SvcClient({ baseUrl: process.env.SVC_URL, apiKey: process.env.SVC_API_KEY });
const status = await svc.status();
const page = await svc.scores({ limit: 2 });
const first = await svc.score(page.data[0].provider_id);
let missing;
try {
  await svc.score(process.env.UNKNOWN_PROVIDER_ID);
} catch (error) {
  missing = error instanceof SvcApiError ? { status: error.status, code: error.code } : String(error);
}
console.log(JSON.stringify({
  client: import.meta.resolve('@svc/client'),
  status: status.status,
  page: page.data.map((indicator) => indicator.provider_id),
  first: { provider_id: first.provider_id, final_score: first.final_score, risk_band: first.risk_band },
  missing,
  rateLimit: svc.lastRateLimit?.limit ?? null,
}));
`;

/** Compiled in the empty project: the types resolve (each @ts-expect-error must meet an error, not an `any`). */
const TYPED_USE = `import { type RiskBand, SvcClient, type ScoresListResponse } from '@svc/client';

const svc = new SvcClient({ baseUrl: 'http://127.0.0.1:8080' });

export async function bands(): Promise<RiskBand[]> {
  const page: ScoresListResponse = await svc.scores({ planner_type: 'btc', limit: 2 });
  return page.data.map((indicator) => indicator.risk_band);
}

export async function scoreOf(id: string): Promise<number> {
  return (await svc.score(id)).final_score;
}

// @ts-expect-error: limit is a number
void svc.scores({ limit: 'many' });

// @ts-expect-error: not a risk band
export const band: RiskBand = 'PURPLE';
`;

let api: RealApi;
let folder: string;
let packed: Packed[];

beforeAll(async () => {
  api = await startApi();
  await api.publish(exampleProviders());
  folder = await mkdtemp(join(tmpdir(), 'svc-client-packed-'));
  const tarballs = join(folder, 'tarballs');
  packed = [];
  for (const name of ['client', 'contracts', 'methodology']) packed.push(await pack(`packages/${name}`, tarballs));
}, 120_000);

afterAll(async () => {
  await api?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

const packedNamed = (name: string): Packed => {
  const found = packed.find((p) => p.name === name);
  if (!found) throw new Error(`${name} was not packed`);
  return found;
};

describe('@svc/client, packed with pnpm pack', () => {
  it('is publishable as it is, with the packages it needs: not private, licensed, README and LICENSE, types and exports in each tarball, node engines, @svc dependencies at the exact versions packed with it', () => {
    for (const name of PUBLISHED_TOGETHER)
      expect(publishProblems(packedNamed(name), PUBLISHED_TOGETHER), name).toEqual([]);
    expect(packedNamed('@svc/client').manifest.dependencies).toEqual({
      '@svc/contracts': packedNamed('@svc/contracts').version,
    });
    expect(packedNamed('@svc/contracts').manifest.dependencies?.['@svc/methodology']).toBe(
      packedNamed('@svc/methodology').version,
    );
  });

  it('gives in its README the install line the next test runs: npm install of the three tarballs', async () => {
    const readme = await readFile(join(REPO, 'packages', 'client', 'README.md'), 'utf8');
    const tarballs = PUBLISHED_TOGETHER.map((name) => `./${basename(packedNamed(name).tarball)}`);
    expect(readme).toContain(`\nnpm install ${tarballs.join(' ')}\n`);
    expect(readme).not.toMatch(/npm (i|install) @svc\//);
  });

  it('installs with npm into an empty project from its tarballs, and makes real calls to the running service with it', async () => {
    const project = await installTarballs(
      join(folder, 'consumer'),
      packed.map((p) => p.tarball),
    );
    expect(project.svcPackages).toEqual(PUBLISHED_TOGETHER);
    const key = await api.key('PROFESSIONAL');
    const answer = JSON.parse(
      await runNode(project.folder, 'use-the-client.mjs', USE_THE_CLIENT, {
        SVC_URL: api.url,
        SVC_API_KEY: key,
        UNKNOWN_PROVIDER_ID,
      }),
    ) as {
      client: string;
      status: string;
      page: string[];
      first: { provider_id: string; final_score: number; risk_band: string };
      missing: unknown;
      rateLimit: number | null;
    };
    // The client that ran is the installed one.
    expect(answer.client).toBe(`file://${project.folder}/node_modules/@svc/client/dist/index.js`);
    // Its answers are the service's.
    const direct = (await (
      await fetch(`${api.url}/api/v1/scores?limit=2`, { headers: { 'x-api-key': key } })
    ).json()) as { data: { provider_id: string; final_score: number; risk_band: string }[] };
    expect(answer.page).toEqual(direct.data.map((indicator) => indicator.provider_id));
    expect(answer.page).toHaveLength(2);
    const first = direct.data[0];
    expect(answer.first).toEqual({
      provider_id: first?.provider_id,
      final_score: first?.final_score,
      risk_band: first?.risk_band,
    });
    expect(answer.status).toBe('ok');
    expect(answer.missing).toEqual({ status: 404, code: 'not_found' });
    expect(answer.rateLimit).toBeGreaterThan(0);
    // Nothing but the client is loaded at run time: @svc/contracts gives the types only.
    const dist = join(project.folder, 'node_modules', '@svc', 'client', 'dist');
    for (const file of (await readdir(dist)).filter((f) => f.endsWith('.js'))) {
      expect(await readFile(join(dist, file), 'utf8'), file).not.toMatch(/from ['"](?!\.)/);
    }
  }, 180_000);

  it('type-checks a TypeScript project that uses it, with the types from the tarballs', async () => {
    const project = join(folder, 'consumer');
    await writeFile(join(project, 'use.ts'), TYPED_USE);
    const output = await typecheck(project, ['use.ts'], {
      strict: true,
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023', 'DOM'],
      types: [],
      noEmit: true,
      skipLibCheck: true,
    });
    expect(output).toBe('');
  }, 120_000);
});
