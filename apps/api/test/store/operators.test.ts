import { getFramework } from '@svc/methodology';
import { describe, expect, it } from 'vitest';
import {
  acceptTerms,
  createKey,
  createWorkspace,
  enableMcp,
  revokeKey,
  rotateWebhookSecret,
} from '../../src/services/access/access.js';
import type { ServiceContext } from '../../src/services/context.js';
import { requestCoverage, setRequestStatus } from '../../src/services/coverage-requests/coverage-requests.js';
import { ServiceError } from '../../src/services/errors.js';
import { publishFramework } from '../../src/services/frameworks/frameworks.js';
import { approveAllPending, approveInputs, listInputs, submitInputs } from '../../src/services/inputs/inputs.js';
import { addIssuance, closeIssuance, importIssuances, updateIssuance } from '../../src/services/issuances/issuances.js';
import { listAudit } from '../../src/services/operators/audit.js';
import {
  addOperator,
  type IssuedOperator,
  listOperators,
  type OperatorRole,
  resolveOperator,
  revokeOperator,
  rotateOperatorToken,
} from '../../src/services/operators/operators.js';
import { withdrawProvider } from '../../src/services/providers/providers.js';
import { publishRun } from '../../src/services/publishing/publication-run.js';
import { publishIndicator } from '../../src/services/publishing/publishing.js';
import { secretBox } from '../../src/services/shared/secrets.js';
import { TABLES } from '../../src/store/schema.js';
import type { Store } from '../../src/store/store.js';
import { AFTER_EXAMPLES, manualClock } from '../support/clock.js';
import { ctxOf } from '../support/context.js';
import { example, ISSUANCE, validated, variantOf } from '../support/documents.js';
import { engines, freshStore, useFreshStore } from '../support/stores.js';

/**
 * Operators and roles (issue 13, DESIGN-record section 1): once a store has an operator, every verb that changes
 * the record refuses a name without a token, an operator without the role and a revoked one, and nothing is
 * written; maker-checker compares operator ids; open mode (no operator at all) works with typed names.
 */

const box = secretBox(Buffer.alloc(32, 21));
const V1_0 = getFramework('1.0');

type Operator = Pick<IssuedOperator, 'operator_id' | 'name'>;

