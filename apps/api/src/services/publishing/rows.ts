import type { RiskBand, WebhookEventData } from '@svc/contracts';
import type { ComputationPackage, RiskIndicator } from '@svc/methodology';
import type { Insertable, Kysely } from 'kysely';
import type { IndicatorRow } from '../../store/repositories/providers.js';
import type { ChangelogTable, Database, IndicatorHistoryTable } from '../../store/schema.js';
import { emitEvent } from '../webhooks/events.js';
import type { ChangeType } from './model.js';

/** The rows and events a publication writes, built from what it states (by the verb and by bulk loads). */

/** The webhook events of a publication: always `risk_indicator.published`, and `band_changed` when the band moved. */
export async function emitPublished(tx: Kysely<Database>, p: PublishedFacts, subscribed: Subscribed): Promise<void> {
  const { indicator, previous, now } = p;
  const previousBand = (previous?.risk_band ?? null) as RiskBand | null;
  await emitEvent(
    tx,
    { type: 'risk_indicator.published', at: now, data: publishedEventData(p) },
    subscribed['risk_indicator.published'],
  );
  if (previous && previousBand !== null && previous.risk_band !== indicator.risk_band) {
    await emitEvent(
      tx,
      {
        type: 'risk_indicator.band_changed',
        at: now,
        data: {
          provider_id: indicator.provider_id,
          provider_name: p.providerName,
          risk_indicator_id: indicator.risk_indicator_id,
          previous_band: previousBand,
          new_band: indicator.risk_band as RiskBand,
          previous_score: previous.final_score,
          new_score: indicator.final_score,
          direction: indicator.final_score > previous.final_score ? 'improved' : 'deteriorated',
          framework_version: indicator.framework_version,
          published_at: now,
        },
      },
      subscribed['risk_indicator.band_changed'],
    );
  }
}

/** The events a publication may emit. */
export const PUBLICATION_EVENTS = [
  'risk_indicator.published',
  'risk_indicator.band_changed',
  'rating_action.created',
] as const;

/** Who hears of a publication: the endpoints subscribed to each event it may emit. */
export type Subscribed = Record<(typeof PUBLICATION_EVENTS)[number], readonly { id: string }[]>;

/** What a publication writes beside its indicator: the rows below are built from it, by the verb and by bulk loads. */
export interface PublishedFacts {
  indicator: RiskIndicator;
  providerName: string;
  approvedAt: string;
  now: string;
  change: ChangeType | null;
  previous: { risk_band: string; final_score: number } | undefined;
}

/** The stored indicator: the engine's result with its serialised package and the path to the next band (JSON). */
export function indicatorRowOf(p: {
  indicator: RiskIndicator;
  pkg: ComputationPackage;
  packageText: string;
  nextBand: string;
  approvedAt: string;
  now: string;
}): IndicatorRow {
  const { indicator, pkg } = p;
  return {
    risk_indicator_id: indicator.risk_indicator_id,
    provider_id: indicator.provider_id,
    framework_version: indicator.framework_version,
    final_score: indicator.final_score,
    risk_band: indicator.risk_band,
    confidence: indicator.confidence,
    publishable: 1,
    scored_at: indicator.scored_at,
    score_verified_at: p.approvedAt,
    published_at: p.now,
    indicator: JSON.stringify(indicator),
    package: p.packageText,
    path_to_next_band: p.nextBand,
    inputs_sha256: pkg.inputs_sha256,
    framework_sha256: pkg.framework.sha256,
    result_sha256: pkg.result_sha256,
  };
}

/** The history row of a publication, the `seq`-th of the store. */
export function historyRowOf(
  seq: number,
  indicator: Pick<RiskIndicator, 'provider_id' | 'risk_indicator_id' | 'framework_version'>,
  approvedAt: string,
  now: string,
): IndicatorHistoryTable {
  return {
    seq,
    provider_id: indicator.provider_id,
    risk_indicator_id: indicator.risk_indicator_id,
    framework_version: indicator.framework_version,
    score_verified_at: approvedAt,
    published_at: now,
  };
}

/** The change-feed row of a publication that changed something (`change` from changeOf). */
export function changeRowOf(
  providerName: string,
  change: ChangeType,
  previous: { risk_band: string; final_score: number } | undefined,
  indicator: RiskIndicator,
  now: string,
): Insertable<ChangelogTable> {
  return {
    provider_id: indicator.provider_id,
    provider_name: providerName,
    change_type: change,
    previous_score: previous?.final_score ?? null,
    new_score: indicator.final_score,
    previous_band: previous?.risk_band ?? null,
    new_band: indicator.risk_band,
    framework_version: indicator.framework_version,
    risk_indicator_id: indicator.risk_indicator_id,
    changed_at: now,
  };
}

/** The data of the `risk_indicator.published` event every publication emits. */
export function publishedEventData(p: PublishedFacts): WebhookEventData<'risk_indicator.published'> {
  const { indicator, previous, now } = p;
  return {
    provider_id: indicator.provider_id,
    provider_name: p.providerName,
    risk_indicator_id: indicator.risk_indicator_id,
    final_score: indicator.final_score,
    risk_band: indicator.risk_band as RiskBand,
    confidence: indicator.confidence,
    framework_version: indicator.framework_version,
    scored_at: indicator.scored_at,
    score_verified_at: p.approvedAt,
    published_at: now,
    change_type: p.change === 'WITHDRAWN' ? null : p.change,
    previous_score: previous?.final_score ?? null,
    previous_band: (previous?.risk_band ?? null) as RiskBand | null,
  };
}

/** The change-feed entry a publication makes after the previous indicator in force, if any. */
export function changeOf(
  previous: { risk_band: string; final_score: number } | undefined,
  indicator: RiskIndicator,
): ChangeType | null {
  if (!previous) return 'NEW';
  if (previous.risk_band !== indicator.risk_band) return 'BAND_CHANGE';
  return previous.final_score !== indicator.final_score ? 'SCORE_CHANGE' : null;
}
