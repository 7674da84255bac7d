import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getFramework } from '@svc/methodology';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  acceptTerms,
  createKey,
  createWorkspace,
  enableMcp,
  revokeKey,
  rotateWebhookSecret,
} from '../../src/services/access/access.js';
import { requestCoverage, setRequestStatus } from '../../src/services/coverage-requests/coverage-requests.js';
import { ServiceError } from '../../src/services/errors.js';
import { publishFramework } from '../../src/services/frameworks/frameworks.js';
import { approveAllPending, approveInputs, submitInputs } from '../../src/services/inputs/inputs.js';
import { addIssuance, closeIssuance, updateIssuance } from '../../src/services/issuances/issuances.js';
import { type AuditEntry, listAudit, verifyAudit } from '../../src/services/operators/audit.js';
import {
  addOperator,
  type IssuedOperator,
  revokeOperator,
  rotateOperatorToken,
} from '../../src/services/operators/operators.js';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { secretBox } from '../../src/services/shared/secrets.js';
import { deleteWebhook, pingWebhook, redeliver, registerWebhook } from '../../src/services/webhooks/endpoints.js';
import type { Store } from '../../src/store/store.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { example, ISSUANCE, validated, variantOf } from '../support/documents.js';
import { engines, type FreshStore, freshStore, useFreshStore } from '../support/stores.js';
import { everything } from './contents.js';

/**
 * The audit trail (issue 13, DESIGN-record section 1): every change appends exactly one entry naming its actor and
 * no secret; a refused verb appends nothing; `verifyAudit` finds every edit made behind the service's back, naming
 * the first broken seq; two processes appending at once leave one chain; `listAudit` filters.
 */

const box = secretBox(Buffer.alloc(32, 13));
const V1_0 = getFramework('1.0');
const API_DIR = fileURLToPath(new URL('../..', import.meta.url));
const WRITER = fileURLToPath(new URL('../support/audit-writer.ts', import.meta.url));

type Operator = Pick<IssuedOperator, 'operator_id' | 'name' | 'token'>;

async function auditRows(store: Store) {
  return store.db.selectFrom('audit_log').selectAll().orderBy('seq').execute();
}

async function headSeq(store: Store): Promise<number> {
  const row = await store.db.selectFrom('audit_head').select('seq').where('id', '=', 1).executeTakeFirstOrThrow();
  return Number(row.seq);
}

