import type { Kysely } from 'kysely';
import { approvedAtInstants } from '../../store/repositories/approved-inputs.js';
import { incrementAll, PUBLICATION_SEQ } from '../../store/repositories/meta.js';
import {
  findIndicator,
  findIndicators,
  findProvider,
  findProviders,
  type IndicatorRow,
  type ProviderRow,
} from '../../store/repositories/providers.js';
import { RATING_ACTION_SEQ } from '../../store/repositories/rating-actions.js';
import { subscribedEndpointsByType } from '../../store/repositories/webhooks.js';
import type { Database } from '../../store/schema.js';
import { type PublicationMaker, publicationMaker } from '../rating-actions/rating-actions.js';
import { prepareSigning, prepareSigningAll } from '../statements/statements.js';
import type { PreparedPublication } from './model.js';
import { PUBLICATION_EVENTS, type Subscribed } from './rows.js';

/** What a publication reads before it writes: alone (decision 0038), or with its batch (decision 0040). */

/**
 * What a batch reads once, after taking the publishers' lock and before it writes anything (decision 0040), for
 * every publication in it: what writePublication reads per provider alone. Safe to read ahead: a batch names each
 * provider once, and no publication writes another provider's row, indicators, submissions or statements, nor the
 * webhook endpoints.
 */
interface BatchReads {
  providers: Map<string, ProviderRow>;
  /** The indicators the batch's publications replace, by risk_indicator_id. */
  previous: Map<string, IndicatorRow>;
  /** Who proposed and approved each publication's inputs, by provider id (absent: nobody recorded). */
  makers: Map<string, NonNullable<PublicationMaker>>;
  subscribed: Subscribed;
  /** The publication and rating action sequences of each publication that changes something, by provider id. */
  sequences: Map<string, { seq: number; actionSeq: number }>;
}

/** The indicator a provider's publication replaces: its current one, unless it is withdrawn (or new). */
const currentOf = (provider: ProviderRow | undefined): string | null =>
  provider && provider.withdrawn_at === null ? provider.current_indicator_id : null;

export async function readBatch(tx: Kysely<Database>, batch: readonly PreparedPublication[]): Promise<BatchReads> {
  const idOf = (b: PreparedPublication) => b.indicator.provider_id;
  const found = await findProviders(tx, batch.map(idOf));
  const providers = new Map(found.map((p) => [p.id, p]));
  const changing = batch.filter((b) => currentOf(providers.get(idOf(b))) !== b.indicator.risk_indicator_id);
  const replaced = await findIndicators(
    tx,
    changing.flatMap((b) => currentOf(providers.get(idOf(b))) ?? []),
  );
  const previous = new Map(replaced.map((row) => [row.risk_indicator_id, row]));
  const makers = await approvedAtInstants(
    tx,
    changing.map((b) => ({ providerId: idOf(b), approvedAt: b.publication.approvedAt })),
  );
  const subscribed = await subscribedEndpointsByType(tx, PUBLICATION_EVENTS);
  await prepareSigningAll(tx, changing.map(idOf));
  // The sequences of every publication that changes something, taken at once and handed out in the batch's order,
  // as taking them one publication at a time would number them (no gaps: an unchanged one takes none).
  const sequences = new Map<string, { seq: number; actionSeq: number }>();
  if (changing.length > 0) {
    const [lastSeq, lastActionSeq] = await incrementAll(tx, [PUBLICATION_SEQ, RATING_ACTION_SEQ], changing.length);
    if (lastSeq === undefined || lastActionSeq === undefined)
      throw new Error('the publication sequences were not taken');
    const first = { seq: lastSeq - changing.length + 1, actionSeq: lastActionSeq - changing.length + 1 };
    changing.forEach((b, i) => {
      sequences.set(idOf(b), { seq: first.seq + i, actionSeq: first.actionSeq + i });
    });
  }
  return { providers, previous, makers, subscribed, sequences };
}

/** What a publication's writes need, read before they begin (decision 0038) or by its batch (decision 0040). */
export interface Before {
  provider: ProviderRow | undefined;
  /** The indicator it replaces, if any. */
  previous: IndicatorRow | undefined;
  /** Who made and checked its inputs. */
  maker: PublicationMaker;
  /** Who hears of it, once for the three events a publication may emit. */
  subscribed: Subscribed;
  /** The publication and rating action sequences taken for it. */
  seq: number;
  actionSeq: number;
}

/**
 * A publication alone, in its own transaction whose sequences are `taken`: everything it reads, read before it
 * writes (decision 0038), and what its statements are chained to; null when its indicator is the one in force.
 */
export async function readAlone(
  tx: Kysely<Database>,
  prepared: PreparedPublication,
  taken: { seq: number; actionSeq: number },
): Promise<Before | null> {
  const { publication, indicator } = prepared;
  const id = publication.document.provider.id;
  const provider = await findProvider(tx, indicator.provider_id);
  const previousId = currentOf(provider);
  if (previousId === indicator.risk_indicator_id) return null;
  const previous = previousId ? await findIndicator(tx, previousId) : undefined;
  const maker = await publicationMaker(tx, id, publication.approvedAt);
  const subscribed = await subscribedEndpointsByType(tx, PUBLICATION_EVENTS);
  await prepareSigning(tx, id);
  return { provider, previous, maker, subscribed, ...taken };
}

/** A publication of a batch: what the batch read for it before any of its publications (readBatch); null as readAlone. */
export function readOfBatch(reads: BatchReads, prepared: PreparedPublication): Before | null {
  const { indicator } = prepared;
  const id = prepared.publication.document.provider.id;
  const provider = reads.providers.get(id);
  const previousId = currentOf(provider);
  if (previousId === indicator.risk_indicator_id) return null;
  const taken = reads.sequences.get(id);
  if (!taken) throw new Error(`no publication sequence was taken for ${id}`);
  const previous = previousId ? reads.previous.get(previousId) : undefined;
  return { provider, previous, maker: reads.makers.get(id), subscribed: reads.subscribed, ...taken };
}
