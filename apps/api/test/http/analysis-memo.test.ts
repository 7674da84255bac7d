import { createHash } from 'node:crypto';
import { type RiskIndicatorResponse, RiskIndicatorSchema } from '@svc/contracts';
import { describe, expect, it } from 'vitest';
import { withdrawProvider } from '../../src/services/providers.js';
import { ctxOf } from '../support/context.js';
import { CAPS_ID, example, UNKNOWN_PROVIDER_ID, variantOf, vary } from '../support/documents.js';
import { expectInvalid, expectJson, expectProblem, PublicationsHistorySchema } from '../support/responses.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';
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

/** Text as an HTML memo must carry it: the five characters HTML gives meaning to, and the backtick, escaped. */
function htmlText(text: string): string {
  const entities: Record<string, string> = {
    '&': '&amp;',
    '<': '&lt;',
    '>': '&gt;',
    '"': '&quot;',
    "'": '&#39;',
    '`': '&#96;',
  };
  return text.replace(/[&<>"'`]/g, (c) => entities[c] as string);
}

/** Text as a Markdown memo must carry it: the characters Markdown reads as markup, backslash-escaped. */
function mdText(text: string): string {
  return text.replace(/[\\`*_[\]<>#|~]/g, (c) => `\\${c}`);
}

const score2 = (n: number) => n.toFixed(2);
const day = (iso: string) => iso.slice(0, 10);

/** The Content-Security-Policy header as directive → sources. */
function cspOf(res: Response): Map<string, string[]> {
  const header = res.headers.get('content-security-policy') ?? '';
  return new Map(
    header
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...sources]) => [name as string, sources]),
  );
}

describe.each(engines)('GET /api/v1/scores/{providerId}/memo on %s', (engine) => {
  let key = '';
  const server = useServer(engine, async (s) => {
    for (const doc of [CAPS_BEFORE, CAPS, SCRIPTED, MARKED, WITHDRAWN]) await publish(s, doc);
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
      // The one <style> element is the one the policy's hash allows.
      const styles = [...text.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1] ?? '');
      expect(styles).toHaveLength(1);
      const hash = createHash('sha256')
        .update(styles[0] ?? '', 'utf8')
        .digest('base64');
      expect(csp.get('style-src')).toEqual([`'sha256-${hash}'`]);
      expect(styles[0]).toMatch(/table\{/);
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
