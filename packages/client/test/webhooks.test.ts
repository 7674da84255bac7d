import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  STANDARD_WEBHOOK_HEADERS,
  type StandardWebhookOptions,
  SVC_WEBHOOK_HEADERS,
  verifyStandardWebhook,
  verifyWebhookSignature,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from '../src/index.js';

// Everything here is signed independently of src: node:crypto plays the service, `standardwebhooks` the standard.

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/Xl8+AbqPiQ=';
const PREVIOUS_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const OTHER_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

const NOW_MS = Date.UTC(2026, 10, 23, 5, 0, 0, 250);
const NOW_S = Math.floor(NOW_MS / 1000);
const AT_NOW: StandardWebhookOptions = { now: () => NOW_MS };

const EVENT: WebhookEvent = {
  id: 'evt_01JD8ZQ5B3K4W2X7Y9PQRSTUVW',
  type: 'risk_indicator.published',
  created_at: '2026-11-23T05:00:00.000Z',
  data: { indicator_id: 'ri_999362cb4dd093d94a9ac28e', issuer: 'Société Générale', band: 'ELEVATED', score: 61.5 },
};
const BODY = JSON.stringify(EVENT);

/** x-svc-signature as the service makes it: hex HMAC-SHA-256 keyed with the UTF-8 of the whole secret string. */
function svcSignature(secret: string, body: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

/** A Standard Webhooks `v1,…` signature made with node:crypto: keyed with the base64 after `whsec_`. */
function standardSignature(secret: string, id: string, timestamp: number | string, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
}

/** Every header of a delivery, as the service sends it. */
function delivery(body = BODY, timestamp = NOW_S, id = EVENT.id): Record<string, string> {
  return {
    [SVC_WEBHOOK_HEADERS.signature]: svcSignature(SECRET, body),
    [SVC_WEBHOOK_HEADERS.eventId]: id,
    [SVC_WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [SVC_WEBHOOK_HEADERS.deliveryAttempt]: '1',
    [STANDARD_WEBHOOK_HEADERS.id]: id,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [STANDARD_WEBHOOK_HEADERS.signature]: standardSignature(SECRET, id, timestamp, body),
  };
}

/** The reason a Standard Webhooks verification was refused, or 'verified'. */
async function outcome(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  options: StandardWebhookOptions = AT_NOW,
  secret = SECRET,
): Promise<WebhookVerificationReason | 'verified'> {
  try {
    await verifyStandardWebhook(secret, body, headers, options);
    return 'verified';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

function without(headers: Record<string, string>, name: string): Record<string, string> {
  const { [name]: _, ...rest } = headers;
  return rest;
}

describe('verifyWebhookSignature (x-svc-signature)', () => {
  const signature = svcSignature(SECRET, BODY);

  it('a signature the service made verifies', async () => {
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(await verifyWebhookSignature(SECRET, BODY, signature)).toBe(true);
    expect(await verifyWebhookSignature(SECRET, BODY, delivery()[SVC_WEBHOOK_HEADERS.signature])).toBe(true);
  });

  it('one changed byte of the body fails', async () => {
    const bytes = Buffer.from(BODY, 'utf8');
    const tampered = Uint8Array.from(bytes);
    tampered[bytes.indexOf('61.5')] = '7'.charCodeAt(0);
    expect(await verifyWebhookSignature(SECRET, bytes, signature)).toBe(true);
    expect(await verifyWebhookSignature(SECRET, tampered, signature)).toBe(false);
  });

  it('the same JSON re-serialised with other whitespace fails: only the raw bytes verify', async () => {
    const reserialised = JSON.stringify(JSON.parse(BODY), null, 2);
    expect(JSON.parse(reserialised)).toEqual(JSON.parse(BODY));
    expect(await verifyWebhookSignature(SECRET, reserialised, signature)).toBe(false);
  });

  it('another secret fails, and so do the secret without whsec_ and its decoded bytes as keys', async () => {
    expect(await verifyWebhookSignature(OTHER_SECRET, BODY, signature)).toBe(false);
    expect(await verifyWebhookSignature(SECRET.slice('whsec_'.length), BODY, signature)).toBe(false);
    const decodedKeySignature = createHmac('sha256', Buffer.from(SECRET.slice(6), 'base64'))
      .update(BODY)
      .digest('hex');
    expect(await verifyWebhookSignature(SECRET, BODY, decodedKeySignature)).toBe(false);
  });

  it('upper-case hex passes', async () => {
    expect(await verifyWebhookSignature(SECRET, BODY, signature.toUpperCase())).toBe(true);
  });

  it.each([
    ['absent', undefined],
    ['null', null],
    ['empty', ''],
    ['blank', '   '],
    ['an empty list', []],
    ['a list of absent values', [undefined, null, '']],
    ['64 characters that are not hex', `${signature.slice(0, 63)}g`],
    ['one hex digit short', signature.slice(0, 63)],
    ['one byte short', signature.slice(0, 62)],
    ['one byte long', `${signature}00`],
    ['prefixed like Standard Webhooks', `v1,${signature}`],
    ['prefixed like GitHub', `sha256=${signature}`],
    ['base64 of the right bytes', Buffer.from(signature, 'hex').toString('base64')],
  ])('a header that is %s gives false', async (_, header) => {
    expect(await verifyWebhookSignature(SECRET, BODY, header)).toBe(false);
  });

  it('an empty secret gives false', async () => {
    expect(await verifyWebhookSignature('', BODY, svcSignature('', BODY))).toBe(false);
  });

  it('programmer errors throw a TypeError: a secret or body of the wrong type', async () => {
    await expect(verifyWebhookSignature(undefined as never, BODY, signature)).rejects.toThrow(TypeError);
    await expect(verifyWebhookSignature(SECRET, { ...EVENT } as never, signature)).rejects.toThrow(TypeError);
    await expect(verifyWebhookSignature(SECRET, BODY, 42 as never)).rejects.toThrow(TypeError);
  });

  describe('during a secret rotation', () => {
    const next = svcSignature(SECRET, BODY);
    const previous = svcSignature(PREVIOUS_SECRET, BODY);

    it('passes when only the previous signature matches the secret the receiver still holds', async () => {
      expect(await verifyWebhookSignature(PREVIOUS_SECRET, BODY, [next, previous])).toBe(true);
      expect(await verifyWebhookSignature(SECRET, BODY, [next, previous])).toBe(true);
    });

    it('passes with the previous header alone, as a Node.js array or as a Headers-joined value', async () => {
      expect(await verifyWebhookSignature(PREVIOUS_SECRET, BODY, [undefined, previous])).toBe(true);
      expect(await verifyWebhookSignature(PREVIOUS_SECRET, BODY, `${next}, ${previous}`)).toBe(true);
    });

    it('fails when neither matches', async () => {
      expect(await verifyWebhookSignature(OTHER_SECRET, BODY, [next, previous])).toBe(false);
    });

    it('fails with more than 10 signatures, even if one matches', async () => {
      const decoys = Array.from({ length: 10 }, () => randomBytes(32).toString('hex'));
      expect(await verifyWebhookSignature(SECRET, BODY, [...decoys.slice(1), next])).toBe(true);
      expect(await verifyWebhookSignature(SECRET, BODY, [...decoys, next])).toBe(false);
    });
  });

  describe('body types', () => {
    const text = JSON.stringify({ ...EVENT, data: { issuer: 'Société Générale — Crédit Agricole ✓ 🚀' } });
    const textSignature = svcSignature(SECRET, text);
    const bytes = new TextEncoder().encode(text);

    it('a non-ASCII body gives the same answer as a string, Uint8Array, Buffer or ArrayBuffer', async () => {
      expect(bytes.length).toBeGreaterThan(text.length);
      for (const body of [text, bytes, Buffer.from(text, 'utf8'), bytes.slice().buffer]) {
        expect(await verifyWebhookSignature(SECRET, body, textSignature)).toBe(true);
        expect(await verifyWebhookSignature(OTHER_SECRET, body, textSignature)).toBe(false);
      }
    });

    it('a view into a larger buffer is read from its own offset, as Node.js pools small Buffers', async () => {
      const framed = new Uint8Array(bytes.length + 16);
      framed.set(bytes, 8);
      expect(await verifyWebhookSignature(SECRET, framed.subarray(8, 8 + bytes.length), textSignature)).toBe(true);
    });

    it('the same text in another encoding (Latin-1) fails: the signature is over UTF-8', async () => {
      const latin1 = Buffer.from('{"issuer":"Société Générale"}', 'latin1');
      expect(await verifyWebhookSignature(SECRET, latin1, svcSignature(SECRET, '{"issuer":"Société Générale"}'))).toBe(
        false,
      );
    });
  });
});

describe('verifyStandardWebhook', () => {
  it('a delivery signed by the standardwebhooks library verifies and returns the event', async () => {
    const headers = {
      [STANDARD_WEBHOOK_HEADERS.id]: EVENT.id,
      [STANDARD_WEBHOOK_HEADERS.timestamp]: String(NOW_S),
      [STANDARD_WEBHOOK_HEADERS.signature]: new Webhook(SECRET).sign(EVENT.id, new Date(NOW_MS), BODY),
    };
    expect(await verifyStandardWebhook(SECRET, BODY, headers, AT_NOW)).toEqual(EVENT);
    expect(await verifyStandardWebhook(SECRET.slice('whsec_'.length), BODY, headers, AT_NOW)).toEqual(EVENT);
  });

  it('the signature our service makes (node:crypto) verifies with the standardwebhooks library, and with ours', async () => {
    const now = Math.floor(Date.now() / 1000);
    const headers = delivery(BODY, now);
    expect(headers[STANDARD_WEBHOOK_HEADERS.signature]).toBe(
      new Webhook(SECRET).sign(EVENT.id, new Date(now * 1000), BODY),
    );
    expect(new Webhook(SECRET).verify(BODY, headers)).toEqual(EVENT);
    expect(await verifyStandardWebhook(SECRET, BODY, headers)).toEqual(EVENT);
  });

  it('a non-ASCII body verifies as bytes and as a string', async () => {
    const headers = delivery();
    expect(await outcome(Buffer.from(BODY, 'utf8'), headers)).toBe('verified');
    expect(await outcome(BODY, headers)).toBe('verified');
  });

  describe('timestamp tolerance (300 s by default)', () => {
    it.each([
      [299, 'verified'],
      [300, 'verified'],
      [301, 'timestamp_out_of_tolerance'],
      [-299, 'verified'],
      [-301, 'timestamp_out_of_tolerance'],
      [86_400, 'timestamp_out_of_tolerance'],
    ] as const)('a delivery %i s old is %s', async (age, expected) => {
      expect(await outcome(BODY, delivery(BODY, NOW_S - age))).toBe(expected);
    });

    it('toleranceSeconds narrows it', async () => {
      const options = { ...AT_NOW, toleranceSeconds: 60 };
      expect(await outcome(BODY, delivery(BODY, NOW_S - 60), options)).toBe('verified');
      expect(await outcome(BODY, delivery(BODY, NOW_S - 61), options)).toBe('timestamp_out_of_tolerance');
    });

    it('a timestamp that is not whole unix seconds is invalid_timestamp', async () => {
      for (const timestamp of ['soon', '1795496400.5', '-1795496400', '2026-11-23T05:00:00Z', '1e9'])
        expect(await outcome(BODY, { ...delivery(), [STANDARD_WEBHOOK_HEADERS.timestamp]: timestamp })).toBe(
          'invalid_timestamp',
        );
    });

    it('the message says how far off the timestamp is', async () => {
      await expect(verifyStandardWebhook(SECRET, BODY, delivery(BODY, NOW_S + 400), AT_NOW)).rejects.toThrow(
        'webhook-timestamp is 400 s in the future; at most 300 s is accepted',
      );
    });
  });

  describe('signatures', () => {
    it('passes when only the second of two signatures matches (a secret rotation)', async () => {
      const headers = delivery();
      const previous = standardSignature(PREVIOUS_SECRET, EVENT.id, NOW_S, BODY);
      const current = headers[STANDARD_WEBHOOK_HEADERS.signature];
      const rotating = { ...headers, [STANDARD_WEBHOOK_HEADERS.signature]: `${current} ${previous}` };
      expect(await outcome(BODY, rotating, AT_NOW, PREVIOUS_SECRET)).toBe('verified');
      expect(await outcome(BODY, rotating, AT_NOW, SECRET)).toBe('verified');
      expect(await outcome(BODY, rotating, AT_NOW, OTHER_SECRET)).toBe('invalid_signature');
    });

    it('skips signatures of other versions and malformed ones', async () => {
      const good = delivery()[STANDARD_WEBHOOK_HEADERS.signature] ?? '';
      const value = good.slice('v1,'.length);
      const withSignature = (signature: string) => ({ ...delivery(), [STANDARD_WEBHOOK_HEADERS.signature]: signature });
      expect(await outcome(BODY, withSignature(`v1a,${value} v1,bm90IGl0 ${good}`))).toBe('verified');
      expect(await outcome(BODY, withSignature(`v2,${value}`))).toBe('invalid_signature');
      expect(await outcome(BODY, withSignature(value))).toBe('invalid_signature');
      expect(await outcome(BODY, withSignature(`v1,${value.slice(0, -4)}`))).toBe('invalid_signature');
    });

    it('a tampered body, id or timestamp is invalid_signature', async () => {
      const headers = delivery();
      expect(await outcome(BODY.replace('61.5', '71.5'), headers)).toBe('invalid_signature');
      expect(await outcome(JSON.stringify(EVENT, null, 2), headers)).toBe('invalid_signature');
      expect(await outcome(BODY, { ...headers, [STANDARD_WEBHOOK_HEADERS.id]: 'evt_other' })).toBe('invalid_signature');
      expect(await outcome(BODY, { ...headers, [STANDARD_WEBHOOK_HEADERS.timestamp]: String(NOW_S - 1) })).toBe(
        'invalid_signature',
      );
    });

    it('a wrong secret is invalid_signature, and one keyed as x-svc-signature is (the whole string) too', async () => {
      expect(await outcome(BODY, delivery(), AT_NOW, OTHER_SECRET)).toBe('invalid_signature');
      const wholeStringKey = createHmac('sha256', SECRET).update(`${EVENT.id}.${NOW_S}.${BODY}`).digest('base64');
      expect(await outcome(BODY, { ...delivery(), [STANDARD_WEBHOOK_HEADERS.signature]: `v1,${wholeStringKey}` })).toBe(
        'invalid_signature',
      );
    });
  });

  describe('headers', () => {
    it.each(Object.values(STANDARD_WEBHOOK_HEADERS))('a missing %s is missing_header', async (name) => {
      expect(await outcome(BODY, without(delivery(), name))).toBe('missing_header');
      expect(await outcome(BODY, { ...delivery(), [name]: '' })).toBe('missing_header');
      expect(await outcome(BODY, { ...delivery(), [name]: undefined } as never)).toBe('missing_header');
    });

    it('the message names every missing header', async () => {
      const headers = without(without(delivery(), STANDARD_WEBHOOK_HEADERS.id), STANDARD_WEBHOOK_HEADERS.signature);
      await expect(verifyStandardWebhook(SECRET, BODY, headers, AT_NOW)).rejects.toThrow(
        'Missing or empty webhook header: webhook-id, webhook-signature',
      );
    });

    it('a Headers object works', async () => {
      expect(await outcome(BODY, new Headers(delivery()))).toBe('verified');
      expect(await outcome(BODY, new Headers(without(delivery(), STANDARD_WEBHOOK_HEADERS.timestamp)))).toBe(
        'missing_header',
      );
    });

    it('a plain object with mixed-case names works', async () => {
      const headers = delivery();
      const mixed = {
        'Webhook-Id': headers[STANDARD_WEBHOOK_HEADERS.id],
        'WEBHOOK-TIMESTAMP': headers[STANDARD_WEBHOOK_HEADERS.timestamp],
        'webhook-Signature': headers[STANDARD_WEBHOOK_HEADERS.signature],
      };
      expect(await outcome(BODY, mixed)).toBe('verified');
    });

    it("Node.js's req.headers with a repeated signature header (an array) works", async () => {
      const previous = standardSignature(PREVIOUS_SECRET, EVENT.id, NOW_S, BODY);
      const nodeHeaders: IncomingHttpHeaders = {
        ...delivery(),
        [STANDARD_WEBHOOK_HEADERS.signature]: [previous, delivery()[STANDARD_WEBHOOK_HEADERS.signature] ?? ''],
      };
      expect(await outcome(BODY, nodeHeaders)).toBe('verified');
      const fetchHeaders = new Headers(without(delivery(), STANDARD_WEBHOOK_HEADERS.signature));
      fetchHeaders.append(STANDARD_WEBHOOK_HEADERS.signature, previous);
      fetchHeaders.append(STANDARD_WEBHOOK_HEADERS.signature, delivery()[STANDARD_WEBHOOK_HEADERS.signature] ?? '');
      expect(await outcome(BODY, fetchHeaders)).toBe('verified');
    });
  });

  describe('secret', () => {
    it.each([
      ['empty after whsec_', 'whsec_'],
      ['empty', ''],
      ['not base64', 'whsec_not base64!'],
      ['base64url', `whsec_${randomBytes(32).toString('base64url')}_-`],
    ])('a secret that is %s is invalid_secret', async (_, secret) => {
      expect(await outcome(BODY, delivery(), AT_NOW, secret)).toBe('invalid_secret');
    });

    it('a secret of the wrong type is a TypeError', async () => {
      await expect(verifyStandardWebhook(null as never, BODY, delivery(), AT_NOW)).rejects.toThrow(TypeError);
    });
  });

  describe('payload', () => {
    /** A body signed correctly, so only the payload check can refuse it. */
    const signedOutcome = (body: string, id = EVENT.id) => outcome(body, delivery(body, NOW_S, id));

    it('an id in the body other than webhook-id is invalid_payload', async () => {
      expect(await signedOutcome(BODY, 'evt_someone_else')).toBe('invalid_payload');
    });

    it.each([
      ['not JSON', 'event!'],
      ['a JSON array', JSON.stringify([EVENT])],
      ['JSON null', 'null'],
      ['without a type', JSON.stringify({ ...EVENT, type: undefined })],
      ['with a numeric created_at', JSON.stringify({ ...EVENT, created_at: 1795496400 })],
      ['with data an array', JSON.stringify({ ...EVENT, data: [] })],
      ['with data null', JSON.stringify({ ...EVENT, data: null })],
    ])('a body %s is invalid_payload', async (_, body) => {
      expect(await signedOutcome(body)).toBe('invalid_payload');
    });

    it('an unknown event type is accepted, so new kinds of event do not break older receivers', async () => {
      const body = JSON.stringify({ ...EVENT, type: 'issuer.merged' });
      expect(await signedOutcome(body)).toBe('verified');
    });

    it('bytes that are not UTF-8 are invalid_payload, after the signature over those exact bytes verified', async () => {
      const bytes = Buffer.from([0x7b, 0xff, 0x7d]);
      const signature = `v1,${createHmac('sha256', Buffer.from(SECRET.slice(6), 'base64'))
        .update(Buffer.concat([Buffer.from(`${EVENT.id}.${NOW_S}.`), bytes]))
        .digest('base64')}`;
      expect(await outcome(bytes, { ...delivery(), [STANDARD_WEBHOOK_HEADERS.signature]: signature })).toBe(
        'invalid_payload',
      );
    });
  });

  it('errors are WebhookVerificationError with a name, a reason and a message', async () => {
    const error = await verifyStandardWebhook(SECRET, BODY, {}, AT_NOW).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WebhookVerificationError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'missing_header' });
    expect((error as Error).message).toContain('webhook-id');
  });
});
