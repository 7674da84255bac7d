import { base64ToBytes, bodyBytes, concatBytes, describe, hexToBytes, type RawBody, utf8 } from './encoding.js';

/**
 * Verification of the webhooks the service sends. Every delivery carries two signatures of the same body:
 * the service's own (`x-svc-signature`, hex HMAC-SHA-256 of the body) and a Standard Webhooks one
 * (`webhook-signature`, which also signs the id and timestamp, so it protects against replays).
 * Web Crypto only, so the same code runs in Node.js 20+, browsers, Deno, Bun and Workers; hence async.
 */

/** The headers of the service's own signature scheme. */
export const SVC_WEBHOOK_HEADERS = {
  /** Lower-case hex HMAC-SHA-256 of the raw body, keyed with the UTF-8 of the whole `whsec_…` secret. */
  signature: 'x-svc-signature',
  /** The same, made with the previous secret; sent only while a rotated secret overlaps the new one. */
  previousSignature: 'x-svc-signature-previous',
  /** The event id, stable across retries. Not signed: dedupe on the `id` of the verified body, which equals it. */
  eventId: 'x-svc-event-id',
  /** Unix seconds of this attempt. Not covered by `x-svc-signature`. */
  timestamp: 'x-svc-timestamp',
  /** 1 for the first attempt, 2 for the first retry, … */
  deliveryAttempt: 'x-svc-delivery-attempt',
} as const;

/** The Standard Webhooks headers (https://www.standardwebhooks.com). */
export const STANDARD_WEBHOOK_HEADERS = {
  /** The event id. */
  id: 'webhook-id',
  /** Unix seconds of this attempt. */
  timestamp: 'webhook-timestamp',
  /** Space-separated `v1,<base64 HMAC-SHA-256>` signatures of `${id}.${timestamp}.${body}`. */
  signature: 'webhook-signature',
} as const;

export const WEBHOOK_EVENT_TYPES = [
  'risk_indicator.published',
  'risk_indicator.band_changed',
  'risk_indicator.withdrawn',
  'issuance.updated',
  'methodology.published',
  'rating_action.created',
  'ping',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A webhook event. `type` stays open (`string & {}` keeps the known names in autocompletion) so new kinds of event do not break older receivers. */
export type WebhookEvent = {
  id: string;
  type: WebhookEventType | (string & {});
  /** ISO 8601 UTC. */
  created_at: string;
  data: Record<string, unknown>;
};

/** Header values as `fetch`'s `Headers` or Node.js's `req.headers` (arrays for repeated headers) hold them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export type StandardWebhookOptions = {
  /** How far `webhook-timestamp` may be from now, either way, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The current time in milliseconds. Default `Date.now`. */
  now?: () => number;
};

export const WEBHOOK_VERIFICATION_REASONS = [
  'missing_header',
  'invalid_timestamp',
  'timestamp_out_of_tolerance',
  'invalid_signature',
  'invalid_secret',
  'invalid_payload',
] as const;

export type WebhookVerificationReason = (typeof WEBHOOK_VERIFICATION_REASONS)[number];

/** Why a webhook was refused. Answer it with a 4xx (400 or 401) and do not process the event. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

const DEFAULT_TOLERANCE_SECONDS = 300;
/** A rotation sends two signatures; a cap keeps a request with thousands from costing thousands of HMACs of its body. */
const MAX_SIGNATURES = 10;
const SHA256_BYTES = 32;
const SECRET_PREFIX = 'whsec_';
const UNIX_SECONDS = /^[0-9]{1,15}$/;

/**
 * Whether any of the `x-svc-signature` values is the HMAC-SHA-256 of `rawBody` under `secret`. Pass the raw body
 * exactly as received, never re-serialised JSON. During a secret rotation pass both headers:
 * `[headers['x-svc-signature'], headers['x-svc-signature-previous']]`. Anything wrong with what came over the
 * network (absent, malformed, wrong length) gives false; only programmer errors throw a TypeError.
 *
 * This signature does not cover the timestamp, so a captured delivery can be replayed: dedupe on the event id,
 * or prefer {@link verifyStandardWebhook}, which also refuses stale deliveries.
 */
export async function verifyWebhookSignature(
  secret: string,
  rawBody: RawBody,
  signature: string | readonly (string | null | undefined)[] | null | undefined,
): Promise<boolean> {
  const caller = 'verifyWebhookSignature';
  if (typeof secret !== 'string') throw new TypeError(`${caller}: secret must be a string, not ${describe(secret)}`);
  const body = bodyBytes(rawBody, caller);
  const candidates = hexSignatures(signature, caller);
  if (secret === '' || candidates.length === 0 || candidates.length > MAX_SIGNATURES) return false;
  // The key is the whole secret string, `whsec_` included, exactly as the service signs.
  return anyVerifies(await hmacKey(utf8(secret)), candidates, body);
}