describe.each(engines)('the audit trail on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock(AFTER_EXAMPLES);

  const system = () => ctxOf(store, { clock, box });
  const as = (op: Operator) => ctxOf(store, { clock, box, by: op.name, operatorId: op.operator_id });
  const actorOf = (op: Operator) => ({ type: 'operator', id: op.operator_id, name: op.name });

  /** What `run` appended to the trail (read back through listAudit), and what it returned. */
  async function appended<T>(run: () => Promise<T>): Promise<{ result: T; entries: AuditEntry[] }> {
    const before = await headSeq(store);
    const result = await run();
    return { result, entries: await listAudit(system(), { afterSeq: before }) };
  }

  /** The one entry `run` appended. */
  async function one<T>(run: () => Promise<T>): Promise<{ result: T; entry: AuditEntry }> {
    const { result, entries } = await appended(run);
    expect(entries).toHaveLength(1);
    return { result, entry: entries[0] as AuditEntry };
  }

  /** A refusal: the verb throws a ServiceError matching `message`; the store (the trail included) is unchanged. */
  async function refusedUnchanged(run: () => Promise<unknown>, message: RegExp): Promise<void> {
    const before = await everything(store);
    const error = await run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, `expected a refusal matching ${message}`).toBeInstanceOf(ServiceError);
    expect((error as Error).message).toMatch(message);
    expect(await everything(store)).toEqual(before);
  }

  /** The first administrator (open mode: they add themselves) and a team with one role each. */
  async function team() {
    const admin = await addOperator(ctxOf(store, { clock, by: 'Ada Admin' }), { name: 'Ada Admin', roles: ['admin'] });
    const add = (name: string, roles: string[]) => addOperator(as(admin), { name, roles });
    return {
      admin,
      analyst: await add('Bo Analyst', ['analyst']),
      analyst2: await add('Cy Analyst', ['analyst']),
      approver: await add('Di Approver', ['approver']),
      cro: await add('Ed Officer', ['chief_risk_officer']),
    };
  }

  /** No audit row holds any of the secrets, the token hashes or the key hashes of the store. */
  async function expectNoSecret(secrets: string[]): Promise<void> {
    const hashes = [
      ...(await store.db.selectFrom('operators').select('token_hash').execute()).map((r) => r.token_hash),
      ...(await store.db.selectFrom('api_keys').select('key_hash').execute()).map((r) => r.key_hash),
      ...(await store.db.selectFrom('workspaces').select('webhook_secret_enc').execute()).map(
        (r) => r.webhook_secret_enc,
      ),
    ];
    const text = JSON.stringify(await auditRows(store));
    for (const secret of [...secrets, ...hashes]) {
      expect(secret.length).toBeGreaterThan(16);
      expect(text).not.toContain(secret);
      // The random part alone, whatever prefix it is written with.
      expect(text).not.toContain(secret.replace(/^(svc_op_|svc_live_|whsec_)/, ''));
    }
  }

  describe('each action appends exactly one entry with its actor', () => {
    it('operator.added (the first administrator is their own actor), operator.token_rotated, operator.revoked', async () => {
      const first = await one(() =>
        addOperator(ctxOf(store, { clock, by: 'Whoever Typed' }), { name: ' Ada Admin ', roles: ['admin', 'analyst'] }),
      );
      const ada = first.result;
      expect(first.entry).toMatchObject({
        actor: { type: 'operator', id: ada.operator_id, name: 'Ada Admin' },
        action: 'operator.added',
        subject: { type: 'operator', id: ada.operator_id },
        details: { name: 'Ada Admin', roles: ['analyst', 'admin'], first: true },
      });
      // Dated by the verb's clock, but never before the entry it follows (the migration's, on the machine's clock).
      const [genesis] = await listAudit(system(), { limit: 1 });
      expect(first.entry.at).toBe(AFTER_EXAMPLES > (genesis?.at ?? '') ? AFTER_EXAMPLES : genesis?.at);

      const second = await one(() => addOperator(as(ada), { name: 'Bo Analyst', roles: ['analyst'] }));
      const bo = second.result;
      expect(second.entry).toMatchObject({
        actor: actorOf(ada),
        action: 'operator.added',
        subject: { type: 'operator', id: bo.operator_id },
        details: { name: 'Bo Analyst', roles: ['analyst'], first: false },
      });

      const rotatedByAdmin = await one(() => rotateOperatorToken(as(ada), { name: 'Bo Analyst' }));
      expect(rotatedByAdmin.entry).toMatchObject({
        actor: actorOf(ada),
        action: 'operator.token_rotated',
        subject: { type: 'operator', id: bo.operator_id },
      });
      const rotatedOwn = await one(() => rotateOperatorToken(as(bo), { name: 'bo analyst' }));
      expect(rotatedOwn.entry).toMatchObject({
        actor: actorOf(bo),
        action: 'operator.token_rotated',
        subject: { type: 'operator', id: bo.operator_id },
      });

      const revoked = await one(() => revokeOperator(as(ada), { name: 'Bo Analyst' }));
      expect(revoked.entry).toMatchObject({
        actor: actorOf(ada),
        action: 'operator.revoked',
        subject: { type: 'operator', id: bo.operator_id },
        details: { name: 'Bo Analyst' },
      });
      await expectNoSecret([ada.token, bo.token, rotatedByAdmin.result.token, rotatedOwn.result.token]);
    });

    it('workspace.created, terms_accepted (two with preview), agent_tools_enabled, secret_rotated, key.created, key.revoked (once)', async () => {
      const { admin } = await team();
      const created = await one(() => createWorkspace(as(admin), { name: 'Consumer Ltd' }));
      const ws = created.result.workspace_id;
      expect(created.entry).toMatchObject({
        actor: actorOf(admin),
        action: 'workspace.created',
        subject: { type: 'workspace', id: ws },
        details: { name: 'Consumer Ltd' },
      });

      const terms = await appended(() =>
        acceptTerms(as(admin), {
          workspaceId: ws,
          administrator: 'Pat Contract',
          email: 'pat@consumer.example',
          preview: true,
        }),
      );
      expect(terms.entries).toHaveLength(2);
      expect(terms.entries.map((e) => [e.action, e.subject, e.details.terms, e.actor])).toEqual([
        ['workspace.terms_accepted', { type: 'workspace', id: ws }, 'api', actorOf(admin)],
        ['workspace.terms_accepted', { type: 'workspace', id: ws }, 'agent_tools_preview', actorOf(admin)],
      ]);
      expect(terms.entries[0]?.details).toMatchObject({ administrator: 'Pat Contract', email: 'pat@consumer.example' });

      const enabled = await one(() => enableMcp(as(admin), { workspaceId: ws, enabled: true }));
      expect(enabled.entry).toMatchObject({
        actor: actorOf(admin),
        action: 'workspace.agent_tools_enabled',
        subject: { type: 'workspace', id: ws },
      });

      const rotated = await one(() => rotateWebhookSecret(as(admin), { workspaceId: ws, overlapMs: 60_000 }));
      expect(rotated.entry).toMatchObject({
        actor: actorOf(admin),
        action: 'workspace.secret_rotated',
        subject: { type: 'workspace', id: ws },
      });

      const key = await one(() => createKey(as(admin), { workspaceId: ws, tier: 'ENTERPRISE', name: 'ingest' }));
      expect(key.entry).toMatchObject({
        actor: actorOf(admin),
        action: 'key.created',
        subject: { type: 'api_key', id: key.result.key_id },
        details: { workspace_id: ws, tier: 'ENTERPRISE', name: 'ingest' },
      });

      const revoked = await one(() => revokeKey(as(admin), { keyId: key.result.key_id }));
      expect(revoked.result).toBe('revoked');
      expect(revoked.entry).toMatchObject({
        actor: actorOf(admin),
        action: 'key.revoked',
        subject: { type: 'api_key', id: key.result.key_id },
      });
      const again = await appended(() => revokeKey(as(admin), { keyId: key.result.key_id }));
      expect(again.result).toBe('already');
      expect(again.entries).toEqual([]);

      await expectNoSecret([created.result.webhook_secret, rotated.result.webhook_secret, key.result.key]);
    });

    it('inputs.imported (one per document), inputs.approved, indicator.published (not again unchanged), provider.withdrawn, framework.released', async () => {
      const t = await team();
      const docs = [variantOf(example('worked-example'), 1), variantOf(example('low-band'), 2)];
      const imported = await appended(() =>
        submitInputs(as(t.analyst), { documents: docs.map((document, i) => ({ source: `doc${i}.json`, document })) }),
      );
      expect(imported.entries).toHaveLength(2);
      imported.entries.forEach((e, i) => {
        const record = imported.result[i];
        expect(e).toMatchObject({
          actor: actorOf(t.analyst),
          action: 'inputs.imported',
          subject: { type: 'submission', id: record?.id },
          details: { provider_id: docs[i]?.provider.id, inputs_sha256: record?.inputs_sha256 },
        });
      });

      const [p1, p2] = docs.map((d) => d.provider.id) as [string, string];
      const approved = await one(() => approveInputs(as(t.approver), { providerIds: [p1] }));
      expect(approved.entry).toMatchObject({
        actor: actorOf(t.approver),
        action: 'inputs.approved',
        subject: { type: 'submission', id: imported.result[0]?.id },
        details: { provider_id: p1, submitted_by: 'Bo Analyst' },
      });
      const all = await one(() => approveAllPending(as(t.approver)));
      expect(all.entry).toMatchObject({
        actor: actorOf(t.approver),
        action: 'inputs.approved',
        subject: { type: 'submission', id: imported.result[1]?.id },
      });
      expect(p2).toBeDefined();

      const publication = { document: validated(docs[0]), framework: V1_0, approvedAt: AFTER_EXAMPLES };
      const published = await one(() => publishIndicator(as(t.approver), publication));
      if (published.result.status !== 'published') throw new Error(`not published: ${published.result.status}`);
      expect(published.entry).toMatchObject({
        actor: actorOf(t.approver),
        action: 'indicator.published',
        subject: { type: 'provider', id: p1 },
        details: {
          risk_indicator_id: published.result.indicator.risk_indicator_id,
          final_score: published.result.indicator.final_score,
          risk_band: published.result.indicator.risk_band,
          change: 'NEW',
        },
      });
      const unchanged = await appended(() => publishIndicator(as(t.approver), publication));
      expect(unchanged.result.status).toBe('unchanged');
      expect(unchanged.entries).toEqual([]);

      const withdrawn = await one(() =>
        withdrawProvider(as(t.approver), { providerId: p1, reason: 'stopped lending' }),
      );
      expect(withdrawn.entry).toMatchObject({
        actor: actorOf(t.approver),
        action: 'provider.withdrawn',
        subject: { type: 'provider', id: p1 },
        details: { risk_indicator_id: published.result.indicator.risk_indicator_id, reason: 'stopped lending' },
      });

      const released = await one(() => publishFramework(as(t.cro), { framework: V1_0 }));
      expect(released.result.release.signed_off_by).toBe('Ed Officer');
      expect(released.entry).toMatchObject({
        actor: actorOf(t.cro),
        action: 'framework.released',
        subject: { type: 'framework', id: '1.0' },
        details: { framework_sha256: V1_0.sha256, signed_off_by: 'Ed Officer' },
      });
      const releasedAgain = await appended(() => publishFramework(as(t.cro), { framework: V1_0 }));
      expect(releasedAgain.result.created).toBe(false);
      expect(releasedAgain.entries).toEqual([]);
    });

    it('issuance.changed on add, update and close (an update that changes nothing appends nothing); coverage_request.status_changed and .resolved', async () => {
      const { analyst } = await team();
      const added = await one(() => addIssuance(as(analyst), ISSUANCE));
      const id = added.result.id;
      expect(added.entry).toMatchObject({
        actor: actorOf(analyst),
        action: 'issuance.changed',
        subject: { type: 'issuance', id },
        details: { change: 'added', status: 'ANNOUNCED' },
      });
      const updated = await one(() => updateIssuance(as(analyst), { id, changes: { ticker: 'EXSL' } }));
      expect(updated.entry).toMatchObject({
        action: 'issuance.changed',
        subject: { type: 'issuance', id },
        details: { change: 'updated', fields: ['ticker'] },
      });
      clock.advance(1000);
      const same = await appended(() => updateIssuance(as(analyst), { id, changes: { ticker: 'EXSL' } }));
      expect(same.entries).toEqual([]);
      const closed = await one(() => closeIssuance(as(analyst), { id, status: 'priced' }));
      expect(closed.entry).toMatchObject({
        actor: actorOf(analyst),
        action: 'issuance.changed',
        details: { change: 'closed', fields: ['status'], status: 'PRICED' },
      });

      // A client's request is its own record, not a change by anyone: it appends nothing.
      const received = await appended(() => requestCoverage(system(), { provider_name: 'Some Lender' }));
      expect(received.entries).toEqual([]);
      const requestId = received.result.request_id;
      const reviewing = await one(() => setRequestStatus(as(analyst), { requestId, status: 'IN_REVIEW' }));
      expect(reviewing.entry).toMatchObject({
        actor: actorOf(analyst),
        action: 'coverage_request.status_changed',
        subject: { type: 'coverage_request', id: requestId },
        details: { status: 'IN_REVIEW', previous_status: 'RECEIVED' },
      });
      const covered = await one(() => setRequestStatus(as(analyst), { requestId, status: 'COVERED', note: 'Rated.' }));
      expect(covered.entry).toMatchObject({
        actor: actorOf(analyst),
        action: 'coverage_request.resolved',
        details: { status: 'COVERED', previous_status: 'IN_REVIEW', note_changed: true },
      });
    });

    it('webhook.registered, webhook.redelivered and webhook.deleted name the API key that made them', async () => {
      const { admin } = await team();
      const ws = await createWorkspace(as(admin), { name: 'Hooks Ltd' });
      const keyed = ctxOf(store, { clock, policy: { allowLoopback: true }, workspaceId: ws.workspace_id });
      const registered = await one(() =>
        registerWebhook(keyed, {
          url: 'http://127.0.0.1:4999/hooks?token=receiver-own-secret-0123456789',
          events: ['risk_indicator.published'],
        }),
      );
      const webhookId = registered.result.id;
      expect(registered.entry).toMatchObject({
        actor: { type: 'api_key', id: 'key_test', name: null },
        action: 'webhook.registered',
        subject: { type: 'webhook', id: webhookId },
        details: {
          workspace_id: ws.workspace_id,
          url: 'http://127.0.0.1:4999/hooks',
          events: ['risk_indicator.published'],
        },
      });
      const ping = await appended(() => pingWebhook(keyed, { webhookId }));
      expect(ping.entries).toEqual([]);
      const again = await one(() => redeliver(keyed, { webhookId, deliveryId: ping.result.id }));
      expect(again.entry).toMatchObject({
        actor: { type: 'api_key', id: 'key_test', name: null },
        action: 'webhook.redelivered',
        subject: { type: 'webhook', id: webhookId },
        details: { delivery_id: again.result.id, redelivery_of: ping.result.id },
      });
      const deleted = await one(() => deleteWebhook(keyed, { webhookId }));
      expect(deleted.entry).toMatchObject({
        actor: { type: 'api_key', id: 'key_test', name: null },
        action: 'webhook.deleted',
        subject: { type: 'webhook', id: webhookId },
      });
      await expectNoSecret([ws.webhook_secret, 'receiver-own-secret-0123456789']);
    });

    it('a refused verb (wrong role, self-approval, bad input, missing terms) appends nothing and writes nothing', async () => {
      const t = await team();
      const ws = await createWorkspace(as(t.admin), { name: 'Refusals Ltd' });
      const doc = variantOf(example('worked-example'), 7);
      await submitInputs(as(t.analyst), { documents: [{ source: 'a.json', document: doc }] });
      const providerId = doc.provider.id;
      const both = await addOperator(as(t.admin), { name: 'Fay Both', roles: ['analyst', 'approver'] });
      const other = variantOf(example('low-band'), 8);
      await submitInputs(as(both), { documents: [{ source: 'b.json', document: other }] });

      // Wrong role.
      await refusedUnchanged(() => approveInputs(as(t.analyst2), { providerIds: [providerId] }), /approver role/);
      await refusedUnchanged(() => createKey(as(t.analyst), { workspaceId: ws.workspace_id, tier: 'FREE' }), /admin/);
      await refusedUnchanged(() => publishFramework(as(t.approver), { framework: V1_0 }), /chief_risk_officer/);
      // Self-approval.
      await refusedUnchanged(() => approveInputs(as(both), { providerIds: [other.provider.id] }), /cannot approve/);
      // Bad input.
      const invalid = { ...doc, evaluation_date: 'yesterday' };
      await refusedUnchanged(
        () => submitInputs(as(t.analyst), { documents: [{ source: 'bad.json', document: invalid }] }),
        /not valid/,
      );
      await refusedUnchanged(
        () => addIssuance(as(t.analyst), { ...ISSUANCE, currency: 'usd' }),
        /not a valid issuance/,
      );
      await refusedUnchanged(
        () => acceptTerms(as(t.admin), { workspaceId: ws.workspace_id, administrator: 'Pat', email: ' ' }),
        /e-mail/,
      );
      await refusedUnchanged(() => withdrawProvider(as(t.approver), { providerId, reason: ' ' }), /reason/);
      await refusedUnchanged(() => addOperator(as(t.admin), { name: 'Gus', roles: ['auditor'] }), /unknown role/);
      // Credentials before the terms.
      await refusedUnchanged(
        () => createKey(as(t.admin), { workspaceId: ws.workspace_id, tier: 'FREE' }),
        /accept-terms/,
      );
      await refusedUnchanged(
        () => enableMcp(as(t.admin), { workspaceId: ws.workspace_id, enabled: true }),
        /preview terms/,
      );
    });
  });

  /**
   * A full cycle: operators, a workspace with terms and keys, inputs imported and approved, publications, a
   * withdrawal, a framework release, issuances. Returns the trail's rows.
   */
  async function fullCycle() {
    const t = await team();
    const ws = await createWorkspace(as(t.admin), { name: 'Cycle Ltd' });
    await acceptTerms(as(t.admin), { workspaceId: ws.workspace_id, administrator: 'Pat', email: 'pat@cycle.example' });
    const key = await createKey(as(t.admin), { workspaceId: ws.workspace_id, tier: 'PROFESSIONAL' });
    const docs = [1, 2, 3].map((n) => variantOf(example('worked-example'), 20 + n));
    await submitInputs(as(t.analyst), { documents: docs.map((document) => ({ source: 'x.json', document })) });
    await approveAllPending(as(t.approver));
    for (const d of docs) {
      await publishIndicator(as(t.approver), { document: validated(d), framework: V1_0, approvedAt: AFTER_EXAMPLES });
    }
    await withdrawProvider(as(t.approver), { providerId: docs[0]?.provider.id ?? '' });
    await publishFramework(as(t.cro), { framework: V1_0 });
    await addIssuance(as(t.analyst), ISSUANCE);
    await revokeKey(as(t.admin), { keyId: key.key_id });
    return auditRows(store);
  }

  describe('verifyAudit', () => {
    it('is intact after a full cycle and names the last entry as the head', async () => {
      const rows = await fullCycle();
      const last = rows.at(-1);
      expect(rows.map((r) => Number(r.seq))).toEqual(rows.map((_, i) => i + 1));
      expect(rows.length).toBeGreaterThan(20);
      expect(new Set(rows.map((r) => r.action))).toEqual(
        new Set([
          'audit.started',
          'operator.added',
          'workspace.created',
          'workspace.terms_accepted',
          'key.created',
          'inputs.imported',
          'inputs.approved',
          'indicator.published',
          'provider.withdrawn',
          'framework.released',
          'issuance.changed',
          'key.revoked',
        ]),
      );
      expect(await verifyAudit(system())).toEqual({
        intact: true,
        entries: rows.length,
        head: { seq: Number(last?.seq), hash: last?.hash },
      });
    });

    /** Edits the store behind the service's back, then expects the chain broken at `seq`. */
    async function expectBrokenAt(seq: number, edit: () => Promise<unknown>) {
      await edit();
      const verdict = await verifyAudit(system());
      expect(verdict).toMatchObject({ intact: false, broken_seq: seq });
      return verdict;
    }

    it("finds a row's details edited, even to the same meaning written differently", async () => {
      const rows = await fullCycle();
      const k = 10;
      const row = rows[k - 1];
      if (!row) throw new Error('short chain');
      const details = JSON.parse(row.details) as Record<string, unknown>;
      await expectBrokenAt(k, () =>
        store.db
          .updateTable('audit_log')
          .set({ details: JSON.stringify({ ...details, forged: true }) })
          .where('seq', '=', k)
          .execute(),
      );
      // The original details as other JSON text (spaced): the hash of the entry still holds, the stored form does not.
      await store.db
        .updateTable('audit_log')
        .set({ details: JSON.stringify(details, null, 1) })
        .where('seq', '=', k)
        .execute();
      expect(await verifyAudit(system())).toMatchObject({ intact: false, broken_seq: k });
      await store.db.updateTable('audit_log').set({ details: row.details }).where('seq', '=', k).execute();
      expect(await verifyAudit(system())).toMatchObject({ intact: true });
    });

    it("finds a row's actor name edited", async () => {
      const rows = await fullCycle();
      const k = rows.findIndex((r) => r.action === 'inputs.approved') + 1;
      const verdict = await expectBrokenAt(k, () =>
        store.db.updateTable('audit_log').set({ actor_name: 'Bo Analyst' }).where('seq', '=', k).execute(),
      );
      expect(verdict).toMatchObject({ entries: k - 1 });
      expect((verdict as { reason: string }).reason).toMatch(new RegExp(`entry ${k}\\b`));
    });

    it('finds a middle row deleted', async () => {
      await fullCycle();
      const verdict = await expectBrokenAt(7, () => store.db.deleteFrom('audit_log').where('seq', '=', 7).execute());
      expect((verdict as { reason: string }).reason).toMatch(/entry 7 is missing/);
    });

    it('finds a row slipped in before the first entry', async () => {
      const rows = await fullCycle();
      const first = rows[0];
      if (!first) throw new Error('no chain');
      await expectBrokenAt(1, () =>
        store.db
          .insertInto('audit_log')
          .values({ ...first, seq: -5 })
          .execute(),
      );
    });

    it('finds two rows swapped, whether their contents or their seqs are exchanged', async () => {
      const rows = await fullCycle();
      const k = 12;
      const [a, b] = [rows[k - 1], rows[k]];
      if (!a || !b) throw new Error('short chain');
      const { seq: _a, ...contentA } = a;
      const { seq: _b, ...contentB } = b;
      // Every column but seq exchanged: entry k holds what k+1 held and the other way round.
      await expectBrokenAt(k, async () => {
        await store.db.updateTable('audit_log').set(contentB).where('seq', '=', k).execute();
        await store.db
          .updateTable('audit_log')
          .set(contentA)
          .where('seq', '=', k + 1)
          .execute();
      });
      // Put back, then the seqs exchanged instead (through a free value: seq is the primary key).
      await store.db.updateTable('audit_log').set(contentA).where('seq', '=', k).execute();
      await store.db
        .updateTable('audit_log')
        .set(contentB)
        .where('seq', '=', k + 1)
        .execute();
      expect(await verifyAudit(system())).toMatchObject({ intact: true });
      await expectBrokenAt(k, async () => {
        await store.db.updateTable('audit_log').set({ seq: -1 }).where('seq', '=', k).execute();
        await store.db
          .updateTable('audit_log')
          .set({ seq: k })
          .where('seq', '=', k + 1)
          .execute();
        await store.db
          .updateTable('audit_log')
          .set({ seq: k + 1 })
          .where('seq', '=', -1)
          .execute();
      });
    });

    it('finds the last row removed while the recorded head stays', async () => {
      const rows = await fullCycle();
      const last = rows.length;
      const verdict = await expectBrokenAt(last, () =>
        store.db.deleteFrom('audit_log').where('seq', '=', last).execute(),
      );
      expect(verdict).toMatchObject({ entries: last - 1, head: { seq: last, hash: rows.at(-1)?.hash } });
    });

    it("finds the recorded head's hash changed, and rows after the recorded head", async () => {
      const rows = await fullCycle();
      const last = rows.length;
      await expectBrokenAt(last, () =>
        store.db
          .updateTable('audit_head')
          .set({ hash: 'f'.repeat(64) })
          .where('id', '=', 1)
          .execute(),
      );
      await store.db
        .updateTable('audit_head')
        .set({ seq: last - 1, hash: rows.at(-2)?.hash ?? '' })
        .where('id', '=', 1)
        .execute();
      expect(await verifyAudit(system())).toMatchObject({ intact: false, broken_seq: last });
    });

    it('finds an entry dated before the entry it follows; a verb on a clock behind the trail dates its entry at the last one', async () => {
      const rows = await fullCycle();
      expect(rows.map((r) => r.at)).toEqual([...rows.map((r) => r.at)].sort());
      // A verb whose clock is a year behind (another machine's, a replayed history): dated at the trail's last time.
      const last = rows.at(-1);
      const behind = manualClock('2025-01-01T00:00:00.000Z');
      await addIssuance(ctxOf(store, { clock: behind }), ISSUANCE);
      const [added] = await listAudit(system(), { afterSeq: Number(last?.seq) });
      expect(added?.at).toBe(last?.at);
      expect(await verifyAudit(system())).toMatchObject({ intact: true });
      // Backdated behind the service's back (a rewritten row with its hash recomputed would need the whole chain).
      const k = rows.findIndex((r) => r.action === 'inputs.approved') + 1;
      const verdict = await expectBrokenAt(k, () =>
        store.db.updateTable('audit_log').set({ at: '2020-01-01T00:00:00.000Z' }).where('seq', '=', k).execute(),
      );
      expect((verdict as { reason: string }).reason).toMatch(/was changed after it was written|is dated 2020-01-01/);
    });

    it('finds the whole trail emptied, even with the recorded head set back to before the first entry', async () => {
      await fullCycle();
      await store.db.deleteFrom('audit_log').execute();
      await store.db
        .updateTable('audit_head')
        .set({ seq: 0, hash: '0'.repeat(64) })
        .where('id', '=', 1)
        .execute();
      expect(await verifyAudit(system())).toMatchObject({
        intact: false,
        entries: 0,
        broken_seq: 1,
        reason: 'the trail is empty: its genesis entry (audit.started) is missing',
      });
      await store.db.deleteFrom('audit_head').execute();
      expect(await verifyAudit(system())).toMatchObject({ intact: false, broken_seq: 1 });
    });

    it('finds a trail that does not start with its genesis entry (audit.started, by the system)', async () => {
      const rows = await fullCycle();
      const first = rows[0];
      expect(first?.action).toBe('audit.started');
      // The genesis entry's action changed: the rule names it before its hash does.
      await store.db.updateTable('audit_log').set({ action: 'operator.added' }).where('seq', '=', 1).execute();
      expect(await verifyAudit(system())).toMatchObject({
        intact: false,
        broken_seq: 1,
        reason: "entry 1 is not the trail's genesis entry (audit.started, by the system)",
      });
    });

    it('cannot see the tail cut off together with the recorded head: why signed statements carry the head', async () => {
      // Inside the store nothing tells a trail cut short, rows and head together, from a shorter trail. The signed
      // statements of the next issue name the head they were written with, so the cut shows against them.
      const rows = await fullCycle();
      const keep = rows.length - 3;
      const kept = rows[keep - 1];
      await store.db.deleteFrom('audit_log').where('seq', '>', keep).execute();
      await store.db
        .updateTable('audit_head')
        .set({ seq: keep, hash: kept?.hash ?? '' })
        .where('id', '=', 1)
        .execute();
      expect(await verifyAudit(system())).toEqual({
        intact: true,
        entries: keep,
        head: { seq: keep, hash: kept?.hash },
      });
    });
  });

  describe('listAudit', () => {
    it('filters by a date or an instant, by actor name (any case) or id, by action or family; bounds the limit', async () => {
      const t = await team();
      clock.set('2099-08-02T10:00:00.000Z');
      const doc = variantOf(example('worked-example'), 31);
      await submitInputs(as(t.analyst), { documents: [{ source: 'x.json', document: doc }] });
      clock.set('2099-08-02T12:00:00.000Z');
      await approveInputs(as(t.approver), { providerIds: [doc.provider.id] });
      clock.set('2099-08-03T08:00:00.000Z');
      await addIssuance(as(t.analyst), ISSUANCE);
      const ctx = system();
      const actions = (entries: AuditEntry[]) => entries.map((e) => e.action);

      // The migration's first entry is dated by the real clock: left out by starting after it. The verbs run on a clock
      // ahead of it (the trail's time never goes backwards: a clock behind its last entry dates at that entry's time).
      const since = (s: string) => listAudit(ctx, { since: s, afterSeq: 1 });
      expect(actions(await since('2099-08-02'))).toEqual(['inputs.imported', 'inputs.approved', 'issuance.changed']);
      expect(actions(await since('2099-08-02T11:00:00.000Z'))).toEqual(['inputs.approved', 'issuance.changed']);
      expect(actions(await since('2099-08-02T13:30:00+02:00'))).toEqual(['inputs.approved', 'issuance.changed']);
      expect(actions(await since('2099-08-03'))).toEqual(['issuance.changed']);
      expect(await since('2099-08-04')).toEqual([]);
      // Days the calendar does not have are refused, not carried into the next month (2026-02-30 is not 2026-03-02).
      for (const bad of [
        '02/08/2026',
        '2026-13-01',
        'yesterday',
        '2099-08-02T10:00',
        '2026-02-30',
        '2026-04-31',
        '2026-02-29T10:00:00Z',
        '2026-01-01T24:00:00Z',
      ]) {
        await expect(listAudit(ctx, { since: bad }), bad).rejects.toMatchObject({ code: 'invalid_value' });
      }

      const byBo = await listAudit(ctx, { actor: 'bo ANALYST' });
      expect(actions(byBo)).toEqual(['inputs.imported', 'issuance.changed']);
      expect(byBo.every((e) => e.actor.id === t.analyst.operator_id)).toBe(true);
      expect(actions(await listAudit(ctx, { actor: t.approver.operator_id }))).toEqual(['inputs.approved']);
      expect(await listAudit(ctx, { actor: 'Bo' })).toEqual([]);

      expect(actions(await listAudit(ctx, { action: 'inputs.approved' }))).toEqual(['inputs.approved']);
      expect(actions(await listAudit(ctx, { action: 'inputs.' }))).toEqual(['inputs.imported', 'inputs.approved']);
      expect(await listAudit(ctx, { action: 'inputs' })).toEqual([]);
      expect((await listAudit(ctx, { action: 'operator.' })).length).toBe(5);
      await expect(listAudit(ctx, { action: "inputs.%'" })).rejects.toMatchObject({ code: 'invalid_value' });

      const all = await listAudit(ctx);
      expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
      expect((await listAudit(ctx, { limit: 2 })).map((e) => e.seq)).toEqual([1, 2]);
      expect((await listAudit(ctx, { limit: 10_000 })).length).toBe(all.length);
      for (const limit of [0, -1, 1.5, 10_001, Number.NaN]) {
        await expect(listAudit(ctx, { limit }), String(limit)).rejects.toMatchObject({ code: 'invalid_value' });
      }
    });

    it('finds an actor named beyond ASCII by the name as written and in any case', async () => {
      const ada = await addOperator(ctxOf(store, { clock, by: 'Ada' }), { name: 'Ada', roles: ['admin'] });
      const emile = await addOperator(as(ada), { name: 'Émile Zürich', roles: ['analyst'] });
      await addIssuance(as(emile), ISSUANCE);
      const ctx = system();
      for (const name of ['Émile Zürich', 'émile zürich', 'ÉMILE ZÜRICH']) {
        const found = await listAudit(ctx, { actor: name, action: 'issuance.' });
        expect(
          found.map((e) => e.actor.id),
          name,
        ).toEqual([emile.operator_id]);
      }
    });
  });
});

