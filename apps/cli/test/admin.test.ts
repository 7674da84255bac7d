import type { Store } from '@svc/api';
import { describe, expect, it } from 'vitest';
import {
  afterOpenModeWarning,
  contentsOf,
  type Env,
  embedded,
  storeOf,
  svcIn,
  svcJsonIn,
  withoutOpenModeWarning,
} from './operations.js';
import { pins, STACK_FRAME, WORKED_EXAMPLE } from './svc.js';

const WORKED_ID = '7d1f7c1e-3f0e-4b8a-9a51-5b0c0f9a2d11';
const UNKNOWN_ID = '0f0f0f0f-0000-4000-8000-000000000000';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function withStoreOf<T>(vars: Env, work: (store: Store) => Promise<T>): Promise<T> {
  const store = storeOf(vars);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The worked example, imported by alice, approved by bob and published. */
async function publishWorked(vars: Env): Promise<void> {
  for (const args of [
    ['inputs', 'import', WORKED_EXAMPLE, '--by', 'alice'],
    ['inputs', 'approve', WORKED_ID, ...pins(WORKED_ID), '--by', 'bob'],
    ['publish', WORKED_ID],
  ]) {
    const run = await svcIn(vars, ...args);
    expect(run.status, run.stderr).toBe(0);
  }
}

/** Runs a command that must fail with this exit code and message, and checks it changed nothing. */
async function refusedUnchanged(vars: Env, exit: number, message: RegExp, ...args: string[]): Promise<void> {
  const before = await withStoreOf(vars, contentsOf);
  const run = await svcIn(vars, ...args);
  expect(run.status, run.stderr).toBe(exit);
  expect(withoutOpenModeWarning(run.stderr)).toMatch(message);
  expect(run.stderr).not.toMatch(STACK_FRAME);
  expect(run.stdout).toBe('');
  expect(await withStoreOf(vars, contentsOf)).toEqual(before);
}

describe('svc provider', () => {
  it('list, withdraw (WITHDRAWN entry, publication version bumped), withdraw again refused, publish reinstates', async () => {
    const vars = await embedded();
    expect((await svcIn(vars, 'provider', 'list')).stdout).toBe('no providers yet\n');
    await publishWorked(vars);
    const listed = await svcJsonIn<Record<string, unknown>[]>(vars, 'provider', 'list');
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.json).toEqual([
      {
        id: WORKED_ID,
        name: 'Example Sats Lending',
        planner_type: 'btc',
        final_score: 78.46,
        risk_band: 'MEDIUM',
        withdrawn: false,
        withdrawn_at: null,
      },
    ]);
    const table = (await svcIn(vars, 'provider', 'list')).stdout;
    expect(table).toMatch(/Provider id .*Name .*Planner type .*Score .*Band .*Withdrawn/);
    expect(table).toContain('78.46');

    const versionOf = (store: Store) =>
      store.db.selectFrom('store_meta').select('value').where('key', '=', 'publication_version').executeTakeFirst();
    const version = Number((await withStoreOf(vars, versionOf))?.value);
    const withdrawn = await svcJsonIn<Record<string, unknown>>(
      vars,
      'provider',
      'withdraw',
      WORKED_ID,
      '--reason',
      'ceased',
    );
    expect(withdrawn.status, withdrawn.stderr).toBe(0);
    // Open mode (no operators): the one warning, nothing else.
    expect(afterOpenModeWarning(withdrawn.stderr)).toBe('');
    expect(withdrawn.json).toEqual({
      provider_id: WORKED_ID,
      provider_name: 'Example Sats Lending',
      withdrawn_at: expect.stringMatching(ISO),
      previous_score: 78.46,
      previous_band: 'MEDIUM',
      framework_version: 'DCRF v1.0',
      reason: 'ceased',
    });
    const contents = await withStoreOf(vars, contentsOf);
    expect(Number(contents.meta.find((m) => m.key === 'publication_version')?.value)).toBe(version + 1);
    expect(contents.changelog.at(-1)).toMatchObject({
      change_type: 'WITHDRAWN',
      previous_score: 78.46,
      previous_band: 'MEDIUM',
      new_score: null,
      new_band: null,
      risk_indicator_id: null,
      framework_version: 'DCRF v1.0',
    });
    expect((await svcJsonIn<Record<string, unknown>[]>(vars, 'provider', 'list')).json[0]).toMatchObject({
      final_score: null,
      withdrawn: true,
      withdrawn_at: withdrawn.json.withdrawn_at,
    });

    await refusedUnchanged(vars, 1, /^error: provider .* was already withdrawn at /, 'provider', 'withdraw', WORKED_ID);
    await refusedUnchanged(vars, 1, /^error: no provider 0f0f0f0f/, 'provider', 'withdraw', UNKNOWN_ID);
    await refusedUnchanged(vars, 2, /missing required argument/, 'provider', 'withdraw');

    const again = await svcJsonIn<{ outcomes: { change: string }[] }>(vars, 'publish', WORKED_ID);
    expect(again.status, again.stderr).toBe(0);
    expect(again.json.outcomes[0]?.change).toBe('NEW');
    const feed = (await withStoreOf(vars, contentsOf)).changelog.map((c) => c.change_type);
    expect(feed).toEqual(['NEW', 'WITHDRAWN', 'NEW']);
  });

  it('withdraw in text and --json error forms', async () => {
    const vars = await embedded();
    await publishWorked(vars);
    const run = await svcIn(vars, 'provider', 'withdraw', WORKED_ID);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^provider 7d1f7c1e-\S+ \(Example Sats Lending\) withdrawn at \S+\nwas 78\.46 MEDIUM/);
    const twice = await svcJsonIn(vars, 'provider', 'withdraw', WORKED_ID);
    expect(twice.status).toBe(1);
    expect(twice.json).toEqual({ error: expect.stringMatching(/already withdrawn/), code: 'refused' });
  });
});