/**
 * Verifies a delivery by the Standard Webhooks scheme and returns its event: the `webhook-signature` must hold a
 * `v1` signature of `${webhook-id}.${webhook-timestamp}.${rawBody}` under the base64 key after `whsec_` (a secret
 * without the prefix is read as plain base64), `webhook-timestamp` must be within `toleranceSeconds` of now, and
 * the body must be an event whose `id` is `webhook-id`. Throws a {@link WebhookVerificationError} otherwise.
 */
export async function verifyStandardWebhook(
  secret: string,
  rawBody: RawBody,
  headers: WebhookHeaders,
  options: StandardWebhookOptions = {},
): Promise<WebhookEvent> {
  const caller = 'verifyStandardWebhook';
  if (typeof secret !== 'string') throw new TypeError(`${caller}: secret must be a string, not ${describe(secret)}`);
  const body = bodyBytes(rawBody, caller);
  const read = headerReader(headers, caller);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (typeof tolerance !== 'number' || !(tolerance >= 0) || !Number.isFinite(tolerance))
    throw new TypeError(`${caller}: toleranceSeconds must be a finite number of seconds, 0 or more`);
  const nowMs = (options.now ?? Date.now)();
  if (typeof nowMs !== 'number' || !Number.isFinite(nowMs))
    throw new TypeError(`${caller}: now() must return the current time in milliseconds`);

  const keyBytes = standardSecretKey(secret);

  const id = read(STANDARD_WEBHOOK_HEADERS.id, ', ');
  const timestamp = read(STANDARD_WEBHOOK_HEADERS.timestamp, ', ');
  const signature = read(STANDARD_WEBHOOK_HEADERS.signature, ' ');
  const missing = [
    [STANDARD_WEBHOOK_HEADERS.id, id],
    [STANDARD_WEBHOOK_HEADERS.timestamp, timestamp],
    [STANDARD_WEBHOOK_HEADERS.signature, signature],
  ]
    .filter(([, value]) => value === '')
    .map(([name]) => name);
  if (missing.length > 0)
    throw new WebhookVerificationError('missing_header', `Missing or empty webhook header: ${missing.join(', ')}`);

  if (!UNIX_SECONDS.test(timestamp))
    throw new WebhookVerificationError(
      'invalid_timestamp',
      `${STANDARD_WEBHOOK_HEADERS.timestamp} must be a whole number of unix seconds`,
    );
  const age = Math.floor(nowMs / 1000) - Number(timestamp);
  if (Math.abs(age) > tolerance)
    throw new WebhookVerificationError(
      'timestamp_out_of_tolerance',
      `${STANDARD_WEBHOOK_HEADERS.timestamp} is ${Math.abs(age)} s in the ${age > 0 ? 'past' : 'future'}; at most ${tolerance} s is accepted`,
    );

  const candidates = standardSignatures(signature);
  if (candidates.length === 0)
    throw new WebhookVerificationError(
      'invalid_signature',
      `${STANDARD_WEBHOOK_HEADERS.signature} holds no well-formed v1 signature`,
    );
  if (candidates.length > MAX_SIGNATURES)
    throw new WebhookVerificationError(
      'invalid_signature',
      `${STANDARD_WEBHOOK_HEADERS.signature} holds more than ${MAX_SIGNATURES} signatures`,
    );
  // Bytes, not a decoded string, so the body is signed exactly as it arrived even if it is not valid UTF-8.
  const signed = concatBytes(utf8(`${id}.${timestamp}.`), body);
  if (!(await anyVerifies(await hmacKey(keyBytes), candidates, signed)))
    throw new WebhookVerificationError(
      'invalid_signature',
      `No signature in ${STANDARD_WEBHOOK_HEADERS.signature} matches this body, id and timestamp under this secret`,
    );

  return parseEvent(body, id);
}

/** The HMAC key of a Standard Webhooks secret: the base64 after `whsec_`, or the whole string without the prefix. */
function standardSecretKey(secret: string): Uint8Array {
  const base64 = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = base64ToBytes(base64);
  if (key === undefined || key.length === 0)
    throw new WebhookVerificationError(
      'invalid_secret',
      'The webhook secret must be whsec_ followed by base64 (or the base64 alone), as the workspace was given',
    );
  return key;
}

