import { z } from 'zod';
import { epochDay, isCalendarDate, isUtcTimestamp } from '../dates.js';
import { boundTest, significantDigitsOfText } from '../decimal.js';
import type { CriterionDefinition, Framework } from '../framework/schema.js';
import { controlCharacterProblem, isPlainText, PLAIN_TEXT_PATTERN } from '../text.js';
import { describe, messages as M, TooPreciseNumber } from './messages.js';
import type { InputsDocument, InputValue } from './shape.js';
import { PLANNER_TYPES } from './shape.js';
import { validDocument } from './valid-document.js';

export {
  type InputItem,
  type InputsDocument,
  type InputValue,
  PLANNER_TYPES,
  type PlannerType,
  type Provider,
} from './shape.js';

export interface Problem {
  path: string;
  message: string;
}

const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const SUBTYPE = /^[a-z0-9_]{1,64}$/;

/*
 * Each field also carries, as zod metadata, the JSON Schema keywords (draft 2020-12) that state its rule as far as
 * JSON Schema can (docs/schemas/approved-inputs.json is generated from these schemas: json-schema.ts). Metadata
 * changes no validation: the refinements above each keyword remain the rule, and their messages the answer.
 */
const DATE_PATTERN = '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$';
const TIMESTAMP_PATTERN = `${DATE_PATTERN.slice(0, -1)}T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?Z$`;

const typeError = (expected: (got: string) => string) => (iss: { input: unknown }) =>
  iss.input === undefined ? M.required : expected(describe(iss.input));

const text = () =>
  z
    .string({ error: typeError(M.notString) })
    .refine((s) => !LONE_SURROGATE.test(s), { message: M.malformedUnicode, abort: true });

/** Free text: well-formed, and holding no control, bidirectional-override or line-separator character. */
const freeText = () =>
  text()
    .refine((s) => isPlainText(s), {
      error: (iss) => controlCharacterProblem(String(iss.input)) ?? '',
      abort: true,
    })
    .meta({ pattern: PLAIN_TEXT_PATTERN });

const nonEmptyText = () =>
  freeText()
    .refine((s) => s.length > 0, { message: M.emptyString })
    .meta({ minLength: 1 });

const calendarDate = () =>
  text()
    .refine(isCalendarDate, { error: (iss) => M.notDate(describe(iss.input)) })
    .meta({ format: 'date', pattern: DATE_PATTERN, description: 'A calendar date YYYY-MM-DD that exists.' });

const utcTimestamp = () =>
  text()
    .refine(isUtcTimestamp, { error: (iss) => M.notTimestamp(describe(iss.input)) })
    .meta({
      format: 'date-time',
      pattern: TIMESTAMP_PATTERN,
      description: 'An ISO 8601 UTC timestamp with a date that exists, such as 2026-06-02T10:00:00Z.',
    });

/** A JSON number of at most 15 significant digits, within [min, max]. */
function exactNumber(domain: { min?: string | undefined; max?: string | undefined }, integer: boolean) {
  let schema = z
    .number({
      error: (iss) =>
        iss.input === undefined
          ? M.required
          : iss.input instanceof TooPreciseNumber
            ? M.tooPrecise(iss.input.text)
            : M.notNumber(describe(iss.input)),
    })
    .refine((n) => significantDigitsOfText(String(n)) <= 15, {
      error: (iss) => M.tooPrecise(String(iss.input)),
      abort: true,
    });
  if (integer)
    schema = schema.refine(Number.isInteger, { error: (iss) => M.notInteger(iss.input as number), abort: true });
  const { min, max } = domain;
  if (min !== undefined)
    schema = schema.refine(boundTest(min, 'min'), { error: (iss) => M.belowMin(min, iss.input as number) });
  if (max !== undefined)
    schema = schema.refine(boundTest(max, 'max'), { error: (iss) => M.aboveMax(max, iss.input as number) });
  return schema.meta({
    ...(integer ? { type: 'integer' } : {}),
    ...(min !== undefined ? { minimum: Number(min) } : {}),
    ...(max !== undefined ? { maximum: Number(max) } : {}),
    description: 'A JSON number of at most 15 significant digits.',
  });
}

function valueSchema(criterion: CriterionDefinition): z.ZodType<InputValue> {
  const { input, scale } = criterion;
  switch (input.type) {
    case 'decimal':
    case 'integer':
      return exactNumber(input, input.type === 'integer');
    case 'boolean':
      return z.boolean({ error: typeError(M.notBoolean) });
    case 'enum': {
      const allowed = scale.kind === 'table' ? scale.entries.map(([v]) => String(v)) : [];
      return z.enum(allowed as [string, ...string[]], {
        error: (iss) => (iss.input === undefined ? M.required : M.notEnum(allowed, describe(iss.input))),
      });
    }
  }
}

const object = <T extends z.ZodRawShape>(shape: T) => z.strictObject(shape, { error: typeError(M.notObject) });

const providerSchema = () =>
  object({
    id: text()
      .refine((s) => UUID.test(s), { error: (iss) => M.notUuid(describe(iss.input)) })
      .meta({ pattern: UUID.source, description: 'A UUID; kept in lower case.' })
      // One provider, one id: UUIDs compare case-insensitively (RFC 9562), so they are kept in lower case.
      .transform((s) => s.toLowerCase()),
    name: freeText()
      .refine((s) => [...s].length >= 1 && [...s].length <= 200, {
        error: (iss) => M.nameLength([...(iss.input as string)].length),
      })
      .meta({ minLength: 1, maxLength: 200 }),
    planner_type: z.enum(PLANNER_TYPES, {
      error: (iss) => (iss.input === undefined ? M.required : M.notEnum(PLANNER_TYPES, describe(iss.input))),
    }),
    provider_subtype: text()
      .refine((s) => SUBTYPE.test(s), { error: (iss) => M.notSubtype(describe(iss.input)) })
      .meta({ pattern: SUBTYPE.source }),
    yield_min: exactNumber({ min: '0', max: '100' }, false),
    yield_max: exactNumber({ min: '0', max: '100' }, false).meta({
      description: 'A JSON number of at most 15 significant digits; at least yield_min.',
    }),
  });

