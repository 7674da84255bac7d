import type { Kysely } from 'kysely';
import { isoNow } from '../../clock.js';
import { deferWrites } from '../../store/deferred-writes.js';
import { insertChange } from '../../store/repositories/changelog.js';
import {
  insertHistory,
  insertIndicatorIfAbsent,
  providerRowOf,
  upsertProvider,
} from '../../store/repositories/providers.js';
import type { Database } from '../../store/schema.js';
import type { ServiceContext } from '../context.js';
import { recordAudit } from '../operators/audit.js';
import { completeAction, recordPublicationAction } from '../rating-actions/rating-actions.js';
import { packageSha256, signStatement } from '../statements/statements.js';
import type { PreparedPublication, PublishOutcome } from './model.js';
import type { Before } from './reads.js';
import { changeOf, changeRowOf, emitPublished, historyRowOf, indicatorRowOf } from './rows.js';

/** A publication's writes, in its transaction: the indicator, its history, action, change, events, audit entry, statement. */

/**
 * A publication's writes, in the caller's transaction, whose publication version is bumped already (its lock held),
 * from what was read before (`before`); only the audit head and the signing key are read after the writes begin.
 */
export async function writePublication(
  ctx: ServiceContext,
  tx: Kysely<Database>,
  prepared: PreparedPublication,
  before: Before,
): Promise<PublishOutcome> {
  const { store, clock } = ctx;
  const { publication, indicator, pkg, packageText, nextBand } = prepared;
  const now = isoNow(clock);
  const { provider: p } = publication.document;
  const { provider, previous, maker, subscribed, seq, actionSeq } = before;
  // From here the writes go to PostgreSQL together, a few statements at a time, rather than one by one.
  await deferWrites(tx, store.dialect);
  await upsertProvider(tx, providerRowOf(p, now), { indicatorId: indicator.risk_indicator_id, seq });
  await insertIndicatorIfAbsent(
    tx,
    indicatorRowOf({ indicator, pkg, packageText, nextBand, approvedAt: publication.approvedAt, now }),
  );
  await insertHistory(tx, historyRowOf(seq, indicator, publication.approvedAt, now));
  const action = await recordPublicationAction(tx, {
    provider,
    providerName: p.name,
    publicationSeq: seq,
    indicator,
    previous,
    now,
    actionSeq,
    maker,
  });
  const change = changeOf(previous, indicator);
  if (change) {
    await insertChange(tx, {
      ...changeRowOf(p.name, change, previous, indicator, now),
      rating_action_id: action.id,
    });
  }
  await emitPublished(
    tx,
    { indicator, providerName: p.name, approvedAt: publication.approvedAt, now, change, previous },
    subscribed,
  );
  const [entry] = await recordAudit(ctx, tx, [
    {
      action: 'indicator.published',
      subject: { type: 'provider', id: p.id },
      details: {
        risk_indicator_id: indicator.risk_indicator_id,
        publication_seq: seq,
        final_score: indicator.final_score,
        risk_band: indicator.risk_band,
        confidence: indicator.confidence,
        framework_version: indicator.framework_version,
        change,
        rating_action: { id: action.id, type: action.type },
      },
    },
  ]);
  if (!entry) throw new Error('the audit entry of a publication was not written');
  const auditHead = { seq: entry.seq, hash: entry.hash };
  await signStatement(ctx, tx, {
    facts: {
      type: 'publication',
      risk_indicator_id: indicator.risk_indicator_id,
      provider_id: p.id,
      provider_name: p.name,
      final_score: indicator.final_score,
      risk_band: indicator.risk_band,
      confidence: indicator.confidence,
      framework_version: indicator.framework_version,
      framework_sha256: pkg.framework.sha256,
      inputs_sha256: pkg.inputs_sha256,
      result_sha256: pkg.result_sha256,
      package_sha256: packageSha256(packageText),
      evaluation_date: pkg.evaluation_date,
      published_at: now,
    },
    publicationSeq: seq,
    auditHead,
  });
  // The action's statement follows the publication's in the provider's chain.
  const ratingAction = await completeAction(ctx, tx, action, auditHead, subscribed['rating_action.created']);
  return {
    status: 'published' as const,
    indicator,
    change,
    previousBand: previous?.risk_band ?? null,
    previousScore: previous?.final_score ?? null,
    ratingAction,
  };
}
