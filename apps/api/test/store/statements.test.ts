import { execFileSync } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import type { InputsDocument } from '@svc/methodology';
import { sql } from 'kysely';
import { beforeEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/services/errors.js';
import { listAudit, verifyAudit } from '../../src/services/operators/audit.js';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { secretBox } from '../../src/services/shared/secrets.js';
import {
  admitSigner,
  generateSigner,
  kidOf,
  listSigningKeys,
  resolveSigner,
  rotateSigningKey,
  type Signer,
  signerFromText,
  signingJwks,
} from '../../src/services/shared/signing.js';
import { signPastPublications } from '../../src/services/statements/statements.js';
import { verifyStatements } from '../../src/services/statements/statements-verification.js';
import type { Store } from '../../src/store/store.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf, TEST_SIGNER } from '../support/context.js';
import { exampleDocument, framework, newProvider } from '../support/documents.js';
import {
  chainFaults,
  kidRule,
  type StoredStatement,
  sha256,
  signatureHolds,
  statementFaults,
  storedStatements,
} from '../support/statements.js';
import { engines, freshStore, migrateBesideOtherTests, useFreshStore } from '../support/stores.js';
import { undo0012 } from '../support/undo-migrations.js';
import { storeContents } from './contents.js';

/**
 * Signed statements in the store (issue 14, DESIGN-record section 2): one per publication and withdrawal, written in
 * its transaction, naming its audit entry, chained per provider; a rotation signs new statements only; a retired key
 * signs nothing; what was published before migration 0010 is signed once, in order, naming one audit entry.
 */

const APPROVED_AT = '2026-06-02T10:00:00.000Z';
/** Same band (MEDIUM), another score: 78.84 instead of 78.46. */
const LONGER_HISTORY = { operating_history_years: 5 };
/** Another band: LOW. */
const MORE_COLLATERAL = { collateral_coverage_ratio: 1.5 };
const box = secretBox(Buffer.alloc(32, 7));

/** An Ed25519 private key as `openssl genpkey -algorithm ed25519` writes it (PKCS#8 PEM). */
function opensslKey(): string {
  return execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519'], { encoding: 'utf8' });
}

/** The audit entry of an action, the latest of its kind. */
async function auditEntryOf(store: Store, action: string) {
  const entries = (await listAudit(ctxOf(store), {})).filter((e) => e.action === action);
  const last = entries.at(-1);
  if (!last) throw new Error(`no ${action} audit entry`);
  return last;
}

/** Runs `work` and asserts the ServiceError it must end with. */
async function refusal(work: Promise<unknown>, code: ServiceError['code'], message: RegExp): Promise<ServiceError> {
  const error = await work.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ServiceError);
  expect((error as ServiceError).code).toBe(code);
  expect((error as ServiceError).message).toMatch(message);
  return error as ServiceError;
}

/** The statements provider by provider, each provider's in the order signed: the order a chain has. */
function byProvider(statements: readonly StoredStatement[]): StoredStatement[] {
  return [...statements].sort((a, b) => a.provider_id.localeCompare(b.provider_id) || a.id - b.id);
}

/** What a statement says without its chain and signing time: what a statement signed later must say the same. */
function factsOf(s: StoredStatement): Record<string, unknown> {
  const { prev_statement_sha256: _p, audit_head: _a, signed_at: _s, ...facts } = s.statement;
  return facts;
}