interface Issuance {
  id: string;
  target_amount: number;
  status: string;
  [field: string]: unknown;
}

const ADD = [
  'issuances',
  'add',
  '--issuer',
  'Example Sats Lending',
  '--instrument',
  '8.00% Series A Preferred',
  '--type',
  'preferred_share',
  '--status',
  'ANNOUNCED',
  '--currency',
  'usd',
  '--target-amount',
  '25000000.10',
];

const BAD: [string[], RegExp][] = [
  [['--type', 'warrant'], /type: type must be one of preferred_share, bond/],
  [['--status', 'CLOSED'], /status: status must be one of ANNOUNCED, PRICING/],
  [['--target-amount', '-5'], /target_amount: target amount must be a positive decimal/],
  [['--target-amount', 'lots'], /target_amount: target amount must be a positive decimal/],
  [['--target-amount', '0'], /target amount must be a positive decimal number \(greater than zero\)/],
  [['--currency', 'dollars'], /currency: currency must be a three-letter ISO 4217 code/],
  [['--expected-pricing-date', '2026-13-01'], /expected_pricing_date: expected pricing date must be a calendar date/],
  [['--coupon-rate', 'high'], /coupon_rate_pct: coupon rate must be a percentage/],
  [['--coupon-frequency', 'weekly'], /coupon_frequency: coupon frequency must be one of/],
  [['--provider', 'nope'], /provider_id: must be a UUID/],
];

