import { randomBytes } from 'node:crypto';
import { sha256Hex } from '@svc/methodology';
import type { Kysely } from 'kysely';
import { isoNow } from '../../clock.js';
import { nameKey } from '../../store/name-key.js';
import { lockAuditHead } from '../../store/repositories/audit.js';
import {
  anyOperator,
  findOperatorById,
  findOperatorByName,
  findOperatorByTokenHash,
  insertOperator,
  listOperatorRows,
  type OperatorRow,
  updateOperator,
} from '../../store/repositories/operators.js';
import type { Database } from '../../store/schema.js';
import type { Store } from '../../store/store.js';
import type { Actor, ServiceContext } from '../context.js';
import { ServiceError } from '../errors.js';
import { newId } from '../shared/ids.js';
import { recordAudit } from './audit.js';
import { cleanName } from './person-names.js';

/**
 * Operators, roles and who may change the record (decision 0025). An operator is a person of the risk team with
 * roles and a token (`svc_op_` and 43 characters, shown once, stored as its SHA-256). While a store has no operator
 * at all it is in open mode: names typed after `--by` are taken at their word. The first operator added must be an
 * administrator; from then on every change needs an operator's token and the role it calls for.
 */

export const OPERATOR_ROLES = ['analyst', 'approver', 'chief_risk_officer', 'admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export const OPERATOR_TOKEN_PREFIX = 'svc_op_';
const TOKEN_PATTERN = /^svc_op_[A-Za-z0-9_-]{43}$/;
/** The environment variable the CLI reads the token from, named in every refusal. */
export const OPERATOR_TOKEN_VARIABLE = 'SVC_OPERATOR_TOKEN';

/** What `svc serve`, `svc status` and every record-changing command say, once, while a store is in open mode. */
export const OPEN_MODE_WARNING =
  'open mode: this store has no operators, so maker-checker rests on names typed after --by; add the first administrator with svc operator add NAME --role admin';

export interface OperatorSummary {
  operator_id: string;
  name: string;
  roles: OperatorRole[];
  created_at: string;
  token_issued_at: string;
  revoked_at: string | null;
  status: 'active' | 'revoked';
}

export interface IssuedOperator extends OperatorSummary {
  /** Shown once: only its SHA-256 is kept. */
  token: string;
}

const hashToken = (token: string) => sha256Hex(token);
const newToken = () => `${OPERATOR_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;

function summaryOf(row: OperatorRow): OperatorSummary {
  return {
    operator_id: row.id,
    name: row.name,
    roles: rolesOf(row),
    created_at: row.created_at,
    token_issued_at: row.token_issued_at,
    revoked_at: row.revoked_at,
    status: row.revoked_at === null ? 'active' : 'revoked',
  };
}

function rolesOf(row: OperatorRow): OperatorRole[] {
  return row.roles.split(',').filter((r): r is OperatorRole => (OPERATOR_ROLES as readonly string[]).includes(r));
}

/** A person's name as the record keeps it (services/operators/person-names.ts): NFC, trimmed, 1 to 100 characters. */
export function personName(raw: string, what: string): string {
  return cleanName(raw, what);
}

/** Roles as given ("analyst,approver"): known, at least one, each once, in the canonical order. */
export function parseRoles(roles: readonly string[]): OperatorRole[] {
  const given = roles
    .flatMap((r) => r.split(','))
    .map((r) => r.trim().toLowerCase())
    .filter((r) => r !== '');
  if (given.length === 0)
    throw new ServiceError('invalid_value', `name at least one role: ${OPERATOR_ROLES.join(', ')}`);
  const unknown = given.filter((r) => !(OPERATOR_ROLES as readonly string[]).includes(r));
  if (unknown.length > 0) {
    throw new ServiceError(
      'invalid_value',
      `unknown ${unknown.length === 1 ? 'role' : 'roles'} ${unknown.map((r) => JSON.stringify(r)).join(', ')}: the roles are ${OPERATOR_ROLES.join(', ')}`,
    );
  }
  return OPERATOR_ROLES.filter((r) => given.includes(r));
}

/** Whether the store is in open mode: no operator was ever added. */
export async function isOpenMode(ctx: { store: Store }): Promise<boolean> {
  return !(await anyOperator(ctx.store.db));
}

/**
 * Checks that the context may do what needs `role`, against the store: the system may; an operator with a token
 * must still be active and hold the role; a name without a token only while the store is in open mode. Refusals
 * name the role or the token; nothing has been written when they are thrown.
 */
export async function authorise(
  ctx: ServiceContext,
  role: OperatorRole,
  doing: string,
  db: Kysely<Database> = ctx.store.db,
): Promise<void> {
  const { actor } = ctx;
  if (actor.kind === 'system') return;
  if (actor.kind !== 'operator') throw new Error(`${doing} was attempted for a ${actor.kind} actor`);
  if (actor.id === null) {
    if (await anyOperator(db)) {
      throw new ServiceError(
        'refused',
        `${doing} needs an operator with the ${role} role: set ${OPERATOR_TOKEN_VARIABLE} to your operator token (this store has operators, so names given with --by are not accepted)`,
      );
    }
    return;
  }
  const row = await findOperatorById(db, actor.id);
  if (!row) throw new ServiceError('refused', `${OPERATOR_TOKEN_VARIABLE} names no operator of this store`);
  if (row.revoked_at !== null) {
    throw new ServiceError(
      'refused',
      `operator ${row.name} was revoked on ${row.revoked_at}: ${OPERATOR_TOKEN_VARIABLE} no longer works`,
    );
  }
  if (!rolesOf(row).includes(role)) {
    throw new ServiceError(
      'refused',
      `${doing} needs the ${role} role, which ${row.name} does not hold (roles: ${rolesOf(row).join(', ')})`,
    );
  }
}

/** Who the record names as having done something: the operator, by id when they presented a token. */
export interface Person {
  id: string | null;
  name: string;
}

/**
 * The person an act (a submission, a proposal, an approval) is recorded under, once the context may do it: an
 * operator with the role, or in open mode the name given with --by (trimmed, 1 to 200 characters), or the system.
 * `what` names them in refusals ("the submitter", "the approver").
 */
export async function actingPerson(
  ctx: ServiceContext,
  role: OperatorRole,
  doing: string,
  what: string,
): Promise<Person> {
  await authorise(ctx, role, doing);
  const { actor } = ctx;
  if (actor.kind === 'system') return { id: null, name: actor.name ?? 'system' };
  const name = actor.kind === 'operator' ? (actor.name ?? '') : '';
  const id = actor.kind === 'operator' ? actor.id : null;
  if (name.trim().length === 0) {
    throw new ServiceError(
      'invalid_value',
      `name the ${what} with --by NAME (this store has no operators; once it has, SVC_OPERATOR_TOKEN says who you are)`,
    );
  }
  return { id, name: cleanName(name, `the ${what}'s name (--by)`, 200) };
}