describe.each(engines)('signed statements on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock();
  beforeEach(() => {
    clock.set(AFTER_EXAMPLES);
  });

  const publish = (document: InputsDocument, signer: Signer = TEST_SIGNER) =>
    publishIndicator(ctxOf(store, { clock, signer }), { document, framework, approvedAt: APPROVED_AT });

  describe('a publication', () => {
    it('writes one statement stating the indicator, the package hash and its audit entry, signed by the key it names, then its NEW rating action chained after it', async () => {
      const started = new Date().toISOString();
      const outcome = await publish(exampleDocument('worked-example'));
      const ended = new Date().toISOString();
      if (outcome.status !== 'published') throw new Error(`not published: ${outcome.status}`);
      const { indicator } = outcome;
      const row = await store.db
        .selectFrom('risk_indicators')
        .selectAll()
        .where('risk_indicator_id', '=', indicator.risk_indicator_id)
        .executeTakeFirstOrThrow();
      const pkg = JSON.parse(row.package) as {
        evaluation_date: string;
        inputs_sha256: string;
        result_sha256: string;
        framework: { sha256: string };
      };
      const audit = await auditEntryOf(store, 'indicator.published');

      const statements = await storedStatements(store);
      expect(statements).toHaveLength(2);
      const [s, action] = statements as [StoredStatement, StoredStatement];
      expect(s.statement).toEqual({
        type: 'publication',
        risk_indicator_id: indicator.risk_indicator_id,
        provider_id: indicator.provider_id,
        provider_name: 'Example Sats Lending',
        final_score: 78.46,
        risk_band: 'MEDIUM',
        confidence: indicator.confidence,
        framework_version: 'DCRF v1.0',
        framework_sha256: pkg.framework.sha256,
        inputs_sha256: pkg.inputs_sha256,
        result_sha256: pkg.result_sha256,
        package_sha256: sha256(row.package),
        evaluation_date: pkg.evaluation_date,
        published_at: '2026-08-01T09:00:00.000Z',
        prev_statement_sha256: null,
        audit_head: { seq: audit.seq, hash: audit.hash },
        signed_at: expect.any(String),
      });
      expect(s.statement.final_score).toBe(indicator.final_score);
      expect(s.statement.risk_band).toBe(indicator.risk_band);
      expect(s.statement.published_at).toBe(row.published_at);
      // The audit entry written with it is the trail's head when it was signed.
      const head = await store.db.selectFrom('audit_head').select(['seq', 'hash']).executeTakeFirstOrThrow();
      expect({ seq: Number(head.seq), hash: head.hash }).toEqual({ seq: audit.seq, hash: audit.hash });
      expect(audit.details).toMatchObject({ risk_indicator_id: indicator.risk_indicator_id });
      // signed_at is the machine's clock, not the context's.
      expect(s.signed_at >= started && s.signed_at <= ended, `${s.signed_at} not in [${started}, ${ended}]`).toBe(true);
      expect(s).toMatchObject({
        type: 'publication',
        provider_id: indicator.provider_id,
        risk_indicator_id: indicator.risk_indicator_id,
        publication_seq: 1,
        kid: TEST_SIGNER.kid,
      });
      expect(s.kid).toBe(kidRule(TEST_SIGNER.publicKey));
      expect(signatureHolds(s.text, s.signature, TEST_SIGNER.publicKey)).toBe(true);
      // The publication is a NEW rating action: its statement follows, naming the same audit entry.
      expect(action.statement).toEqual({
        type: 'rating_action',
        provider_id: indicator.provider_id,
        risk_indicator_id: indicator.risk_indicator_id,
        action: {
          id: outcome.ratingAction?.id,
          provider_id: indicator.provider_id,
          provider_name: 'Example Sats Lending',
          type: 'NEW',
          previous_band: null,
          new_band: 'MEDIUM',
          previous_score: null,
          new_score: 78.46,
          outlook: 'STABLE',
          watch: null,
          rationale: null,
          risk_indicator_id: indicator.risk_indicator_id,
          framework_version: 'DCRF v1.0',
          proposed_by: null,
          approved_by: null,
          effective_at: '2026-08-01T09:00:00.000Z',
        },
        prev_statement_sha256: sha256(s.text),
        audit_head: { seq: audit.seq, hash: audit.hash },
        signed_at: expect.any(String),
      });
      expect(action).toMatchObject({ type: 'rating_action', publication_seq: 1, kid: TEST_SIGNER.kid });
      expect(audit.details).toMatchObject({ rating_action: { id: outcome.ratingAction?.id, type: 'NEW' } });
      expect(await statementFaults(store)).toEqual([]);
      // The key that signed it is recorded as the active one; a key given from outside is never stored.
      expect(await store.db.selectFrom('signing_keys').selectAll().execute()).toEqual([
        {
          kid: TEST_SIGNER.kid,
          public_key: TEST_SIGNER.publicKey,
          private_key_enc: null,
          not_before: s.signed_at,
          not_after: null,
        },
      ]);
    });

    it("a second publication and a withdrawal chain to the provider's previous statement; another provider starts its own chain", async () => {
      const first = await publish(exampleDocument('worked-example'));
      clock.advance(60_000);
      const other = await publish(newProvider({ provider: { name: 'Other Lending' } }, 'low-band'));
      clock.advance(60_000);
      const second = await publish(exampleDocument('worked-example', { values: LONGER_HISTORY }));
      expect([first.status, other.status, second.status]).toEqual(['published', 'published', 'published']);
      expect(second.indicator.final_score).toBe(78.84);
      clock.advance(60_000);
      const providerId = first.indicator.provider_id;
      const withdrawal = await withdrawProvider(ctxOf(store, { clock }), { providerId, reason: 'ceased lending' });
      const withdrawnAudit = await auditEntryOf(store, 'provider.withdrawn');

      const statements = await storedStatements(store);
      // Each publication and withdrawal is followed by the statement of its rating action.
      expect(
        statements.map((s) => [
          s.type,
          (s.statement.action as { type: string } | undefined)?.type ?? null,
          s.provider_id,
          s.publication_seq,
        ]),
      ).toEqual([
        ['publication', null, providerId, 1],
        ['rating_action', 'NEW', providerId, 1],
        ['publication', null, other.indicator.provider_id, 2],
        ['rating_action', 'NEW', other.indicator.provider_id, 2],
        ['publication', null, providerId, 3],
        ['rating_action', 'AFFIRM', providerId, 3],
        ['withdrawal', null, providerId, 3],
        ['rating_action', 'WITHDRAW', providerId, 3],
      ]);
      const [a, aAction, b, bAction, c, cAction, w, wAction] = statements as StoredStatement[] as [
        StoredStatement,
        StoredStatement,
        StoredStatement,
        StoredStatement,
        StoredStatement,
        StoredStatement,
        StoredStatement,
        StoredStatement,
      ];
      expect(a.statement.prev_statement_sha256).toBeNull();
      expect(aAction.statement.prev_statement_sha256).toBe(sha256(a.text));
      expect(b.statement.prev_statement_sha256).toBeNull();
      expect(bAction.statement.prev_statement_sha256).toBe(sha256(b.text));
      expect(c.statement.prev_statement_sha256).toBe(sha256(aAction.text));
      expect(cAction.statement.prev_statement_sha256).toBe(sha256(c.text));
      expect(w.statement.prev_statement_sha256).toBe(sha256(cAction.text));
      expect(wAction.statement.prev_statement_sha256).toBe(sha256(w.text));
      expect(wAction.statement.action).toMatchObject({
        type: 'WITHDRAW',
        previous_score: 78.84,
        previous_band: 'MEDIUM',
        new_score: null,
        new_band: null,
        rationale: 'ceased lending',
        effective_at: withdrawal.withdrawn_at,
      });
      expect(c.statement).toMatchObject({
        risk_indicator_id: second.indicator.risk_indicator_id,
        final_score: 78.84,
        published_at: '2026-08-01T09:02:00.000Z',
      });
      expect(w.statement).toEqual({
        type: 'withdrawal',
        risk_indicator_id: second.indicator.risk_indicator_id,
        provider_id: providerId,
        provider_name: 'Example Sats Lending',
        framework_version: 'DCRF v1.0',
        previous_score: 78.84,
        previous_band: 'MEDIUM',
        reason: 'ceased lending',
        withdrawn_at: withdrawal.withdrawn_at,
        prev_statement_sha256: sha256(cAction.text),
        audit_head: { seq: withdrawnAudit.seq, hash: withdrawnAudit.hash },
        signed_at: expect.any(String),
      });
      expect(withdrawal.withdrawn_at).toBe('2026-08-01T09:03:00.000Z');
      expect(chainFaults(statements)).toEqual([]);
      expect(await statementFaults(store)).toEqual([]);
      // Each publication's and withdrawal's audit_head names a distinct entry of the trail, in the order signed; its
      // action's statement names the same entry.
      const heads = statements.map((s) => (s.statement.audit_head as { seq: number }).seq);
      expect([...heads].sort((x, y) => x - y)).toEqual(heads);
      expect(new Set(heads).size).toBe(heads.length / 2);
      for (let i = 0; i < heads.length; i += 2) expect(heads[i + 1]).toBe(heads[i]);
    });

    it('publishing the same inputs again writes no statement; a refused publication writes none either', async () => {
      clock.set('2026-08-01T09:00:00.000Z');
      await publish(exampleDocument('worked-example'));
      const before = await storeContents(store);
      expect((await publish(exampleDocument('worked-example'))).status).toBe('unchanged');
      expect(await storeContents(store)).toEqual(before);
      const unpublishable = await publish(
        exampleDocument('missing-inputs', { provider: { id: exampleDocument('worked-example').provider.id } }),
      );
      expect(unpublishable.status).toBe('refused');
      expect(await storeContents(store)).toEqual(before);
      // Dated after the present: refused before anything is written.
      clock.set('2026-01-01T00:00:00.000Z');
      expect((await publish(exampleDocument('worked-example', { values: MORE_COLLATERAL }))).status).toBe('refused');
      expect(await storeContents(store)).toEqual(before);
      expect((await storedStatements(store)).map((s) => s.type)).toEqual(['publication', 'rating_action']);
    });

    it('a statement that cannot be stored fails its publication: nothing of it is written', async () => {
      await publish(exampleDocument('worked-example'));
      // A statement already claiming the next publication (seq 2): the next statement's insert fails, last of all.
      const [first] = await storedStatements(store);
      await store.db
        .insertInto('statements')
        .values({
          type: 'publication',
          provider_id: first?.provider_id ?? '',
          risk_indicator_id: first?.risk_indicator_id ?? '',
          publication_seq: 2,
          statement: '{}',
          statement_sha256: sha256('{}'),
          signature: 'x',
          kid: TEST_SIGNER.kid,
          signed_at: first?.signed_at ?? '',
        })
        .execute();
      const before = await storeContents(store);
      const auditBefore = await verifyAudit(ctxOf(store));
      const fresh = newProvider({ provider: { name: 'Never Stored' } });
      await expect(publish(fresh)).rejects.toThrow();
      expect(await storeContents(store)).toEqual(before);
      expect(await verifyAudit(ctxOf(store))).toEqual(auditBefore);
      expect(await store.db.selectFrom('providers').select('id').where('id', '=', fresh.provider.id).execute()).toEqual(
        [],
      );
    });
    it('publications racing for one provider, and a withdrawal among them, leave one unbroken chain', async () => {
      const docs = [30, 40, 50, 60, 70, 80].map((days) =>
        exampleDocument('worked-example', { values: { duration_gap_days: days } }),
      );
      const providerId = docs[0]?.provider.id ?? '';
      await publish(exampleDocument('worked-example'));
      const outcomes = await Promise.allSettled([
        ...docs.map((d) => publish(d)),
        withdrawProvider(ctxOf(store, { clock }), { providerId }),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(Array(7).fill('fulfilled'));
      const statements = await storedStatements(store);
      // Seven publications and a withdrawal, each with its rating action's statement.
      expect(statements).toHaveLength(16);
      expect(chainFaults(statements)).toEqual([]);
      expect(await statementFaults(store)).toEqual([]);
      // The statements follow the history: each publication's seq, in order, the withdrawal after its publication.
      const history = await store.db.selectFrom('indicator_history').select('seq').orderBy('seq').execute();
      expect(statements.filter((s) => s.type === 'publication').map((s) => s.publication_seq)).toEqual(
        history.map((h) => Number(h.seq)),
      );
      const heads = statements.map((s) => (s.statement.audit_head as { seq: number }).seq);
      expect([...heads].sort((x, y) => x - y)).toEqual(heads);
      expect((await verifyAudit(ctxOf(store))).intact).toBe(true);
    });
  });

  describe('verifyStatements (svc audit verify --statements)', () => {
    /** Publications of three providers, a second one of the first, and a withdrawal: each with its rating action. */
    async function record(): Promise<StoredStatement[]> {
      await publish(exampleDocument('worked-example'));
      await publish(exampleDocument('low-band'));
      await publish(exampleDocument('multiple-caps'));
      clock.advance(60_000);
      await publish(exampleDocument('worked-example', { values: MORE_COLLATERAL }));
      await withdrawProvider(ctxOf(store, { clock }), { providerId: exampleDocument('low-band').provider.id });
      const statements = await storedStatements(store);
      expect(new Set(statements.map((s) => s.type))).toEqual(new Set(['publication', 'withdrawal', 'rating_action']));
      expect(await verifyStatements(ctxOf(store))).toEqual({ checked: statements.length, broken: null });
      return statements;
    }
    const verdict = async () => (await verifyStatements(ctxOf(store))).broken;

    it('finds every statement deleted: the first publication has none', async () => {
      await record();
      await store.db.deleteFrom('statements').execute();
      expect(await verdict()).toEqual({
        statement_sha256: null,
        provider_id: exampleDocument('worked-example').provider.id,
        risk_indicator_id: expect.stringMatching(/^ri_/),
        reason: 'publication 1 has no signed statement',
      });
    });

    it("finds two statements deleted (a withdrawal's and a rating action's)", async () => {
      const statements = await record();
      const withdrawal = statements.find((s) => s.type === 'withdrawal');
      const action = statements.filter((s) => s.type === 'rating_action').at(0);
      await store.db
        .deleteFrom('statements')
        .where('id', 'in', [withdrawal?.id ?? -1, action?.id ?? -1])
        .execute();
      // The statement after each gap no longer names its predecessor; a gap at a chain's end is found by its record.
      const broken = await verdict();
      expect(broken?.reason).toMatch(/does not name the previous statement|has no signed statement/);
    });

    it('finds a statement whose only statement was deleted at the end of its chain (nothing after it to notice)', async () => {
      const statements = await record();
      const last = statements.at(-1);
      await store.db
        .deleteFrom('statements')
        .where('id', '=', last?.id ?? -1)
        .execute();
      expect((await verdict())?.reason).toMatch(
        /^(rating action ra_[0-9a-f]+|the withdrawal of publication \d+) has no signed statement$/,
      );
    });

    it.each([
      ['risk_indicator_id', 'ri_000000000000000000000000'],
      ['provider_id', '00000000-0000-4000-8000-000000000000'],
      ['type', 'withdrawal'],
      ['signed_at', '2020-01-01T00:00:00.000Z'],
    ] as const)('finds the unsigned column %s changed beside the signed text', async (column, value) => {
      const statements = await record();
      const target = statements.find((s) => s.type === 'publication');
      await store.db
        .updateTable('statements')
        .set({ [column]: value })
        .where('id', '=', target?.id ?? -1)
        .execute();
      const broken = await verdict();
      expect(broken?.statement_sha256).toBe(target?.statement_sha256);
      expect(broken?.reason).toBe(
        `its ${column} column says ${JSON.stringify(value)} where its signed text says ${JSON.stringify(
          (target?.statement as Record<string, unknown> | undefined)?.[column],
        )}`,
      );
    });

    it("finds a rating action's statement relabelled to another action", async () => {
      const statements = await record();
      const [a, b] = statements.filter((s) => s.type === 'rating_action');
      await store.db
        .updateTable('statements')
        .set({ rating_action_id: 'ra_000000000000000000000000' })
        .where('id', '=', a?.id ?? -1)
        .execute();
      expect((await verdict())?.reason).toMatch(
        /^its rating_action_id column says "ra_0+" where its signed text says "ra_/,
      );
      expect(b).toBeDefined();
    });

    it('finds a withdrawal taken out of the record with its statements, by its audit entry', async () => {
      const statements = await record();
      const withdrawn = statements.filter(
        (s) =>
          s.type === 'withdrawal' ||
          (s.type === 'rating_action' && (s.statement as { action: { type: string } }).action.type === 'WITHDRAW'),
      );
      const action = withdrawn.find((s) => s.type === 'rating_action');
      const actionId = (action?.statement as { action: { id: string } } | undefined)?.action.id ?? '';
      await store.db
        .updateTable('changelog')
        .set({ rating_action_id: null })
        .where('rating_action_id', '=', actionId)
        .execute();
      await store.db
        .deleteFrom('statements')
        .where(
          'id',
          'in',
          withdrawn.map((s) => s.id),
        )
        .execute();
      await store.db.deleteFrom('rating_actions').where('id', '=', actionId).execute();
      await store.db.deleteFrom('withdrawals').execute();
      expect((await verdict())?.reason).toMatch(
        /^audit entry \d+ \(provider\.withdrawn\) records what no statement states$/,
      );
    });
  });

  describe('keys', () => {
    it("a rotation racing with publications by the old key: no statement postdates its key's retirement", async () => {
      await publish(exampleDocument('worked-example'));
      const docs = [30, 40, 50, 60, 70, 80].map((days) =>
        exampleDocument('worked-example', { values: { duration_gap_days: days } }),
      );
      const outcomes = await Promise.allSettled([
        ...docs.slice(0, 3).map((d) => publish(d)),
        rotateSigningKey(ctxOf(store, { box }), { configured: null }),
        ...docs.slice(3).map((d) => publish(d)),
      ]);
      expect(outcomes[3]?.status).toBe('fulfilled');
      for (const o of outcomes) {
        if (o.status === 'rejected') expect((o.reason as ServiceError).code).toBe('refused');
      }
      const keys = new Map((await signingJwks({ store })).keys.map((k) => [k.kid, k]));
      const statements = await storedStatements(store);
      expect(statements.every((s) => s.kid === TEST_SIGNER.kid)).toBe(true);
      // Each publication signs two statements: its own and its rating action's.
      expect(statements).toHaveLength(2 * (1 + outcomes.filter((o, i) => i !== 3 && o.status === 'fulfilled').length));
      for (const s of statements) {
        const key = keys.get(s.kid);
        expect(s.signed_at >= (key?.not_before ?? '')).toBe(true);
        expect(
          key?.not_after === undefined || s.signed_at <= key.not_after,
          `${s.signed_at} after ${key?.not_after}`,
        ).toBe(true);
      }
      expect(chainFaults(statements)).toEqual([]);
      expect(await statementFaults(store)).toEqual([]);
      expect((await verifyAudit(ctxOf(store))).intact).toBe(true);
    });

    it('after a rotation new statements use the new kid, old ones verify with the retired key, and the retired key signs nothing', async () => {
      const first = await publish(exampleDocument('worked-example'));
      const rotated = await rotateSigningKey(ctxOf(store, { box }), { configured: null });
      expect(rotated).toMatchObject({ status: 'active', not_after: null, held: 'store' });
      expect(rotated.kid).not.toBe(TEST_SIGNER.kid);
      const rotation = await auditEntryOf(store, 'signing_key.rotated');
      expect(rotation.subject).toEqual({ type: 'signing_key', id: rotated.kid });
      expect(rotation.details).toEqual({ retired: [TEST_SIGNER.kid], held: 'store' });

      const keys = await listSigningKeys(ctxOf(store));
      expect(keys).toEqual([
        {
          kid: TEST_SIGNER.kid,
          status: 'retired',
          not_before: expect.any(String),
          not_after: rotated.not_before,
          held: 'environment',
        },
        { kid: rotated.kid, status: 'active', not_before: rotated.not_before, not_after: null, held: 'store' },
      ]);
      // The generated key is sealed under the master key: it opens to the key of that kid.
      const sealed = await store.db
        .selectFrom('signing_keys')
        .select('private_key_enc')
        .where('kid', '=', rotated.kid)
        .executeTakeFirstOrThrow();
      const pem = box.open(sealed.private_key_enc ?? '');
      expect(signerFromText(pem).kid).toBe(rotated.kid);

      const signer = await resolveSigner(store, { configured: null, box });
      expect(signer.kid).toBe(rotated.kid);
      clock.advance(60_000);
      const second = await publish(exampleDocument('worked-example', { values: LONGER_HISTORY }), signer);
      expect(second.status).toBe('published');
      const statements = await storedStatements(store);
      expect(statements.map((s) => s.kid)).toEqual([TEST_SIGNER.kid, TEST_SIGNER.kid, rotated.kid, rotated.kid]);
      // The chain goes on across the rotation; the first statement is as it was signed.
      expect(chainFaults(statements)).toEqual([]);
      expect(statements[0]?.statement.risk_indicator_id).toBe(first.indicator.risk_indicator_id);
      const jwks = await signingJwks({ store });
      expect(jwks.keys.map((k) => [k.kid, k.status, k.not_after])).toEqual([
        [TEST_SIGNER.kid, 'retired', rotated.not_before],
        [rotated.kid, 'active', undefined],
      ]);
      for (const s of statements) {
        const key = jwks.keys.find((k) => k.kid === s.kid);
        expect(signatureHolds(s.text, s.signature, key?.x ?? '')).toBe(true);
      }
      expect(await statementFaults(store)).toEqual([]);

      // The retired key is refused when it tries to sign again: nothing is written.
      const before = await storeContents(store);
      await refusal(publish(newProvider()), 'refused', new RegExp(`signing key ${TEST_SIGNER.kid} was retired`));
      await refusal(
        withdrawProvider(ctxOf(store, { clock }), { providerId: first.indicator.provider_id }),
        'refused',
        /was retired/,
      );
      expect(await storeContents(store)).toEqual(before);
      expect((await verifyAudit(ctxOf(store))).intact).toBe(true);
    });

    it('rotation to the active key of SVC_SIGNING_KEY is refused, and rotation without the master key box; neither writes anything', async () => {
      await publish(exampleDocument('worked-example'));
      const before = await storeContents(store);
      await refusal(
        rotateSigningKey(ctxOf(store, { box }), { configured: TEST_SIGNER.pem ?? '' }),
        'refused',
        /SVC_SIGNING_KEY holds signing key [0-9a-f]{16}, which is already the active key/,
      );
      await expect(rotateSigningKey(ctxOf(store), { configured: null })).rejects.toThrow();
      expect(await storeContents(store)).toEqual(before);
    });

    it('a key from SVC_SIGNING_KEY (openssl genpkey, as PEM, its base64, or the DER in base64) signs with its kid and retires the previous key', async () => {
      await publish(exampleDocument('worked-example'));
      const pem = opensslKey();
      const signer = signerFromText(pem);
      const der = createPrivateKey(pem).export({ format: 'der', type: 'pkcs8' });
      expect(signerFromText(Buffer.from(pem).toString('base64')).kid).toBe(signer.kid);
      expect(signerFromText(der.toString('base64')).kid).toBe(signer.kid);
      expect(signerFromText(`\n  ${pem}\n`).kid).toBe(signer.kid);
      expect(signer.kid).toBe(kidRule(signer.publicKey));
      expect(signer.kid).toBe(kidOf(signer.publicKey));
      expect(signer.pem).toBeNull();

      clock.advance(60_000);
      // A key new to the store does not retire the active one as a side effect of signing: nothing is written.
      const before = await storeContents(store);
      await refusal(
        publish(exampleDocument('worked-example', { values: LONGER_HISTORY }), signer),
        'refused',
        new RegExp(
          `signing key ${signer.kid}, which this store does not know, while ${TEST_SIGNER.kid} is its active key`,
        ),
      );
      expect(await storeContents(store)).toEqual(before);
      // An administrator's act brings it into use, recorded in the audit trail as a rotation.
      await admitSigner(ctxOf(store, { clock, by: 'ada' }), signer);
      expect(await auditEntryOf(store, 'signing_key.rotated')).toMatchObject({
        actor: { type: 'operator', name: 'ada' },
        subject: { type: 'signing_key', id: signer.kid },
        details: { retired: [TEST_SIGNER.kid], held: 'environment' },
      });
      expect((await publish(exampleDocument('worked-example', { values: LONGER_HISTORY }), signer)).status).toBe(
        'published',
      );
      const statements = await storedStatements(store);
      expect(statements.map((s) => s.kid)).toEqual([TEST_SIGNER.kid, TEST_SIGNER.kid, signer.kid, signer.kid]);
      expect(await statementFaults(store)).toEqual([]);
      expect((await listSigningKeys(ctxOf(store))).map((k) => [k.kid, k.status, k.held])).toEqual([
        [TEST_SIGNER.kid, 'retired', 'environment'],
        [signer.kid, 'active', 'environment'],
      ]);
      // A process without SVC_SIGNING_KEY cannot sign with a key the store does not hold: it says which to set.
      await refusal(resolveSigner(store, { configured: null, box }), 'refused', /SVC_SIGNING_KEY, which is not set/);
    });

    it.each([
      ['garbage', 'not a key at all'],
      ['a public key', () => execFileSync('openssl', ['pkey', '-pubout'], { input: opensslKey(), encoding: 'utf8' })],
      [
        'an RSA key',
        () =>
          execFileSync('openssl', ['genpkey', '-algorithm', 'rsa', '-pkeyopt', 'rsa_keygen_bits:1024'], {
            encoding: 'utf8',
          }),
      ],
      ['an X25519 key', () => execFileSync('openssl', ['genpkey', '-algorithm', 'x25519'], { encoding: 'utf8' })],
      [
        'an EC key',
        () =>
          execFileSync('openssl', ['genpkey', '-algorithm', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], {
            encoding: 'utf8',
          }),
      ],
      ['a truncated PEM', () => opensslKey().slice(0, 60)],
      ['empty', ''],
    ] as const)('SVC_SIGNING_KEY holding %s is refused naming the variable', (_what, text) => {
      const value = typeof text === 'function' ? text() : text;
      let error: unknown;
      try {
        signerFromText(value);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).code).toBe('invalid_value');
      expect((error as ServiceError).message).toMatch(/^SVC_SIGNING_KEY is not an Ed25519 private key/);
    });

    it('the first signing of a store generates one key, sealed, and every later process resolves the same one', async () => {
      const signers = await Promise.all([1, 2, 3].map(() => resolveSigner(store, { configured: null, box })));
      expect(new Set(signers.map((s) => s.kid)).size).toBe(1);
      expect(await listSigningKeys(ctxOf(store))).toEqual([
        expect.objectContaining({ kid: signers[0]?.kid, status: 'active', held: 'store' }),
      ]);
      // A master key that cannot open it is refused with a reason, not a crash.
      await refusal(
        resolveSigner(store, { configured: null, box: secretBox(Buffer.alloc(32, 8)) }),
        'refused',
        /cannot be opened with this master key/,
      );
    });
  });
});

