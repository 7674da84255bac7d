import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { type ExampleName, engineIndicator, example } from '../support/documents.js';
import { expectProblem } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

/** ajv-formats is CommonJS: the plugin is the module itself, which TypeScript types as its `default`. */
const addFormats = formats as unknown as typeof formats.default;

const SCHEMAS = ['approved-inputs.json', 'computation-package.json'] as const;
/** The examples that are publishable (the other two fall below the confidence a publication needs). */
const EXAMPLES: ExampleName[] = ['worked-example', 'low-band', 'multiple-caps'];

const committed = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../../../docs/schemas/${name}`, import.meta.url)), 'utf8');

describe.each(engines)('the JSON Schemas served under /schemas/ (%s)', (engine) => {
  const server = useServer(engine, async (s) => {
    for (const name of EXAMPLES) await publish(s, example(name));
  });

  it.each(SCHEMAS)('/schemas/%s is the committed docs/schemas file, public and cacheable', async (name) => {
    const res = await server().get(`/schemas/${name}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/schema+json');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.text()).toBe(committed(name));
    const etag = res.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await server().get(`/schemas/${name}`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('every package the service serves validates against the served package schema, its inputs against the inputs schema', async () => {
    const s = server();
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormats(ajv);
    const validate = async (name: string) =>
      ajv.compile((await (await s.get(`/schemas/${name}`)).json()) as Record<string, unknown>);
    const [inputs, computation] = [await validate(SCHEMAS[0]), await validate(SCHEMAS[1])];
    const key = await s.key('ENTERPRISE');
    for (const name of EXAMPLES) {
      const id = engineIndicator(example(name)).risk_indicator_id;
      const pkg = (await (await s.get(`/api/v1/computation/${id}`, { key })).json()) as { inputs: unknown };
      expect(computation(pkg) ? [] : computation.errors, name).toEqual([]);
      expect(inputs(pkg.inputs) ? [] : inputs.errors, name).toEqual([]);
    }
  });

  it('another method gets 405', async () => {
    const res = await server().send('POST', '/schemas/computation-package.json', {});
    await expectProblem(res, 'method_not_allowed');
  });
});
