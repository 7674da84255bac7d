import fc from 'fast-check';
import { HOSTILE_STRINGS, jsonText, mutationOf } from './fuzz-hostile.js';
import { type SchemaContext, schemaValue } from './fuzz-json-schema.js';
import type { Operation, Parameter } from './fuzz-operations.js';

/** Request arbitraries of an operation, derived from its OpenAPI description: path, query, body and headers. */

/** Which API key a request presents: a tier's (from a pool with budget), another workspace's, or a bad one. */
export type KeySlot =
  | 'ENTERPRISE'
  | 'CUSTOM'
  | 'PROFESSIONAL'
  | 'FREE'
  | 'other-workspace'
  | 'absent'
  | 'empty'
  | 'unknown'
  | 'malformed'
  | 'revoked'
  | 'padded'
  | 'repeated';

/** How often each key is presented: mostly keys that pass, so most requests reach the handlers. */
export const KEY_WEIGHTS: Record<KeySlot, number> = {
  ENTERPRISE: 7,
  CUSTOM: 3,
  PROFESSIONAL: 3,
  FREE: 1,
  'other-workspace': 1,
  absent: 1,
  empty: 0.25,
  unknown: 0.5,
  malformed: 0.5,
  revoked: 0.5,
  padded: 0.25,
  repeated: 0.25,
};

/** A request before the keys are filled in: what to send, and what was varied. */
export interface Draft {
  operationId: string;
  method: string;
  /** The raw request target: path and query exactly as sent. */
  target: string;
  key: KeySlot;
  /** Printable Latin-1 noise for a malformed key (HTTP header values are bytes, not Unicode). */
  keyNoise: string;
  headers: Record<string, string>;
  body: { bytes: Buffer; chunked: boolean } | undefined;
  variant: string[];
}

const BODY_LIMIT = 64 * 1024;

export function draftOf(op: Operation, ctx: SchemaContext): fc.Arbitrary<Draft> {
  return fc
    .record({
      path: pathOf(op, ctx),
      query: queryOf(op.queryParams, ctx),
      key: keySlot,
      keyNoise: fc.stringMatching(/^[\x20-\x7e\xa0-\xff]{0,80}$/),
      headers: headersArb,
      body: op.body ? bodyOf(op.body, ctx) : op.method === 'POST' ? unexpectedBody : fc.constant(undefined),
    })
    .map(({ path, query, key, keyNoise, headers, body }) => ({
      operationId: op.id,
      method: op.method,
      target: query.text ? `${path.text}?${query.text}` : path.text,
      key,
      keyNoise,
      headers: { ...headers.values, ...(body?.contentType ? { 'content-type': body.contentType } : {}) },
      body: body?.bytes ? { bytes: body.bytes, chunked: body.chunked } : undefined,
      variant: [...path.labels, ...query.labels, ...(key === 'ENTERPRISE' ? [] : [`key-${key}`]), ...headers.labels]
        .concat(body?.label ? [body.label] : [])
        .filter(Boolean),
    }));
}

const keySlot = fc.oneof(
  ...(Object.entries(KEY_WEIGHTS) as [KeySlot, number][]).map(([slot, weight]) => ({
    arbitrary: fc.constant(slot),
    weight: weight * 4,
  })),
);

// ---- path ----

const RAW_SEGMENTS = [
  '%',
  '%zz',
  '%E0%A4%A',
  '%FF',
  '%C0%AF',
  '%ED%A0%80',
  '%2F',
  '%2e%2e',
  '..',
  '.',
  '%00',
  '%20',
  '+',
  ';x=1',
  '%25',
  '%u0041',
  '',
  'a'.repeat(5000),
];

function pathOf(op: Operation, ctx: SchemaContext): fc.Arbitrary<{ text: string; labels: string[] }> {
  const segments = op.pathParams.map((p) => segmentOf(p, ctx));
  return fc.tuple(...segments).map((filled) => {
    let text = op.template;
    filled.forEach((segment, i) => {
      text = text.replace(`{${op.pathParams[i]?.name}}`, segment.text);
    });
    return { text, labels: filled.map((s) => s.label) };
  });
}

function segmentOf(p: Parameter, ctx: SchemaContext): fc.Arbitrary<{ text: string; label: string }> {
  const encoded = (label: string) => (v: unknown) => ({ text: percentEncode(String(v)), label });
  const known = (ctx.known(p.name) ?? []).map(String);
  const near = known.length
    ? fc
        .constantFrom(...known)
        .chain((k) => fc.constantFrom(k.toUpperCase(), `${k}0`, k.slice(0, -1), ` ${k}`, k.repeat(40)))
    : fc.constant('');
  return fc.oneof(
    { weight: 12, arbitrary: schemaValue(p.schema, ctx, p.name).map(encoded('')) },
    { weight: 1, arbitrary: schemaValue(p.schema, ctx, p.name, 'edge').map(encoded('path-edge')) },
    { weight: 1, arbitrary: near.map(encoded('path-near')) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), fc.constantFrom(...HOSTILE_STRINGS))
        .map(encoded('path-garbage')),
    },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS).map((text) => ({ text, label: 'path-raw' })) },
  );
}

