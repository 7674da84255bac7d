/** Time as the service sees it: injectable so tests can move it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 UTC with milliseconds: the one timestamp format the store keeps (it sorts as time does). */
export function isoNow(clock: Clock): string {
  return clock.now().toISOString();
}