/** Takes a store back to before migration 0010 (so before 0011 and 0012): no keys, no statements, none recorded. */
async function undo0010(store: Store): Promise<void> {
  await undo0012(store, null);
  await store.db.schema.dropIndex('indicator_history_in_force').execute();
  await sql`delete from kysely_migration where name = '0011-as-of-index'`.execute(store.db);
  await store.db.schema.dropTable('statements').execute();
  await store.db.schema.dropTable('signing_keys').execute();
  await store.db.deleteFrom('store_meta').where('key', '=', 'statements_backfilled').execute();
  await sql`delete from kysely_migration where name = '0010-signed-statements'`.execute(store.db);
}

describe.each(engines)('statements of publications made before migration 0010 on %s', (engine) => {
  const clock = manualClock();

  /**
   * A store as 0009 left it, with history: two providers, one published twice, withdrawn and published again, one
   * published once and withdrawn. Returns the statements they were signed with at the time, for comparison.
   */
  async function pastStore(): Promise<{ store: Awaited<ReturnType<typeof freshStore>>; original: StoredStatement[] }> {
    const store = await freshStore(engine);
    clock.set(AFTER_EXAMPLES);
    const ctx = () => ctxOf(store, { clock });
    const run = async (document: InputsDocument) => {
      clock.advance(60_000);
      const outcome = await publishIndicator(ctx(), { document, framework, approvedAt: APPROVED_AT });
      expect(outcome.status).toBe('published');
      return outcome.indicator;
    };
    const worked = await run(exampleDocument('worked-example'));
    const low = await run(exampleDocument('low-band'));
    await run(exampleDocument('worked-example', { values: LONGER_HISTORY }));
    clock.advance(60_000);
    await withdrawProvider(ctx(), { providerId: worked.provider_id, reason: 'paused' });
    await run(exampleDocument('worked-example', { values: MORE_COLLATERAL }));
    clock.advance(60_000);
    await withdrawProvider(ctx(), { providerId: low.provider_id });
    const original = await storedStatements(store);
    await undo0010(store);
    expect(await migrateBesideOtherTests(store)).toEqual([
      '0010-signed-statements',
      '0011-as-of-index',
      '0012-rating-actions',
      '0013-audit-time-and-name-keys',
    ]);
    return { store, original };
  }

  it('signs one statement per publication and withdrawal and one per rating action derived from them, in order, chained, naming one audit entry, each keeping its dates', async () => {
    const { store, original } = await pastStore();
    try {
      expect(original.map((s) => s.type)).toEqual([
        'publication',
        'rating_action',
        'publication',
        'rating_action',
        'publication',
        'rating_action',
        'withdrawal',
        'rating_action',
        'publication',
        'rating_action',
        'withdrawal',
        'rating_action',
      ]);
      const auditBefore = (await verifyAudit(ctxOf(store))) as { entries: number };
      expect(
        await store.db.selectFrom('store_meta').select('key').where('key', '=', 'statements_backfilled').execute(),
      ).toEqual([]);
      const started = new Date().toISOString();
      const result = await signPastPublications(store, { configured: null, box: () => box });
      const ended = new Date().toISOString();
      if ('error' in result) throw new Error(result.error);
      expect(result.signed).toBe(12);

      const statements = await storedStatements(store);
      // The same statements, each provider's in the same order, saying the same facts (published_at and
      // withdrawn_at kept). Across providers the order may differ: a chain is a provider's.
      const row = (s: StoredStatement) => [s.type, s.provider_id, s.risk_indicator_id, s.publication_seq];
      expect(byProvider(statements).map(row)).toEqual(byProvider(original).map(row));
      expect(byProvider(statements).map(factsOf)).toEqual(byProvider(original).map(factsOf));
      // Each publication comes before its withdrawal, each action right after what it derives from, and history order
      // holds. The actions derived at migration say what the live ones said (the same ids, the same facts).
      expect(statements.map((s) => s.publication_seq)).toEqual([1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4]);
      expect(chainFaults(statements)).toEqual([]);
      expect(await statementFaults(store)).toEqual([]);
      expect(new Set(statements.map((s) => s.kid))).toEqual(new Set([result.kid]));
      for (const s of statements) {
        expect(s.signed_at >= started && s.signed_at <= ended).toBe(true);
      }

      // One audit entry more, by the system, and every statement names it.
      const verification = await verifyAudit(ctxOf(store));
      expect(verification).toMatchObject({ intact: true, entries: auditBefore.entries + 1 });
      const entry = await auditEntryOf(store, 'statements.signed_at_migration');
      expect(entry.seq).toBe(auditBefore.entries + 1);
      expect(entry.actor).toMatchObject({ type: 'system', name: 'migration 0010' });
      expect(entry.details).toEqual({ statements: 12, kid: result.kid });
      for (const s of statements) expect(s.statement.audit_head).toEqual({ seq: entry.seq, hash: entry.hash });

      // The key was generated here and sealed under the master key.
      expect(await listSigningKeys(ctxOf(store))).toEqual([
        expect.objectContaining({ kid: result.kid, status: 'active', held: 'store' }),
      ]);

      // Done once: a second run signs nothing and writes nothing.
      const before = await storeContents(store);
      expect(await signPastPublications(store, { configured: null, box: () => box })).toEqual({ signed: 0, kid: null });
      expect(await storeContents(store)).toEqual(before);

      // The next publication chains after the statements signed at migration, with the same key.
      clock.advance(60_000);
      const signer = await resolveSigner(store, { configured: null, box });
      const next = await publishIndicator(ctxOf(store, { clock, signer }), {
        document: exampleDocument('low-band'),
        framework,
        approvedAt: APPROVED_AT,
      });
      expect(next.status).toBe('published');
      const after = await storedStatements(store);
      expect(after).toHaveLength(14);
      expect(chainFaults(after)).toEqual([]);
      // Its provider's last statement was the WITHDRAW action's, signed at migration; it is a REINSTATE.
      const withdrawn = statements.filter((s) => s.provider_id === next.indicator.provider_id).at(-1);
      expect(withdrawn?.type).toBe('rating_action');
      expect(withdrawn?.statement.action).toMatchObject({ type: 'WITHDRAW' });
      expect(after.at(-2)?.statement.prev_statement_sha256).toBe(sha256(withdrawn?.text ?? ''));
      expect(after.at(-1)?.statement.action).toMatchObject({ type: 'REINSTATE' });
      expect((await verifyAudit(ctxOf(store))).intact).toBe(true);
    } finally {
      await store.dispose();
    }
  });

  it('with SVC_SIGNING_KEY the past is signed with that key; a process that cannot sign says why and leaves it to the next', async () => {
    const { store, original } = await pastStore();
    try {
      const before = await storeContents(store);
      const failed = await signPastPublications(store, {
        configured: null,
        box: () => {
          throw new Error('no master key here');
        },
      });
      expect(failed).toEqual({ error: 'no master key here' });
      const garbage = await signPastPublications(store, { configured: 'garbage', box: () => box });
      expect(garbage).toEqual({ error: expect.stringMatching(/^SVC_SIGNING_KEY is not an Ed25519 private key/) });
      expect(await storeContents(store)).toEqual(before);

      const pem = opensslKey();
      const result = await signPastPublications(store, { configured: pem, box: () => box });
      expect(result).toEqual({ signed: original.length, kid: signerFromText(pem).kid });
      expect(await statementFaults(store)).toEqual([]);
      expect(chainFaults(await storedStatements(store))).toEqual([]);
      expect(await listSigningKeys(ctxOf(store))).toEqual([
        expect.objectContaining({ kid: signerFromText(pem).kid, status: 'active', held: 'environment' }),
      ]);
    } finally {
      await store.dispose();
    }
  });

  it('the first publication after the migration signs the past first (ensureStatements), then itself, chained', async () => {
    const { store, original } = await pastStore();
    try {
      const signer = generateSigner();
      clock.advance(60_000);
      const outcome = await publishIndicator(ctxOf(store, { clock, signer, box }), {
        document: exampleDocument('low-band'),
        framework,
        approvedAt: APPROVED_AT,
      });
      expect(outcome.status).toBe('published');
      const statements = await storedStatements(store);
      expect(statements).toHaveLength(original.length + 2);
      expect(byProvider(statements.slice(0, -2)).map(factsOf)).toEqual(byProvider(original).map(factsOf));
      expect(chainFaults(statements)).toEqual([]);
      expect(await statementFaults(store)).toEqual([]);
      const migrationEntry = await auditEntryOf(store, 'statements.signed_at_migration');
      const published = await auditEntryOf(store, 'indicator.published');
      expect(published.seq).toBe(migrationEntry.seq + 1);
      expect(statements.at(-1)?.statement.audit_head).toEqual({ seq: published.seq, hash: published.hash });
      expect((await verifyAudit(ctxOf(store))).intact).toBe(true);
    } finally {
      await store.dispose();
    }
  });

  it('a fresh store needs no signing at migration: nothing is signed and no key is made', async () => {
    const store = await freshStore(engine);
    try {
      expect(
        await store.db.selectFrom('store_meta').select('value').where('key', '=', 'statements_backfilled').execute(),
      ).toEqual([{ value: '1' }]);
      expect(await signPastPublications(store, { configured: null, box: () => box })).toEqual({ signed: 0, kid: null });
      expect(await store.db.selectFrom('signing_keys').selectAll().execute()).toEqual([]);
    } finally {
      await store.dispose();
    }
  });
});
