import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  approvedInputsJsonSchema,
  ComputationPackageSchema,
  computationPackageJsonSchema,
  type InputsDocument,
  jsonSchemaText,
  readJson,
  scoreWithPackage,
  serializePackage,
  validateInputs,
} from '../index.js';
import { documentArb, FRAMEWORK, SEED } from './arbitraries.js';
import { BREAKAGES, copy } from './breakages.js';

/** ajv-formats is CommonJS: the plugin is the module itself, which TypeScript types as its `default`. */
const addFormats = formats as unknown as typeof formats.default;

/**
 * The JSON Schemas of docs/schemas/ against the engine: current with the zod schemas they are generated from, and
 * true of what the engine accepts and makes. Every package is checked twice: with the zod schema the package type
 * is inferred from, and with the committed JSON Schema through an independent validator (ajv, draft 2020-12, with
 * formats checked), as an auditor's tool would read it.
 */

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../../../..');
const schemaFile = (name: string) => readFileSync(join(root, 'docs/schemas', name), 'utf8');

const NUM_RUNS = process.env.FC_NUM_RUNS === undefined ? 300 : Number(process.env.FC_NUM_RUNS);
console.log(`fast-check seed ${SEED}, ${NUM_RUNS} runs (replay with FC_SEED=${SEED})`);

const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
addFormats(ajv);
const inputsValidator = ajv.compile(JSON.parse(schemaFile('approved-inputs.json')));
const packageValidator = ajv.compile(JSON.parse(schemaFile('computation-package.json')));

/** The validator's errors as `path: message` lines (empty when the value validates), for a readable failure. */
function errorsOf(validate: ValidateFunction, value: unknown): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message}`);
}

/** The example documents: the repository's, and the published ones in shared/ when that folder is present. */
function exampleDocuments(): { name: string; text: string }[] {
  const dirs = [join(root, 'examples/dcrf-1.0'), join(root, '../shared/methodology/examples')];
  return dirs.flatMap((dir) => {
    let files: string[];
    try {
      files = readdirSync(dir);
    } catch {
      return [];
    }
    return files
      .filter((f) => f.endsWith('.json') && !f.endsWith('.expected.json'))
      .sort()
      .map((f) => ({ name: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }));
  });
}

/** A package as an auditor receives it: its canonical bytes, read back. */
function packageOf(document: unknown): unknown {
  return JSON.parse(serializePackage(scoreWithPackage(document, FRAMEWORK).package));
}

describe('docs/schemas', () => {
  it('approved-inputs.json and computation-package.json are current (run `pnpm docs:generate`)', () => {
    expect(schemaFile('approved-inputs.json')).toBe(jsonSchemaText(approvedInputsJsonSchema(FRAMEWORK)));
    expect(schemaFile('computation-package.json')).toBe(jsonSchemaText(computationPackageJsonSchema()));
  });

  it('are draft 2020-12 schemas that say what they cannot state', () => {
    for (const schema of [approvedInputsJsonSchema(FRAMEWORK), computationPackageJsonSchema()]) {
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.description).toMatch(/cannot/);
    }
  });
});

describe('the golden examples', () => {
  const examples = exampleDocuments();

  it('are found: the repository has five', () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
  });

  it('validate against the approved-inputs schema, and their packages against the package schemas', () => {
    for (const { name, text } of examples) {
      const document = readJson(text);
      expect(errorsOf(inputsValidator, document), name).toEqual([]);
      const pkg = packageOf(document);
      expect(ComputationPackageSchema.safeParse(pkg).error, name).toBeUndefined();
      expect(errorsOf(packageValidator, pkg), name).toEqual([]);
    }
  });
});

describe('generated documents', () => {
  it(`every valid document validates, and so does its package (seed ${SEED})`, () => {
    fc.assert(
      fc.property(documentArb, (document: InputsDocument) => {
        expect(errorsOf(inputsValidator, document)).toEqual([]);
        const pkg = packageOf(document);
        expect(ComputationPackageSchema.safeParse(pkg).error).toBeUndefined();
        expect(errorsOf(packageValidator, pkg)).toEqual([]);
      }),
      { seed: SEED, numRuns: NUM_RUNS },
    );
  });

  it('a package with a figure, a hash, a field or a type changed fails the package schema', () => {
    type Package = Record<string, unknown> & { steps: Record<string, unknown>; result: Record<string, unknown> };
    const original = packageOf(fc.sample(documentArb, { seed: SEED, numRuns: 1 })[0]) as Package;
    const changes: [string, (pkg: Package) => void][] = [
      ['a figure with 3 decimals', (pkg) => (pkg.steps.final_score = '78.460')],
      ['a figure as a number', (pkg) => (pkg.result.confidence = 1)],
      ['a short hash', (pkg) => (pkg.result_sha256 = 'abc')],
      ['an unknown field', (pkg) => (pkg.signature = 'x')],
      ['a missing field', (pkg) => delete pkg.inputs_sha256],
      ['another format', (pkg) => (pkg.package_format = 'svc.computation-package/2')],
    ];
    for (const [name, change] of changes) {
      const pkg = structuredClone(original);
      change(pkg);
      expect(errorsOf(packageValidator, pkg), name).not.toEqual([]);
      expect(ComputationPackageSchema.safeParse(pkg).success, name).toBe(false);
    }
    expect(errorsOf(packageValidator, original)).toEqual([]);
  });
});

/** The rules the approved-inputs schema's description says JSON Schema cannot state, as the engine words them. */
const BEYOND_THE_SCHEMA = [
  /more than 15 significant digits/,
  /must not exceed yield_max/,
  /is after the evaluation date/,
];

describe('documents the engine refuses', () => {
  const documents = fc.sample(documentArb, { seed: SEED, numRuns: 12 });

  it('fail the schema, unless only a rule the schema says it cannot state refuses them', () => {
    let refused = 0;
    let failed = 0;
    BREAKAGES.forEach((breakage, b) => {
      for (const document of documents.slice(b % 5, (b % 5) + 4)) {
        const broken = copy(document);
        breakage(broken);
        const validation = validateInputs(broken, FRAMEWORK);
        if (validation.ok) continue;
        refused += 1;
        if (errorsOf(inputsValidator, broken).length > 0) {
          failed += 1;
          continue;
        }
        for (const problem of validation.problems) {
          expect(
            BEYOND_THE_SCHEMA.some((rule) => rule.test(problem.message)),
            `breakage ${b}: ${problem.path} ${problem.message}`,
          ).toBe(true);
        }
      }
    });
    expect(refused).toBeGreaterThan(100);
    // Five breakages of the 33 only break a rule beyond the schema (yield order, as_of order, digits): about 15%.
    expect(failed / refused).toBeGreaterThan(0.8);
  });
});
