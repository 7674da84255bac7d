import { WEBHOOK_EVENT_TYPES as CONTRACT_EVENT_TYPES, WEBHOOK_HEADERS } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { STANDARD_WEBHOOK_HEADERS, SVC_WEBHOOK_HEADERS, WEBHOOK_EVENT_TYPES } from '../src/index.js';

// The client carries its own copies (it has no runtime dependency on the zod contracts); these keep them equal.
describe('the client agrees with the contracts', () => {
  it('names every event the service sends: the subscribable ones and ping', () => {
    expect([...WEBHOOK_EVENT_TYPES].sort()).toEqual([...CONTRACT_EVENT_TYPES, 'ping'].sort());
  });

  it('reads the headers the service writes', () => {
    expect(SVC_WEBHOOK_HEADERS).toEqual({
      signature: WEBHOOK_HEADERS.signature,
      previousSignature: WEBHOOK_HEADERS.previousSignature,
      eventId: WEBHOOK_HEADERS.eventId,
      timestamp: WEBHOOK_HEADERS.timestamp,
      deliveryAttempt: WEBHOOK_HEADERS.attempt,
    });
    expect(STANDARD_WEBHOOK_HEADERS).toEqual({
      id: WEBHOOK_HEADERS.standardId,
      timestamp: WEBHOOK_HEADERS.standardTimestamp,
      signature: WEBHOOK_HEADERS.standardSignature,
    });
  });
});
