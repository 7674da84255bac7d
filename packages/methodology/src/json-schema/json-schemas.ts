import { z } from 'zod';
import type { Framework } from '../framework/schema.js';
import { inputsDocumentSchema } from '../inputs/document.js';
import { ComputationPackageSchema, PACKAGE_FORMAT } from '../package/computation-package.js';

/**
 * The JSON Schemas (draft 2020-12) of the approved-inputs document and of the computation package, generated from
 * the zod schemas the engine validates and builds with, so that they cannot say something else than the engine
 * does. `pnpm docs:generate` writes them to docs/schemas/ and the service serves them under /schemas/; a test fails
 * when the committed files are stale. What JSON Schema cannot state is said in each schema's description.
 */

export type JsonSchema = Record<string, unknown>;

/** The input side of each schema: the document as written (a provider id in any case), not as the engine keeps it. */
const toJsonSchema = (schema: z.ZodType): JsonSchema =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as JsonSchema;

/** The approved-inputs document under `framework` (its input keys, value types and domains are the framework's). */
export function approvedInputsJsonSchema(framework: Framework): JsonSchema {
  const fw = framework.definition;
  return toJsonSchema(
    inputsDocumentSchema(framework).meta({
      title: `Approved-inputs document (${fw.framework_version})`,
      description: [
        `An approved-inputs document under ${fw.framework_version} (methodology section 2): the provider, the evaluation date and each approved input with its evidence date, source and approval.`,
        'Generated from the validation of the engine (packages/methodology), so every document the engine accepts validates.',
        'The engine also refuses, where JSON Schema cannot say it:',
        'yield_min above yield_max;',
        'an input whose as_of is after evaluation_date;',
        'a number written with more than 15 significant digits (as written in the JSON text, before any reader rounds it);',
        'a date or timestamp that does not exist on the calendar (formats `date` and `date-time`: only a validator that checks formats refuses them);',
        'a member named twice in one object.',
        'The service besides refuses a document dated after the present (evaluation_date, any as_of or approved_at).',
      ].join(' '),
    }),
  );
}

/** The computation package (methodology section 10), of any framework. */
export function computationPackageJsonSchema(): JsonSchema {
  return toJsonSchema(
    ComputationPackageSchema.meta({
      title: `Computation package (${PACKAGE_FORMAT})`,
      description: [
        'Everything needed to reproduce a Risk Indicator (methodology section 10), as RFC 8785 canonical JSON: the framework it was computed under, the approved inputs, every step and the result, with every figure as exact decimal text with its fixed number of decimals.',
        'Generated from the zod schema the engine builds packages to (packages/methodology).',
        'JSON Schema cannot state, and a verifier recomputes:',
        'inputs_sha256, result_sha256 and risk_indicator_id as the methodology derives them;',
        'that inputs also validates against the approved-inputs schema of the framework named;',
        'that steps and result hold one entry per criterion, module and hard cap of that framework, in its order, with the figures its rules give.',
      ].join(' '),
    }),
  );
}

/** A schema as written to docs/schemas/ and served: two-space indented JSON and a final line break. */
export function jsonSchemaText(schema: JsonSchema): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