/** Starts the writer script: it opens the store, says "ready", waits for "go", appends `count` entries, exits. */
function startWriter(location: FreshStore['location'], name: string, count: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, JSON.stringify(location), name, String(count)], {
    cwd: API_DIR,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (out.includes('ready\n')) {
        clearInterval(timer);
        resolve();
      }
    }, 10);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`writer ${name} exited (${code}) before it was ready: ${err}`));
    });
  });
  return { child, ready, exited, output: () => out, errors: () => err };
}

/** When a writer started and finished writing, from its "started MS" and "finished MS" lines. */
function spanOf(output: string): { started: number; finished: number } {
  const at = (word: string) => Number(new RegExp(`^${word} (\\d+)$`, 'm').exec(output)?.[1] ?? Number.NaN);
  return { started: at('started'), finished: at('finished') };
}

describe.each(engines)('two processes appending at once on %s', (engine) => {
  it('500 entries each leave one unbroken chain of 1,000 new entries', { timeout: 180_000 }, async () => {
    const store = await freshStore(engine);
    const writers: ReturnType<typeof startWriter>[] = [];
    try {
      const before = await headSeq(store);
      writers.push(startWriter(store.location, 'writer A', 500), startWriter(store.location, 'writer B', 500));
      await Promise.all(writers.map((w) => w.ready));
      for (const w of writers) w.child.stdin.end('go\n');
      const codes = await Promise.all(writers.map((w) => w.exited));
      expect(codes, writers.map((w) => w.errors()).join('\n')).toEqual([0, 0]);

      const ctx = ctxOf(store);
      const entries = await listAudit(ctx, { afterSeq: before, limit: 10_000 });
      expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => before + 1 + i));
      // One chain: each entry names the hash of the one before it, and the head names the last.
      const rows = await auditRows(store);
      rows.forEach((row, i) => {
        if (i > 0) expect(row.prev_hash, `entry ${row.seq}`).toBe(rows[i - 1]?.hash);
      });
      expect(await store.db.selectFrom('audit_head').select(['seq', 'hash']).executeTakeFirst()).toEqual({
        seq: before + 1000,
        hash: rows.at(-1)?.hash,
      });
      const seqsOf = (name: string) => entries.filter((e) => e.actor.name === name).map((e) => e.seq);
      const [a, b] = [seqsOf('writer A'), seqsOf('writer B')];
      expect([a.length, b.length]).toEqual([500, 500]);
      // They ran at once (else the test proved nothing): each started writing before the other had finished. On
      // PostgreSQL the head's row lock queues them in turn, so their entries interleave too; SQLite's busy handler
      // is not fair, and one writer may well keep the write lock until it is done while the other waits.
      const [writerA, writerB] = writers as [ReturnType<typeof startWriter>, ReturnType<typeof startWriter>];
      const [spanA, spanB] = [spanOf(writerA.output()), spanOf(writerB.output())];
      expect(spanA.started).toBeLessThan(spanB.finished);
      expect(spanB.started).toBeLessThan(spanA.finished);
      if (engine === 'postgres') {
        expect(Math.min(...b)).toBeLessThan(Math.max(...a));
        expect(Math.min(...a)).toBeLessThan(Math.max(...b));
      }
      const issuances = await sql<{ n: number | string }>`select count(*) as n from issuances`.execute(store.db);
      expect(Number(issuances.rows[0]?.n)).toBe(1000);
      expect(await verifyAudit(ctx)).toMatchObject({ intact: true, entries: before + 1000 });
    } finally {
      for (const w of writers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
      await store.dispose();
    }
  });
});
