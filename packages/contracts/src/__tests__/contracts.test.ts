import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import {
  buildOpenApiDocument,
  ChangelogQuerySchema,
  CoverageRequestBodySchema,
  type Endpoint,
  ERROR_CODES,
  endpoints,
  PUBLIC_LIMITS,
  ScoresQuerySchema,
  TIER_HOURLY_LIMIT,
  TIER_RANK,
  TIERS,
} from '../index.js';

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument({ serverUrl: 'https://svc.example' });

  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(document as never);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe('3.1.0');
  });

  it('describes every endpoint with its method, success status and every error status', () => {
    for (const e of Object.values(endpoints) as Endpoint[]) {
      const operation = document.paths[e.path]?.[e.method] as {
        responses: Record<string, unknown>;
        security?: unknown;
      };
      expect(operation, `${e.method} ${e.path}`).toBeDefined();
      const statuses = Object.keys(operation.responses);
      expect(statuses).toContain(String(e.success.status));
      for (const code of e.errors)
        expect(statuses, `${e.operationId} ${code}`).toContain(String(ERROR_CODES[code].status));
      expect(Boolean(operation.security), `${e.operationId} security`).toBe(e.tier !== undefined);
    }
  });
});

describe('tiers and limits', () => {
  it('every tier has a rank and an hourly limit; CUSTOM is entitled as ENTERPRISE is', () => {
    for (const tier of TIERS) {
      expect(TIER_RANK[tier]).toBeTypeOf('number');
      expect(TIER_HOURLY_LIMIT[tier]).toBeGreaterThan(0);
    }
    expect(TIER_HOURLY_LIMIT).toEqual({ FREE: 100, PROFESSIONAL: 1000, ENTERPRISE: 50_000, CUSTOM: 50_000 });
    expect(TIER_RANK.CUSTOM).toBe(TIER_RANK.ENTERPRISE);
  });

  it('keyed endpoints spend the key budget and public ones a per-IP limit of DESIGN', () => {
    for (const e of Object.values(endpoints) as Endpoint[]) {
      if (e.tier) expect(e.limit, e.operationId).toBe('key');
      else expect(e.limit === 'none' || e.limit in PUBLIC_LIMITS, e.operationId).toBe(true);
    }
    expect(PUBLIC_LIMITS.public_scores).toEqual({ limit: 120, windowSeconds: 60 });
    expect(PUBLIC_LIMITS.score_request).toEqual({ limit: 5, windowSeconds: 3600 });
  });

  it('every error code maps to a 4xx or 5xx status', () => {
    for (const { status } of Object.values(ERROR_CODES)) expect(status >= 400 && status < 600).toBe(true);
  });
});

describe('request schemas', () => {
  it('scores query: limit 1..500 with a default of 100, unknown parameters refused', () => {
    expect(ScoresQuerySchema.parse({})).toEqual({ limit: 100 });
    expect(ScoresQuerySchema.parse({ limit: '500', planner_type: 'btc' })).toEqual({ limit: 500, planner_type: 'btc' });
    for (const limit of ['0', '501', 'abc', '1.5'])
      expect(ScoresQuerySchema.safeParse({ limit }).success, limit).toBe(false);
    expect(ScoresQuerySchema.safeParse({ planner_type: 'gold' }).success).toBe(false);
    expect(ScoresQuerySchema.safeParse({ planer_type: 'btc' }).success).toBe(false);
  });

  it('changelog since: a real date or UTC timestamp', () => {
    for (const since of ['2026-06-30', '2026-06-30T10:00Z', '2024-02-29T23:59:59.5Z']) {
      expect(ChangelogQuerySchema.safeParse({ since }).success, since).toBe(true);
    }
    for (const since of ['2026-02-30', '2026-13-01', '2026-06-30T10:00:00+02:00', 'yesterday']) {
      expect(ChangelogQuerySchema.safeParse({ since }).success, since).toBe(false);
    }
  });

  it('coverage request: name 2..200, http(s) website, email, message up to 2000, nothing else', () => {
    expect(CoverageRequestBodySchema.safeParse({ provider_name: 'Acme Yield' }).success).toBe(true);
    const bad = [
      {},
      { provider_name: 'A' },
      { provider_name: 'x'.repeat(201) },
      { provider_name: 'Acme', website: 'ftp://acme.example' },
      { provider_name: 'Acme', website: 'javascript:alert(1)' },
      { provider_name: 'Acme', contact_email: 'not an email' },
      { provider_name: 'Acme', message: 'x'.repeat(2001) },
      { provider_name: 'Acme', rating: 'AAA' },
    ];
    for (const body of bad) expect(CoverageRequestBodySchema.safeParse(body).success, JSON.stringify(body)).toBe(false);
  });
});
