import { type PublicScore, type RatingAction, StatusResponseSchema } from '@svc/contracts';
import { currentFramework } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import { CHART_CSS } from '../../src/pages/chart.js';
import { escapeHtml } from '../../src/pages/html.js';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import {
  approveRatingActions,
  proposeOutlook,
  proposeWatch,
} from '../../src/services/rating-actions/rating-actions.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { expectStrictCsp } from '../support/csp.js';
import { CAPS_ID, example, LOW_BAND_ID, UNKNOWN_PROVIDER_ID, WORKED_ID, withInput } from '../support/documents.js';
import { publish, type TestServer, useServer } from '../support/server.js';
import { RAW_CONTROLS, storeNameAsWritten } from '../support/stored-name.js';
import { engines } from '../support/stores.js';

/**
 * The ratings page (`/`) and the provider pages (`/providers/{id}`), issue 16: server-rendered HTML under the strict
 * CSP, from the published record, with the HTML 400 and 404 pages for bad addresses.
 */

const MINUTE = 60_000;
/** The worked example with less collateral (still MEDIUM), then with continuous proof of reserves (LOW). */
const lessCollateral = withInput(example('worked-example'), 'collateral_coverage_ratio', 1.3);
const provenReserves = withInput(lessCollateral, 'proof_of_reserves', 'onchain_continuous');
const RATIONALE = 'reserves <b>attestation</b> "late" & it\'s <script>alert(1)</script>';

/** Fetches a page, insisting on its status, HTML type, strict CSP and no script or inline style or handler. */
async function pageOf(server: TestServer, path: string, status = 200): Promise<string> {
  const res = await server.get(path);
  const text = await res.text();
  expect(res.status, `${path}: ${text.slice(0, 300)}`).toBe(status);
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  // The ratings and provider pages carry the as_of form, sent to this service only; the error pages no form.
  expectStrictCsp(res, { formAction: status === 200 && /^\/(\?|$|providers\/)/.test(path) ? "'self'" : "'none'" });
  // No script element, and no tag with an inline style or an event handler (echoed text may spell them, escaped).
  expect(text).not.toMatch(/<script|<[^>]*\s(?:style|on\w+)=/i);
  if (status !== 200) expect(res.headers.get('cache-control')).toBe('no-store');
  return text;
}

/** The rows of the ratings table: each provider link's id, in order. */
const rowIds = (text: string) =>
  [...text.matchAll(/<tr><td><a href="\/providers\/([0-9a-f-]{36})">/g)].map((m) => m[1]);