describe('svc issuances', () => {
  it('add, update, list: amounts as the API serves them (a number; the store keeps the exact text), iss_ ids, clock timestamps, filters', async () => {
    const vars = await embedded();
    await publishWorked(vars);
    const added = await svcJsonIn<Issuance>(vars, ...ADD, '--provider', WORKED_ID, '--coupon-rate', '8');
    expect(added.status, added.stderr).toBe(0);
    expect(added.json).toEqual({
      id: expect.stringMatching(/^iss_[0-9a-f]{24}$/),
      issuer_name: 'Example Sats Lending',
      provider_id: WORKED_ID,
      instrument_name: '8.00% Series A Preferred',
      ticker: null,
      type: 'preferred_share',
      status: 'ANNOUNCED',
      currency: 'USD',
      target_amount: 25000000.1,
      coupon_rate_pct: 8,
      coupon_frequency: null,
      expected_pricing_date: null,
      announced_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    const stored = (await withStoreOf(vars, contentsOf)).issuances;
    expect(stored).toEqual([{ ...added.json, target_amount: '25000000.10' }]);

    const updated = await svcJsonIn<Issuance>(
      vars,
      'issuances',
      'update',
      added.json.id,
      '--status',
      'pricing',
      '--expected-pricing-date',
      '2026-09-30',
      '--coupon-frequency',
      'quarterly',
      '--ticker',
      'ESL.PA',
    );
    expect(updated.status, updated.stderr).toBe(0);
    expect(updated.json).toEqual({
      ...added.json,
      status: 'PRICING',
      expected_pricing_date: '2026-09-30',
      coupon_frequency: 'quarterly',
      ticker: 'ESL.PA',
      updated_at: expect.stringMatching(ISO),
    });

    const bond = await svcIn(
      vars,
      ...ADD.slice(0, 6),
      '--type',
      'bond',
      '--status',
      'ANNOUNCED',
      '--currency',
      'EUR',
      '--target-amount',
      '1000',
    );
    expect(bond.status, bond.stderr).toBe(0);
    expect(bond.stdout).toMatch(
      /^issuance iss_[0-9a-f]{24} added: Example Sats Lending, 8\.00% Series A Preferred \(ANNOUNCED\)\n$/,
    );

    const all = await svcJsonIn<Issuance[]>(vars, 'issuances', 'list');
    expect(all.json).toHaveLength(2);
    expect((await svcJsonIn<Issuance[]>(vars, 'issuances', 'list', '--status', 'PRICING')).json).toEqual([
      updated.json,
    ]);
    expect((await svcJsonIn<Issuance[]>(vars, 'issuances', 'list', '--type', 'bond')).json.map((i) => i.type)).toEqual([
      'bond',
    ]);
    const table = (await svcIn(vars, 'issuances', 'list')).stdout;
    expect(table).toMatch(/Issuance id .*Issuer .*Instrument .*Type .*Status .*Amount .*Pricing/);
    expect(table).toContain('25000000.1 USD');
    expect((await svcIn(vars, 'issuances', 'list', '--type', 'bond', '--status', 'PRICING')).stdout).toBe(
      'no issuances\n',
    );
  });

  it('update refuses each bad field, changing nothing', async () => {
    const vars = await embedded();
    const added = await svcJsonIn<Issuance>(vars, ...ADD);
    expect(added.status, added.stderr).toBe(0);
    for (const [flags, message] of BAD) {
      await refusedUnchanged(vars, 2, message, 'issuances', 'update', added.json.id, ...flags);
    }
  });

  it('add refuses bad data; unknown ids, missing flags and bad filters are refused; nothing changes', async () => {
    const vars = await embedded();
    const added = await svcJsonIn<Issuance>(vars, ...ADD);
    expect(added.status, added.stderr).toBe(0);
    const id = added.json.id;
    const headline = /^error: not a valid issuance \(1 problem\); nothing was written\n/;
    await refusedUnchanged(vars, 2, headline, ...ADD, '--type', 'warrant');
    for (const [flags, message] of BAD) await refusedUnchanged(vars, 2, message, ...ADD, ...flags);
    await refusedUnchanged(vars, 1, /^error: no provider 0f0f0f0f/, ...ADD, '--provider', UNKNOWN_ID);
    await refusedUnchanged(
      vars,
      1,
      /^error: no issuance iss_0+\n$/,
      'issuances',
      'update',
      `iss_${'0'.repeat(24)}`,
      '--status',
      'PRICING',
    );
    await refusedUnchanged(vars, 2, /^error: give at least one field to change\n$/, 'issuances', 'update', id);
    await refusedUnchanged(vars, 2, /required option '--target-amount <amount>' not specified/, ...ADD.slice(0, -2));
    await refusedUnchanged(
      vars,
      2,
      /^error: status must be one of ANNOUNCED, PRICING, PRICED, CANCELLED\n$/,
      'issuances',
      'list',
      '--status',
      'OPEN',
    );
    await refusedUnchanged(
      vars,
      2,
      /^error: type must be one of preferred_share, bond\n$/,
      'issuances',
      'list',
      '--type',
      'x',
    );

    const json = await svcJsonIn<Record<string, unknown>>(vars, ...ADD, '--target-amount', '-1');
    expect(json.status).toBe(2);
    expect(json.json).toEqual({
      error: 'not a valid issuance (1 problem); nothing was written',
      code: 'invalid_value',
      problems: [{ path: 'target_amount', message: expect.stringMatching(/positive decimal/) }],
    });
  });
});

describe('svc issuances close', () => {
  it('PRICED or CANCELLED takes an issuance off the upcoming list; include-closed shows it; a closed one changes no more', async () => {
    const vars = await embedded();
    const kept = await svcJsonIn<Issuance>(vars, ...ADD);
    const priced = await svcJsonIn<Issuance>(vars, ...ADD, '--type', 'bond');
    expect(priced.status, priced.stderr).toBe(0);
    const closed = await svcJsonIn<Issuance>(vars, 'issuances', 'close', priced.json.id, '--status', 'priced');
    expect(closed.status, closed.stderr).toBe(0);
    expect(closed.json).toEqual({ ...priced.json, status: 'PRICED', updated_at: expect.stringMatching(ISO) });
    const ids = async (...args: string[]) =>
      (await svcJsonIn<Issuance[]>(vars, 'issuances', 'list', ...args)).json.map((i) => i.id);
    expect(await ids()).toEqual([kept.json.id]);
    expect((await ids('--include-closed')).sort()).toEqual([kept.json.id, priced.json.id].sort());
    expect(await ids('--status', 'PRICED')).toEqual([priced.json.id]);
    expect((await svcIn(vars, 'issuances', 'close', kept.json.id, '--status', 'CANCELLED')).stdout).toBe(
      `issuance ${kept.json.id} closed: Example Sats Lending, 8.00% Series A Preferred (CANCELLED)\n`,
    );
    expect(await ids()).toEqual([]);

    const closedAgain = /^error: issuance iss_[0-9a-f]{24} is closed \(PRICED at \S+\); it changes no more\n$/;
    await refusedUnchanged(vars, 1, closedAgain, 'issuances', 'close', priced.json.id, '--status', 'CANCELLED');
    await refusedUnchanged(vars, 1, closedAgain, 'issuances', 'update', priced.json.id, '--status', 'PRICING');
    await refusedUnchanged(
      vars,
      2,
      /^error: an issuance closes as PRICED or CANCELLED\n/,
      'issuances',
      'close',
      priced.json.id,
      '--status',
      'ANNOUNCED',
    );
    await refusedUnchanged(
      vars,
      1,
      /^error: no issuance iss_0+\n$/,
      'issuances',
      'close',
      `iss_${'0'.repeat(24)}`,
      '--status',
      'PRICED',
    );
    await refusedUnchanged(vars, 2, /required option '--status <status>' not specified/, 'issuances', 'close', 'iss_x');
  });
});

describe('svc requests', () => {
  const insertRequest = (vars: Env, id: string, receivedAt: string) =>
    withStoreOf(vars, (store) =>
      store.db
        .insertInto('coverage_requests')
        .values({
          id,
          provider_name: `Provider ${id}`,
          website: 'https://example.com',
          contact_email: null,
          planner_type: 'btc',
          message: null,
          fingerprint: `fp_${id}`,
          status: 'RECEIVED',
          received_at: receivedAt,
          resolved_at: null,
          resolution: null,
        })
        .execute(),
    );

  it('list (newest first, by status, never the fingerprint); set IN_REVIEW, then a final COVERED or DECLINED with a note, once', async () => {
    const vars = await embedded();
    expect((await svcIn(vars, 'requests', 'list')).stdout).toBe('no coverage requests\n'); // migrates the fresh store
    await insertRequest(vars, 'cr_aaaaaaaaaaaaaaaaaaaaaaaa', '2026-06-01T00:00:00.000Z');
    await insertRequest(vars, 'cr_bbbbbbbbbbbbbbbbbbbbbbbb', '2026-06-02T00:00:00.000Z');
    const listed = await svcJsonIn<Record<string, unknown>[]>(vars, 'requests', 'list');
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.json.map((r) => r.id)).toEqual(['cr_bbbbbbbbbbbbbbbbbbbbbbbb', 'cr_aaaaaaaaaaaaaaaaaaaaaaaa']);
    expect(listed.json[0]).toEqual({
      id: 'cr_bbbbbbbbbbbbbbbbbbbbbbbb',
      provider_name: 'Provider cr_bbbbbbbbbbbbbbbbbbbbbbbb',
      website: 'https://example.com',
      contact_email: null,
      planner_type: 'btc',
      message: null,
      status: 'RECEIVED',
      received_at: '2026-06-02T00:00:00.000Z',
      resolved_at: null,
      resolution: null,
    });
    expect((await svcIn(vars, 'requests', 'list')).stdout).toMatch(/Request id .*Provider .*Received .*Status .*Note/);

    const reviewed = await svcJsonIn<Record<string, unknown>>(
      vars,
      'requests',
      'set',
      'cr_aaaaaaaaaaaaaaaaaaaaaaaa',
      '--status',
      'in_review',
    );
    expect(reviewed.status, reviewed.stderr).toBe(0);
    expect(reviewed.json).toMatchObject({ status: 'IN_REVIEW', resolution: null, resolved_at: null });
    const covered = await svcJsonIn<Record<string, unknown>>(
      vars,
      'requests',
      'set',
      'cr_aaaaaaaaaaaaaaaaaaaaaaaa',
      '--status',
      'COVERED',
      '--note',
      'scheduled for August',
    );
    expect(covered.status, covered.stderr).toBe(0);
    expect(covered.json).toMatchObject({
      id: 'cr_aaaaaaaaaaaaaaaaaaaaaaaa',
      status: 'COVERED',
      resolution: 'scheduled for August',
      resolved_at: expect.stringMatching(ISO),
    });
    expect(covered.json).not.toHaveProperty('fingerprint');
    const onlyCovered = await svcJsonIn<Record<string, unknown>[]>(vars, 'requests', 'list', '--status', 'covered');
    expect(onlyCovered.json.map((r) => r.id)).toEqual(['cr_aaaaaaaaaaaaaaaaaaaaaaaa']);
    expect(
      (await svcIn(vars, 'requests', 'set', 'cr_bbbbbbbbbbbbbbbbbbbbbbbb', '--status', 'DECLINED', '--note', 'no'))
        .stdout,
    ).toBe('coverage request cr_bbbbbbbbbbbbbbbbbbbbbbbb (Provider cr_bbbbbbbbbbbbbbbbbbbbbbbb) is now DECLINED\n');
    expect((await svcIn(vars, 'requests', 'list', '--status', 'RECEIVED')).stdout).toBe(
      'no RECEIVED coverage requests\n',
    );

    const set = (id: string, ...rest: string[]) => ['requests', 'set', id, ...rest];
    await refusedUnchanged(
      vars,
      1,
      /^error: coverage request cr_a+ is already COVERED \(at \S+\); a final status is not changed\n$/,
      ...set('cr_aaaaaaaaaaaaaaaaaaaaaaaa', '--status', 'DECLINED', '--note', 'again'),
    );
    await refusedUnchanged(
      vars,
      1,
      /^error: no coverage request cr_nope\n$/,
      ...set('cr_nope', '--status', 'IN_REVIEW'),
    );
    await insertRequest(vars, 'cr_cccccccccccccccccccccccc', '2026-06-03T00:00:00.000Z');
    await refusedUnchanged(
      vars,
      2,
      /^error: DECLINED needs a note for the requester \(--note\)\n/,
      ...set('cr_cccccccccccccccccccccccc', '--status', 'DECLINED'),
    );
    await refusedUnchanged(
      vars,
      2,
      /^error: a note is 1 to 2000 characters\n/,
      ...set('cr_cccccccccccccccccccccccc', '--status', 'IN_REVIEW', '--note', ' '),
    );
    await refusedUnchanged(
      vars,
      2,
      /^error: the status must be one of IN_REVIEW, COVERED, DECLINED\n/,
      ...set('cr_cccccccccccccccccccccccc', '--status', 'RESOLVED'),
    );
    await refusedUnchanged(vars, 2, /required option '--status <status>' not specified/, 'requests', 'set', 'cr_x');
    await refusedUnchanged(
      vars,
      2,
      /^error: status must be one of RECEIVED, IN_REVIEW, COVERED, DECLINED\n$/,
      'requests',
      'list',
      '--status',
      'OPEN',
    );
  });
});
