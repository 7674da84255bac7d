import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { PUBLICATION_SEQ, readMeta } from './meta.js';

/** What the metrics read from the store at each scrape: figures every process shares, not only this one's. */
export interface OperationalFigures {
  /** Webhook deliveries waiting for an attempt (due or scheduled later, leased or not). */
  pendingDeliveries: number;
  /** The oldest `next_attempt_at` among pending deliveries due at `now`; null when none is due. */
  oldestDueAt: string | null;
  /** The last publication sequence number handed out (0 before the first): it only grows. */
  publications: number;
  /** Providers with a published Risk Indicator in force. */
  providersRated: number;
}

/** Reads the figures in four small queries (the due one on the webhook_deliveries_due index). */
export async function operationalFigures(db: Kysely<Database>, now: string): Promise<OperationalFigures> {
  const pending = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('status', '=', 'pending')
    .executeTakeFirst();
  const due = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('at'))
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst();
  const rated = await db
    .selectFrom('providers')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('current_indicator_id', 'is not', null)
    .executeTakeFirst();
  const seq = await readMeta(db, PUBLICATION_SEQ);
  return {
    pendingDeliveries: Number(pending?.n ?? 0),
    oldestDueAt: (due?.at as string | null | undefined) ?? null,
    publications: seq === undefined ? 0 : Number(seq),
    providersRated: Number(rated?.n ?? 0),
  };
}