describe.each(engines)('ratings and provider pages (%s)', (engine) => {
  const clock = manualClock(AFTER_EXAMPLES);
  const server = useServer(
    engine,
    async (s) => {
      const step = async (work: () => Promise<unknown>) => {
        clock.advance(MINUTE);
        await work();
      };
      await step(() => publish(s, example('worked-example')));
      await step(() => publish(s, example('low-band')));
      await step(() => publish(s, example('multiple-caps')));
      await step(() => publish(s, lessCollateral));
      await step(() => publish(s, provenReserves));
      const { store } = s.services;
      const ann = ctxOf(store, { clock, by: 'Ann Analyst' });
      const bea = ctxOf(store, { clock, by: 'Bea Approver' });
      clock.advance(MINUTE);
      const watch = await proposeWatch(ann, {
        providerId: LOW_BAND_ID,
        direction: 'NEGATIVE',
        reviewBy: '2026-08-20',
        rationale: RATIONALE,
      });
      const outlook = await proposeOutlook(ann, { providerId: CAPS_ID, outlook: 'NEGATIVE', rationale: 'caps bind' });
      clock.advance(MINUTE);
      await approveRatingActions(bea, { ids: [watch.id, outlook.id] });
      clock.advance(MINUTE);
      await withdrawProvider(bea, { providerId: CAPS_ID, reason: 'coverage ended' });
      s.services.snapshot.invalidate();
    },
    { clock },
  );

  const publicList = async () =>
    ((await (await server().get('/api/public/scores')).json()) as { data: PublicScore[] }).data;
  const actionsOf = async (providerId: string) =>
    (
      (await (await server().get(`/api/public/rating-actions?provider_id=${providerId}&limit=500`)).json()) as {
        data: RatingAction[];
      }
    ).data;

  it('lists every current public indicator with its figures, the framework in force and the data freshness', async () => {
    const text = await pageOf(server(), '/');
    const list = await publicList();
    expect(list.map((h) => h.id).sort()).toEqual([LOW_BAND_ID, WORKED_ID].sort());
    expect(rowIds(text)).toEqual(list.map((h) => h.id));
    for (const h of list) {
      expect(text).toContain(
        `<tr><td><a href="/providers/${h.id}">${escapeHtml(h.name)}</a></td><td>${h.final_score.toFixed(2)}</td><td><span class="band band-${h.risk_band}">${h.risk_band}</span></td>`,
      );
      expect(text).toContain(`<td>${h.planner_type}</td><td>${escapeHtml(h.provider_subtype)}</td></tr>`);
    }
    // The watch placed on the low-band provider is marked on its row; the others are not on watch.
    const low = list.find((h) => h.id === LOW_BAND_ID);
    expect(low?.watch?.direction).toBe('NEGATIVE');
    expect(text).toContain('<strong>On watch NEGATIVE</strong> <span class="muted">(review by 2026-08-20)</span>');
    expect(text.match(/On watch/g)?.length).toBe(1);
    // The withdrawn provider is not listed.
    expect(text).not.toContain(CAPS_ID);
    const status = StatusResponseSchema.parse(await (await server().get('/api/v1/status')).json());
    expect(text).toContain(`Framework in force: <a href="/methodology">${status.framework_version}</a>`);
    const latest = status.data_freshness.latest_scored_at?.slice(0, 10);
    expect(latest).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(text).toContain(`Newest evaluation: <time datetime="${latest}">${latest}</time>`);
    for (const link of ['href="/docs"', 'href="/methodology"', '/api/public/score-request', 'href="/llms.txt"']) {
      expect(text).toContain(link);
    }
    expect(text).toContain('2 of 2 providers.');
    // The page says the order it lists in, the public list's: by name (not by risk, which it once claimed).
    expect(text).toContain('Current Risk Indicators of the covered digital-credit providers, by provider name.');
    expect(text).not.toMatch(/providers, from lowest risk/);
    const names = list.map((h) => h.name);
    expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });

  it('filters by planner type and band, with links that keep the other filter', async () => {
    const list = await publicList();
    for (const band of ['LOW', 'MEDIUM', 'SEVERE'] as const) {
      const text = await pageOf(server(), `/?band=${band}`);
      expect(rowIds(text)).toEqual(list.filter((h) => h.risk_band === band).map((h) => h.id));
      expect(text).toContain(`<strong aria-current="page">${band}</strong>`);
    }
    const worked = list.find((h) => h.id === WORKED_ID);
    const type = worked?.planner_type ?? 'btc';
    const byType = await pageOf(server(), `/?planner_type=${type}`);
    expect(rowIds(byType)).toEqual(list.filter((h) => h.planner_type === type).map((h) => h.id));
    expect(byType).toContain(`href="/?planner_type=${type}&amp;band=LOW"`);
    // A shared link's tracking parameters are not filters: the page is the same.
    const tracked = await pageOf(server(), `/?planner_type=${type}&utm_source=newsletter&fbclid=x1`);
    expect(rowIds(tracked)).toEqual(rowIds(byType));
    const other = (['btc', 'fiat', 'stablecoin'] as const).find((t) => !list.some((h) => h.planner_type === t));
    if (other) {
      const none = await pageOf(server(), `/?planner_type=${other}&band=LOW`);
      expect(rowIds(none)).toEqual([]);
      expect(none).toContain('No current Risk Indicator matches this filter.');
    }
  });

  it.each([
    ['a band in lower case', '/?band=low', 'band is one of LOW, MEDIUM, ELEVATED, HIGH, SEVERE; got &quot;low&quot;.'],
    [
      'an unknown planner type',
      '/?planner_type=gold',
      'planner_type is one of btc, fiat, stablecoin; got &quot;gold&quot;.',
    ],
    [
      'a repeated filter',
      '/?band=LOW&band=HIGH',
      'band is one of LOW, MEDIUM, ELEVATED, HIGH, SEVERE; got more than one value.',
    ],
    [
      'markup',
      `/?band=${encodeURIComponent('"><script>alert(1)</script>')}`,
      '&quot;&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&quot;',
    ],
    ['a bidi override', `/?band=${encodeURIComponent('\u202eWOL')}`, '&quot;\\u202eWOL&quot;'],
  ])('answers %s with the HTML 400 page naming it, escaped', async (_name, path, shown) => {
    const text = await pageOf(server(), path, 400);
    expect(text).toContain('<h1>Bad request</h1>');
    expect(text).toContain(shown);
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });

  it("shows a provider's current indicator, outlook and watch, its actions and every verification page", async () => {
    const text = await pageOf(server(), `/providers/${WORKED_ID}`);
    const worked = (await publicList()).find((h) => h.id === WORKED_ID);
    expect(worked?.risk_band).toBe('LOW');
    expect(text).toContain(`<h1>${escapeHtml(worked?.name ?? '')}</h1>`);
    expect(text).toContain(`<div class="score">${worked?.final_score.toFixed(2)}</div>`);
    expect(text).toContain('<span class="band band-LOW">LOW</span>');
    expect(text).toContain('<div class="muted">Confidence</div><div>1.0000</div>');
    expect(text).toContain('<span class="muted">STABLE</span>');
    const actions = await actionsOf(WORKED_ID);
    expect(actions.map((a) => a.type)).toEqual(['UPGRADE', 'AFFIRM', 'NEW']);
    const actionsTable = text.slice(text.indexOf('<table class="actions">'));
    // Each instant in full in its datetime, shown to the minute.
    const rows = [
      ...actionsTable.matchAll(
        /<tr><td><time datetime="([^"]+)"><span class="nowrap">(\d{4}-\d{2}-\d{2})<\/span> <span class="nowrap">(\d{2}:\d{2})<\/span><\/time><\/td><td>([A-Z_]+)<\/td>/g,
      ),
    ];
    for (const r of rows) expect(`${r[2]} ${r[3]}`).toBe(`${r[1]?.slice(0, 10)} ${r[1]?.slice(11, 16)}`);
    expect(rows.map((m) => [m[1], m[4]])).toEqual(actions.map((a) => [a.effective_at, a.type]));
    expect(text).toContain(
      '<td><span class="band band-MEDIUM">MEDIUM</span> → <span class="band band-LOW">LOW</span></td>',
    );
    const published = [...new Set(actions.map((a) => a.risk_indicator_id))];
    expect(published).toHaveLength(3);
    for (const id of published) expect(text).toContain(`<li><a href="/verify/${id}"><code>${id}</code></a></li>`);
    const current = actions[0]?.risk_indicator_id;
    expect(text).toContain(`<dt>Verification</dt><dd><a href="/verify/${current}">`);

    // The score-history chart, drawn twice (narrow and wide, one shown at a time): each drawing titled and described.
    const drawings = [...text.matchAll(/<svg class="chart chart-(narrow|wide)"[\s\S]*?<\/svg>/g)];
    expect(drawings.map((d) => d[1])).toEqual(['narrow', 'wide']);
    // The three actions were taken on one day: said as that day, not "from D to D".
    const days = [...new Set(actions.map((a) => a.effective_at.slice(0, 10)))];
    expect(days).toHaveLength(1);
    for (const [svg, layout] of drawings) {
      expect(svg).toContain(`role="img" aria-labelledby="history-${layout}-title history-${layout}-desc"`);
      expect(svg).toContain(
        `<title id="history-${layout}-title">Score history of ${escapeHtml(worked?.name ?? '')}</title>`,
      );
      expect(svg).toMatch(
        new RegExp(`<desc id="history-${layout}-desc">[^<]*3 rating actions on ${days[0]}; the score ranged from `),
      );
    }
    const svg = drawings[1]?.[0] ?? '';
    // The wide plot area: x 30 to 650, y 12 (score 100) to 272 (score 0), so 2.6 units a point.
    const bands = currentFramework().definition.bands;
    expect(bands).toHaveLength(5);
    bands.forEach((b, i) => {
      const top = i === 0 ? 100 : Number(bands[i - 1]?.min);
      const bottom = i === bands.length - 1 ? 0 : Number(b.min);
      expect(svg).toContain(
        `<rect class="chart-band chart-band-${b.band}" x="30" y="${Math.round((12 + (100 - top) * 2.6) * 100) / 100}" width="620" height="${Math.round((top - bottom) * 2.6 * 100) / 100}"/>`,
      );
    });
    const marks = [
      ...svg.matchAll(/<circle class="chart-mark" cx="([\d.]+)" cy="([\d.]+)" r="4"><title>([^<]+)<\/title>/g),
    ];
    const oldestFirst = [...actions].reverse();
    expect(marks.map((m) => m[3])).toEqual(
      oldestFirst.map((a) => `${a.effective_at.slice(0, 10)} ${a.type}: ${a.new_score?.toFixed(2)} ${a.new_band}`),
    );
    // Each at its instant on a chart of at least a week to today, so the three actions of one day, minutes apart, are
    // drawn at that day (not spread over the width as if days apart), side by side 10 units apart so each is legible,
    // none moved by more than that; each at its score's height; the last score held (dashed) to today.
    const xs = marks.map((m) => Number(m[1]));
    const end = clock.now().getTime();
    const from = Math.min(Date.parse(oldestFirst[0]?.effective_at ?? ''), end - 7 * 86_400_000);
    const at = (iso: string) => 30 + (620 * (Date.parse(iso) - from)) / (end - from);
    oldestFirst.forEach((a, i) => {
      expect(Math.abs((xs[i] ?? 0) - at(a.effective_at))).toBeLessThanOrEqual(20);
    });
    expect(xs[0]).toBeGreaterThan(30 + 620 * (6 / 7));
    xs.slice(1).forEach((x, i) => {
      expect(x - (xs[i] ?? 0)).toBeCloseTo(10, 1);
    });
    expect(xs[2]).toBeLessThanOrEqual(650);
    marks.forEach((m, i) => {
      expect(Number(m[2])).toBeCloseTo(12 + (100 - (oldestFirst[i]?.new_score ?? 0)) * 2.6, 1);
    });
    expect(svg).toMatch(new RegExp(`<path class="chart-line" d="M${xs[0]},[\\d.]+`));
    expect(text).toContain('Actions taken on the same day are drawn side by side at that date.</figcaption>');
    if (xs[2] !== 650) expect(svg).toMatch(new RegExp(`<path class="chart-held" d="M${xs[2]},[\\d.]+H650"/>`));
    expect(text).toContain("<details><summary>The chart's data as a table</summary>");
    for (const a of oldestFirst) {
      expect(text).toContain(
        `<tr><td><time datetime="${a.effective_at}">${a.effective_at}</time></td><td>${a.type}</td><td>${a.new_score?.toFixed(2)}</td><td>${a.new_band}</td></tr>`,
      );
    }
    expect((await server().get(`/verify/${current}`)).status).toBe(200);
  });

  it("links the charts' stylesheet, served with its ETag (one text with the memos' inline copy)", async () => {
    const text = await pageOf(server(), `/providers/${WORKED_ID}`);
    expect(text).toContain('<link rel="stylesheet" href="/assets/chart.css">');
    const res = await server().get('/assets/chart.css');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await res.text()).toBe(CHART_CSS);
    const etag = res.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"[\w-]{32}"$/);
    const again = await server().get('/assets/chart.css', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
  });

  it("shows an analyst action's rationale escaped, and the watch it placed", async () => {
    const text = await pageOf(server(), `/providers/${LOW_BAND_ID}`);
    expect(text).toContain(`<td>${escapeHtml(RATIONALE)}</td>`);
    expect(text).toContain('<td>WATCH_PLACED</td>');
    expect(text).toContain('<strong>On watch NEGATIVE</strong>');
  });

  it('shows a withdrawn provider as withdrawn, with its record', async () => {
    const text = await pageOf(server(), `/providers/${CAPS_ID}`);
    expect(text).toContain('<strong>Withdrawn.</strong>');
    expect(text).not.toContain('<div class="score">');
    const actions = await actionsOf(CAPS_ID);
    expect(actions.map((a) => a.type)).toEqual(['WITHDRAW', 'OUTLOOK_CHANGED', 'NEW']);
    expect(text).toContain('<td>coverage ended</td>');
    expect(text).toContain('<td>caps bind</td>');
    expect(text).toContain('<strong>NEGATIVE</strong>');
    // The withdrawal is marked on the chart, and ends the line.
    // In the wide drawing, a cross at score 0 (y 272), and no held line after it.
    expect(text).toMatch(
      /<path class="chart-mark chart-withdrawn" d="M([\d.]+),267L([\d.]+),277M\1,277L\2,267"><title>\d{4}-\d{2}-\d{2} WITHDRAW: withdrawn<\/title>/,
    );
    expect(text).not.toContain('chart-held');
    // The score in force before the withdrawal is drawn on to it: the line ends at the cross.
    const wide = text.slice(text.indexOf('<svg class="chart chart-wide"'));
    const cross = Number(/chart-withdrawn" d="M([\d.]+),/.exec(wide)?.[1]) + 5;
    const line = /<path class="chart-line" d="([^"]+)"/.exec(wide)?.[1] ?? '';
    const xs = [...line.matchAll(/[ML]([\d.]+),/g)].map((m) => Number(m[1]));
    expect(Math.max(...xs)).toBeCloseTo(cross, 1);
    // The caption says what the cross is.
    expect(text).toContain(
      'A red cross on the 0 line marks a withdrawal: no score was in force from then until a reinstatement.',
    );
  });

  it('says the score held when every action left the same score, not that it "ranged from" it to itself', async () => {
    const text = await pageOf(server(), `/providers/${LOW_BAND_ID}`);
    const actions = await actionsOf(LOW_BAND_ID);
    expect(actions.map((a) => a.type)).toEqual(['WATCH_PLACED', 'NEW']);
    const score = actions[0]?.new_score?.toFixed(2);
    expect(actions[1]?.new_score?.toFixed(2)).toBe(score);
    expect(text).toContain(
      `2 rating actions on ${actions[0]?.effective_at.slice(0, 10)}; the score held at ${score}, and on `,
    );
    expect(text).not.toContain('ranged from');
  });

  it('answers an unknown provider with the HTML 404 page', async () => {
    const text = await pageOf(server(), `/providers/${UNKNOWN_PROVIDER_ID}`, 404);
    expect(text).toContain('<h1>No such provider</h1>');
    expect(text).toContain(`<code>${UNKNOWN_PROVIDER_ID}</code>`);
  });

  it.each([
    ['a malformed id', 'not-a-uuid', '&quot;not-a-uuid&quot;'],
    ['a risk indicator id', 'ri_000000000000000000000000', '&quot;ri_000000000000000000000000&quot;'],
    ['markup', '<script>', '&quot;&lt;script&gt;&quot;'],
    ['an attribute breaker', encodeURIComponent('"><img src=x onerror=alert(1)>'), '&quot;&quot;&gt;&lt;img'],
    ['an encoded slash', encodeURIComponent('<script>alert(1)</script>'), '&lt;script&gt;alert(1)&lt;/script&gt;'],
    ['a bidi override', encodeURIComponent('\u202edi'), '&quot;\\u202edi&quot;'],
  ])('answers %s with the HTML 400 page that escapes it', async (_name, id, shown) => {
    const text = await pageOf(server(), `/providers/${id}`, 400);
    expect(text).toContain('is not a provider id (a UUID).');
    expect(text).toContain(shown);
    expect(text).not.toMatch(/<img|[\u202a-\u202e]/i);
  });

  describe('as of a past instant', () => {
    /** The clock's start plus `minutes` and a half: between two steps of the setup. */
    const between = (minutes: number) => new Date(Date.parse(AFTER_EXAMPLES) + (minutes + 0.5) * MINUTE).toISOString();
    const linkedIds = (text: string) =>
      [...text.matchAll(/<tr><td><a href="\/providers\/([0-9a-f-]{36})\?as_of=([^"]+)">/g)].map((m) => [m[1], m[2]]);

    it('lists the indicators in force then, each link and filter keeping the instant', async () => {
      // After the first three publications: the worked example's first score, no watch, the capped provider listed.
      const at = between(3);
      const text = await pageOf(server(), `/?as_of=${at}`);
      const then = ((await (await server().get(`/api/public/scores?as_of=${at}`)).json()) as { data: PublicScore[] })
        .data;
      expect(then.map((h) => h.id).sort()).toEqual([CAPS_ID, LOW_BAND_ID, WORKED_ID].sort());
      expect(linkedIds(text)).toEqual(then.map((h) => [h.id, encodeURIComponent(at)]));
      for (const h of then) expect(text).toContain(`<td>${h.final_score.toFixed(2)}</td>`);
      expect(text).not.toContain('On watch');
      expect(text).toContain(`<h1>Risk Indicators as of <time datetime="${at.slice(0, 10)}">`);
      expect(text).toContain(`<strong>As of <time datetime="${at}">${at}</time>.</strong>`);
      expect(text).toContain('<a href="/">See it now</a>');
      expect(text).toContain(`href="/?band=LOW&amp;as_of=${encodeURIComponent(at)}"`);
      expect(text).toContain(`value="${at.slice(0, 10)}"`);
      // The current list differs: the worked example scored again, the capped provider withdrawn.
      const now = await publicList();
      expect(now.find((h) => h.id === WORKED_ID)?.final_score).not.toBe(
        then.find((h) => h.id === WORKED_ID)?.final_score,
      );
    });

    it('offers the as_of form, keeping the filters, dates from the record start to yesterday', async () => {
      const text = await pageOf(server(), '/?band=LOW');
      expect(text).toContain('<form class="as-of-form" method="get" action="/">');
      expect(text).toContain('<input type="hidden" name="band" value="LOW">');
      const yesterday = new Date(clock.now().getTime() - 86_400_000).toISOString().slice(0, 10);
      expect(text).toContain(`<input type="date" name="as_of" min="2026-04-01" max="${yesterday}" value="">`);
      // A date is the end of that day, and links keep it as that date.
      const day = await pageOf(server(), '/?as_of=2026-07-31');
      expect(day).toContain('<strong>As of <time datetime="2026-07-31T23:59:59.999Z">');
      expect(day).toContain('href="/?band=LOW&amp;as_of=2026-07-31"');
      // Nothing was in force then, and no filter is applied: said so, not "matches this filter", and no "0 of 0".
      expect(day).toContain('<p class="note">No Risk Indicator was in force then.</p>');
      expect(day).not.toContain('matches this filter');
      expect(day).not.toContain('0 of 0 providers');
      // The form sends an empty date for now: the current page.
      expect(rowIds(await pageOf(server(), '/?band=LOW&as_of='))).toEqual(rowIds(text));
    });

    it("shows a provider's page as it stood: its actions by then, the indicator, outlook and watch then", async () => {
      // After the outlook was approved and before the withdrawal: in force, outlook NEGATIVE, two actions.
      const at = between(7);
      const text = await pageOf(server(), `/providers/${CAPS_ID}?as_of=${encodeURIComponent(at)}`);
      expect(text).not.toContain('<strong>Withdrawn.</strong>');
      expect(text).toContain('<div class="score">');
      expect(text).toContain('<strong>NEGATIVE</strong>');
      expect(text).toContain('<td>OUTLOOK_CHANGED</td>');
      expect(text).toContain('<td>NEW</td>');
      expect(text).not.toContain('<td>WITHDRAW</td>');
      expect(text).toContain(`<title>${escapeHtml(example('multiple-caps').provider.name)} as of ${at.slice(0, 10)}: `);
      expect(text).toContain(`<a href="/providers/${CAPS_ID}">See it now</a>`);
      // The chart ends at the instant, and the score held to it.
      expect(text).toContain(`dashed, the score in force since the last action, to ${at.slice(0, 10)}`);
      // Its actions were minutes before the instant: the last mark is at the right edge, or the score held to it.
      expect(text).toMatch(/<path class="chart-held" d="M[\d.]+,[\d.]+H650"\/>|<circle class="chart-mark" cx="650"/);
      // The worked example as of its first publication: one action, its first indicator's verification link.
      const first = await pageOf(server(), `/providers/${WORKED_ID}?as_of=${encodeURIComponent(between(1))}`);
      const worked = (await actionsOf(WORKED_ID)).at(-1);
      expect(worked?.type).toBe('NEW');
      expect([...first.matchAll(/<td>(NEW|UPGRADE|DOWNGRADE|AFFIRM)<\/td>/g)].map((m) => m[1])).toEqual([
        'NEW', // the chart's table
        'NEW', // the rating actions
      ]);
      expect(first).toContain(`<dt>Verification</dt><dd><a href="/verify/${worked?.risk_indicator_id}">`);
    });

    it('answers a provider not yet published by then with the HTML 404 page naming the instant', async () => {
      const at = between(1);
      const text = await pageOf(server(), `/providers/${LOW_BAND_ID}?as_of=${encodeURIComponent(at)}`, 404);
      expect(text).toContain(`No Risk Indicator was published for provider <code>${LOW_BAND_ID}</code> by`);
    });

    it.each([
      ['not a date', 'yesterday', 'is not a'],
      ['before the record starts', '2026-01-01', 'is before 2026-04-01'],
      ['the future', '2099-01-01T00:00:00Z', 'is in the future'],
      ['an impossible date', '2026-02-30', 'is not a'],
      ['markup', '<b>x</b>', '&lt;b&gt;x&lt;/b&gt;'],
    ])('answers an as_of that is %s with the HTML 400 page on both pages', async (_name, value, says) => {
      for (const path of ['/', `/providers/${WORKED_ID}`]) {
        const text = await pageOf(server(), `${path}?as_of=${encodeURIComponent(value)}`, 400);
        expect(text).toContain('<h1>Bad request</h1>');
        expect(text).toContain(says);
      }
      const twice = await pageOf(server(), '/?as_of=2026-05-01&as_of=2026-06-01', 400);
      expect(twice).toContain('as_of is one date or timestamp; got more than one value.');
    });
  });
});

