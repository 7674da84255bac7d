import { describe, expect, it } from 'vitest';
import { example, WORKED_ID } from '../support/documents.js';
import { publish, useServer } from '../support/server.js';
import { RAW_CONTROLS, storeNameAsWritten } from '../support/stored-name.js';
import { engines } from '../support/stores.js';

/**
 * Issue 11 item 4: a store written before free text refused control characters may hold a name with
 * them. Every text output shows them as `\u001b`-style escapes and never passes them on: the CSV
 * export, both memo formats and the verification page (the Atom feed has its own test).
 */

/** A terminal escape and a window-title OSC, a C1 CSI, a bidi override. (PostgreSQL text cannot hold NUL.) */
const STORED = 'Evil\u001b[2J\u001b]0;owned\u0007 \u009b31m\u202egnidneL';
const SHOWN = 'Evil\\u001b[2J\\u001b]0;owned\\u0007 \\u009b31m\\u202egnidneL';

describe.each(engines)('text outputs of a name stored with control characters, on %s', (engine) => {
  let key = '';
  let riId = '';
  const server = useServer(engine, async (s) => {
    await publish(s, example('worked-example'));
    riId = await storeNameAsWritten(s, WORKED_ID, STORED);
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
    expect(csv).not.toMatch(RAW_CONTROLS);
  });

  it('the Markdown memo shows them as escapes', async () => {
    const md = await text(`/api/v1/scores/${WORKED_ID}/memo?format=md`);
    expect(md).toContain('# Credit memo: Evil\\\\u001b\\[2J\\\\u001b\\]0;owned\\\\u0007 \\\\u009b31m\\\\u202egnidneL');
    expect(md).not.toMatch(RAW_CONTROLS);
  });

  it('the HTML memo shows them as escapes, in the title and the charts too', async () => {
    const html = await text(`/api/v1/scores/${WORKED_ID}/memo?format=html`);
    expect(html).toContain(`<title>Credit memo: ${SHOWN}</title>`);
    expect(html).toContain(`<h1>Credit memo: ${SHOWN}</h1>`);
    for (const layout of ['narrow', 'wide']) {
      expect(html).toContain(`<title id="memo-history-${layout}-title">Score history of ${SHOWN}</title>`);
      expect(html).toContain(`<title id="memo-modules-${layout}-title">Module scores of ${SHOWN}</title>`);
    }
    expect(html).not.toMatch(RAW_CONTROLS);
  });

  it('the verification page shows them as escapes', async () => {
    const page = await text(`/verify/${riId}`, false);
    expect(page).toContain(`<strong>${SHOWN}</strong>`);
    expect(page).not.toMatch(RAW_CONTROLS);
  });
});