/**
 * Whether two records name one person (a maker and a checker): the same operator by id; for an act recorded
 * without a token (open mode, or before operators), the same name as people write it ("Alice" and " alice").
 */
export function samePerson(maker: { id: string | null; name: string }, checker: Person): boolean {
  if (maker.id !== null && checker.id !== null) return maker.id === checker.id;
  return nameKey(maker.name) === nameKey(checker.name);
}

/**
 * The operator a command acts for: the holder of `token` when one is given, else the name typed after `--by` (open
 * mode only). Refused, naming the problem: a token that is malformed, unknown or revoked; a token in a store with
 * no operators; `--by` beside a token or in a store that has operators (when `needsOperator`).
 */
export async function resolveOperator(
  store: Store,
  input: {
    token?: string | undefined;
    by?: string | undefined;
    needsOperator: boolean;
    /** The option the name was given with, as refusals name it (default --by). */
    byOption?: string | undefined;
  },
): Promise<Extract<Actor, { kind: 'operator' }> & { open: boolean }> {
  const { token, by } = input;
  const byOption = input.byOption ?? '--by';
  const open = !(await anyOperator(store.db));
  if (token !== undefined) {
    if (open) {
      throw new ServiceError(
        'refused',
        `${OPERATOR_TOKEN_VARIABLE} is set but this store has no operators yet: unset it (the first administrator is added with svc operator add NAME --role admin)`,
      );
    }
    if (!TOKEN_PATTERN.test(token)) {
      throw new ServiceError(
        'refused',
        `${OPERATOR_TOKEN_VARIABLE} is not an operator token (svc_op_ and 43 characters)`,
      );
    }
    const row = await findOperatorByTokenHash(store.db, hashToken(token));
    if (!row)
      throw new ServiceError('refused', `${OPERATOR_TOKEN_VARIABLE} is not the token of any operator of this store`);
    if (row.revoked_at !== null) {
      throw new ServiceError(
        'refused',
        `${OPERATOR_TOKEN_VARIABLE} belongs to ${row.name}, revoked on ${row.revoked_at}`,
      );
    }
    if (by !== undefined) {
      throw new ServiceError(
        'refused',
        `${byOption} is not accepted with an operator token: you act as ${row.name}, the holder of ${OPERATOR_TOKEN_VARIABLE}`,
      );
    }
    return { kind: 'operator', id: row.id, name: row.name, open };
  }
  if (!open && input.needsOperator) {
    throw new ServiceError(
      'refused',
      `this store has operators: set ${OPERATOR_TOKEN_VARIABLE} to your operator token${by === undefined ? '' : ` (${byOption} is no longer accepted)`}`,
    );
  }
  return {
    kind: 'operator',
    id: null,
    name: by === undefined ? null : personName(by, `the name given with ${byOption}`),
    open,
  };
}

