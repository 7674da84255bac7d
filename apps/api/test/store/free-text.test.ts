import { getFramework } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../../src/services/access/access.js';
import { setRequestStatus } from '../../src/services/coverage-requests/coverage-requests.js';
import { publishFramework } from '../../src/services/frameworks/frameworks.js';
import { approveInputs, submitInputs } from '../../src/services/inputs/inputs.js';
import { addIssuance, updateIssuance } from '../../src/services/issuances/issuances.js';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { secretBox } from '../../src/services/shared/secrets.js';
import { manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { example, exampleDocument, framework, ISSUANCE, WORKED_ID } from '../support/documents.js';
import { engines, useFreshStore } from '../support/stores.js';
import { storeContents } from './contents.js';

/**
 * Issue 11 item 4: free text with control characters, line breaks or bidirectional overrides is
 * refused at every entry point the service has, naming the field and the character, and nothing is
 * written. The HTTP entry points (coverage requests, webhook descriptions) are in their route tests.
 */

/** One of each kind: NUL, a terminal escape, a line break, a C1 control, a bidi override, a bidi isolate. */
const HOSTILE: [string, string][] = [
  ['U+0000', 'Evil\u0000Lending'],
  ['U+001B', 'Evil\u001b[2JLending'],
  ['U+000D', 'Evil\r\nLending'],
  ['U+0085', 'Evil\u0085Lending'],
  ['U+202E', 'Evil\u202egnidneL'],
  ['U+2066', 'Evil\u2066Lending\u2069'],
];

describe.each(engines)('free text with control characters on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock('2026-07-01T09:00:00.000Z');
  const box = secretBox(Buffer.alloc(32, 3));

  /** Runs the work, expects it refused with a message holding every `says`, and the store unchanged. */
  const refused = async (work: () => Promise<unknown>, ...says: string[]) => {
    const before = await storeContents(store);
    const error = await work().then(
      () => undefined,
      (e: unknown) => e as Error & { problems?: { path?: string; message: string }[] },
    );
    expect(error, 'expected a refusal').toBeInstanceOf(Error);
    const text = [error?.message, ...(error?.problems ?? []).map((p) => `${p.path ?? ''}: ${p.message}`)].join('\n');
    for (const s of says) expect(text).toContain(s);
    expect(await storeContents(store)).toEqual(before);
  };

  it.each(HOSTILE)(
    'an inputs document naming its provider with %s is refused at import, naming provider.name',
    async (char, name) => {
      const document = { ...example('worked-example'), provider: { ...example('worked-example').provider, name } };
      await refused(
        () => submitInputs(ctxOf(store, { clock, by: 'alice' }), { documents: [{ source: 'evil.json', document }] }),
        `provider.name: must not hold control characters`,
        `found ${char} at character 5`,
      );
    },
  );

  it('a source or approver inside an inputs document is refused with its path', async () => {
    const document = example('worked-example') as unknown as { inputs: Record<string, Record<string, unknown>> };
    const custody = document.inputs.custody_model;
    if (!custody) throw new Error('the worked example has custody_model');
    custody.source = 'filing\u001b]8;;https://evil.example\u0007';
    custody.approved_by = 'Bob\u202e';
    await refused(
      () => submitInputs(ctxOf(store, { clock, by: 'alice' }), { documents: [{ source: 'evil.json', document }] }),
      'inputs.custody_model.source: must not hold control characters',
      'inputs.custody_model.approved_by: must not hold control characters',
    );
  });

  it.each(HOSTILE)("an analyst's name with %s (--by) is refused at submission and at approval", async (char, name) => {
    const documents = [{ source: 'ok.json', document: example('worked-example') }];
    await refused(
      () => submitInputs(ctxOf(store, { clock, by: name }), { documents }),
      `submitter's name (--by)`,
      char,
    );
    await submitInputs(ctxOf(store, { clock, by: 'alice' }), { documents });
    await refused(
      () => approveInputs(ctxOf(store, { clock, by: name }), { providerIds: [WORKED_ID] }),
      "approver's name",
      char,
    );
  });

  it.each(HOSTILE)(
    'an issuance with %s in a name or ticker is refused at add and update, naming the field',
    async (char, name) => {
      await refused(
        () => addIssuance(ctxOf(store, { clock }), { ...ISSUANCE, issuer_name: name }),
        'issuer_name: must not hold',
        char,
      );
      await refused(
        () => addIssuance(ctxOf(store, { clock }), { ...ISSUANCE, instrument_name: name }),
        'instrument_name',
        char,
      );
      await refused(() => addIssuance(ctxOf(store, { clock }), { ...ISSUANCE, ticker: name }), 'ticker', char);
      const added = await addIssuance(ctxOf(store, { clock }), ISSUANCE);
      await refused(
        () => updateIssuance(ctxOf(store, { clock }), { id: added.id, changes: { issuer_name: name } }),
        'issuer_name',
        char,
      );
    },
  );

  it.each(HOSTILE)('a workspace name with %s is refused', async (char, name) => {
    await refused(
      () => createWorkspace(ctxOf(store, { clock, box }), { name }),
      'a workspace name must not hold',
      char,
    );
  });

  it.each(HOSTILE)('a withdrawal reason with %s is refused', async (char, reason) => {
    await publishIndicator(ctxOf(store, { clock }), {
      document: exampleDocument('worked-example'),
      framework,
      approvedAt: '2026-06-02T10:00:00.000Z',
    });
    await refused(
      () => withdrawProvider(ctxOf(store, { clock }), { providerId: WORKED_ID, reason }),
      'a withdrawal reason must not hold',
      char,
    );
  });

  it('a methodology sign-off by a name with a control character is refused', async () => {
    for (const [char, name] of HOSTILE) {
      await refused(
        () => publishFramework(ctxOf(store, { clock }), { framework: getFramework('1.0'), signedOffBy: name }),
        '(--signed-off-by) must not hold',
        char,
      );
    }
  });

  it('a coverage-request resolution may run over lines, but holds no other control character', async () => {
    const insert = (id: string) =>
      store.db
        .insertInto('coverage_requests')
        .values({
          id,
          provider_name: `Provider ${id}`,
          website: null,
          contact_email: null,
          planner_type: null,
          message: null,
          fingerprint: id,
          status: 'RECEIVED',
          received_at: '2026-06-01T00:00:00.000Z',
          resolved_at: null,
          resolution: null,
        })
        .execute();
    await insert('cr_a');
    await refused(
      () =>
        setRequestStatus(ctxOf(store, { clock }), { requestId: 'cr_a', status: 'COVERED', note: 'covered\u001b[2J' }),
      'a note must not hold',
      'U+001B',
    );
    await refused(
      () => setRequestStatus(ctxOf(store, { clock }), { requestId: 'cr_a', status: 'COVERED', note: 'covered \u202e' }),
      'U+202E',
    );
    expect(
      (
        await setRequestStatus(ctxOf(store, { clock }), {
          requestId: 'cr_a',
          status: 'COVERED',
          note: 'Covered from August.\r\nSee the memo.',
        })
      ).resolution,
    ).toBe('Covered from August.\r\nSee the memo.');
  });
});