/** Every row of every table, each table's rows sorted: "nothing was written" compares two of these. */
async function everything(store: Store): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const table of TABLES) {
    const rows = await store.db.selectFrom(table).selectAll().execute();
    out[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}

/** A verb that changes the record, the role it needs, and a call of it on the fixtures. */
interface Verb {
  name: string;
  role: OperatorRole;
  run: (ctx: ServiceContext) => Promise<unknown>;
}

describe.each(engines)('operators and roles on %s', (engine) => {
  const store = useFreshStore(engine);
  const clock = manualClock(AFTER_EXAMPLES);

  const as = (op: Operator) => ctxOf(store, { clock, box, by: op.name, operatorId: op.operator_id });
  const typed = (name: string) => ctxOf(store, { clock, box, by: name });

  /** An active administrator of the store, as a context can act for them. */
  async function activeAdmin(): Promise<Operator> {
    const found = (await listOperators(ctxOf(store))).find((o) => o.status === 'active' && o.roles.includes('admin'));
    if (!found) throw new Error('no active administrator');
    return found;
  }

  /** Expects a ServiceError matching `message` and the whole store, the audit trail included, unchanged. */
  async function refusedUnchanged(run: () => Promise<unknown>, message: RegExp, what = String(message)) {
    const before = await everything(store);
    const error = await run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, `${what}: expected a refusal matching ${message}`).toBeInstanceOf(ServiceError);
    expect((error as Error).message, what).toMatch(message);
    expect(await everything(store), `${what}: the store changed`).toEqual(before);
  }

  /**
   * A store with operators (one role each, and one holding all roles, revoked) and something for every verb to act
   * on: a workspace with a key, a pending and an approved submission, a published provider, an issuance, a request.
   */
  async function fixtures() {
    const admin = await addOperator(typed('Ada Admin'), { name: 'Ada Admin', roles: ['admin'] });
    const add = (name: string, roles: string[]) => addOperator(as(admin), { name, roles });
    const analyst = await add('Bo Analyst', ['analyst']);
    const approver = await add('Di Approver', ['approver']);
    const cro = await add('Ed Officer', ['chief_risk_officer']);
    const revoked = await add('Rex Revoked', ['analyst', 'approver', 'chief_risk_officer', 'admin']);
    await revokeOperator(as(admin), { name: 'Rex Revoked' });

    const ws = await createWorkspace(as(admin), { name: 'Fixture Ltd' });
    await acceptTerms(as(admin), { workspaceId: ws.workspace_id, administrator: 'Pat', email: 'pat@fix.example' });
    const key = await createKey(as(admin), { workspaceId: ws.workspace_id, tier: 'FREE' });
    const published = variantOf(example('worked-example'), 41);
    const pending = variantOf(example('low-band'), 42);
    await submitInputs(as(analyst), { documents: [{ source: 'p.json', document: published }] });
    await approveInputs(as(approver), { providerIds: [published.provider.id] });
    await publishIndicator(as(approver), {
      document: validated(published),
      framework: V1_0,
      approvedAt: AFTER_EXAMPLES,
    });
    await submitInputs(as(analyst), { documents: [{ source: 'q.json', document: pending }] });
    const issuance = await addIssuance(as(analyst), ISSUANCE);
    const request = await requestCoverage(ctxOf(store, { clock }), { provider_name: 'Some Lender' });

    const verbs: Verb[] = [
      {
        name: 'submitInputs',
        role: 'analyst',
        run: (ctx) =>
          submitInputs(ctx, {
            documents: [{ source: 'n.json', document: variantOf(example('worked-example'), 43) }],
          }),
      },
      {
        name: 'approveInputs',
        role: 'approver',
        run: (ctx) => approveInputs(ctx, { providerIds: [pending.provider.id] }),
      },
      { name: 'approveAllPending', role: 'approver', run: (ctx) => approveAllPending(ctx) },
      {
        name: 'publishIndicator',
        role: 'approver',
        run: (ctx) =>
          publishIndicator(ctx, {
            document: validated(variantOf(example('worked-example'), 44)),
            framework: V1_0,
            approvedAt: AFTER_EXAMPLES,
          }),
      },
      { name: 'publishRun', role: 'approver', run: (ctx) => publishRun(ctx, { providers: 'all' }) },
      {
        name: 'publishRun (release re-scoring)',
        role: 'chief_risk_officer',
        run: (ctx) => publishRun(ctx, { providers: 'all', releaseRescore: true }),
      },
      {
        name: 'withdrawProvider',
        role: 'approver',
        run: (ctx) => withdrawProvider(ctx, { providerId: published.provider.id }),
      },
      {
        name: 'publishFramework',
        role: 'chief_risk_officer',
        run: (ctx) =>
          publishFramework(ctx, {
            framework: V1_0,
            signedOffBy: ctx.actor.kind === 'operator' && ctx.actor.id === null ? 'Someone' : undefined,
          }),
      },
      { name: 'addIssuance', role: 'analyst', run: (ctx) => addIssuance(ctx, ISSUANCE) },
      {
        name: 'updateIssuance',
        role: 'analyst',
        run: (ctx) => updateIssuance(ctx, { id: issuance.id, changes: { ticker: 'NEW' } }),
      },
      {
        name: 'closeIssuance',
        role: 'analyst',
        run: (ctx) => closeIssuance(ctx, { id: issuance.id, status: 'PRICED' }),
      },
      {
        name: 'importIssuances',
        role: 'analyst',
        run: (ctx) =>
          importIssuances(ctx, {
            issuances: [
              {
                id: 'iss_00000000000000000000abcd',
                issuer_name: 'Imported AG',
                provider_id: null,
                instrument_name: 'Note',
                ticker: null,
                type: 'bond',
                status: 'ANNOUNCED',
                currency: 'EUR',
                target_amount: '1000',
                coupon_rate_pct: null,
                coupon_frequency: null,
                expected_pricing_date: null,
                announced_at: AFTER_EXAMPLES,
                updated_at: AFTER_EXAMPLES,
              },
            ],
          }),
      },
      {
        name: 'setRequestStatus',
        role: 'analyst',
        run: (ctx) => setRequestStatus(ctx, { requestId: request.request_id, status: 'IN_REVIEW' }),
      },
      { name: 'createWorkspace', role: 'admin', run: (ctx) => createWorkspace(ctx, { name: 'Another Ltd' }) },
      {
        name: 'rotateWebhookSecret',
        role: 'admin',
        run: (ctx) => rotateWebhookSecret(ctx, { workspaceId: ws.workspace_id, overlapMs: 0 }),
      },
      {
        name: 'enableMcp',
        role: 'admin',
        run: (ctx) => enableMcp(ctx, { workspaceId: ws.workspace_id, enabled: false }),
      },
      {
        name: 'acceptTerms',
        role: 'admin',
        run: (ctx) =>
          acceptTerms(ctx, {
            workspaceId: ws.workspace_id,
            administrator: 'Pat',
            email: 'pat@fix.example',
            preview: true,
          }),
      },
      {
        name: 'createKey',
        role: 'admin',
        run: (ctx) => createKey(ctx, { workspaceId: ws.workspace_id, tier: 'FREE' }),
      },
      { name: 'revokeKey', role: 'admin', run: (ctx) => revokeKey(ctx, { keyId: key.key_id }) },
      { name: 'addOperator', role: 'admin', run: (ctx) => addOperator(ctx, { name: 'Newcomer', roles: ['analyst'] }) },
      { name: 'revokeOperator', role: 'admin', run: (ctx) => revokeOperator(ctx, { name: 'Bo Analyst' }) },
      {
        name: "rotateOperatorToken (another's)",
        role: 'admin',
        run: (ctx) => rotateOperatorToken(ctx, { name: 'Ed Officer' }),
      },
    ];
    /** An operator without the role: the analyst for every role but analyst's, the approver for that. */
    const lacking = (role: OperatorRole) => (role === 'analyst' ? approver : analyst);
    return { admin, analyst, approver, cro, revoked, verbs, lacking, pending, published };
  }

  it('once an operator exists, every record-changing verb refuses a name without a token, naming SVC_OPERATOR_TOKEN', async () => {
    const { verbs } = await fixtures();
    expect(verbs).toHaveLength(22);
    for (const verb of verbs) {
      await refusedUnchanged(() => verb.run(typed('Ada Admin')), /SVC_OPERATOR_TOKEN/, verb.name);
      // No name at all is refused the same way.
      await refusedUnchanged(
        () => verb.run(ctxOf(store, { clock, box, by: '' })),
        /SVC_OPERATOR_TOKEN/,
        `${verb.name} without a name`,
      );
    }
  });

  it('every record-changing verb refuses an operator lacking its role, naming the role', async () => {
    const { verbs, lacking } = await fixtures();
    for (const verb of verbs) {
      const who = lacking(verb.role);
      await refusedUnchanged(
        () => verb.run(as(who)),
        new RegExp(`needs the ${verb.role} role, which ${who.name} does not hold`),
        verb.name,
      );
    }
  });

  it('every record-changing verb refuses a revoked operator, even one holding every role', async () => {
    const { verbs, revoked } = await fixtures();
    for (const verb of verbs) {
      await refusedUnchanged(() => verb.run(as(revoked)), /Rex Revoked was revoked on .*SVC_OPERATOR_TOKEN/, verb.name);
    }
    // Their own token cannot be rotated back to life either.
    await refusedUnchanged(() => rotateOperatorToken(as(revoked), { name: 'Rex Revoked' }), /revoked/);
  });

  it('an operator id the store does not know is refused', async () => {
    await fixtures();
    const ghost = { operator_id: 'op_000000000000000000000000', name: 'Ada Admin' };
    await refusedUnchanged(() => createWorkspace(as(ghost), { name: 'Ghost Ltd' }), /names no operator/);
  });

  it('refuses self-approval by operator id, even under the name in another case; approveAllPending leaves it pending', async () => {
    const { admin, approver } = await fixtures();
    const both = await addOperator(as(admin), { name: 'Fay Both', roles: ['analyst', 'approver'] });
    const doc = variantOf(example('worked-example'), 51);
    await submitInputs(as(both), { documents: [{ source: 'f.json', document: doc }] });
    const id = doc.provider.id;
    await refusedUnchanged(() => approveInputs(as(both), { providerIds: [id] }), /Fay Both submitted these inputs/);
    await refusedUnchanged(
      () => approveInputs(ctxOf(store, { clock, by: 'FAY BOTH', operatorId: both.operator_id }), { providerIds: [id] }),
      /submitted these inputs and cannot approve them/,
    );
    const all = await approveAllPending(as(both));
    expect(all.refused.map((r) => r.provider_id)).toContain(id);
    expect(all.approved.map((r) => r.provider_id)).not.toContain(id);
    expect((await listInputs(as(both), { pendingOnly: true })).map((r) => r.provider_id)).toContain(id);
    // Another approver may.
    const approved = await approveInputs(as(approver), { providerIds: [id] });
    expect(approved).toMatchObject([{ provider_id: id, submitted_by: 'Fay Both', approved_by: 'Di Approver' }]);
    const row = await store.db
      .selectFrom('approved_inputs')
      .select(['submitted_by_id', 'approved_by_id'])
      .where('id', '=', approved[0]?.id ?? '')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ submitted_by_id: both.operator_id, approved_by_id: approver.operator_id });
  });

  it("with a token the sign-off is the operator's own: another name is refused", async () => {
    const { cro } = await fixtures();
    await refusedUnchanged(
      () => publishFramework(as(cro), { framework: V1_0, signedOffBy: 'Someone Else' }),
      /--signed-off-by is not accepted with an operator token/,
    );
    const released = await publishFramework(as(cro), { framework: V1_0 });
    expect(released.release.signed_off_by).toBe('Ed Officer');
  });

  it('open mode (no operator at all) works with typed names and still refuses self-approval by name, in any case', async () => {
    const doc = variantOf(example('worked-example'), 61);
    const id = doc.provider.id;
    await submitInputs(typed('alice'), { documents: [{ source: 'a.json', document: doc }] });
    await refusedUnchanged(() => approveInputs(typed(' ALICE '), { providerIds: [id] }), /cannot approve/);
    await refusedUnchanged(
      () => approveInputs(ctxOf(store, { clock, by: '' }), { providerIds: [id] }),
      /name the approver with --by NAME/,
    );
    await approveInputs(typed('Bob'), { providerIds: [id] });
    const run = await publishRun(typed('Bob'), { providers: 'all' });
    expect(run.counts.published).toBe(1);
    await withdrawProvider(typed('Bob'), { providerId: id });
    const release = await publishFramework(typed('Carol'), { framework: V1_0, signedOffBy: 'Carol' });
    expect(release.release.signed_off_by).toBe('Carol');
    const ws = await createWorkspace(typed('Dan'), { name: 'Open Ltd' });
    await acceptTerms(typed('Dan'), { workspaceId: ws.workspace_id, administrator: 'Pat', email: 'pat@open.example' });
    await createKey(typed('Dan'), { workspaceId: ws.workspace_id, tier: 'FREE' });
    await addIssuance(typed('alice'), ISSUANCE);

    const entries = await listAudit(ctxOf(store), { afterSeq: 1 });
    expect(entries.map((e) => [e.action, e.actor])).toEqual([
      ['inputs.imported', { type: 'operator', id: null, name: 'alice' }],
      ['inputs.approved', { type: 'operator', id: null, name: 'Bob' }],
      ['indicator.published', { type: 'operator', id: null, name: 'Bob' }],
      ['provider.withdrawn', { type: 'operator', id: null, name: 'Bob' }],
      ['framework.released', { type: 'operator', id: null, name: 'Carol' }],
      ['workspace.created', { type: 'operator', id: null, name: 'Dan' }],
      ['workspace.terms_accepted', { type: 'operator', id: null, name: 'Dan' }],
      ['key.created', { type: 'operator', id: null, name: 'Dan' }],
      ['issuance.changed', { type: 'operator', id: null, name: 'alice' }],
    ]);
  });

  it('the first operator must hold admin; later ones need an administrator', async () => {
    await refusedUnchanged(
      () => addOperator(typed('Ann'), { name: 'Ann', roles: ['analyst', 'approver'] }),
      /first operator of a store must be an administrator/,
    );
    const ann = await addOperator(typed('Ann'), { name: 'Ann', roles: ['analyst,admin'] });
    expect(ann).toMatchObject({ name: 'Ann', roles: ['analyst', 'admin'], status: 'active', revoked_at: null });
    expect(ann.token).toMatch(/^svc_op_[A-Za-z0-9_-]{43}$/);
    // The token is kept only as its SHA-256.
    const stored = await store.db.selectFrom('operators').selectAll().executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(ann.token.slice('svc_op_'.length));
    await refusedUnchanged(() => addOperator(typed('Ann'), { name: 'Ben', roles: ['admin'] }), /SVC_OPERATOR_TOKEN/);
    await refusedUnchanged(() => addOperator(as(ann), { name: 'ANN', roles: ['analyst'] }), /exists already/);
  });

  it('the last active administrator cannot be revoked; one of two can', async () => {
    const ada = await addOperator(typed('Ada'), { name: 'Ada', roles: ['admin'] });
    await refusedUnchanged(() => revokeOperator(as(ada), { name: 'ada' }), /last active administrator/);
    const bea = await addOperator(as(ada), { name: 'Bea', roles: ['admin', 'analyst'] });
    const revoked = await revokeOperator(as(bea), { name: 'Ada' });
    expect(revoked).toMatchObject({ name: 'Ada', status: 'revoked' });
    await refusedUnchanged(() => revokeOperator(as(bea), { name: 'Bea' }), /last active administrator/);
    await refusedUnchanged(() => revokeOperator(as(bea), { name: 'Ada' }), /revoked already/);
    // Both were added at the same instant: listed by creation time, then id.
    expect((await listOperators(as(bea))).map((o) => [o.name, o.status]).sort()).toEqual([
      ['Ada', 'revoked'],
      ['Bea', 'active'],
    ]);
  });

  it('look-alike names are one name: NFC kept, format characters refused, unique by a case- and compatibility-folded key', async () => {
    const ada = await addOperator(typed('Ada'), { name: 'Ada', roles: ['admin'] });
    const bob = await addOperator(as(ada), { name: 'bob', roles: ['analyst'] });
    // A zero-width space, a zero-width joiner, a soft hyphen, a left-to-right mark: invisible, each refused by name.
    for (const [name, code] of [
      ['bo\u200bb', 'U+200B'],
      ['b\u200dob', 'U+200D'],
      ['bo\u00adb', 'U+00AD'],
      ['\u200ebob', 'U+200E'],
    ] as const) {
      await refusedUnchanged(
        () => addOperator(as(ada), { name, roles: ['analyst'] }),
        new RegExp(`must not hold format characters .*; found ${code.replace('+', '\\+')} at character`),
      );
    }
    // José composed (NFC) is kept as typed; decomposed (NFD) it is the same name, and the same key.
    const jose = await addOperator(as(ada), { name: 'Jos\u00e9', roles: ['approver'] });
    await refusedUnchanged(() => addOperator(as(ada), { name: 'Jose\u0301', roles: ['approver'] }), /exists already/);
    // Full-width letters, another case, and ß against SS: the same person by the folded key.
    for (const name of ['\uff42\uff4f\uff42', 'BOB', 'Bob ']) {
      await refusedUnchanged(() => addOperator(as(ada), { name, roles: ['approver'] }), /exists already/);
    }
    await addOperator(as(ada), { name: 'Strauß', roles: ['analyst'] });
    await refusedUnchanged(() => addOperator(as(ada), { name: 'STRAUSS', roles: ['analyst'] }), /exists already/);
    // A name given decomposed is stored composed, so every record (and every signed action) spells it one way.
    const dee = await addOperator(as(ada), { name: 'Ame\u0301lie', roles: ['analyst'] });
    expect(dee.name).toBe('Am\u00e9lie');
    expect((await listOperators(as(ada))).map((o) => o.name)).toContain('Am\u00e9lie');
    // Revoking and rotating find the operator by the same key.
    await revokeOperator(as(ada), { name: 'JOSE\u0301' });
    expect((await listOperators(as(ada))).find((o) => o.operator_id === jose.operator_id)?.status).toBe('revoked');
    expect(bob.name).toBe('bob');
  });

  it('open mode compares typed names by the folded key: "Jose\u0301" cannot approve what "Jos\u00e9" submitted', async () => {
    const doc = variantOf(example('worked-example'), 62);
    await submitInputs(typed('Jos\u00e9'), { documents: [{ source: 'a.json', document: doc }] });
    await refusedUnchanged(
      () => approveInputs(typed('JOSE\u0301'), { providerIds: [doc.provider.id] }),
      /cannot approve/,
    );
    await refusedUnchanged(
      () => approveInputs(typed('Jos\u200b\u00e9'), { providerIds: [doc.provider.id] }),
      /must not hold format characters/,
    );
  });

  it('refuses an unknown role, no role, a name with control characters and an empty name', async () => {
    await refusedUnchanged(
      () => addOperator(typed('Ada'), { name: 'Ada', roles: ['admin', 'root'] }),
      /unknown role "root"/,
    );
    await refusedUnchanged(() => addOperator(typed('Ada'), { name: 'Ada', roles: [' , '] }), /at least one role/);
    await refusedUnchanged(
      () => addOperator(typed('Ada'), { name: 'Ada\u0007', roles: ['admin'] }),
      /control characters/,
    );
    await refusedUnchanged(
      () => addOperator(typed('Ada'), { name: 'A\u202Eda', roles: ['admin'] }),
      /control characters/,
    );
    await refusedUnchanged(() => addOperator(typed('Ada'), { name: '   ', roles: ['admin'] }), /1 to 100 characters/);
    await refusedUnchanged(() => addOperator(typed('Ada'), { name: 'x'.repeat(101), roles: ['admin'] }), /1 to 100/);
    const ada = await addOperator(typed('Ada'), { name: 'Ada', roles: ['admin'] });
    await refusedUnchanged(
      () => addOperator(as(ada), { name: 'Bo\nAnalyst', roles: ['analyst'] }),
      /control characters/,
    );
    await refusedUnchanged(() => addOperator(as(ada), { name: 'Bo', roles: ['Auditor'] }), /unknown role "auditor"/);
  });

  describe('at once', () => {
    it('two administrators revoking each other at once leave one administrator', async () => {
      for (let round = 0; round < 3; round++) {
        const ada = await addOperator(round === 0 ? typed('Ada') : as(await activeAdmin()), {
          name: `Ada ${round}`,
          roles: ['admin'],
        });
        const bea = await addOperator(as(ada), { name: `Bea ${round}`, roles: ['admin'] });
        // Every other administrator is revoked first, so these two are the last.
        for (const other of await listOperators(as(ada))) {
          if (other.status === 'active' && ![ada.operator_id, bea.operator_id].includes(other.operator_id)) {
            await revokeOperator(as(ada), { name: other.name });
          }
        }
        const outcomes = await Promise.allSettled([
          revokeOperator(as(ada), { name: bea.name }),
          revokeOperator(as(bea), { name: ada.name }),
        ]);
        expect(
          outcomes.filter((o) => o.status === 'fulfilled'),
          `round ${round}`,
        ).toHaveLength(1);
        const active = (await listOperators(as(ada))).filter((o) => o.status === 'active' && o.roles.includes('admin'));
        expect(active, `round ${round}`).toHaveLength(1);
      }
    });

    it('two first operators added at once in open mode: one is the first, the other needs a token', async () => {
      // Five fresh stores: the race is in how the two transactions interleave.
      for (let round = 0; round < 5; round++) {
        const fresh = await freshStore(engine);
        try {
          const ctx = (name: string) => ctxOf(fresh, { clock, by: name });
          const outcomes = await Promise.allSettled([
            addOperator(ctx('Ada'), { name: 'Ada', roles: ['admin'] }),
            addOperator(ctx('Bea'), { name: 'Bea', roles: ['admin'] }),
          ]);
          expect(
            outcomes.filter((o) => o.status === 'fulfilled'),
            `round ${round}`,
          ).toHaveLength(1);
          expect(await listOperators(ctxOf(fresh)), `round ${round}`).toHaveLength(1);
          const added = await listAudit(ctxOf(fresh), { action: 'operator.added' });
          expect(
            added.filter((e) => e.details.first === true),
            `round ${round}`,
          ).toHaveLength(1);
        } finally {
          await fresh.dispose();
        }
      }
    });
  });

  describe('resolveOperator', () => {
    it('resolves a token to its operator and refuses a malformed, unknown or revoked token and --by beside a token', async () => {
      const ada = await addOperator(typed('Ada'), { name: 'Ada', roles: ['admin'] });
      const bo = await addOperator(as(ada), { name: 'Bo', roles: ['analyst'] });
      expect(await resolveOperator(store, { token: bo.token, needsOperator: true })).toEqual({
        kind: 'operator',
        id: bo.operator_id,
        name: 'Bo',
        open: false,
      });
      const refused = (input: Parameters<typeof resolveOperator>[1], message: RegExp) =>
        expect(resolveOperator(store, input)).rejects.toSatisfy(
          (e: unknown) => e instanceof ServiceError && e.code === 'refused' && message.test(e.message),
        );
      await refused({ token: 'svc_op_short', needsOperator: true }, /not an operator token/);
      await refused({ token: `svc_live_${'a'.repeat(43)}`, needsOperator: true }, /not an operator token/);
      await refused({ token: `svc_op_${'a'.repeat(43)}`, needsOperator: true }, /not the token of any operator/);
      await refused({ token: bo.token, by: 'Bo', needsOperator: true }, /--by is not accepted with an operator token/);
      await refused({ by: 'Bo', needsOperator: true }, /set SVC_OPERATOR_TOKEN.*--by is no longer accepted/);
      await refused({ needsOperator: true }, /SVC_OPERATOR_TOKEN/);
      // A read needs no operator.
      expect(await resolveOperator(store, { needsOperator: false })).toMatchObject({
        id: null,
        name: null,
        open: false,
      });

      const rotated = await rotateOperatorToken(as(bo), { name: 'Bo' });
      await refused({ token: bo.token, needsOperator: true }, /not the token of any operator/);
      expect(await resolveOperator(store, { token: rotated.token, needsOperator: true })).toMatchObject({
        id: bo.operator_id,
      });
      await revokeOperator(as(ada), { name: 'Bo' });
      await refused({ token: rotated.token, needsOperator: true }, /belongs to Bo, revoked on/);
    });

    it('in open mode refuses a token and takes --by at its word', async () => {
      await expect(resolveOperator(store, { token: `svc_op_${'a'.repeat(43)}`, needsOperator: true })).rejects.toThrow(
        /no operators yet/,
      );
      expect(await resolveOperator(store, { by: '  Alice ', needsOperator: true })).toEqual({
        kind: 'operator',
        id: null,
        name: 'Alice',
        open: true,
      });
      await expect(resolveOperator(store, { by: 'Al\u0000ice', needsOperator: true })).rejects.toThrow(
        /control characters/,
      );
    });
  });
});
