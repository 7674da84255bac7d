import { describe, expect, it } from 'vitest';
import { example, WORKED_ID } from '../support/documents.js';
import { publish, useServer } from '../support/server.js';
import { engines } from '../support/stores.js';

/**
 * Issue 11 item 4: a store written before free text refused control characters may hold a name with
 * them. Every text output shows them as `\u001b`-style escapes and never passes them on: the CSV
 * export, both memo formats and the verification page (the Atom feed has its own test).
 */

/** A terminal escape and a window-title OSC, a C1 CSI, a bidi override. (PostgreSQL text cannot hold NUL.) */
const STORED = 'Evil\u001b[2J\u001b]0;owned\u0007 \u009b31m\u202egnidneL';
const SHOWN = 'Evil\\u001b[2J\\u001b]0;owned\\u0007 \\u009b31m\\u202egnidneL';
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not be passed on
const RAW = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe.each(engines)('text outputs of a name stored with control characters, on %s', (engine) => {
  let key = '';
  let riId = '';
  const server = useServer(engine, async (s) => {
    await publish(s, example('worked-example'));
    const db = s.services.store.db;
    // As a store written before the rule holds it: the provider row and the stored indicator.
    await db.updateTable('providers').set({ name: STORED }).where('id', '=', WORKED_ID).execute();
    const row = await db
      .selectFrom('risk_indicators')
      .select(['risk_indicator_id', 'indicator'])
      .where('provider_id', '=', WORKED_ID)
      .executeTakeFirstOrThrow();
    riId = row.risk_indicator_id;
    const indicator = row.indicator.replaceAll('Example Sats Lending', JSON.stringify(STORED).slice(1, -1));
    expect(JSON.parse(indicator).name).toBe(STORED);
    await db.updateTable('risk_indicators').set({ indicator }).where('risk_indicator_id', '=', riId).execute();
    key = await s.key('PROFESSIONAL');
  });

  const text = async (path: string, withKey = true) => {
    const res = await server().get(path, withKey ? { key } : {});
    const body = await res.text();
    expect(res.status, body).toBe(200);
    return body;
  };

  it('the CSV export shows them as escapes', async () => {
    const csv = await text('/api/v1/scores/export.csv');
    expect(csv).toContain(`,${SHOWN},`);
    expect(csv).not.toMatch(RAW);
  });

  it('the Markdown memo shows them as escapes', async () => {
    const md = await text(`/api/v1/scores/${WORKED_ID}/memo?format=md`);
    expect(md).toContain('# Credit memo: Evil\\\\u001b\\[2J\\\\u001b\\]0;owned\\\\u0007 \\\\u009b31m\\\\u202egnidneL');
    expect(md).not.toMatch(RAW);
  });

  it('the HTML memo shows them as escapes, in the title and the charts too', async () => {
    const html = await text(`/api/v1/scores/${WORKED_ID}/memo?format=html`);
    expect(html).toContain(`<title>Credit memo: ${SHOWN}</title>`);
    expect(html).toContain(`<h1>Credit memo: ${SHOWN}</h1>`);
    for (const layout of ['narrow', 'wide']) {
      expect(html).toContain(`<title id="memo-history-${layout}-title">Score history of ${SHOWN}</title>`);
      expect(html).toContain(`<title id="memo-modules-${layout}-title">Module scores of ${SHOWN}</title>`);
    }
    expect(html).not.toMatch(RAW);
  });

  it('the verification page shows them as escapes', async () => {
    const page = await text(`/verify/${riId}`, false);
    expect(page).toContain(`<strong>${SHOWN}</strong>`);
    expect(page).not.toMatch(RAW);
  });
});
