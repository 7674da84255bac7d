import type { Clock } from '../../src/clock.js';

/** A present later than every example's evidence (the latest evaluation date the suites use is 2026-07-20): nothing published from it is future-dated. */
export const AFTER_EXAMPLES = '2026-08-01T09:00:00.000Z';

/** A clock the test moves by hand. */
export function manualClock(
  start = '2026-07-01T09:00:00.000Z',
): Clock & { advance(ms: number): void; set(iso: string): void } {
  let t = Date.parse(start);
  return {
    now: () => new Date(t),
    advance: (ms) => {
      t += ms;
    },
    set: (iso) => {
      t = Date.parse(iso);
    },
  };
}
