import type { ReadinessChecks } from '@svc/contracts';
import type { Clock } from '../../clock.js';
import { pendingMigrations } from '../../store/migrate.js';
import { type OperationalFigures, operationalFigures } from '../../store/repositories/metrics.js';
import { type Store, withinStoreTimeout } from '../../store/store.js';

/** What an operator watches besides the requests: readiness, and the figures the metrics read at each scrape. */

export interface Readiness {
  ready: boolean;
  checks: ReadinessChecks;
  /** Why the store check failed, for the log (never for the answer). */
  failure?: string;
}

/**
 * Whether this instance can serve: the store answers a round trip (a ping, then the migrations table) within
 * `timeoutMs`, and every migration this code knows is applied. Migrations the store has that this code does not
 * know are fine: in a rolling deploy the newer instances migrate first, and the older ones keep serving.
 */
export async function readiness(store: Store, timeoutMs: number): Promise<Readiness> {
  try {
    const pending = await withinStoreTimeout(
      store.ping().then(() => pendingMigrations(store)),
      timeoutMs,
    );
    const migrations = pending.length === 0 ? 'ok' : `pending: ${pending.join(', ')}`;
    return { ready: pending.length === 0, checks: { store: 'ok', migrations } };
  } catch (error) {
    return {
      ready: false,
      checks: { store: 'unavailable', migrations: 'unknown' },
      failure: error instanceof Error ? error.message : String(error),
    };
  }
}

export type { OperationalFigures };

/** The webhook backlog, the publications and the providers rated, as the store has them now (within `timeoutMs`). */
export function readOperationalFigures(store: Store, clock: Clock, timeoutMs: number): Promise<OperationalFigures> {
  return withinStoreTimeout(operationalFigures(store.db, clock.now().toISOString()), timeoutMs);
}
