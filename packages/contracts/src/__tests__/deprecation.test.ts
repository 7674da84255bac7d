import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import {
  buildOpenApiDocument,
  type Deprecation,
  dayStart,
  deprecationHeaders,
  deprecationProblems,
  deprecationsIn,
  type Endpoint,
  earliestSunset,
  endpoints,
  noticeIsLongEnough,
} from '../index.js';

const notice = (announced: string, sunset: string): Deprecation => ({
  announced,
  sunset,
  link: 'https://svc.example/docs/api-changelog#2026-12-01',
});

describe('noticeIsLongEnough: six calendar months from the announcement to the sunset', () => {
  it('accepts the same day six months later, and any later day', () => {
    expect(noticeIsLongEnough(notice('2026-12-01', '2027-06-01'))).toBe(true);
    expect(noticeIsLongEnough(notice('2026-12-01', '2027-06-02'))).toBe(true);
    expect(noticeIsLongEnough(notice('2026-12-01', '2028-01-01'))).toBe(true);
  });

  it('refuses a sunset a day short of six months, or before the announcement', () => {
    expect(noticeIsLongEnough(notice('2026-12-01', '2027-05-31'))).toBe(false);
    expect(noticeIsLongEnough(notice('2026-12-01', '2026-12-01'))).toBe(false);
    expect(noticeIsLongEnough(notice('2026-12-01', '2026-06-01'))).toBe(false);
  });

  it('counts months across the year end, and a day the sixth month lacks moves to the first of the next', () => {
    expect(noticeIsLongEnough(notice('2026-07-15', '2027-01-15'))).toBe(true);
    expect(noticeIsLongEnough(notice('2026-07-15', '2027-01-14'))).toBe(false);
    // 31 August + 6 months is 31 February, which no year has: the earliest sunset is 1 March.
    expect(noticeIsLongEnough(notice('2026-08-31', '2027-02-28'))).toBe(false);
    expect(noticeIsLongEnough(notice('2026-08-31', '2027-03-01'))).toBe(true);
    // 29 February exists in 2028, so 29 August 2027 gives until then, and 31 August 2027 until 1 March 2028.
    expect(noticeIsLongEnough(notice('2027-08-29', '2028-02-29'))).toBe(true);
    expect(noticeIsLongEnough(notice('2027-08-31', '2028-02-29'))).toBe(false);
    expect(noticeIsLongEnough(notice('2027-08-31', '2028-03-01'))).toBe(true);
  });

  it('refuses dates that are not calendar dates', () => {
    expect(noticeIsLongEnough(notice('2026-02-30', '2027-09-01'))).toBe(false);
    expect(noticeIsLongEnough(notice('2026-12-01', '2027-13-01'))).toBe(false);
    expect(noticeIsLongEnough(notice('1 December 2026', '2027-09-01'))).toBe(false);
    expect(noticeIsLongEnough(notice('2026-12-01T00:00:00Z', '2027-09-01'))).toBe(false);
    expect(noticeIsLongEnough(notice('0050-01-01', '0051-01-01'))).toBe(false);
  });

  it('earliestSunset is the first day the check accepts, for every announcement day of two years', () => {
    for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2028, 0, 1); t += 86_400_000) {
      const announced = new Date(t).toISOString().slice(0, 10);
      const earliest = earliestSunset(new Date(t)).getTime();
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      expect(noticeIsLongEnough(notice(announced, day(earliest))), announced).toBe(true);
      expect(noticeIsLongEnough(notice(announced, day(earliest - 86_400_000))), announced).toBe(false);
      // Never less than six months by any count: at least 181 days (the shortest six months, September to March).
      expect((earliest - t) / 86_400_000, announced).toBeGreaterThanOrEqual(181);
    }
  });
});

describe('deprecationProblems', () => {
  it('is empty for a definition that can be announced', () => {
    expect(deprecationProblems(notice('2026-12-01', '2027-06-01'))).toEqual([]);
    expect(deprecationProblems({ ...notice('2026-12-01', '2027-06-01'), link: '/docs/errors' })).toEqual([]);
    expect(deprecationProblems({ ...notice('2026-12-01', '2027-06-01'), replacement: 'GET /api/v1/x' })).toEqual([]);
  });

  it('names every problem: the dates, the notice, the link and the replacement', () => {
    expect(deprecationProblems(notice('2026-12-01', '2027-05-31'))).toEqual([
      'sunset 2027-05-31 is less than 6 months after the announcement on 2026-12-01: the earliest sunset is 2027-06-01',
    ]);
    expect(
      deprecationProblems({ announced: '2026-12-32', sunset: 'soon', link: 'x', replacement: 'one\ntwo' }),
    ).toEqual([
      'announced must be a date YYYY-MM-DD, not "2026-12-32"',
      'sunset must be a date YYYY-MM-DD, not "soon"',
      'link must be an absolute http(s) URL or a path on this site starting with one "/", with no spaces, quotes or angle brackets, not "x"',
      'replacement, when given, must be one line of text',
    ]);
  });

  it('refuses a link that would break the header or leave the web', () => {
    for (const link of [
      '',
      'https://svc.example/a>; rel="x"',
      'https://svc.example/a b',
      'https://svc.example/a\r\nSet-Cookie: x',
      '//other.example/page',
      'javascript:alert(1)',
      'ftp://svc.example/x',
      'docs/api-changelog.md',
    ]) {
      expect(deprecationProblems({ ...notice('2026-12-01', '2027-06-01'), link }), link).toHaveLength(1);
    }
  });
});

