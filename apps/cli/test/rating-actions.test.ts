import { join } from 'node:path';
import {
  approveRatingActions,
  type Clock,
  generateSigner,
  migrate,
  proposeWatch,
  publishIndicator,
  standaloneContext,
} from '@svc/api';
import type { RatingAction } from '@svc/contracts';
import { getFramework, type InputsDocument } from '@svc/methodology';
import { beforeAll, describe, expect, it } from 'vitest';
import type { WatchlistEntry } from '../src/commands/watchlist.js';
import { DEMO_ROUNDS } from '../src/demo/index.js';
import { ENGINES, LOW_ID, refusedUnchanged, WORKED_ID, withStoreOf } from './governance-support.js';
import { afterOpenModeWarning, type Env, svcIn, svcJsonIn } from './operations.js';
import { EXAMPLES, pins, readExample, WORKED_EXAMPLE } from './svc.js';

/**
 * Issue 15 (decision 0030): the risk team's rating actions from the command line, maker-checker, and the watchlist
 * report. Each command runs as people run it; refusals are checked to write nothing.
 */

const UNKNOWN_PROVIDER = '00000000-0000-4000-8000-000000000000';

interface Record {
  id: string;
  status: 'PENDING' | 'EFFECTIVE';
  type: string;
  provider_id: string;
  proposed_by: string | null;
  approved_by: string | null;
  effective_at: string | null;
  proposal: { direction?: string; review_by?: string | null; outlook?: string } | null;
}

async function ok(vars: Env, ...args: string[]) {
  const run = await svcIn(vars, ...args);
  expect(run.status, `${args.join(' ')}\n${run.stderr}`).toBe(0);
  return run;
}

const DAY_MS = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const dayOf = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);