describe.each(engines)('the ratings page with nothing published (%s)', (engine) => {
  const server = useServer(engine);

  it('says nothing is published yet, not that no indicator "matches this filter", and counts no "0 of 0"', async () => {
    const text = await pageOf(server(), '/');
    expect(text).toContain('<p class="note">No Risk Indicator is published yet.</p>');
    expect(text).not.toContain('matches this filter');
    expect(text).not.toContain('0 of 0 providers');
    expect(text).not.toContain('Newest evaluation');
    // A filter cannot match anything either: the reason is the same.
    const filtered = await pageOf(server(), '/?band=LOW');
    expect(filtered).toContain('<p class="note">No Risk Indicator is published yet.</p>');
    expect(filtered).not.toContain('matches this filter');
  });
});

/** Markup, both quotes, an ampersand, a terminal escape and a bidi override, as a store written before the rule may hold. */
const STORED = '<script>alert("x")</script> O\'Neil & "Co" \u001b[2J \u202egnidneL';
const SHOWN =
  '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; O&#39;Neil &amp; &quot;Co&quot; \\u001b[2J \\u202egnidneL';

describe.each(engines)('a hostile provider name on the ratings pages (%s)', (engine) => {
  const server = useServer(engine, async (s) => {
    await publish(s, example('worked-example'));
    await storeNameAsWritten(s, WORKED_ID, STORED);
  });

  it('the ratings page shows it escaped, control characters as escapes', async () => {
    const text = await pageOf(server(), '/');
    expect(text).toContain(`<a href="/providers/${WORKED_ID}">${SHOWN}</a>`);
    expect(text).not.toMatch(RAW_CONTROLS);
  });

  it('the provider page shows it escaped, in the title too', async () => {
    const text = await pageOf(server(), `/providers/${WORKED_ID}`);
    expect(text).toContain(`<title>${SHOWN}: Risk Indicator Scoring Service</title>`);
    expect(text).toContain(`<h1>${SHOWN}</h1>`);
    expect(text).toContain(`<title id="history-wide-title">Score history of ${SHOWN}</title>`);
    expect(text).not.toMatch(RAW_CONTROLS);
  });
});
