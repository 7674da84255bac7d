import { createHmac } from 'node:crypto';
import { WEBHOOK_HEADERS as H } from '@svc/contracts';

/**
 * The signature headers of one delivery attempt. `x-svc-signature` is the specification's: hex
 * HMAC-SHA-256 of the raw body keyed with the UTF-8 bytes of the secret exactly as shown. The
 * Standard Webhooks headers sign `id.timestamp.body` with the secret's base64 part decoded, so a
 * receiver can also refuse replays. During a rotation overlap the previous secret signs too: a
 * second `x-svc-signature-previous` header, and a second `v1,` entry in `webhook-signature`.
 */
export function signatureHeaders(delivery: {
  eventId: string;
  body: string;
  attempt: number;
  /** Unix seconds of this attempt. */
  timestamp: number;
  secret: string;
  previousSecret?: string | null;
}): Record<string, string> {
  const { eventId, body, timestamp, secret, previousSecret } = delivery;
  const secrets = previousSecret ? [secret, previousSecret] : [secret];
  const headers: Record<string, string> = {
    [H.signature]: hexSignature(secret, body),
    [H.eventId]: eventId,
    [H.timestamp]: String(timestamp),
    [H.attempt]: String(delivery.attempt),
    [H.standardId]: eventId,
    [H.standardTimestamp]: String(timestamp),
    [H.standardSignature]: secrets.map((s) => `v1,${standardSignature(s, eventId, timestamp, body)}`).join(' '),
  };
  if (previousSecret) headers[H.previousSignature] = hexSignature(previousSecret, body);
  return headers;
}

export function hexSignature(secret: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');
}

export function standardSignature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64');
}