/** encodeURIComponent, but a lone surrogate becomes its (invalid) three UTF-8-style bytes instead of throwing. */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (char.length === 1 && code >= 0xd800 && code <= 0xdfff) {
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(char);
  }
  return out;
}

// ---- query ----

type Pair = [string, string];

const RAW_QUERY = ['%', '%zz', '%E0%A4%A', '%FF', '&&&', '=', '==', 'limit', 'limit[]=1', 'a[b]=1', '%00=1', '+=+'];

const WRONG_QUERY_VALUES = [
  'abc',
  '1.5',
  '1e3',
  '',
  ' 1',
  '0x10',
  'Infinity',
  'NaN',
  '-1',
  '0',
  '-0',
  '1,2',
  'true',
  'null',
  '[]',
  '9'.repeat(400),
  '-9007199254740993',
];

const UNKNOWN_NAMES = ['x', '__proto__', 'constructor', 'hasOwnProperty', 'toString', 'limit[]', 'a.b', 'ÿ', '💥'];

const textOf = (v: unknown): string => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

function queryOf(params: Parameter[], ctx: SchemaContext): fc.Arbitrary<{ text: string; labels: string[] }> {
  const pairsOf = (mode: 'valid' | 'edge') =>
    fc
      .tuple(
        ...params.map((p) => {
          const value = schemaValue(p.schema, ctx, p.name, mode).map((v): Pair[] => [[p.name, textOf(v)]]);
          // Optional parameters now and then: each one present narrows (a cursor of another list fails them all).
          return p.required
            ? value
            : fc.oneof({ weight: 1, arbitrary: value }, { weight: 2, arbitrary: fc.constant<Pair[]>([]) });
        }),
      )
      .map((lists) => lists.flat());
  const valid = pairsOf('valid');
  const encode = (pairs: Pair[], raw: string[] = []) =>
    [...pairs.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`), ...raw].join('&');
  const labelled = (label: string) => (pairs: Pair[]) => ({ text: encode(pairs), labels: [label] });
  const wrongValue = fc.oneof(
    fc.constantFrom(...WRONG_QUERY_VALUES),
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
  );
  const named = params.length ? fc.constantFrom(...params.map((p) => p.name)) : fc.constant('x');
  return fc.oneof(
    { weight: 16, arbitrary: valid.map(labelled('')) },
    { weight: params.length ? 3 : 0, arbitrary: pairsOf('edge').map(labelled('query-edge')) },
    {
      weight: params.length ? 3 : 0,
      arbitrary: fc
        .tuple(valid, named, wrongValue)
        .map(([pairs, name, v]) => [...pairs.filter(([k]) => k !== name), [name, v] as Pair])
        .map(labelled('query-wrong')),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, named, wrongValue)
        .map(([pairs, name, v]) => [...pairs, [name, v] as Pair, [name, v] as Pair])
        .map(labelled('query-duplicate')),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          valid,
          fc.oneof(fc.constantFrom(...UNKNOWN_NAMES), fc.string({ minLength: 1, maxLength: 10 })),
          wrongValue,
        )
        .map(([pairs, name, v]) => [...pairs, [name, v] as Pair])
        .map(labelled('query-unknown')),
    },
    {
      weight: params.some((p) => p.required) ? 1 : 0,
      arbitrary: fc
        .tuple(valid, named)
        .map(([pairs, name]) => pairs.filter(([k]) => k !== name))
        .map(labelled('query-missing')),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(...RAW_QUERY))
        .map(([pairs, raw]) => ({ text: encode(pairs, [raw]), labels: ['query-raw'] })),
    },
  );
}

// ---- headers ----

const ACCEPTS = [
  { weight: 3, value: undefined },
  { weight: 2, value: '*/*' },
  { weight: 1, value: 'application/json' },
  { weight: 4, value: 'application/json, text/event-stream' },
  { weight: 0.5, value: 'text/event-stream' },
  { weight: 0.5, value: 'text/html' },
  { weight: 0.25, value: 'garbage;;q=x' },
];

const headersArb = fc
  .record({
    accept: fc.oneof(...ACCEPTS.map(({ weight, value }) => ({ weight: weight * 4, arbitrary: fc.constant(value) }))),
    forwarded: fc.oneof(
      { weight: 19, arbitrary: fc.constant(undefined) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('', 'unknown', '::1', '1.1.1.1, 2.2.2.2', '999.1.1.1', 'x'.repeat(2000)),
      },
    ),
    requestId: fc.oneof(
      { weight: 19, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom('', 'fuzz-1', 'x'.repeat(65), '<script>', 'a b', '../x') },
    ),
    ifNoneMatch: fc.oneof(
      { weight: 19, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constantFrom('*', '"x"', 'W/"x"', '"x", *', ',,,', 'x'.repeat(3000)) },
    ),
  })
  .map(({ accept, forwarded, requestId, ifNoneMatch }) => {
    const values: Record<string, string> = {};
    const labels: string[] = [];
    if (accept !== undefined) values.accept = accept;
    if (forwarded !== undefined) {
      values['x-forwarded-for'] = forwarded;
      labels.push('forwarded-odd');
    }
    if (requestId !== undefined) {
      values['x-request-id'] = requestId;
      labels.push('request-id-odd');
    }
    if (ifNoneMatch !== undefined) {
      values['if-none-match'] = ifNoneMatch;
      labels.push('if-none-match');
    }
    return { values, labels };
  });

// ---- body ----

interface BodyDraft {
  bytes: Buffer | undefined;
  contentType: string | undefined;
  chunked: boolean;
  label: string;
}

const CONTENT_TYPES = [
  { weight: 24, value: 'application/json' },
  { weight: 4, value: 'application/json; charset=utf-8' },
  { weight: 1, value: 'Application/JSON;Charset=UTF-8' },
  { weight: 1, value: undefined },
  { weight: 1, value: 'text/plain' },
  { weight: 1, value: 'application/x-www-form-urlencoded' },
  { weight: 1, value: 'application/json; charset=iso-8859-1' },
  { weight: 1, value: 'application/problem+json' },
  { weight: 1, value: 'multipart/form-data; boundary=x' },
  { weight: 1, value: 'application/json, text/plain' },
];

const contentType = fc.oneof(...CONTENT_TYPES.map(({ weight, value }) => ({ weight, arbitrary: fc.constant(value) })));

/** Texts that are not the JSON they look like, or not JSON at all. */
function brokenTexts(validText: string): string[] {
  const object = validText.startsWith('{') && validText !== '{}';
  return [
    '',
    ' ',
    'null',
    '[]',
    '{}',
    '"text"',
    '1',
    validText.slice(0, Math.max(1, Math.floor(validText.length / 2))),
    `${validText}}`,
    `${validText} x`,
    `\ufeff${validText}`,
    object ? `{"${'k'}":1,${validText.slice(1)}` : '{"a":1,"a":2}',
    object ? `{"a":1,"a":1,${validText.slice(1)}` : '[1,2,]',
    '{"a":NaN}',
    "{'a':1}",
    '/* comment */{}',
    '{"a":1,}',
    '{"a":"\\x41"}',
    '{"a":"\\ud800"}',
  ];
}

function bodyOf(schema: Parameter['schema'], ctx: SchemaContext): fc.Arbitrary<BodyDraft> {
  const valid = schemaValue(schema, ctx);
  const typed = (label: string) => (text: string | Buffer) => ({ text, label });
  const content = fc.oneof(
    { weight: 10, arbitrary: valid.map(jsonText).map(typed('')) },
    { weight: 3, arbitrary: schemaValue(schema, ctx, '', 'edge').map(jsonText).map(typed('body-edge')) },
    {
      weight: 6,
      arbitrary: mutationOf(valid).map(({ value, label }) => ({ text: jsonText(value), label: `body-${label}` })),
    },
    {
      weight: 3,
      arbitrary: valid.chain((v) => fc.constantFrom(...brokenTexts(jsonText(v)))).map(typed('body-broken-json')),
    },
    {
      weight: 1,
      arbitrary: fc
        .oneof(
          valid.map((v) =>
            Buffer.concat([Buffer.from(jsonText(v).slice(0, -2)), Buffer.from([0xff, 0xfe, 0xc0, 0xaf])]),
          ),
          valid.map((v) => Buffer.from(jsonText(v), 'utf16le')),
          fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
        )
        .map(typed('body-bad-bytes')),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom(BODY_LIMIT + 1, BODY_LIMIT + 4096, 4 * BODY_LIMIT))
        .map(([v, size]) => {
          const text = jsonText(v);
          return `${' '.repeat(Math.max(0, size - text.length))}${text}`;
        })
        .map(typed('body-oversized')),
    },
    { weight: 1, arbitrary: valid.map(jsonText).map(typed('body-exactly-at-limit')).map(atLimit) },
  );
  return fc.record({ content, type: contentType, chunked: fc.boolean() }).map(({ content: c, type, chunked }) => ({
    bytes: Buffer.isBuffer(c.text) ? c.text : Buffer.from(c.text, 'utf8'),
    contentType: type,
    chunked,
    label: [c.label, ...(type === 'application/json' ? [] : [`content-type:${type ?? 'absent'}`])]
      .filter(Boolean)
      .join(','),
  }));
}

/** Valid JSON padded with spaces to exactly 64 KiB: the largest body accepted. */
function atLimit(c: { text: string | Buffer; label: string }) {
  const text = String(c.text);
  const size = Buffer.byteLength(text);
  return { ...c, text: size >= BODY_LIMIT ? text : `${' '.repeat(BODY_LIMIT - size)}${text}` };
}

/** A POST without a body in the contract, sent one anyway now and then: it must be ignored, not crash. */
const unexpectedBody: fc.Arbitrary<BodyDraft | undefined> = fc.oneof(
  { weight: 9, arbitrary: fc.constant(undefined) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('{"unexpected":true}', '{', 'x'.repeat(BODY_LIMIT + 10)).map((text) => ({
      bytes: Buffer.from(text),
      contentType: 'application/json',
      chunked: false,
      label: 'body-unexpected',
    })),
  },
);