describe('deprecationHeaders', () => {
  it('formats the RFC 9745 structured-field date, the RFC 8594 HTTP-date and the Link', () => {
    expect(deprecationHeaders(notice('2026-12-01', '2027-06-01'))).toEqual({
      Deprecation: `@${Date.UTC(2026, 11, 1) / 1000}`,
      Sunset: 'Tue, 01 Jun 2027 00:00:00 GMT',
      Link: '<https://svc.example/docs/api-changelog#2026-12-01>; rel="deprecation"',
    });
    expect(deprecationHeaders(notice('2026-12-01', '2027-06-01')).Deprecation).toBe('@1796083200');
    expect(dayStart('2026-12-01')?.toISOString()).toBe('2026-12-01T00:00:00.000Z');
  });
});

describe('deprecationsIn', () => {
  it('no route of the contract is deprecated today, and every name is its operationId', () => {
    expect(deprecationsIn().size).toBe(0);
    for (const [name, e] of Object.entries(endpoints) as [string, Endpoint][]) expect(e.operationId).toBe(name);
  });

  it('adds the routes a server deprecates, by operationId', () => {
    const added = deprecationsIn({ getStatus: notice('2026-12-01', '2027-06-01') });
    expect([...added.keys()]).toEqual(['getStatus']);
  });

  it('refuses a short notice or an endpoint that does not exist, naming it', () => {
    expect(() => deprecationsIn({ getStatus: notice('2026-12-01', '2027-05-31') })).toThrow(
      /the deprecation of getStatus cannot be announced: sunset 2027-05-31 is less than 6 months/,
    );
    expect(() => deprecationsIn({ noSuchRoute: notice('2026-12-01', '2027-06-01') } as never)).toThrow(
      'cannot deprecate noSuchRoute: there is no such endpoint',
    );
  });
});

describe('the OpenAPI document of a deprecated route', () => {
  const document = buildOpenApiDocument({
    deprecations: { getScore: { ...notice('2026-12-01', '2027-06-01'), replacement: 'GET /api/v1/scores' } },
  });
  type Operation = {
    deprecated?: boolean;
    description?: string;
    responses: Record<string, { headers?: Record<string, { description: string }> }>;
  };
  const operation = (path: string, method: string) => document.paths[path]?.[method] as Operation;

  it('marks it deprecated, says until when and what instead, and lists the three headers on every answer', () => {
    const op = operation('/api/v1/scores/{providerId}', 'get');
    expect(op.deprecated).toBe(true);
    expect(op.description).toContain('**Deprecated** since 2026-12-01');
    expect(op.description).toContain('sunset on 2027-06-01');
    expect(op.description).toContain('Use instead: GET /api/v1/scores.');
    expect(Object.keys(op.responses).length).toBeGreaterThan(5);
    for (const [status, response] of Object.entries(op.responses)) {
      expect(Object.keys(response.headers ?? {}), status).toEqual(
        expect.arrayContaining(['Deprecation', 'Sunset', 'Link']),
      );
      expect(response.headers?.Deprecation?.description).toContain('`@1796083200`');
      expect(response.headers?.Sunset?.description).toContain('`Tue, 01 Jun 2027 00:00:00 GMT`');
    }
  });

  it('is still a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(structuredClone(document) as never);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('leaves every other operation undeprecated', () => {
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (path === '/api/v1/scores/{providerId}' && method === 'get') continue;
        expect((op as Operation).deprecated, `${method} ${path}`).toBeUndefined();
      }
    }
  });
});

describe('the OpenAPI document and additions', () => {
  const document = buildOpenApiDocument();
  const schemas = document.components?.schemas as Record<string, Record<string, unknown>>;
  const closed = (node: unknown): boolean =>
    typeof node === 'object' &&
    node !== null &&
    ((node as Record<string, unknown>).additionalProperties === false || Object.values(node).some(closed));

  it('leaves the schemas of answers open to new fields', () => {
    for (const name of ['RiskIndicator', 'PublicScore', 'HistoryWithdrawal', 'HypotheticalIndicator']) {
      expect(schemas[name], name).toBeDefined();
      expect(closed(schemas[name]), name).toBe(false);
    }
  });

  it('keeps the request bodies closed: the server refuses a field it does not know', () => {
    for (const name of ['CoverageRequest', 'WebhookCreate', 'PortfolioRequest', 'WhatIfRequest']) {
      expect(schemas[name]?.additionalProperties, name).toBe(false);
    }
  });
});
