import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildPackage, canonicalJson, score, serializePackage } from '../index.js';
import { documentArb, FRAMEWORK, SEED } from './arbitraries.js';

/**
 * The same documents scored here (engine from source) and by the BUILT engine
 * (dist/index.js, so the build must have run, as turbo's test task ensures) in
 * another thread and in processes with other time zones and locales must give
 * the same bytes. A Worker shares its process's time zone (V8 keeps one per
 * process), so the time-zone runs are child processes that report the zone
 * and locale they really used.
 */

const CHILD = fileURLToPath(new URL('./determinism-child.mjs', import.meta.url));
const BUILT_ENGINE = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const DOCUMENTS = fc.sample(documentArb, { seed: SEED, numRuns: 120 });
const DOCUMENTS_TEXT = JSON.stringify(DOCUMENTS);
console.log(`determinism: ${DOCUMENTS.length} documents from fast-check seed ${SEED}`);

interface Output {
  indicator: string;
  package: string;
}

interface Report {
  environment: { tz: string | null; timeZone: string; locale: string; offsets: [number, number] };
  outputs: Output[];
}

function inWorker(env: NodeJS.ProcessEnv): Promise<Report> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CHILD, { workerData: DOCUMENTS_TEXT, env });
    worker.once('message', (report: Report) => {
      resolve(report);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

function inProcess(env: NodeJS.ProcessEnv): Promise<Report> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`child exited with ${code}: ${Buffer.concat(err).toString('utf8')}`));
      else resolve(JSON.parse(Buffer.concat(out).toString('utf8')) as Report);
    });
    child.stdin.end(DOCUMENTS_TEXT);
  });
}

function expectSameBytes(report: Report, expected: Output[]): void {
  expect(report.outputs.length).toBe(expected.length);
  report.outputs.forEach((output, i) => {
    expect(output.indicator, `indicator of document ${i}`).toBe(expected[i]?.indicator);
    expect(output.package, `package of document ${i}`).toBe(expected[i]?.package);
  });
}

describe('determinism across threads, processes, time zones and locales', () => {
  let expected: Output[] = [];

  beforeAll(() => {
    expect(existsSync(BUILT_ENGINE), `${BUILT_ENGINE} is missing: build the package first`).toBe(true);
    expected = DOCUMENTS.map((document) => ({
      indicator: canonicalJson(score(document, FRAMEWORK)),
      package: serializePackage(buildPackage(document, FRAMEWORK)),
    }));
  });

  it('a Worker thread with other TZ and locale variables gives byte-identical canonical outputs', async () => {
    const report = await inWorker({
      ...process.env,
      TZ: 'Pacific/Kiritimati',
      LANG: 'tr_TR.UTF-8',
      LC_ALL: 'tr_TR.UTF-8',
    });
    expect(report.environment.tz).toBe('Pacific/Kiritimati');
    expectSameBytes(report, expected);
  });

  // Two zones 21 hours apart: whatever this process's zone, at least one child runs in another.
  const zones = [
    { TZ: 'Pacific/Kiritimati', locale: 'tr_TR.UTF-8', language: 'tr', offset2026: -840 },
    { TZ: 'America/Los_Angeles', locale: 'de_DE.UTF-8', language: 'de', offset2026: 420 },
  ] as const;

  for (const zone of zones) {
    it(`a process in ${zone.TZ} with locale ${zone.locale} gives byte-identical canonical outputs`, async () => {
      const report = await inProcess({ ...process.env, TZ: zone.TZ, LANG: zone.locale, LC_ALL: zone.locale });
      // The environment really took effect, so the comparison is not vacuous.
      expect(report.environment.timeZone).toBe(zone.TZ);
      expect(report.environment.offsets[1]).toBe(zone.offset2026);
      expect(report.environment.locale.startsWith(zone.language)).toBe(true);
      expectSameBytes(report, expected);
    });
  }
});
