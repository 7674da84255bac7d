import { type RiskIndicatorResponse, RiskIndicatorSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { CHART_CSS } from '../../src/pages/chart.js';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { barsOf, cspOf, drawingsOf, labelsOf, rectsOf, styleSource, stylesOf } from '../support/charts.js';
import { ctxOf } from '../support/context.js';
import { CAPS_ID, example, framework, UNKNOWN_PROVIDER_ID, variantOf, vary } from '../support/documents.js';
import { htmlText } from '../support/html-text.js';
import { expectInvalid, expectJson, expectProblem, PublicationsHistorySchema } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
import { elementsNamed } from '../support/xml.js';
import { keyedRouteSecurity } from './security.js';

/** Published first, then replaced by the example itself: two history rows. */
const CAPS_BEFORE = vary(example('multiple-caps'), {
  values: { collateral_coverage_ratio: 1.5, default_or_freeze_36m: false, security_incidents_36m: 'none' },
});
const CAPS = example('multiple-caps');
const SCRIPT_NAME = '<script>alert(1)</script> Lending';
const SCRIPTED = variantOf(example('worked-example'), 1, { name: SCRIPT_NAME });
const MARKDOWN_NAME = '*Star* [Lending](x)';
const MARKED = variantOf(example('low-band'), 2, { name: MARKDOWN_NAME });
const WITHDRAWN = variantOf(example('worked-example'), 3, { name: 'Withdrawn Sats' });
/** Markup that would end a chart's title and open an element, both quotes and an ampersand. */
const QUOTED_NAME = `</title><svg onload=alert(1)> O'Neil & "Co"`;
const QUOTED = variantOf(example('worked-example'), 4, { name: QUOTED_NAME });

/** Text as a Markdown memo must carry it: the characters Markdown reads as markup, backslash-escaped. */
function mdText(text: string): string {
  return text.replace(/[\\`*_[\]<>#|~]/g, (c) => `\\${c}`);
}

const score2 = (n: number) => n.toFixed(2);
const day = (iso: string) => iso.slice(0, 10);

describe.each(engines)('GET /api/v1/scores/{providerId}/memo on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    for (const doc of [CAPS_BEFORE, CAPS, SCRIPTED, MARKED, WITHDRAWN, QUOTED]) await publish(s, doc);
    await withdrawProvider(ctxOf(s.services.store, { clock: s.services.clock }), {
      providerId: WITHDRAWN.provider.id,
      reason: 'ceased lending',
    });
    key = await s.key('PROFESSIONAL');
  });

  const memo = async (id: string, format?: string) => {
    const res = await server().get(`/api/v1/scores/${id}/memo${format ? `?format=${format}` : ''}`, { key });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return { res, text };
  };
  const detail = async (id: string) =>
    expectJson(await server().get(`/api/v1/scores/${id}`, { key }), RiskIndicatorSchema);
  const history = async (id: string) =>
    (await expectJson(await server().get(`/api/v1/scores/${id}/history`, { key }), PublicationsHistorySchema)).data;

  /** Everything a memo must say about an indicator, as the format writes text. */
  function expectMemoOf(
    text: string,
    indicator: RiskIndicatorResponse,
    past: RiskIndicatorResponse[],
    format: 'md' | 'html',
  ): void {
    const asWritten = format === 'md' ? mdText : htmlText;
    const d = indicator.svc_decision_object;
    expect(text).toContain(asWritten(`Credit memo: ${indicator.name}`));
    expect(text).toContain(score2(indicator.final_score));
    expect(text).toContain(indicator.risk_band);
    expect(text).toContain(asWritten(indicator.risk_indicator_id));
    expect(text).toContain(asWritten(d.summary));
    const path = indicator.path_to_next_band;
    if (d.next_band !== undefined && d.points_to_next_band !== undefined && path.next_band_min_score !== null) {
      const target = `${d.next_band} (${score2(path.next_band_min_score)})`;
      const holding = d.hard_caps_fired.filter((c) => c.cap < (path.next_band_min_score as number));
      if (holding.length === 0) expect(text).toContain(`${d.points_to_next_band.toFixed(2)} points to ${target}.`);
      else
        expect(text).toMatch(
          new RegExp(`holds? the score at ${score2(indicator.final_score)}, below ${d.next_band} \\(`),
        );
    }
    // The disclaimer once, in the limitations (not again in a page footer).
    expect(text.split('not credit ratings').length - 1).toBe(1);
    for (const f of d.ceiling_factors) expect(text).toContain(asWritten(f.detail));
    for (const f of d.floor_factors) expect(text).toContain(asWritten(f.detail));
    for (const cap of d.hard_caps_fired) {
      expect(text).toContain(cap.cap_id);
      expect(text).toContain(asWritten(cap.label));
      expect(text).toContain(score2(cap.cap));
      expect(text).toContain(cap.point_impact.toFixed(2));
    }
    expect(text).toContain(asWritten(indicator.score_commentary.overview));
    for (const m of indicator.score_commentary.modules) {
      expect(text).toContain(asWritten(m.text));
      expect(text).toContain(asWritten(m.label));
    }
    for (const c of indicator.criterion_scores) expect(text).toContain(asWritten(c.criterion_label));
    // History, newest first: every publication's indicator id under the heading, in the order of the history route.
    const historyAt = text.indexOf(format === 'md' ? '\n## History\n' : '<h2>History</h2>');
    expect(historyAt).toBeGreaterThan(0);
    const positions = past.map((p) => text.indexOf(asWritten(p.risk_indicator_id), historyAt));
    for (const at of positions) expect(at).toBeGreaterThan(historyAt);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(text).toContain(asWritten(indicator.limitations_disclosure));
  }

  keyedRouteSecurity('getScoreMemo', server, () => `/api/v1/scores/${CAPS_ID}/memo`);

  describe('Markdown', () => {
    it('is the default format, served as text/markdown', async () => {
      const { res, text } = await memo(CAPS_ID);
      expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(text).toBe((await memo(CAPS_ID, 'md')).text);
      expect(text.startsWith(`# ${mdText('Credit memo: Example Quickyield Earn')}`)).toBe(true);
    });

    it('states the name, score to 2 decimals, band, decision summary, every hard cap, commentary and history', async () => {
      const indicator = await detail(CAPS_ID);
      const past = await history(CAPS_ID);
      expect(past).toHaveLength(2);
      expect(indicator.svc_decision_object.hard_caps_fired.length).toBeGreaterThanOrEqual(2);
      expect(past[1]?.final_score).not.toBe(past[0]?.final_score);
      const { text } = await memo(CAPS_ID, 'md');
      expectMemoOf(text, indicator, past, 'md');
      expect(text).toContain(`| ${score2(indicator.final_score)} | ${indicator.risk_band} |`);
      for (const cap of indicator.svc_decision_object.hard_caps_fired) {
        expect(text).toContain(
          `| ${cap.cap_id} | ${mdText(cap.label)} | ${score2(cap.cap)} | ${cap.binding ? 'yes' : 'no'} | ${cap.point_impact.toFixed(2)} |`,
        );
      }
      for (const p of past) {
        expect(text).toContain(
          `| ${day(p.published_at)} | ${score2(p.final_score)} | ${p.risk_band} | ${p.framework_version} | ${mdText(p.risk_indicator_id)} |`,
        );
      }
    });

    it('escapes a name Markdown would read as emphasis and a link', async () => {
      const { text } = await memo(MARKED.provider.id, 'md');
      expect(text).toContain('# Credit memo: \\*Star\\* \\[Lending\\](x)');
      expect(text).not.toContain(MARKDOWN_NAME);
      expectMemoOf(text, await detail(MARKED.provider.id), await history(MARKED.provider.id), 'md');
    });

    it('never carries a raw HTML tag from a name', async () => {
      const { text } = await memo(SCRIPTED.provider.id, 'md');
      expect(text).toContain('\\<script\\>alert(1)\\</script\\> Lending');
      expect(text).not.toContain('<script>');
    });

    it('writes the verification address as an autolink and the id as code, nothing backslash-escaped in them', async () => {
      const indicator = await detail(CAPS_ID);
      const { text } = await memo(CAPS_ID, 'md');
      const id = indicator.risk_indicator_id;
      expect(text).toContain(`Risk Indicator \`${id}\`; verify it at <${server().url}/verify/${id}>.`);
      expect(text).not.toContain(`verify/${mdText(id)}`);
    });

    it('a capped provider names the caps that hold it below the next band, from path_to_next_band', async () => {
      const indicator = await detail(CAPS_ID);
      expect(indicator.final_score).toBe(34.99);
      const { text } = await memo(CAPS_ID, 'md');
      expect(text).toContain(
        'Hard cap HC-01 (Default or withdrawal freeze, at most 34.99) holds the score at 34.99, below HIGH (35.00): no other input lifts it there while it fires. Any one of these changes alone reaches HIGH: default\\_or\\_freeze\\_36m false.',
      );
      expect(text).not.toContain('0.01 points to HIGH');
    });

    it('carries the tables and no chart: no SVG, no figure', async () => {
      const { text } = await memo(CAPS_ID, 'md');
      expect(text).not.toMatch(/<svg|svg>|<figure|chart-|Score history of|share of its maximum/);
      expect(text).toContain('| Module | Score | Of | Commentary |');
      expect(text).toContain('| Published | Final score | Risk band | Framework | Risk Indicator |');
      // The History heading is followed by its table, nothing between.
      expect(text).toMatch(/\n## History\n\n\| Published \|/);
    });

    it('names each decision factor once, and says what the summary naming a criterion both ways means', async () => {
      const d = (await detail(SCRIPTED.provider.id)).svc_decision_object;
      const ceilings = new Set(d.ceiling_factors.map((f) => f.criterion_id));
      expect(d.floor_factors.filter((f) => ceilings.has(f.criterion_id)).map((f) => f.criterion_label)).toEqual([
        'Collateral coverage',
        'Custody model',
      ]);
      const { text } = await memo(SCRIPTED.provider.id, 'md');
      const factors = text.slice(text.indexOf('## Decision factors'), text.indexOf('## Hard caps'));
      const items = factors.split('\n').filter((line) => line.startsWith('- '));
      expect(items).toEqual([
        '- Holding back: Asset-liability duration gap (-2.71): Asset-liability duration gap 45 scores 61.2500 of 100',
        '- Supporting and holding back: Collateral coverage (9.00 points earned, 3.00 short of its weight): Collateral coverage 1.35 scores 75.0000 of 100',
        '- Supporting and holding back: Custody model (9.00 points earned, 3.00 short of its weight): Custody model qualified\\_custodian scores 75.0000 of 100',
        '- Supporting: Security incidents (36 months) (+8.00): Security incidents (36 months) none scores 100.0000 of 100',
      ]);
      expect(text).toContain(mdText(d.summary));
      expect(text).toContain('are named both as anchoring and as holding back the score: each is heavily weighted');
    });

    it('says so when no hard cap fired', async () => {
      const indicator = await detail(MARKED.provider.id);
      expect(indicator.svc_decision_object.hard_caps_fired).toEqual([]);
      expect((await memo(MARKED.provider.id)).text).toContain('No hard cap fired.');
    });
  });

  describe('HTML', () => {
    it('is one self-contained text/html document: inline styles allowed by their hash, nothing fetched, no script', async () => {
      const { res, text } = await memo(CAPS_ID, 'html');
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = cspOf(res);
      expect(csp.get('default-src')).toEqual(["'none'"]);
      expect(csp.has('script-src')).toBe(false);
      expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
      expect(res.headers.get('content-security-policy')).not.toMatch(/unsafe-inline|unsafe-eval|\*|'self'/);
      // The one <style> element, the memo's styles and the charts', is the one the policy's hash allows.
      const styles = stylesOf(text);
      expect(styles).toHaveLength(1);
      expect(csp.get('style-src')).toEqual([styleSource(styles[0] ?? '')]);
      expect(styles[0]).toMatch(/table\{/);
      expect(styles[0]).toContain(CHART_CSS.trimEnd());
      // The same policy travels inside the document (a saved file keeps it), less frame-ancestors.
      const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/
        .exec(text)?.[1]
        ?.replaceAll('&#39;', "'");
      expect(meta).toBe((res.headers.get('content-security-policy') ?? '').replace("; frame-ancestors 'none'", ''));
      // Nothing of the site: no stylesheet link, no relative address, no script, no inline style attribute.
      expect(text).not.toMatch(/<link\b|\ssrc=|href="\/|<script|\son\w+=|style="/i);
      expect(text.startsWith('<!DOCTYPE html>')).toBe(true);
      const id = (await detail(CAPS_ID)).risk_indicator_id;
      expect(text).toContain(`<a href="${server().url}/verify/${id}">${server().url}/verify/${id}</a>`);
    });

    it('states the name, score to 2 decimals, band, decision summary, every hard cap, commentary and history', async () => {
      const indicator = await detail(CAPS_ID);
      const past = await history(CAPS_ID);
      const { text } = await memo(CAPS_ID, 'html');
      expectMemoOf(text, indicator, past, 'html');
      expect(text).toContain(`<td>${score2(indicator.final_score)}</td><td>${indicator.risk_band}</td>`);
      for (const cap of indicator.svc_decision_object.hard_caps_fired) {
        expect(text).toContain(
          `<tr><td>${cap.cap_id}</td><td>${htmlText(cap.label)}</td><td>${score2(cap.cap)}</td><td>${cap.binding ? 'yes' : 'no'}</td>`,
        );
      }
      for (const p of past) {
        expect(text).toContain(
          `<tr><td>${day(p.published_at)}</td><td>${score2(p.final_score)}</td><td>${p.risk_band}</td><td>${htmlText(p.framework_version)}</td><td>${p.risk_indicator_id}</td></tr>`,
        );
      }
    });

    it('escapes a provider name holding a script tag, in the title and the heading, never raw', async () => {
      const { text } = await memo(SCRIPTED.provider.id, 'html');
      const escaped = '&lt;script&gt;alert(1)&lt;/script&gt; Lending';
      expect(text).toContain(`<title>Credit memo: ${escaped}</title>`);
      expect(text).toContain(`<h1>Credit memo: ${escaped}</h1>`);
      expect(text).not.toContain(SCRIPT_NAME);
      expect(text).not.toMatch(/<script/i);
      expectMemoOf(text, await detail(SCRIPTED.provider.id), await history(SCRIPTED.provider.id), 'html');
    });

    it('keeps Markdown characters of a name as they are', async () => {
      const { text } = await memo(MARKED.provider.id, 'html');
      expect(text).toContain(`<h1>Credit memo: ${MARKDOWN_NAME}</h1>`);
    });

    it('draws the score history before the History table, twice (narrow and wide), titled and described', async () => {
      const indicator = await detail(CAPS_ID);
      const past = await history(CAPS_ID);
      const oldestFirst = [...past].reverse();
      const { text } = await memo(CAPS_ID, 'html');
      const prepared = /Prepared (\d{4}-\d{2}-\d{2}) under/.exec(text)?.[1];
      const drawings = drawingsOf(text, 'memo-history');
      expect(drawings.map((d) => d.layout)).toEqual(['narrow', 'wide']);
      // In the History section, before its table: the table is the chart's alternative.
      const section = text.indexOf('<h2>History</h2>');
      const table = text.indexOf('<table><thead><tr><th>Published</th>', section);
      for (const d of drawings) {
        expect(d.at).toBeGreaterThan(section);
        expect(d.at).toBeLessThan(table);
        const { title, desc } = labelsOf(d);
        expect(title).toBe(`Score history of ${indicator.name}`);
        // Publications of one day are said as that day, not "from D to D".
        const [oldest, newest] = [day(oldestFirst[0]?.published_at ?? ''), day(past[0]?.published_at ?? '')];
        const when = oldest === newest ? `on ${oldest}` : `from ${oldest} to ${newest}`;
        expect(desc).toContain(
          `, to ${prepared}. ${past.length} rating actions ${when}; the score ranged from ${score2(Math.min(...past.map((p) => p.final_score)))} to ${score2(Math.max(...past.map((p) => p.final_score)))}, and on ${prepared} it is ${score2(indicator.final_score)} (${indicator.risk_band}).`,
        );
      }
      // The wide plot area: x 30 to 650, y 12 (score 100) to 272 (score 0), so 2.6 units a point; the bands of the
      // indicator's framework shaded behind.
      const wide = drawings[1] as (typeof drawings)[number];
      const bands = framework.definition.bands;
      expect(indicator.framework_version).toBe(framework.definition.framework_version);
      bands.forEach((b, i) => {
        const top = i === 0 ? 100 : Number(bands[i - 1]?.min);
        const bottom = i === bands.length - 1 ? 0 : Number(b.min);
        const [rect] = rectsOf(wide, `chart-band chart-band-${b.band}`);
        expect(Number(rect?.attributes.y)).toBeCloseTo(12 + (100 - top) * 2.6, 2);
        expect(Number(rect?.attributes.height)).toBeCloseTo((top - bottom) * 2.6, 2);
        expect(rect?.attributes.width).toBe('620');
      });
      // One mark per publication, oldest on the left, each at its instant on a chart of at least a week (marks closer
      // than 10 units side by side), each at its score's height.
      const marks = elementsNamed(wide.svg, 'circle');
      expect(marks.map((m) => m.children[0]?.text)).toEqual(
        oldestFirst.map((p) => `${day(p.published_at)} published: ${score2(p.final_score)} ${p.risk_band}`),
      );
      const xs = marks.map((m) => Number(m.attributes.cx));
      expect(xs[0]).toBeGreaterThanOrEqual(30);
      expect(xs).toEqual([...xs].sort((a, b) => a - b));
      xs.slice(1).forEach((x, i) => {
        expect(x - (xs[i] ?? 0)).toBeGreaterThanOrEqual(9.99);
      });
      marks.forEach((m, i) => {
        expect(Number(m.attributes.cy)).toBeCloseTo(12 + (100 - (oldestFirst[i]?.final_score ?? 0)) * 2.6, 1);
      });
      expect(past[0]?.final_score).not.toBe(past[1]?.final_score);
    });

    it("draws one bar per module, its width the module's score as a share of its maximum, before the table", async () => {
      const indicator = await detail(CAPS_ID);
      const modules = indicator.score_commentary.modules;
      const { text } = await memo(CAPS_ID, 'html');
      const drawings = drawingsOf(text, 'memo-modules');
      expect(drawings.map((d) => d.layout)).toEqual(['narrow', 'wide']);
      const section = text.indexOf('<h2>Modules</h2>');
      const table = text.indexOf('<table><thead><tr><th>Module</th>', section);
      // The maxima differ, and the shares too, so a width in points or all alike would fail below.
      expect(new Set(modules.map((m) => m.max)).size).toBeGreaterThan(1);
      expect(new Set(modules.map((m) => (m.score / m.max).toFixed(4))).size).toBeGreaterThan(1);
      for (const d of drawings) {
        expect(d.at).toBeGreaterThan(section);
        expect(d.at).toBeLessThan(table);
        expect(labelsOf(d).title).toBe(`Module scores of ${indicator.name}`);
        expect(labelsOf(d).desc).toContain(
          modules.map((m) => `${m.label} ${m.score.toFixed(2)} of ${m.max}`).join('; '),
        );
        const bars = barsOf(d);
        expect(bars.map((b) => [b.label, b.value, b.className])).toEqual(
          modules.map((m) => [m.label, `${m.score.toFixed(2)} of ${m.max}`, 'chart-bar']),
        );
        // Every track is the same, at least half the drawing: the long labels go before the bars in the wide
        // drawing and above them in the narrow one.
        const width = d.layout === 'wide' ? 720 : 340;
        for (const b of bars) {
          expect(b.track).toBe(bars[0]?.track);
          expect(b.trackX).toBeGreaterThan(0);
          expect(b.track).toBeGreaterThanOrEqual(width / 2);
          expect(b.trackX + b.track).toBeLessThan(width);
          if (d.layout === 'wide') expect(b.labelAt).toEqual({ x: b.trackX - 6, y: expect.any(Number), anchor: 'end' });
          else expect(b.labelAt).toEqual({ x: b.trackX, y: b.trackY - 4, anchor: 'start' });
        }
        bars.forEach((b, i) => {
          const m = modules[i] as (typeof modules)[number];
          // Widths are written to 2 places.
          expect(Math.abs(b.width - (m.score / m.max) * b.track)).toBeLessThanOrEqual(0.005);
        });
      }
    });

    it('escapes a hostile name in the charts: it cannot end their title or open an element', async () => {
      const { text } = await memo(QUOTED.provider.id, 'html');
      const escaped = '&lt;/title&gt;&lt;svg onload=alert(1)&gt; O&#39;Neil &amp; &quot;Co&quot;';
      for (const layout of ['narrow', 'wide']) {
        expect(text).toContain(`<title id="memo-history-${layout}-title">Score history of ${escaped}</title>`);
        expect(text).toContain(`<title id="memo-modules-${layout}-title">Module scores of ${escaped}</title>`);
      }
      expect(text).not.toContain('<svg onload');
      // Parsed, each title reads as the name, and each drawing is one element with nothing the name opened.
      for (const id of ['memo-history', 'memo-modules']) {
        const drawings = drawingsOf(text, id);
        expect(drawings).toHaveLength(2);
        for (const d of drawings) {
          expect(labelsOf(d).title).toContain(QUOTED_NAME);
          expect(elementsNamed(d.svg, 'svg')).toHaveLength(1);
        }
      }
      // All of the page's drawings are the charts' (two each), none made by the name.
      expect(text.match(/<svg\b/g)).toHaveLength(4);
      const { text: scripted } = await memo(SCRIPTED.provider.id, 'html');
      expect(scripted).toContain(
        '<title id="memo-history-wide-title">Score history of &lt;script&gt;alert(1)&lt;/script&gt; Lending</title>',
      );
      expect(scripted).not.toMatch(/<script/i);
    });
  });

  describe('providers', () => {
    it('an upper-case provider id names the same provider', async () => {
      const { text } = await memo(CAPS_ID.toUpperCase());
      expect(text).toContain(mdText('Credit memo: Example Quickyield Earn'));
    });

    it('an unknown provider gets 404 not_found naming it', async () => {
      const res = await server().get(`/api/v1/scores/${UNKNOWN_PROVIDER_ID}/memo`, { key });
      const problem = await expectProblem(res, 'not_found');
      expect(problem.detail).toContain(UNKNOWN_PROVIDER_ID);
    });

    it('a withdrawn provider gets 404 in both formats', async () => {
      for (const format of ['md', 'html']) {
        const res = await server().get(`/api/v1/scores/${WITHDRAWN.provider.id}/memo?format=${format}`, { key });
        await expectProblem(res, 'not_found');
      }
    });
  });

  describe('errors', () => {
    it('format=pdf gets 400 naming query.format and the formats there are', async () => {
      const problem = await expectInvalid(await server().get(`/api/v1/scores/${CAPS_ID}/memo?format=pdf`, { key }), [
        'query.format',
      ]);
      expect(problem.errors?.[0]?.message).toMatch(/md.*html/);
    });

    it('a provider id that is not a UUID gets 400 naming path.providerId', async () => {
      const problem = await expectInvalid(await server().get('/api/v1/scores/not-a-uuid/memo', { key }), [
        'path.providerId',
      ]);
      expect(problem.errors?.[0]?.message).toMatch(/UUID/);
    });

    it('an unknown query parameter gets 400 naming it', async () => {
      await expectInvalid(await server().get(`/api/v1/scores/${CAPS_ID}/memo?lang=fr`, { key }), ['query.lang']);
    });
  });
});
