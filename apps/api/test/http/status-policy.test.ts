import { StatusResponseSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { expectJson } from '../support/responses.js';
import { useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

const StatusSchema = StatusResponseSchema.strict();

describe('the freshness policy in configuration (decision 0053)', () => {
  it('defaults: max_evaluation_age_days 31, review_cadence_days 180 for every planner type', () => {
    expect(loadConfig({}).freshness).toEqual({
      maxEvaluationAgeDays: 31,
      reviewCadenceDays: { default: 180, byPlannerType: { btc: 180, fiat: 180, stablecoin: 180 } },
    });
  });

  it('SVC_REVIEW_CADENCE_DAYS sets the default cadence, SVC_REVIEW_CADENCE_DAYS_<TYPE> one planner type’s', () => {
    const config = loadConfig({
      SVC_MAX_EVALUATION_AGE_DAYS: '0',
      SVC_REVIEW_CADENCE_DAYS: '120',
      SVC_REVIEW_CADENCE_DAYS_FIAT: '90',
    });
    expect(config.freshness).toEqual({
      maxEvaluationAgeDays: 0,
      reviewCadenceDays: { default: 120, byPlannerType: { btc: 120, fiat: 90, stablecoin: 120 } },
    });
  });

  const bad: [string, string, RegExp][] = [
    [
      'SVC_MAX_EVALUATION_AGE_DAYS',
      'abc',
      /SVC_MAX_EVALUATION_AGE_DAYS: must be a whole number of days from 0 to 36500$/,
    ],
    [
      'SVC_MAX_EVALUATION_AGE_DAYS',
      '-1',
      /SVC_MAX_EVALUATION_AGE_DAYS: must be a whole number of days from 0 to 36500$/,
    ],
    [
      'SVC_MAX_EVALUATION_AGE_DAYS',
      '1.5',
      /SVC_MAX_EVALUATION_AGE_DAYS: must be a whole number of days from 0 to 36500$/,
    ],
    ['SVC_REVIEW_CADENCE_DAYS', '0', /SVC_REVIEW_CADENCE_DAYS: must be a whole number of days from 1 to 3650$/],
    [
      'SVC_REVIEW_CADENCE_DAYS_BTC',
      '9999',
      /SVC_REVIEW_CADENCE_DAYS_BTC: must be a whole number of days from 1 to 3650$/,
    ],
    [
      'SVC_REVIEW_CADENCE_DAYS_GOLD',
      '90',
      /SVC_REVIEW_CADENCE_DAYS_GOLD: names no planner type \(the suffix is one of BTC, FIAT, STABLECOIN\)$/,
    ],
  ];
  for (const [name, value, message] of bad) {
    it(`${name}=${value} is a configuration error naming the variable`, () => {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(message);
    });
  }
});

describe.each(engines)('GET /api/v1/status shows the policy on %s', (engine) => {
  const server = useServer(engine, async () => {}, {
    env: { SVC_MAX_EVALUATION_AGE_DAYS: '45', SVC_REVIEW_CADENCE_DAYS_STABLECOIN: '90' },
  });

  it('policy: the configured max_evaluation_age_days and review_cadence_days, each planner type’s resolved', async () => {
    const body = await expectJson(await server().get('/api/v1/status'), StatusSchema);
    expect(body.policy).toEqual({
      max_evaluation_age_days: 45,
      review_cadence_days: { default: 180, by_planner_type: { btc: 180, fiat: 180, stablecoin: 90 } },
    });
  });
});