/** The well-formed 32-byte hex signatures among the given header values (either case, space-separated). */
function hexSignatures(
  signature: string | readonly (string | null | undefined)[] | null | undefined,
  caller: string,
): Uint8Array[] {
  const values =
    signature === null || signature === undefined ? [] : typeof signature === 'string' ? [signature] : signature;
  if (!Array.isArray(values))
    throw new TypeError(
      `${caller}: signature must be a header value, an array of them or undefined, not ${describe(signature)}`,
    );
  const signatures: Uint8Array[] = [];
  for (const value of values) {
    if (value === null || value === undefined) continue;
    if (typeof value !== 'string')
      throw new TypeError(`${caller}: signature values must be strings, not ${describe(value)}`);
    // `Headers.get` joins a repeated header with ', ', so split there; hex never holds a comma or a space.
    for (const token of value.split(/\s+/)) {
      const hex = token.replace(/,$/, '');
      const bytes = hex === '' ? undefined : hexToBytes(hex);
      if (bytes?.length === SHA256_BYTES) signatures.push(bytes);
    }
  }
  return signatures;
}

/** The well-formed `v1` signatures of a `webhook-signature` value; other versions are skipped, as the standard says. */
function standardSignatures(header: string): Uint8Array[] {
  const signatures: Uint8Array[] = [];
  for (const token of header.split(/\s+/)) {
    // A trailing comma is what `Headers.get` leaves when the header was repeated; base64 never holds a comma.
    const [version, value] = token.replace(/,$/, '').split(',', 2);
    if (version !== 'v1' || value === undefined) continue;
    const bytes = base64ToBytes(value);
    if (bytes?.length === SHA256_BYTES) signatures.push(bytes);
  }
  return signatures;
}

/** Reads a header by its lower-case name from `Headers` or a plain object (any case), joining repeated values. */
function headerReader(headers: WebhookHeaders, caller: string): (name: string, separator: string) => string {
  if (typeof headers !== 'object' || headers === null)
    throw new TypeError(
      `${caller}: headers must be a Headers object or the request's headers object, not ${describe(headers)}`,
    );
  // Duck-typed rather than `instanceof Headers`, so polyfilled and other-realm Headers work too.
  if (typeof (headers as Headers).get === 'function') {
    const fetchHeaders = headers as Headers;
    return (name) => (fetchHeaders.get(name) ?? '').trim();
  }
  const record = headers as Record<string, string | string[] | undefined>;
  return (name, separator) => {
    const values: string[] = [];
    for (const [key, value] of Object.entries(record)) {
      if (key.toLowerCase() !== name) continue;
      for (const item of Array.isArray(value) ? value : [value]) if (typeof item === 'string') values.push(item.trim());
    }
    return values.filter((value) => value !== '').join(separator);
  };
}

/** Web Crypto's types, named from the global so the package needs neither the DOM lib nor `node:` types. */
type SubtleCrypto = typeof globalThis.crypto.subtle;
type CryptoKey = Awaited<ReturnType<SubtleCrypto['importKey']>>;

async function hmacKey(keyBytes: Uint8Array): Promise<CryptoKey> {
  return subtle().importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
}

/** Whether any candidate is the HMAC of `data`; `subtle.verify` compares in constant time. */
async function anyVerifies(key: CryptoKey, candidates: readonly Uint8Array[], data: Uint8Array): Promise<boolean> {
  for (const candidate of candidates) if (await subtle().verify('HMAC', key, candidate, data)) return true;
  return false;
}

function subtle(): SubtleCrypto {
  const webCrypto = globalThis.crypto?.subtle;
  if (webCrypto === undefined)
    throw new Error(
      'Web Crypto (globalThis.crypto.subtle) is not available: it needs Node.js 20+, or a browser page served over HTTPS',
    );
  return webCrypto;
}

/** The verified body as an event, or an invalid_payload error saying what is wrong with it. */
function parseEvent(body: Uint8Array, id: string): WebhookEvent {
  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'The webhook body is not UTF-8 JSON');
  }
  if (!isObject(event)) throw new WebhookVerificationError('invalid_payload', 'The webhook body is not a JSON object');
  for (const field of ['id', 'type', 'created_at'] as const)
    if (typeof event[field] !== 'string')
      throw new WebhookVerificationError('invalid_payload', `The webhook event has no string "${field}"`);
  if (!isObject(event.data))
    throw new WebhookVerificationError('invalid_payload', 'The webhook event has no object "data"');
  if (event.id !== id)
    throw new WebhookVerificationError(
      'invalid_payload',
      `The webhook event's "id" is not the ${STANDARD_WEBHOOK_HEADERS.id} header`,
    );
  return event as WebhookEvent;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
