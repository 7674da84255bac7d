import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { currentFramework, defineFramework } from '@svc/methodology';
import { afterAll, describe, expect, it } from 'vitest';
import { draft11 } from '../../test/draft-framework.js';
import { compareOnInputs, deltaOf } from '../framework-compare-inputs.js';

const EXAMPLES = fileURLToPath(new URL('../../../../examples/dcrf-1.0/', import.meta.url));
const file = (name: string) => join(EXAMPLES, name);

const V1_0 = currentFramework();
const V1_1 = defineFramework(draft11());

const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('compareOnInputs', () => {
  it('scores the same inputs under both versions: score, band, delta and band move per provider', async () => {
    expect(V1_1.signOff).toBeNull();
    const c = await compareOnInputs([file('low-band.json'), file('worked-example.json')], V1_0, V1_1);
    expect(c.from.framework_version).toBe('DCRF v1.0');
    expect(c.to.framework_version).toBe('DCRF v1.1');
    expect(c.failures).toEqual([]);
    const [low, worked] = c.providers;
    expect(low?.name).toBe('Example Harbour Custody');
    expect(low?.a).toMatchObject({ final_score: '95.54', risk_band: 'LOW' });
    expect(low?.b).toMatchObject({ final_score: '79.99', risk_band: 'MEDIUM' });
    expect(low?.delta).toBe('-15.55');
    expect(low?.band_move).toBe('LOW -> MEDIUM');
    expect(worked?.a).toMatchObject({ final_score: '78.46', risk_band: 'MEDIUM' });
    expect(Number(worked?.b.final_score)).toBeLessThan(78.46);
    expect(worked?.delta).toBe(deltaOf('78.46', worked?.b.final_score ?? ''));
  });

  it('the same framework twice moves nothing', async () => {
    const c = await compareOnInputs([file('multiple-caps.json')], V1_0, V1_0);
    expect(c.providers[0]).toMatchObject({ delta: '0.00', band_move: null });
  });

  it('lists a document that cannot be scored as a failure and still compares the others', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-compare-'));
    made.push(dir);
    const broken = join(dir, 'broken.json');
    await writeFile(broken, '{"not": "inputs"}');
    const c = await compareOnInputs([broken, file('worked-example.json')], V1_0, V1_1);
    expect(c.providers.map((p) => p.file)).toEqual(['worked-example.json']);
    expect(c.failures).toHaveLength(1);
    expect(c.failures[0]?.code).toBe('invalid_inputs');
  });

  it('deltaOf is exact on two-place decimals', () => {
    expect(deltaOf('78.46', '80.01')).toBe('+1.55');
    expect(deltaOf('80.01', '78.46')).toBe('-1.55');
    expect(deltaOf('0.05', '0.00')).toBe('-0.05');
    expect(deltaOf('34.99', '34.99')).toBe('0.00');
  });
});
