import fc from 'fast-check';

/** JSON Schema to fast-check: valid and boundary values for the subset of JSON Schema 2020-12 the contract emits. */

export type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object';

export interface JsonSchema {
  $ref?: string;
  type?: JsonType | JsonType[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

export interface SchemaContext {
  /** The schema a `#/components/schemas/…` reference names. */
  resolve(ref: string): JsonSchema;
  /**
   * Values of the data set for a property or parameter name, or a component schema's name (provider ids, webhook
   * ids, MCP messages, …), so that valid requests find something rather than 404.
   */
  known(name: string): readonly unknown[] | undefined;
}

/** `valid`: values the schema accepts; `edge`: each leaf at, or just past, one of its limits now and then. */
export type Mode = 'valid' | 'edge';

/** The longest string or array generated away from a stated limit: enough to vary, small enough to send by the thousand. */
const SPAN = 24;

/** A value for `schema`; `name` is the property or parameter it fills, for the data set's known values. */
export function schemaValue(
  schema: JsonSchema,
  ctx: SchemaContext,
  name = '',
  mode: Mode = 'valid',
  depth = 0,
): fc.Arbitrary<unknown> {
  const generic = genericValueOf(schema, ctx, name, mode, depth);
  const known = [
    ...((name && ctx.known(name)) || []),
    ...((schema.$ref && ctx.known(componentName(schema.$ref))) || []),
  ];
  if (known.length === 0) return generic;
  return fc.oneof({ arbitrary: fc.constantFrom(...known), weight: 3 }, { arbitrary: generic, weight: 1 });
}

/** `#/components/schemas/JsonRpcMessage` → `JsonRpcMessage`. */
export function componentName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

function genericValueOf(
  schema: JsonSchema,
  ctx: SchemaContext,
  name: string,
  mode: Mode,
  depth: number,
): fc.Arbitrary<unknown> {
  if (depth > 12) return fc.constant(null);
  if (schema.$ref) return genericValueOf(ctx.resolve(schema.$ref), ctx, name, mode, depth + 1);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return enumOf(schema.enum, mode);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map((b) => schemaValue(b, ctx, name, mode, depth + 1)));
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((type) => schemaValue({ ...schema, type }, ctx, name, mode, depth + 1)));
  }
  switch (schema.type) {
    case 'string':
      return stringOf(schema, mode);
    case 'integer':
    case 'number':
      return numberOf(schema, mode);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return arrayOf(schema, ctx, name, mode, depth);
    case 'object':
      return objectOf(schema, ctx, mode, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function enumOf(values: unknown[], mode: Mode): fc.Arbitrary<unknown> {
  const valid = fc.constantFrom(...values);
  if (mode === 'valid') return valid;
  // Just outside an enum: another case, a space around it, an empty string.
  const near = fc
    .constantFrom(...values)
    .chain((v) => fc.constantFrom(String(v).toUpperCase(), ` ${String(v)}`, `${String(v)}\u200b`, ''));
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: near, weight: 1 });
}

function stringOf(schema: JsonSchema, mode: Mode): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength;
  const within = (s: string) => s.length >= min && (max === undefined || s.length <= max);
  let valid: fc.Arbitrary<string>;
  if (schema.pattern) valid = fc.stringMatching(new RegExp(schema.pattern)).filter(within);
  else if (schema.format === 'uri') valid = fc.webUrl().filter(within);
  else if (schema.format === 'email') valid = fc.oneof(plainEmail, fc.emailAddress()).filter(within);
  else {
    const upTo = Math.min(max ?? Number.POSITIVE_INFINITY, min + SPAN);
    valid = fc.oneof(
      fc.string({ minLength: min, maxLength: upTo }),
      fc.string({ minLength: min, maxLength: upTo, unit: 'grapheme' }).filter(within),
    );
  }
  if (mode === 'valid') return valid;
  const limits = [min, Math.max(0, min - 1), ...(max === undefined ? [] : [max, max + 1])];
  const lengths = limits.filter((n, i) => limits.indexOf(n) === i);
  const edge = fc
    .tuple(fc.constantFrom(...lengths), fc.constantFrom('x', 'é', 'ß'))
    .map(([length, unit]) => unit.repeat(length));
  return fc.oneof({ arbitrary: valid, weight: 2 }, { arbitrary: edge, weight: 1 });
}