describe.each(ENGINES)('rating actions from the command line on %s', (_engine, fresh) => {
  let vars: Env;
  beforeAll(async () => {
    vars = await fresh();
    // The worked example is published (in force); the low-band example is submitted and approved, never published.
    await ok(vars, 'inputs', 'import', WORKED_EXAMPLE, '--by', 'alice');
    await ok(vars, 'inputs', 'import', join(EXAMPLES, 'low-band.json'), '--by', 'alice');
    await ok(vars, 'inputs', 'approve', WORKED_ID, LOW_ID, ...pins(WORKED_ID, LOW_ID), '--by', 'bob');
    await ok(vars, 'publish', WORKED_ID);
  });

  it('refuses bad input with exit 2 and a state that does not allow it with exit 1, writing nothing', async () => {
    const place = ['watch', 'place', WORKED_ID, '--by', 'ann'];
    await refusedUnchanged(
      vars,
      [...place, '--direction', 'SIDEWAYS', '--rationale', 'x'],
      2,
      'direction must be one of POSITIVE, NEGATIVE, DEVELOPING',
    );
    await refusedUnchanged(
      vars,
      [...place, '--direction', 'NEGATIVE', '--rationale', '  '],
      2,
      'rationale must not be empty',
    );
    await refusedUnchanged(
      vars,
      [...place, '--direction', 'NEGATIVE', '--rationale', 'x', '--review-by', '2027-02-30'],
      2,
      'review_by must be a date (YYYY-MM-DD) on the calendar',
    );
    await refusedUnchanged(
      vars,
      [...place, '--direction', 'NEGATIVE', '--rationale', 'x', '--review-by', today()],
      2,
      'review_by must be after today',
    );
    await refusedUnchanged(
      vars,
      [...place, '--direction', 'NEGATIVE', '--rationale', 'x', '--review-by', dayOf(today(), 366)],
      2,
      'at most 365 days ahead',
    );
    await refusedUnchanged(
      vars,
      ['watch', 'place', WORKED_ID, '--direction', 'NEGATIVE'],
      2,
      "required option '--rationale <text>' not specified",
    );
    await refusedUnchanged(
      vars,
      ['outlook', 'set', WORKED_ID, 'GLOOMY', '--rationale', 'x', '--by', 'ann'],
      2,
      'outlook must be one of POSITIVE, STABLE, NEGATIVE, DEVELOPING',
    );
    await refusedUnchanged(
      vars,
      ['outlook', 'set', WORKED_ID, 'STABLE', '--rationale', 'x', '--by', 'ann'],
      1,
      'outlook is STABLE already',
    );
    await refusedUnchanged(
      vars,
      ['watch', 'place', LOW_ID, '--direction', 'NEGATIVE', '--rationale', 'x', '--by', 'ann'],
      1,
      `provider ${LOW_ID} has no indicator in force (it was never published)`,
    );
    await refusedUnchanged(
      vars,
      ['watch', 'place', UNKNOWN_PROVIDER, '--direction', 'NEGATIVE', '--rationale', 'x', '--by', 'ann'],
      1,
      `no provider ${UNKNOWN_PROVIDER}`,
    );
    await refusedUnchanged(
      vars,
      ['watch', 'remove', WORKED_ID, '--rationale', 'x', '--by', 'ann'],
      1,
      'is not on watch: there is no watch to remove',
    );
    await refusedUnchanged(
      vars,
      ['actions', 'approve', 'ra_000000000000000000000000', '--by', 'bob'],
      1,
      'no rating action ra_000000000000000000000000',
    );
    await refusedUnchanged(vars, ['actions', 'approve', 'ra_nothex', '--by', 'bob'], 2, 'is not a rating action id');
    const json = await svcJsonIn(vars, 'outlook', 'set', WORKED_ID, 'GLOOMY', '--rationale', 'x', '--by', 'ann');
    expect(json.status).toBe(2);
    expect(json.json).toMatchObject({ code: 'invalid_value', problems: [{ path: 'outlook' }] });
  });

  it('proposes, lists, refuses the proposer as approver, approves all or nothing, and lists the record', async () => {
    const review = dayOf(today(), 60);
    const watch = await svcJsonIn<Record>(
      vars,
      'watch',
      'place',
      WORKED_ID,
      '--direction',
      'NEGATIVE',
      '--review-by',
      review,
      '--rationale',
      'attestation three weeks late',
      '--by',
      'ann',
    );
    expect(watch.status, watch.stderr).toBe(0);
    expect(watch.json).toMatchObject({
      status: 'PENDING',
      type: 'WATCH_PLACED',
      provider_id: WORKED_ID,
      proposed_by: 'ann',
      approved_by: null,
      effective_at: null,
      proposal: { direction: 'NEGATIVE', review_by: review },
    });
    expect(watch.json.id).toMatch(/^ra_[0-9a-f]{24}$/);
    const text = await svcIn(
      vars,
      'outlook',
      'set',
      WORKED_ID,
      'NEGATIVE',
      '--rationale',
      'redemptions up two quarters running',
      '--by',
      'ann',
    );
    expect(text.status, text.stderr).toBe(0);
    expect(afterOpenModeWarning(text.stderr)).toBe('');
    const outlookId = /^(ra_[0-9a-f]{24}): OUTLOOK_CHANGED to NEGATIVE for .* proposed by ann, awaits approval$/m.exec(
      text.stdout,
    )?.[1];
    expect(outlookId, text.stdout).toBeDefined();
    expect(text.stdout).toContain(`Approve with: svc actions approve ${outlookId}`);

    const pending = await svcJsonIn<Record[]>(vars, 'actions', 'list', '--pending');
    expect(pending.json.map((r) => [r.id, r.status])).toEqual([
      [watch.json.id, 'PENDING'],
      [outlookId, 'PENDING'],
    ]);
    const table = (await ok(vars, 'actions', 'list', '--pending')).stdout;
    for (const head of [
      'Id',
      'Provider',
      'Type',
      'Status',
      'Proposed by',
      'Proposed at',
      'Approved by',
      'Effective at',
    ])
      expect(table).toContain(head);
    expect(table).toContain(`WATCH_PLACED NEGATIVE (review by ${review})`);

    // The proposer cannot approve; one bad id among good ones: nothing is approved.
    await refusedUnchanged(
      vars,
      ['actions', 'approve', watch.json.id, outlookId as string, '--by', 'Ann'],
      1,
      'Ann proposed it and cannot approve it',
    );
    await refusedUnchanged(
      vars,
      ['actions', 'approve', watch.json.id, 'ra_000000000000000000000000', '--by', 'bob'],
      1,
      'no rating action',
    );

    const approved = await svcJsonIn<RatingAction[]>(
      vars,
      'actions',
      'approve',
      watch.json.id,
      outlookId as string,
      '--by',
      'bob',
    );
    expect(approved.status, approved.stderr).toBe(0);
    expect(approved.json.map((a) => [a.id, a.type, a.approved_by, a.outlook, a.watch?.direction])).toEqual([
      [watch.json.id, 'WATCH_PLACED', 'bob', 'STABLE', 'NEGATIVE'],
      [outlookId, 'OUTLOOK_CHANGED', 'bob', 'NEGATIVE', 'NEGATIVE'],
    ]);
    for (const a of approved.json) expect(a.signature?.statement_sha256).toMatch(/^[0-9a-f]{64}$/);
    await refusedUnchanged(vars, ['actions', 'approve', watch.json.id, '--by', 'bob'], 1, 'is not pending');
    await refusedUnchanged(
      vars,
      ['watch', 'place', WORKED_ID, '--direction', 'POSITIVE', '--rationale', 'x', '--by', 'ann'],
      1,
      'is already on watch',
    );

    expect((await ok(vars, 'actions', 'list', '--pending')).stdout).toBe('no rating actions are pending approval\n');
    const mine = await svcJsonIn<Record[]>(vars, 'actions', 'list', '--provider', WORKED_ID.toUpperCase());
    expect(mine.json.map((r) => [r.type, r.status, r.approved_by])).toEqual([
      ['OUTLOOK_CHANGED', 'EFFECTIVE', 'bob'],
      ['WATCH_PLACED', 'EFFECTIVE', 'bob'],
      ['NEW', 'EFFECTIVE', 'bob'],
    ]);
    expect((await svcJsonIn<Record[]>(vars, 'actions', 'list', '--provider', LOW_ID)).json).toEqual([]);

    const removal = await svcJsonIn<Record>(
      vars,
      'watch',
      'remove',
      WORKED_ID,
      '--rationale',
      'attestation received',
      '--by',
      'ann',
    );
    expect(removal.status, removal.stderr).toBe(0);
    const removed = await svcJsonIn<RatingAction[]>(vars, 'actions', 'approve', removal.json.id, '--by', 'bob');
    expect(removed.json.map((a) => [a.type, a.outlook, a.watch])).toEqual([['WATCH_REMOVED', 'NEGATIVE', null]]);
  });
});