/**
 * Adds an operator and issues their token. The first operator of a store needs no token and must hold `admin`;
 * later ones are added by an administrator.
 */
export async function addOperator(
  ctx: ServiceContext,
  input: { name: string; roles: readonly string[] },
): Promise<IssuedOperator> {
  const name = personName(input.name, "an operator's name");
  const roles = parseRoles(input.roles);
  const token = newToken();
  return ctx.store.db.transaction().execute(async (tx) => {
    // Operator changes run one at a time (two first administrators, or two admins revoking each other, are not).
    await lockAuditHead(tx);
    const first = !(await anyOperator(tx));
    if (first && !roles.includes('admin')) {
      throw new ServiceError(
        'refused',
        'the first operator of a store must be an administrator: add --role admin (with any other roles they hold)',
      );
    }
    if (!first) await authorise(ctx, 'admin', 'adding an operator', tx);
    if (await findOperatorByName(tx, nameKey(name)))
      throw new ServiceError('refused', `an operator named ${name} exists already`);
    const now = isoNow(ctx.clock);
    const row: OperatorRow = {
      id: newId('op'),
      name,
      name_key: nameKey(name),
      roles: roles.join(','),
      token_hash: hashToken(token),
      created_at: now,
      token_issued_at: now,
      revoked_at: null,
    };
    await insertOperator(tx, row);
    // The store's first administrator, added without a token, is recorded as having added themselves.
    const by =
      first && ctx.actor.kind === 'operator' ? { ...ctx, actor: { kind: 'operator' as const, id: row.id, name } } : ctx;
    await recordAudit(by, tx, [
      { action: 'operator.added', subject: { type: 'operator', id: row.id }, details: { name, roles, first } },
    ]);
    return { ...summaryOf(row), token };
  });
}

export async function listOperators(ctx: ServiceContext): Promise<OperatorSummary[]> {
  return (await listOperatorRows(ctx.store.db)).map(summaryOf);
}

/**
 * Revokes an operator's token for good (an administrator's act). The last active administrator is never revoked:
 * nobody could add operators after.
 */
export async function revokeOperator(ctx: ServiceContext, input: { name: string }): Promise<OperatorSummary> {
  const name = personName(input.name, "an operator's name");
  return ctx.store.db.transaction().execute(async (tx) => {
    await lockAuditHead(tx);
    await authorise(ctx, 'admin', 'revoking an operator', tx);
    const row = await findOperatorByName(tx, nameKey(name));
    if (!row) throw new ServiceError('not_found', `no operator named ${name}`);
    if (row.revoked_at !== null)
      throw new ServiceError('refused', `operator ${row.name} was revoked already, on ${row.revoked_at}`);
    const admins = (await listOperatorRows(tx)).filter((o) => o.revoked_at === null && rolesOf(o).includes('admin'));
    if (admins.length === 1 && admins[0]?.id === row.id) {
      throw new ServiceError(
        'refused',
        `${row.name} is the last active administrator: add another administrator first`,
      );
    }
    const now = isoNow(ctx.clock);
    // Recorded first: an administrator revoking themselves is still active when their act is recorded.
    await recordAudit(ctx, tx, [
      { action: 'operator.revoked', subject: { type: 'operator', id: row.id }, details: { name: row.name } },
    ]);
    await updateOperator(tx, row.id, { revoked_at: now });
    return summaryOf({ ...row, revoked_at: now });
  });
}

/**
 * Issues a new token to an operator; the old one stops working at once. An administrator may rotate anyone's
 * token, every operator their own.
 */
export async function rotateOperatorToken(ctx: ServiceContext, input: { name: string }): Promise<IssuedOperator> {
  const name = personName(input.name, "an operator's name");
  const token = newToken();
  return ctx.store.db.transaction().execute(async (tx) => {
    await lockAuditHead(tx);
    const row = await findOperatorByName(tx, nameKey(name));
    const own = ctx.actor.kind === 'operator' && ctx.actor.id !== null && ctx.actor.id === row?.id;
    if (!own) await authorise(ctx, 'admin', "rotating another operator's token", tx);
    if (!row) throw new ServiceError('not_found', `no operator named ${name}`);
    if (row.revoked_at !== null)
      throw new ServiceError('refused', `operator ${row.name} was revoked on ${row.revoked_at}`);
    const now = isoNow(ctx.clock);
    await updateOperator(tx, row.id, { token_hash: hashToken(token), token_issued_at: now });
    await recordAudit(ctx, tx, [
      { action: 'operator.token_rotated', subject: { type: 'operator', id: row.id }, details: { name: row.name } },
    ]);
    return { ...summaryOf({ ...row, token_issued_at: now }), token };
  });
}