/** The everyday address (RFC 5322 allows far more than most validators take; fc.emailAddress covers that). */
const plainEmail = fc
  .tuple(fc.stringMatching(/^[a-z0-9][a-z0-9._+-]{0,15}$/), fc.constantFrom('example.com', 'mail.example.org'))
  .map(([local, domain]) => `${local}@${domain}`);

/**
 * Valid numbers keep at most 15 significant digits: the service reads every JSON number exactly and refuses one it
 * cannot (its own documented 400), so full-precision doubles go with the edge values instead.
 */
const PLAIN_DIGITS = 12;

function numberOf(schema: JsonSchema, mode: Mode): fc.Arbitrary<number> {
  const integer = schema.type === 'integer';
  const min = schema.minimum ?? schema.exclusiveMinimum;
  const max = schema.maximum ?? schema.exclusiveMaximum;
  const valid = integer
    ? fc.integer({ min: min ?? -1_000_000, max: max ?? 1_000_000 }).filter((n) => inRange(schema, n))
    : fc
        .double({
          ...(min !== undefined ? { min, minExcluded: schema.exclusiveMinimum !== undefined } : {}),
          ...(max !== undefined ? { max, maxExcluded: schema.exclusiveMaximum !== undefined } : {}),
          noNaN: true,
          noDefaultInfinity: true,
        })
        .map((n) => Number(n.toPrecision(PLAIN_DIGITS)))
        .filter((n) => inRange(schema, n));
  if (mode === 'valid') return valid;
  const full = fc.double({ min: min ?? -Number.MAX_VALUE, max: max ?? Number.MAX_VALUE, noNaN: true });
  const step = integer ? 1 : Number.EPSILON;
  const limits = [min, max].filter((n): n is number => n !== undefined);
  const edges = limits.flatMap((n) => [n, n - step, n + step, n - 1, n + 1]);
  const odd = integer ? [0, -1, 1.5, 2 ** 53, -(2 ** 53)] : [0, -0, 5e-324, Number.MAX_VALUE, -Number.MAX_VALUE];
  return fc.oneof(
    { arbitrary: valid, weight: 2 },
    { arbitrary: fc.constantFrom(...edges, ...odd), weight: 1 },
    { arbitrary: full, weight: integer ? 0 : 1 },
  );
}

function inRange(schema: JsonSchema, n: number): boolean {
  return (
    (schema.minimum === undefined || n >= schema.minimum) &&
    (schema.maximum === undefined || n <= schema.maximum) &&
    (schema.exclusiveMinimum === undefined || n > schema.exclusiveMinimum) &&
    (schema.exclusiveMaximum === undefined || n < schema.exclusiveMaximum)
  );
}

function arrayOf(schema: JsonSchema, ctx: SchemaContext, name: string, mode: Mode, depth: number) {
  const min = schema.minItems ?? 0;
  const max = Math.min(schema.maxItems ?? min + 6, min + 6);
  const items = schema.items ?? {};
  const item = schemaValue(items, ctx, name, mode, depth + 1);
  // A list of enum values is a set in every schema of the contract; repeats are left to the hostile mutations.
  const valid = items.enum
    ? fc.uniqueArray(item, { minLength: Math.min(min, items.enum.length), maxLength: Math.min(max, items.enum.length) })
    : fc.array(item, { minLength: min, maxLength: max });
  if (mode === 'valid') return valid;
  const lengths = [
    Math.max(0, min - 1),
    ...(schema.maxItems !== undefined ? [schema.maxItems, schema.maxItems + 1] : []),
  ];
  const edge = fc.constantFrom(...lengths).chain((length) => fc.array(item, { minLength: length, maxLength: length }));
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: edge, weight: 1 });
}

function objectOf(schema: JsonSchema, ctx: SchemaContext, mode: Mode, depth: number) {
  const properties = schema.properties ?? {};
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, property] of Object.entries(properties))
    model[key] = schemaValue(property, ctx, key, mode, depth + 1);
  const known = fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in properties) });
  const extra = schema.additionalProperties;
  if (extra === undefined || extra === false) return known;
  const values = schemaValue(extra === true ? {} : extra, ctx, '', mode, depth + 1);
  const extras = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), values, { maxKeys: 3 });
  return fc.tuple(known, extras).map(([k, e]) => ({ ...e, ...k }));
}