/** A document moved `days` days in time: its evaluation date, every as_of and every approval. */
function shifted(document: InputsDocument, days: number): InputsDocument {
  const move = (iso: string) => new Date(Date.parse(iso) + days * DAY_MS).toISOString();
  const inputs = Object.fromEntries(
    Object.entries(document.inputs).map(([key, item]) => [
      key,
      { ...item, as_of: move(`${item.as_of}T00:00:00Z`).slice(0, 10), approved_at: move(item.approved_at) },
    ]),
  );
  return { ...document, evaluation_date: move(`${document.evaluation_date}T00:00:00Z`).slice(0, 10), inputs };
}

function at(iso: string): Clock {
  return { now: () => new Date(iso) };
}

describe.each(ENGINES)('svc watchlist on %s', (_engine, fresh) => {
  const framework = getFramework('1.0');
  const demo = (name: string) => {
    const found = DEMO_ROUNDS[0]?.documents.find((d) => d.provider.name.startsWith(name));
    if (!found) throw new Error(`no demo document for ${name}`);
    return found;
  };
  let vars: Env;
  let day: string;
  let ageing: InputsDocument;
  let watched: InputsDocument;
  let edge: InputsDocument;
  let capped: InputsDocument;
  let quiet: InputsDocument;

  beforeAll(async () => {
    vars = await fresh();
    day = today();
    // Evidence 350 days old today: it passes 365 days in 16 days (HC-07 fires, MEDIUM to ELEVATED, confidence 0.25).
    const worked = await readExample();
    ageing = {
      ...worked,
      evaluation_date: dayOf(day, -5),
      inputs: Object.fromEntries(
        Object.entries(worked.inputs).map(([k, item]) => [
          k,
          { ...item, as_of: dayOf(day, -350), approved_at: `${dayOf(day, -5)}T06:00:00.000Z` },
        ]),
      ),
    };
    const base = (d: InputsDocument) =>
      Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${d.evaluation_date}T00:00:00Z`)) / DAY_MS);
    // A watch placed 60 days ago with a review 30 days ago; a score of 34.01 (SEVERE, 0.99 below HIGH); a score of
    // 49.99 (HIGH, 0.01 below ELEVATED) held there by hard cap HC-05, binding; a LOW score far from its edge.
    watched = shifted(demo('Northwind'), base(demo('Northwind')) - 60);
    edge = shifted(demo('Driftwood'), base(demo('Driftwood')) - 2);
    capped = shifted(demo('Fernhollow'), base(demo('Fernhollow')) - 2);
    quiet = shifted(demo('Meridian'), base(demo('Meridian')) - 2);
    await withStoreOf(vars, async (store) => {
      await migrate(store);
      const signer = generateSigner();
      const as = (name: string, iso: string) =>
        standaloneContext(store, { actor: { kind: 'system', name }, clock: at(iso), signer });
      for (const d of [ageing, watched, edge, capped, quiet]) {
        const outcome = await publishIndicator(as('demo', `${d.evaluation_date}T12:00:00.000Z`), {
          document: d,
          framework,
          approvedAt: `${d.evaluation_date}T06:00:00.000Z`,
        });
        expect(outcome.status).toBe('published');
      }
      const proposal = await proposeWatch(as('ann', `${dayOf(day, -59)}T09:00:00.000Z`), {
        providerId: watched.provider.id,
        direction: 'NEGATIVE',
        reviewBy: dayOf(day, -30),
        rationale: 'reserve letter late',
      });
      await approveRatingActions(as('bob', `${dayOf(day, -59)}T10:00:00.000Z`), { ids: [proposal.id] });
    });
  });

  it('lists the overdue watch, the band change and loss of publishability ahead, and the score at an edge, soonest first (exit 0)', async () => {
    const run = await svcJsonIn<WatchlistEntry[]>(vars, 'watchlist');
    expect(run.status, run.stderr).toBe(0);
    expect(run.json.map((e) => e.provider_id)).toEqual([
      watched.provider.id,
      ageing.provider.id,
      edge.provider.id,
      capped.provider.id,
    ]);
    const [w, a, e, c] = run.json;
    expect(w).toMatchObject({
      name: watched.provider.name,
      risk_band: 'LOW',
      outlook: 'STABLE',
      watch: { direction: 'NEGATIVE', review_by: dayOf(day, -30) },
    });
    expect(w?.reasons).toEqual([
      {
        code: 'WATCH_OVERDUE',
        date: dayOf(day, -30),
        detail: `NEGATIVE watch since ${dayOf(day, -59)} was due for review by ${dayOf(day, -30)}`,
      },
    ]);
    expect(a).toMatchObject({ risk_band: 'MEDIUM', final_score: 78.46, watch: null });
    expect(a?.reasons).toEqual([
      { code: 'BAND_CHANGE', date: dayOf(day, 16), detail: 'band MEDIUM -> ELEVATED as the evidence ages' },
      {
        code: 'NOT_PUBLISHABLE',
        date: dayOf(day, 16),
        detail: 'confidence falls below the publication threshold as the evidence ages',
      },
    ]);
    expect(e).toMatchObject({ risk_band: 'SEVERE', final_score: 34.01 });
    expect(e?.reasons).toEqual([
      { code: 'NEAR_BAND_EDGE', detail: '34.01 is 0.99 points below 35.00, where HIGH starts' },
    ]);
    // 0.01 below ELEVATED, but held there by a binding cap: not near the edge, and listed after the one that is.
    expect(c).toMatchObject({ risk_band: 'HIGH', final_score: 49.99 });
    expect(c?.reasons).toEqual([
      {
        code: 'HELD_AT_CAP',
        detail:
          'held by hard cap HC-05 (Unregulated high yield) at 49.99, 0.01 points below 50.00, where ELEVATED starts: no small improvement lifts it while the cap binds',
      },
    ]);
  });

  it('looks only as far as --days, prints a table, and refuses a --days outside 1..730 (exit 2)', async () => {
    const near = await svcJsonIn<WatchlistEntry[]>(vars, 'watchlist', '--days', '15');
    expect(near.json.map((e) => e.provider_id)).toEqual([watched.provider.id, edge.provider.id, capped.provider.id]);
    const text = (await ok(vars, 'watchlist')).stdout;
    expect(text).toContain('4 ratings on the watchlist (looking 30 days ahead):');
    expect(text).toContain(`${dayOf(day, 16)} BAND_CHANGE: band MEDIUM -> ELEVATED`);
    expect(text).toContain('now NEAR_BAND_EDGE: 34.01 is 0.99 points below 35.00');
    expect(text).toContain('now HELD_AT_CAP: held by hard cap HC-05');
    expect(text).not.toContain('49.99 is 0.01 points below');
    expect(text).toContain(
      'HELD_AT_CAP: just below the band above, but held there by a binding hard cap, so not counted as near the band edge',
    );
    expect(text).not.toContain(quiet.provider.name);
    for (const bad of ['0', '731', '1e2', '5.0', '-3', 'x']) {
      const run = await svcIn(vars, 'watchlist', '--days', bad);
      expect(run.status, bad).toBe(2);
      expect(run.stderr).toContain('must be a whole number of days from 1 to 730');
    }
  });
});
