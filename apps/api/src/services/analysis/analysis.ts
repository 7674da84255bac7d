import {
  LIMITATIONS_DISCLOSURE,
  type PortfolioBody,
  type PortfolioScore,
  type RiskIndicatorResponse,
  type WhatIfBody,
  type WhatIfResponse,
} from '@svc/contracts';
import { applyOverrides, indicatorChanges, score, scorePortfolio } from '@svc/methodology';
import { findCurrentWithPackage } from '../../store/repositories/providers.js';
import type { ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { frameworkInForce } from '../frameworks/frameworks.js';
import { packagedInputs } from '../publishing/packaged.js';
import { servedIndicatorJson } from '../scores/served.js';

/**
 * The amount-weighted score of a portfolio of providers with current indicators, computed exactly by
 * the engine (weights, Herfindahl index, exposure per band) under the framework release in force.
 * Every holding without a published indicator is named in one 400.
 */
export async function portfolioScore(ctx: ServiceContext, body: PortfolioBody): Promise<PortfolioScore> {
  const headlines = new Map((await ctx.snapshot.headlines()).map((h) => [h.id, h]));
  const holdings = body.holdings.map((h) => ({ ...h, provider_id: h.provider_id.toLowerCase() }));
  const missing = holdings.flatMap((h, i) =>
    headlines.has(h.provider_id)
      ? []
      : [
          {
            path: `body.holdings.${i}.provider_id`,
            message: `no published Risk Indicator for provider ${h.provider_id}`,
          },
        ],
  );
  if (missing.length > 0) {
    throw new ServiceError(
      'invalid_request',
      `cannot score the portfolio: ${missing.map((m) => m.message).join('; ')}`,
      missing,
    );
  }
  const framework = await frameworkInForce(ctx);
  const rows = holdings.map((h) => {
    const headline = headlines.get(h.provider_id);
    if (!headline) throw new Error('unreachable: checked above');
    return { headline, amount: String(h.amount) };
  });
  const result = scorePortfolio(
    rows.map(({ headline, amount }) => ({
      provider_id: headline.id,
      amount,
      final_score: headline.final_score,
      risk_band: headline.risk_band,
    })),
    framework,
  );
  const nameOf = (id: string) => headlines.get(id)?.name ?? id;
  // The engine keeps amounts as exact decimal text; JSON carries them as the numbers they were sent as.
  const band = (b: string) => b as PortfolioScore['risk_band'];
  return {
    framework_version: result.framework_version,
    portfolio_score: result.portfolio_score,
    risk_band: band(result.risk_band),
    total_amount: Number(result.total_amount),
    holdings: result.holdings.map((h) => ({
      provider_id: h.provider_id,
      name: nameOf(h.provider_id),
      amount: Number(h.amount),
      weight: h.weight,
      final_score: h.final_score,
      risk_band: band(h.risk_band),
      contribution: h.contribution,
    })),
    weakest: result.weakest.map((w) => ({
      provider_id: w.provider_id,
      name: nameOf(w.provider_id),
      final_score: w.final_score,
      risk_band: band(w.risk_band),
      weight: w.weight,
    })),
    concentration: result.concentration,
    exposure_by_band: result.exposure_by_band.map((e) => ({
      risk_band: band(e.risk_band),
      amount: Number(e.amount),
      weight: e.weight,
      holdings: e.holdings,
    })),
    limitations_disclosure: LIMITATIONS_DISCLOSURE,
  };
}

/**
 * A provider's current indicator recomputed by the engine with some approved inputs overridden,
 * on the same evaluation date under the same framework; nothing is stored. Overrides the engine
 * refuses (unknown input, wrong type, out of range) are a 400 naming each.
 */
export async function whatIf(
  ctx: ServiceContext,
  input: { providerId: string; body: WhatIfBody },
): Promise<WhatIfResponse> {
  const { providerId, body } = input;
  const row = await findCurrentWithPackage(ctx.store.db, providerId);
  if (!row) throw new ServiceError('not_found', `no published Risk Indicator for provider ${providerId}`);
  const { document, framework } = packagedInputs(row.package, ctx);
  const changed = applyOverrides(document, body.inputs, framework);
  if (!changed.ok) {
    const errors = changed.problems.map((p) => ({
      path: `body.${p.path.replace(/\.value$/, '')}`,
      message: p.message,
    }));
    throw new ServiceError(
      'invalid_request',
      `the overrides are not valid inputs: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
      errors,
    );
  }
  const before = score(document, framework);
  const after = score(changed.document, framework);
  const served = JSON.parse(servedIndicatorJson(row)) as RiskIndicatorResponse;
  const { risk_indicator_id: _id, ...hypothetical } = after;
  return {
    provider_id: providerId,
    stored: false,
    base: { risk_indicator_id: served.risk_indicator_id, final_score: served.final_score, risk_band: served.risk_band },
    what_if: hypothetical as WhatIfResponse['what_if'],
    changes: indicatorChanges(before, after) as WhatIfResponse['changes'],
    limitations_disclosure: LIMITATIONS_DISCLOSURE,
  };
}