/** An input item: its value (by `value`'s schema), the evidence date, the source and the approval. */
const itemSchema = (value: z.ZodType<InputValue>) =>
  object({
    value,
    as_of: calendarDate().meta({ description: 'The date of the evidence; not after evaluation_date.' }),
    source: nonEmptyText(),
    approved_by: nonEmptyText(),
    approved_at: utcTimestamp(),
  });

function buildSchema(framework: Framework) {
  const inputShape: Record<string, z.ZodType> = {};
  for (const criterion of framework.definition.criteria) {
    inputShape[criterion.input_key] = itemSchema(valueSchema(criterion))
      .meta({ description: `${criterion.id} ${criterion.label}` })
      .optional();
  }
  return object({
    provider: providerSchema(),
    evaluation_date: calendarDate(),
    inputs: object(inputShape).meta({
      description: `The approved inputs by input key of ${framework.definition.framework_version}; a key left out is a missing input.`,
    }),
  });
}

/**
 * The approved-inputs document under any framework, as a computation package holds it: the provider and the dates
 * as every framework has them, the inputs by key with a value of any input type. The document a package holds
 * passed its framework's schema (inputsDocumentSchema) when it was scored.
 */
export const AnyInputsDocumentSchema: z.ZodType<InputsDocument> = object({
  provider: providerSchema(),
  evaluation_date: calendarDate(),
  inputs: z.record(
    z.string().regex(/^[a-z][a-z0-9_]{0,63}$/),
    itemSchema(z.union([exactNumber({}, false), z.string(), z.boolean()])),
  ),
});

const schemas = new WeakMap<Framework, z.ZodType>();

/** The zod schema of an approved-inputs document under a framework (built once per framework). */
export function inputsDocumentSchema(framework: Framework): z.ZodType<InputsDocument> {
  let schema = schemas.get(framework);
  if (!schema) {
    schema = buildSchema(framework);
    schemas.set(framework, schema);
  }
  return schema as z.ZodType<InputsDocument>;
}

export type Validation = { ok: true; document: InputsDocument } | { ok: false; problems: Problem[] };

/**
 * Checks a whole document against the framework's domains and the rules of
 * methodology section 2, and reports every problem at once with its path.
 */
export function validateInputs(raw: unknown, framework: Framework): Validation {
  const valid = validDocument(raw, framework);
  return valid === undefined ? validateBySchema(raw, framework) : { ok: true, document: valid };
}

/** validateInputs through the zod schema alone: the reference, and the route of every document with a problem. */
export function validateBySchema(raw: unknown, framework: Framework): Validation {
  if (!isRecord(raw)) return { ok: false, problems: [{ path: '', message: M.notObject(describe(raw)) }] };
  const parsed = inputsDocumentSchema(framework).safeParse(raw);
  const problems: Problem[] = parsed.success
    ? []
    : parsed.error.issues.flatMap((issue) => toProblems(issue, framework));
  problems.push(...crossFieldProblems(raw));
  if (problems.length > 0) {
    problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.message < b.message ? -1 : 1));
    return { ok: false, problems };
  }
  return { ok: true, document: (parsed as { data: InputsDocument }).data };
}

function toProblems(issue: z.core.$ZodIssue, framework: Framework): Problem[] {
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const where = whereOf(path);
    return issue.keys.map((key) => ({
      path: [...path, key].join('.'),
      message: where === 'inputs' ? M.unknownInputKey(framework.definition.framework_version) : M.unknownField(where),
    }));
  }
  return [{ path: path.join('.'), message: issue.message }];
}

function whereOf(path: string[]): string {
  if (path.length === 0) return 'the document (provider, evaluation_date, inputs)';
  if (path[0] === 'provider') return 'provider (id, name, planner_type, provider_subtype, yield_min, yield_max)';
  if (path.length === 1) return 'inputs';
  return 'an input item (value, as_of, source, approved_by, approved_at)';
}

/** Rules between fields, checked wherever both fields are individually valid. */
function crossFieldProblems(raw: unknown): Problem[] {
  const problems: Problem[] = [];
  if (!isRecord(raw)) return problems;
  const provider = raw.provider;
  if (isRecord(provider)) {
    const { yield_min: lo, yield_max: hi } = provider;
    if (typeof lo === 'number' && typeof hi === 'number' && Number.isFinite(lo) && Number.isFinite(hi) && lo > hi) {
      problems.push({ path: 'provider.yield_min', message: M.yieldOrder(lo, hi) });
    }
  }
  const evaluation = typeof raw.evaluation_date === 'string' ? epochDay(raw.evaluation_date) : null;
  if (evaluation !== null && isRecord(raw.inputs)) {
    for (const [key, item] of Object.entries(raw.inputs)) {
      if (!isRecord(item) || typeof item.as_of !== 'string') continue;
      const asOf = epochDay(item.as_of);
      if (asOf !== null && asOf > evaluation) {
        problems.push({
          path: `inputs.${key}.as_of`,
          message: M.asOfAfterEvaluation(item.as_of, raw.evaluation_date as string),
        });
      }
    }
  }
  return problems;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
